package io.gitm.stats;

import java.util.SplittableRandom;

/**
 * Seeded rows with a known average effect τ of a binary condition, confounded by the covariates: x0 raises both the
 * chance of the condition and the outcome, so the naive difference of means overstates τ.
 *
 * <p>Covariates x_j ~ N(0, 1); {@code logit P(t = 1) = −0.3 + 0.8·x0 − 0.5·x1} (plus {@code 0.8·x0² − 0.8} when the
 * propensity is nonlinear); {@code y = 1 + τ·t + 1.5·x0 + x1 − 0.5·x2 + ε} (plus {@code x0² − 1} when the outcome is
 * nonlinear), ε ~ N(0, 1). A nonlinear part is one the linear models cannot fit.
 */
record Confounded(double[][] columns, boolean[] treated, double[] outcome) {
  static Confounded draw(int n, int k, double tau, long seed, boolean nonlinearPropensity, boolean nonlinearOutcome) {
    if (k < 3) {
      throw new IllegalArgumentException("the design uses three covariates");
    }
    SplittableRandom random = new SplittableRandom(seed);
    double[][] x = new double[k][n];
    boolean[] t = new boolean[n];
    double[] y = new double[n];
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < k; j++) {
        x[j][i] = random.nextGaussian();
      }
      double x0 = x[0][i];
      double logit = -0.3 + 0.8 * x0 - 0.5 * x[1][i] + (nonlinearPropensity ? 0.8 * x0 * x0 - 0.8 : 0);
      t[i] = random.nextDouble() < 1 / (1 + Math.exp(-logit));
      y[i] = 1 + (t[i] ? tau : 0) + 1.5 * x0 + x[1][i] - 0.5 * x[2][i] + (nonlinearOutcome ? x0 * x0 - 1 : 0)
          + random.nextGaussian();
    }
    return new Confounded(x, t, y);
  }

  static Confounded draw(int n, int k, double tau, long seed) {
    return draw(n, k, tau, seed, false, false);
  }
}
