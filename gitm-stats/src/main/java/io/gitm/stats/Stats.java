package io.gitm.stats;

import java.util.Arrays;

/**
 * A sample summarised with its unit: count, median, p99, mean, min, max. Percentiles are nearest-rank on the sorted
 * sample ({@link Sample#nearestRank}); the mean sums the sorted values.
 */
public record Stats(String unit, int n, double p50, double p99, double mean, double min, double max) {

  public static Stats of(String unit, double[] values) {
    if (values.length == 0) {
      return new Stats(unit, 0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
    }
    double[] v = values.clone();
    Arrays.sort(v);
    return new Stats(unit, v.length, Sample.nearestRank(v, 0.50), Sample.nearestRank(v, 0.99), Sample.mean(v), v[0],
        v[v.length - 1]);
  }
}
