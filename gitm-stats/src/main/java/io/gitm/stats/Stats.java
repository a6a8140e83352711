package io.gitm.stats;

import java.util.Arrays;

/**
 * A sample summarised with its unit: count, median, p99, mean, min, max. Percentiles are nearest-rank on the sorted
 * sample.
 */
public record Stats(String unit, int n, double p50, double p99, double mean, double min, double max) {

  public static Stats of(String unit, double[] values) {
    if (values.length == 0) {
      return new Stats(unit, 0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
    }
    double[] v = values.clone();
    Arrays.sort(v);
    double sum = 0;
    for (double x : v) {
      sum += x;
    }
    return new Stats(unit, v.length, rank(v, 0.50), rank(v, 0.99), sum / v.length, v[0], v[v.length - 1]);
  }

  static double rank(double[] sorted, double q) {
    int i = (int) Math.ceil(q * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
  }
}
