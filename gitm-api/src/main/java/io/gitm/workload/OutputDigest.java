package io.gitm.workload;

import java.util.Arrays;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A job's output reduced for equivalence checks.
 *
 * <p>{@code sha256} hashes all of the output's bytes: class-A levers must leave it unchanged. {@code values} are the
 * numbers a class-B lever may move within the workload's tolerance. {@code fixedSha256} hashes what must stay
 * identical even under class B (array shapes and dtypes, a table's layout and its non-numeric cells, whole
 * non-numeric files); null when nothing beyond the values has to match. {@code floor} is the magnitude under which a
 * difference between two values counts as absolute rather than relative (see {@link #maxRelativeDifference}).
 */
public record OutputDigest(String sha256, double[] values, @Nullable String fixedSha256, double floor) {
  /** The floor of a digest that names none: differences between values near zero are judged relative to 1e-12. */
  public static final double DEFAULT_FLOOR = 1e-12;

  public OutputDigest {
    if (sha256 == null) {
      throw new IllegalArgumentException("an output digest needs a sha256");
    }
    if (!Double.isFinite(floor) || floor <= 0) {
      throw new IllegalArgumentException("an output digest's floor must be finite and positive, not " + floor);
    }
    values = values == null ? new double[0] : values.clone();
  }

  /** A digest whose only class-B constraint is on its values, with the {@link #DEFAULT_FLOOR}. */
  public OutputDigest(String sha256, double[] values) {
    this(sha256, values, null, DEFAULT_FLOOR);
  }

  @Override
  public double[] values() {
    return values.clone();
  }

  /**
   * Largest difference between the values of two digests, each pair's {@code |a-b|} over
   * {@code max(floor, |a|, |b|)} with this digest's floor; infinite when their counts differ or when a NaN or infinite
   * value is not matched by the same value. With {@code floor = atol / rtol}, a result at most {@code rtol} means that
   * every pair satisfies numpy's {@code allclose}-style {@code |a-b| <= max(atol, rtol * max(|a|, |b|))}.
   */
  public double maxRelativeDifference(OutputDigest other) {
    if (other.values.length != values.length) {
      return Double.POSITIVE_INFINITY;
    }
    double worst = 0;
    for (int i = 0; i < values.length; i++) {
      double a = values[i];
      double b = other.values[i];
      if (!Double.isFinite(a) || !Double.isFinite(b)) {
        if (Double.compare(a, b) != 0) {
          return Double.POSITIVE_INFINITY;
        }
        continue;
      }
      double d = Math.abs(a - b) / Math.max(floor, Math.max(Math.abs(a), Math.abs(b)));
      worst = Math.max(worst, d);
    }
    return worst;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof OutputDigest d && d.sha256.equals(sha256) && Arrays.equals(d.values, values)
        && Objects.equals(d.fixedSha256, fixedSha256) && Double.compare(d.floor, floor) == 0;
  }

  @Override
  public int hashCode() {
    return Objects.hash(sha256, Arrays.hashCode(values), fixedSha256, floor);
  }

  @Override
  public String toString() {
    return "OutputDigest[sha256=" + sha256 + ", " + values.length + " values, fixedSha256=" + fixedSha256 + ", floor="
        + floor + "]";
  }
}
