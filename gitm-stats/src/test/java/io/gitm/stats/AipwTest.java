package io.gitm.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.stats.Aipw.Effect;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class AipwTest {
  static final double TAU = 0.7;

  @Test
  void recoversTheEffectWhereTheNaiveDifferenceIsBiasedByConfounding() {
    Confounded d = Confounded.draw(20_000, 3, TAU, 41);
    Effect e = Aipw.estimate(d.columns(), d.treated(), d.outcome(), Aipw.DEFAULT_FOLDS, 1);
    assertThat(e.testable()).as(e.reason()).isTrue();
    assertThat(e.reason()).isEmpty();
    assertThat(Math.abs(e.ate() - TAU)).isLessThan(4 * e.standardError());
    assertThat(Math.abs(e.naiveDifference() - TAU)).isGreaterThan(20 * e.standardError());
    assertThat(e.ciLow()).isLessThan(e.ate());
    assertThat(e.ciHigh()).isGreaterThan(e.ate());
    assertThat(e.ciHigh() - e.ciLow()).isCloseTo(2 * 1.959964 * e.standardError(),
        org.assertj.core.api.Assertions.within(1e-6));
    assertThat(e.pValue()).isLessThan(1e-10);
    assertThat(e.n()).isEqualTo(20_000);
    int treated = 0;
    for (boolean t : d.treated()) {
      treated += t ? 1 : 0;
    }
    assertThat(e.nTreated()).isEqualTo(treated);
  }

  @Test
  void confidenceIntervalCoversTheTruthInAboutNinetyFivePercentOfSeeds() {
    int seeds = 100;
    int covered = 0;
    for (int s = 0; s < seeds; s++) {
      Confounded d = Confounded.draw(1000, 3, TAU, 100 + s);
      Effect e = Aipw.estimate(d.columns(), d.treated(), d.outcome(), Aipw.DEFAULT_FOLDS, s);
      assertThat(e.testable()).isTrue();
      covered += e.ciLow() <= TAU && TAU <= e.ciHigh() ? 1 : 0;
    }
    assertThat(covered / (double) seeds).isBetween(0.88, 0.99);
  }

  @Test
  void aWrongOutcomeModelIsRescuedByARightPropensityModel() {
    Confounded d = Confounded.draw(40_000, 3, TAU, 42, false, true);
    Effect e = Aipw.estimate(d.columns(), d.treated(), d.outcome(), Aipw.DEFAULT_FOLDS, 2);
    assertThat(Math.abs(e.ate() - TAU)).isLessThan(4 * e.standardError());
    assertThat(Math.abs(e.naiveDifference() - TAU)).isGreaterThan(10 * e.standardError());
  }

  @Test
  void aWrongPropensityModelIsRescuedByRightOutcomeModels() {
    Confounded d = Confounded.draw(40_000, 3, TAU, 43, true, false);
    Effect e = Aipw.estimate(d.columns(), d.treated(), d.outcome(), Aipw.DEFAULT_FOLDS, 3);
    assertThat(Math.abs(e.ate() - TAU)).isLessThan(4 * e.standardError());
    assertThat(Math.abs(e.naiveDifference() - TAU)).isGreaterThan(10 * e.standardError());
  }

  @Test
  void noEffectIsSignificantInAboutFivePercentOfSeeds() {
    int seeds = 100;
    int significant = 0;
    for (int s = 0; s < seeds; s++) {
      Confounded d = Confounded.draw(800, 4, 0, 300 + s);
      significant += Aipw.estimate(d.columns(), d.treated(), d.outcome(), 5, s).significant(0.05) ? 1 : 0;
    }
    assertThat(significant / (double) seeds).isLessThanOrEqualTo(0.12);
  }

  @Test
  void theSameSeedGivesTheSameEstimateAndAnotherSeedAnotherSplit() {
    Confounded d = Confounded.draw(3000, 3, TAU, 44);
    Effect a = Aipw.estimate(d.columns(), d.treated(), d.outcome(), 5, 7);
    Effect b = Aipw.estimate(d.columns(), d.treated(), d.outcome(), 5, 7);
    Effect c = Aipw.estimate(d.columns(), d.treated(), d.outcome(), 5, 8);
    assertThat(b).isEqualTo(a);
    assertThat(c.ate()).isNotEqualTo(a.ate());
    assertThat(Math.abs(c.ate() - a.ate())).isLessThan(a.standardError());
  }

  @Test
  void foldsAreStratifiedByArmAndBalanced() {
    Confounded d = Confounded.draw(1003, 3, TAU, 45);
    int treated = 0;
    for (boolean t : d.treated()) {
      treated += t ? 1 : 0;
    }
    byte[] fold = Aipw.assignFolds(d.treated(), treated, 4, 9);
    int[][] count = new int[4][2];
    for (int i = 0; i < fold.length; i++) {
      count[fold[i]][d.treated()[i] ? 1 : 0]++;
    }
    for (int arm = 0; arm < 2; arm++) {
      int min = Integer.MAX_VALUE;
      int max = 0;
      for (int f = 0; f < 4; f++) {
        min = Math.min(min, count[f][arm]);
        max = Math.max(max, count[f][arm]);
      }
      assertThat(max - min).isLessThanOrEqualTo(1);
    }
  }

  @Test
  void scalesToAMillionRowsWithEightCovariates() {
    Confounded d = Confounded.draw(1_000_000, 8, TAU, 46);
    Effect e = Aipw.estimate(d.columns(), d.treated(), d.outcome(), Aipw.DEFAULT_FOLDS, 4);
    assertThat(e.testable()).isTrue();
    assertThat(Math.abs(e.ate() - TAU)).isLessThan(4 * e.standardError());
    assertThat(e.standardError()).isLessThan(0.01);
  }

  @Test
  void constantAndNoCovariatesStillGiveAnEstimate() {
    Confounded d = Confounded.draw(2000, 3, TAU, 47);
    double[] constant = new double[2000];
    Arrays.fill(constant, 3.0);
    double[][] withConstant = {d.columns()[0], constant, d.columns()[1], d.columns()[2]};
    Effect a = Aipw.estimate(withConstant, d.treated(), d.outcome(), 5, 1);
    Effect b = Aipw.estimate(d.columns(), d.treated(), d.outcome(), 5, 1);
    assertThat(a.ate()).isEqualTo(b.ate());
    // without covariates nothing is adjusted: the estimate is close to the naive difference
    Effect none = Aipw.estimate(new double[0][], d.treated(), d.outcome(), 5, 1);
    assertThat(none.testable()).isTrue();
    assertThat(Math.abs(none.ate() - none.naiveDifference())).isLessThan(0.1 * none.standardError());
  }

  @Test
  void separableArmsAreClippedAndCounted() {
    // treated exactly when x0 > 0: propensities near 0 and 1 everywhere
    Confounded d = Confounded.draw(2000, 3, TAU, 48);
    boolean[] t = new boolean[2000];
    for (int i = 0; i < t.length; i++) {
      t[i] = d.columns()[0][i] > 0;
    }
    Effect e = Aipw.estimate(d.columns(), t, d.outcome(), 5, 1);
    assertThat(e.testable()).isTrue();
    assertThat(e.clipped()).isGreaterThan(1000);
    assertThat(Double.isFinite(e.ate())).isTrue();
  }

  @Test
  void dataProblemsAreUntestableWithAReason() {
    Confounded d = Confounded.draw(200, 3, TAU, 49);
    boolean[] none = new boolean[200];
    assertUntestable(Aipw.estimate(d.columns(), none, d.outcome(), 5, 1), "no treated rows");
    boolean[] all = new boolean[200];
    Arrays.fill(all, true);
    assertUntestable(Aipw.estimate(d.columns(), all, d.outcome(), 5, 1), "no control rows");
    Confounded small = Confounded.draw(20, 3, TAU, 50);
    assertUntestable(Aipw.estimate(small.columns(), small.treated(), small.outcome(), 5, 1), "only 20 rows");
    double[][] nanColumns = {d.columns()[0], d.columns()[1].clone(), d.columns()[2]};
    nanColumns[1][17] = Double.NaN;
    assertUntestable(Aipw.estimate(nanColumns, d.treated(), d.outcome(), 5, 1), "covariate 1 has a NaN at row 17");
    double[] infOutcome = d.outcome().clone();
    infOutcome[3] = Double.POSITIVE_INFINITY;
    assertUntestable(Aipw.estimate(d.columns(), d.treated(), infOutcome, 5, 1),
        "the outcome has an infinite value at row 3");
    double[] constantOutcome = new double[200];
    Arrays.fill(constantOutcome, 2.5);
    assertUntestable(Aipw.estimate(d.columns(), d.treated(), constantOutcome, 5, 1), "the outcome is constant");
    boolean[] few = new boolean[200];
    few[3] = true;
    few[50] = true;
    few[120] = true;
    assertUntestable(Aipw.estimate(d.columns(), few, d.outcome(), 5, 1), "only 3 treated rows");
  }

  @Test
  void callerMistakesAreIllegalArguments() {
    Confounded d = Confounded.draw(100, 3, TAU, 51);
    assertThatThrownBy(() -> Aipw.estimate(null, d.treated(), d.outcome(), 5, 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must not be null");
    assertThatThrownBy(() -> Aipw.estimate(d.columns(), d.treated(), new double[99], 5, 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("99 outcomes for 100 rows");
    double[][] ragged = {d.columns()[0], new double[7]};
    assertThatThrownBy(() -> Aipw.estimate(ragged, d.treated(), d.outcome(), 5, 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("column-major");
    assertThatThrownBy(() -> Aipw.estimate(d.columns(), d.treated(), d.outcome(), 1, 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("folds");
  }

  private static void assertUntestable(Effect e, String reason) {
    assertThat(e.testable()).isFalse();
    assertThat(e.reason()).contains(reason);
    assertThat(e.ate()).isNaN();
    assertThat(e.pValue()).isNaN();
    assertThat(e.significant(0.05)).isFalse();
  }
}
