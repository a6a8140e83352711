package io.gitm.stats;

import java.util.Arrays;

/**
 * Descriptive statistics of a sample of doubles: its median, quantiles, mean and standard deviation. No method keeps
 * or changes the array it is given.
 *
 * <p>The definitions, each one stated once:
 *
 * <ul>
 *   <li>{@link #median}: the middle value of the sorted sample, or for an even count the mean of the two middle
 *       values, {@code (s[n/2 − 1] + s[n/2]) / 2};
 *   <li>{@link #upperMedian}: the middle value, or for an even count the upper of the two middle values,
 *       {@code s[n/2]}: always a value of the sample;
 *   <li>{@link #quantile}: linear interpolation between the order statistics at position {@code q·(n − 1)}
 *       (Hyndman and Fan's type 7, the default of R and NumPy), {@code s[⌊h⌋] + (h − ⌊h⌋)·(s[⌊h⌋ + 1] − s[⌊h⌋])};
 *   <li>{@link #nearestRank}: the order statistic of rank {@code ⌈q·n⌉} (type 1, the inverse of the empirical
 *       distribution function), always a value of the sample;
 *   <li>{@link #mean}: the sum in the sample's order over n;
 *   <li>{@link #variance}: the sample variance {@code Σ(x − mean)² / (n − 1)}, with n − 1 taken as 1 for a single
 *       value (whose deviation is then 0), and {@link #sd} its square root.
 * </ul>
 *
 * <p>An empty sample has no median, mean or standard deviation: they are NaN.
 */
public final class Sample {
  private Sample() {}

  /** The median: the mean of the two middle values when the count is even; NaN for no values. */
  public static double median(double[] values) {
    if (values.length == 0) {
      return Double.NaN;
    }
    double[] s = sorted(values);
    int n = s.length;
    return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  }

  /** The upper median: the upper of the two middle values when the count is even; NaN for no values. */
  public static double upperMedian(double[] values) {
    if (values.length == 0) {
      return Double.NaN;
    }
    return sorted(values)[values.length / 2];
  }

  /**
   * The {@code q} quantile of an already sorted sample, by linear interpolation (type 7).
   *
   * @param sorted the sample in ascending order, at least one value
   * @param q in [0, 1]
   */
  static double quantile(double[] sorted, double q) {
    double pos = q * (sorted.length - 1);
    int lo = (int) Math.floor(pos);
    int hi = Math.min(lo + 1, sorted.length - 1);
    return sorted[lo] + (pos - lo) * (sorted[hi] - sorted[lo]);
  }

  /**
   * The {@code q} quantile of an already sorted sample by nearest rank (type 1): the value of rank {@code ⌈q·n⌉},
   * clamped to the sample.
   *
   * @param sorted the sample in ascending order, at least one value
   */
  static double nearestRank(double[] sorted, double q) {
    int i = (int) Math.ceil(q * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
  }

  /** The arithmetic mean; NaN for no values. */
  public static double mean(double[] values) {
    double s = 0;
    for (double x : values) {
      s += x;
    }
    return s / values.length;
  }

  /** The sample standard deviation, the square root of {@link #variance}; NaN for no values. */
  public static double sd(double[] values) {
    return Math.sqrt(variance(values));
  }

  /** The sample variance {@code Σ(x − mean)² / (n − 1)}, with n − 1 taken as 1 for a single value; NaN for none. */
  public static double variance(double[] values) {
    double mean = mean(values);
    double s = 0;
    for (double x : values) {
      s += (x - mean) * (x - mean);
    }
    return values.length == 0 ? Double.NaN : s / Math.max(1, values.length - 1);
  }

  private static double[] sorted(double[] values) {
    double[] s = values.clone();
    Arrays.sort(s);
    return s;
  }
}
