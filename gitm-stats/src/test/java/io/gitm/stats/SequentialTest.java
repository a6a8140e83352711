package io.gitm.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.gitm.stats.Sequential.Look;
import org.junit.jupiter.api.Test;

class SequentialTest {
  private static final double[] ANCHOR = {100, 102, 98, 101};
  private static final double[] CANDIDATE = {110, 111, 109, 113};

  @Test
  void fromThreePairsALookIsThePairedTTestOfTheLogRatios() {
    // reference: scipy.stats.ttest_1samp(log(c) - log(a), 0)
    Look l = Sequential.look(ANCHOR, CANDIDATE, 4, true);
    assertThat(l.estimate()).isCloseTo(0.09962881831551007, within(1e-12));
    assertThat(l.standardError()).isCloseTo(0.006131298254165691, within(1e-12));
    assertThat(l.df()).isEqualTo(3);
    assertThat(l.p()).isCloseTo(0.000507087912375794, within(1e-9));
  }

  @Test
  void atTwoPairsALookIsThePooledTwoSampleTTest() {
    // reference: scipy.stats.ttest_ind(log(c[:2]), log(a[:2]))
    Look l = Sequential.look(ANCHOR, CANDIDATE, 2, true);
    assertThat(l.estimate()).isCloseTo(0.089933783916194, within(1e-12));
    assertThat(l.df()).isEqualTo(2);
    assertThat(l.p()).isCloseTo(0.014338150510777687, within(1e-9));
  }

  @Test
  void whenLowerIsBetterTheLogRatioChangesSign() {
    Look l = Sequential.look(ANCHOR, CANDIDATE, 4, false);
    assertThat(l.estimate()).isCloseTo(-0.09962881831551007, within(1e-12));
    assertThat(l.t()).isNegative();
    assertThat(l.upperBound(0.025)).isCloseTo(-0.09962881831551007 + 3.1824463052837078 * 0.006131298254165691,
        within(1e-9));
  }

  @Test
  void pairsThatAllMeasureAlikeHaveNoErrorAndAnExtremeP() {
    Look l = Sequential.look(new double[] {1, 1, 1}, new double[] {2, 2, 2}, 3, true);
    assertThat(l.standardError()).isZero();
    assertThat(l.p()).isZero();
    assertThat(l.t()).isInfinite();
    assertThat(Sequential.look(new double[] {1, 1}, new double[] {1, 1}, 2, true).p()).isEqualTo(1);
  }

  @Test
  void theSpendingFunctionIsAPowerOfTheInformationFraction() {
    assertThat(Sequential.spent(0, 1.5)).isZero();
    assertThat(Sequential.spent(1, 1.5)).isEqualTo(1);
    assertThat(Sequential.spent(0.25, 2)).isCloseTo(0.0625, within(1e-15));
  }

  @Test
  void theAdjustedPIsBelowAlphaExactlyWhenALookCrossedItsShare() {
    double[] shares = {0.25, 0.25, 0.5};
    // look 2 crossed at alpha 0.05: 0.01 < 0.05 * 0.25
    assertThat(Sequential.adjustedP(new double[] {0.2, 0.01, 0.3}, shares)).isCloseTo(0.04, within(1e-15));
    // no look crossed: 0.02 >= 0.0125, 0.03 >= 0.025
    assertThat(Sequential.adjustedP(new double[] {0.02, 0.9, 0.03}, shares)).isCloseTo(0.06, within(1e-15));
    assertThat(Sequential.adjustedP(new double[] {0.9}, new double[] {0.5})).isEqualTo(1);
  }

  @Test
  void badInputIsRefused() {
    assertThatThrownBy(() -> Sequential.look(ANCHOR, CANDIDATE, 1, true)).hasMessageContaining("2 or more pairs");
    assertThatThrownBy(() -> Sequential.look(new double[] {1, -1}, new double[] {1, 1}, 2, true))
        .hasMessageContaining("positive");
    assertThatThrownBy(() -> Sequential.spent(1.5, 1)).hasMessageContaining("fraction");
    assertThatThrownBy(() -> Sequential.adjustedP(new double[] {0.1}, new double[] {0}))
        .hasMessageContaining("share");
  }
}
