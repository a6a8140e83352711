package io.gitm.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class LogisticTest {
  /** Standard normal columns and a treatment drawn from {@code logit P = beta·(1, x)}. */
  private record Data(double[][] x, boolean[] t) {
    static Data draw(int n, double[] beta, long seed) {
      SplittableRandom random = new SplittableRandom(seed);
      int k = beta.length - 1;
      double[][] x = new double[k][n];
      boolean[] t = new boolean[n];
      for (int i = 0; i < n; i++) {
        double eta = beta[0];
        for (int j = 0; j < k; j++) {
          x[j][i] = random.nextGaussian();
          eta += beta[j + 1] * x[j][i];
        }
        t[i] = random.nextDouble() < Logistic.sigmoid(eta);
      }
      return new Data(x, t);
    }
  }

  @Test
  void recoversTheCoefficientsThatGeneratedTheData() {
    double[] truth = {-0.4, 1.0, -0.6, 0.0};
    Data d = Data.draw(200_000, truth, 61);
    Logistic.Fit fit = Logistic.fit(d.x(), d.t(), new int[][] {{0, 200_000}}, new double[4], null, false);
    assertThat(fit.converged()).isTrue();
    for (int j = 0; j < truth.length; j++) {
      // standard errors are about 0.006 here
      assertThat(fit.beta()[j]).as("beta %d", j).isCloseTo(truth[j], within(0.03));
    }
  }

  @Test
  void theOptimumSatisfiesThePenalizedScoreEquations() {
    // at the maximum: X'(t − π) = λ·β for the covariates and 0 for the intercept
    Data d = Data.draw(2000, new double[] {0.3, 0.8, -1.2}, 62);
    int[][] all = {{0, 2000}};
    double[] beta = Logistic.fit(d.x(), d.t(), all, new double[3], null, false).beta();
    double[] sums = Logistic.sums(d.x(), d.t(), all, beta, true);
    int h = 3 * 4 / 2;
    assertThat(sums[h]).isCloseTo(0, within(1e-6));
    for (int j = 1; j < 3; j++) {
      assertThat(sums[h + j]).isCloseTo(Logistic.RIDGE * beta[j], within(1e-6));
    }
  }

  @Test
  void theChordMethodFromANearbyStartReachesTheNewtonOptimum() {
    Data d = Data.draw(5000, new double[] {0.1, 0.7, 0.4}, 63);
    double[] full = Logistic.fit(d.x(), d.t(), new int[][] {{0, 5000}}, new double[3], null, false).beta();
    int[][] part = {{0, 1000}, {2000, 5000}};
    double[] newton = Logistic.fit(d.x(), d.t(), part, full, null, false).beta();
    double[] chord = Logistic.fit(d.x(), d.t(), part, full, Logistic.sums(d.x(), d.t(), part, full, true), true)
        .beta();
    for (int j = 0; j < 3; j++) {
      assertThat(chord[j]).isCloseTo(newton[j], within(1e-6));
      assertThat(chord[j]).isNotCloseTo(full[j], within(1e-4));
    }
  }

  @Test
  void separableClassesKeepFiniteCoefficientsThanksToTheRidge() {
    int n = 500;
    SplittableRandom random = new SplittableRandom(64);
    double[][] x = new double[1][n];
    boolean[] t = new boolean[n];
    for (int i = 0; i < n; i++) {
      x[0][i] = random.nextGaussian();
      t[i] = x[0][i] > 0;
    }
    Logistic.Fit fit = Logistic.fit(x, t, new int[][] {{0, n}}, new double[2], null, false);
    assertThat(fit.converged()).isTrue();
    assertThat(fit.beta()[1]).isPositive().isLessThan(100);
  }

  @Test
  void sigmoidNeitherOverflowsNorLosesItsTails() {
    assertThat(Logistic.sigmoid(800)).isEqualTo(1.0);
    assertThat(Logistic.sigmoid(-800)).isEqualTo(0.0);
    assertThat(Logistic.sigmoid(-40)).isCloseTo(Math.exp(-40), within(1e-30));
    assertThat(Logistic.sigmoid(0)).isEqualTo(0.5);
  }

  @Test
  void sumsDoNotDependOnHowRowsAreSplitIntoChunks() {
    Data d = Data.draw(3 * Logistic.Rows.CHUNK + 17, new double[] {0.2, 0.5}, 65);
    int n = d.t().length;
    double[] beta = {0.1, 0.4};
    double[] whole = Logistic.sums(d.x(), d.t(), new int[][] {{0, n}}, beta, true);
    double[] split = Logistic.sums(d.x(), d.t(), new int[][] {{0, 1000}, {1000, n}}, beta, true);
    for (int j = 0; j < whole.length; j++) {
      assertThat(split[j]).isCloseTo(whole[j], within(1e-9 * Math.max(1, Math.abs(whole[j]))));
    }
    assertThat(Logistic.sums(d.x(), d.t(), new int[][] {{0, n}}, beta, true)).containsExactly(whole);
  }
}
