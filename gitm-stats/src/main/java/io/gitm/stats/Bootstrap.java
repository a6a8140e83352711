package io.gitm.stats;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The paired bootstrap: a percentile confidence interval for a statistic of two paired samples (value i of both
 * measured under the same conditions), resampling the pairs together so that what the pairs share cancels out.
 *
 * <p>Each resample draws n pair indices uniformly with replacement, index by index, from a {@link SplittableRandom}
 * seeded by the caller's seed mixed with the samples' contents ({@code seed ^ (31·hash(a) + hash(b))}, the hashes of
 * {@link Arrays#hashCode(double[])}): the same samples and seed give the same interval, and different samples draw
 * different resamples. The statistics of the resamples are sorted and the interval is their {@code (1 − c)/2} and
 * {@code 1 − (1 − c)/2} quantiles ({@link Sample#quantile}, linear interpolation), c the confidence. Cost:
 * resamples × (n draws + the statistic), plus a sort of the resampled statistics.
 */
public final class Bootstrap {
  private Bootstrap() {}

  /** A statistic of two paired samples of the same length. */
  @FunctionalInterface
  public interface PairedStatistic {
    double of(double[] a, double[] b);
  }

  /**
   * The statistic of {@code a} and {@code b} with its paired-bootstrap percentile interval.
   *
   * @param a the first sample
   * @param b the second, paired with {@code a} index by index
   * @param statistic what is estimated; it gets arrays it may read but must not keep (they are reused)
   * @param resamples how many resamples, at least 1
   * @param confidence the interval's confidence level, in (0, 1)
   * @param seed seeds the resampling, with the samples' contents
   * @param unit the statistic's unit
   */
  public static Interval paired(double[] a, double[] b, PairedStatistic statistic, int resamples,
      double confidence, long seed, String unit) {
    if (a.length != b.length || a.length == 0) {
      throw new IllegalArgumentException("a paired bootstrap needs two equally long samples, got " + a.length
          + " and " + b.length + " values");
    }
    if (resamples < 1 || !(confidence > 0 && confidence < 1)) {
      throw new IllegalArgumentException("a bootstrap needs >= 1 resample and a confidence in (0, 1), got "
          + resamples + " and " + confidence);
    }
    int n = a.length;
    SplittableRandom random = new SplittableRandom(seed ^ (31L * Arrays.hashCode(a) + Arrays.hashCode(b)));
    double[] resampled = new double[resamples];
    double[] ra = new double[n];
    double[] rb = new double[n];
    for (int r = 0; r < resamples; r++) {
      for (int i = 0; i < n; i++) {
        int j = random.nextInt(n);
        ra[i] = a[j];
        rb[i] = b[j];
      }
      resampled[r] = statistic.of(ra, rb);
    }
    Arrays.sort(resampled);
    double tail = (1 - confidence) / 2;
    return new Interval(statistic.of(a, b), Sample.quantile(resampled, tail), Sample.quantile(resampled, 1 - tail),
        confidence, unit);
  }
}
