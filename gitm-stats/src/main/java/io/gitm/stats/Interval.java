package io.gitm.stats;

/**
 * An estimate with its confidence interval and its unit: what a statistic says, how far it may be off, and at what
 * confidence. The interval need not be centred on the estimate (a bootstrap percentile interval is not).
 *
 * @param estimate the statistic of the whole sample, in {@code unit}
 * @param low the interval's lower end
 * @param high the interval's upper end, at least {@code low}
 * @param confidence the interval's confidence level, in (0, 1)
 * @param unit what the figures measure ("×" for a ratio)
 */
public record Interval(double estimate, double low, double high, double confidence, String unit) {
  public Interval {
    if (unit == null) {
      throw new IllegalArgumentException("an interval needs a unit");
    }
    if (low > high) {
      throw new IllegalArgumentException("an interval's lower end " + low + " is above its upper end " + high);
    }
    if (!(confidence > 0 && confidence < 1) && !Double.isNaN(confidence)) {
      throw new IllegalArgumentException("confidence must be in (0, 1), got " + confidence);
    }
  }

  /** No estimate: every figure NaN, for a measurement that did not happen. */
  public static Interval none(String unit) {
    return new Interval(Double.NaN, Double.NaN, Double.NaN, Double.NaN, unit);
  }

  /** Whether the whole interval lies above {@code value}: the estimate is larger at this confidence. */
  public boolean above(double value) {
    return low > value;
  }

  /** Whether the whole interval lies below {@code value}: the estimate is smaller at this confidence. */
  public boolean below(double value) {
    return high < value;
  }

  /** Whether {@code value} lies within the interval, ends included. */
  public boolean contains(double value) {
    return low <= value && value <= high;
  }
}
