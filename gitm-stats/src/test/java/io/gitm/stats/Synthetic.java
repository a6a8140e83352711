package io.gitm.stats;

import java.util.SplittableRandom;

/** Seeded synthetic series with known structure. */
final class Synthetic {
  private Synthetic() {}

  /** An AR(1) series {@code s_t = φ·s_{t−1} + ε_t}, ε standard normal, after a burn-in of 100 points. */
  static double[] ar1(int n, double phi, SplittableRandom random) {
    double[] s = new double[n];
    double v = 0;
    for (int t = -100; t < n; t++) {
      v = phi * v + random.nextGaussian();
      if (t >= 0) {
        s[t] = v;
      }
    }
    return s;
  }

  /** Cumulative sums: an integrated series. */
  static double[] integrate(double[] s) {
    double[] out = new double[s.length];
    double acc = 0;
    for (int t = 0; t < s.length; t++) {
      acc += s[t];
      out[t] = acc;
    }
    return out;
  }

  /** {@code y_t = a·y_{t−1} + b·x_{t−delay} + ε_t} (zero before the delay is reached). */
  static double[] drivenBy(double[] x, int delay, double a, double b, SplittableRandom random) {
    double[] y = new double[x.length];
    for (int t = 0; t < x.length; t++) {
      double prev = t > 0 ? y[t - 1] : 0;
      double driver = t >= delay ? x[t - delay] : 0;
      y[t] = a * prev + b * driver + random.nextGaussian();
    }
    return y;
  }
}
