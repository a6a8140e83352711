package io.gitm.workload;

/**
 * A job's output reduced for equivalence checks: an exact hash of the bytes that must be bit-identical, and the
 * values that class-B levers may move within the workload's tolerance.
 */
public record OutputDigest(String sha256, double[] values) {
  public OutputDigest {
    values = values == null ? new double[0] : values.clone();
  }

  @Override
  public double[] values() {
    return values.clone();
  }

  /** Largest relative difference between the values of two digests (infinite when their shapes differ). */
  public double maxRelativeDifference(OutputDigest other) {
    if (other.values.length != values.length) {
      return Double.POSITIVE_INFINITY;
    }
    double worst = 0;
    for (int i = 0; i < values.length; i++) {
      double a = values[i];
      double b = other.values[i];
      if (Double.isNaN(a) || Double.isNaN(b) || Double.isInfinite(a) || Double.isInfinite(b)) {
        if (Double.compare(a, b) != 0) {
          return Double.POSITIVE_INFINITY;
        }
        continue;
      }
      double d = Math.abs(a - b) / Math.max(1e-12, Math.max(Math.abs(a), Math.abs(b)));
      worst = Math.max(worst, d);
    }
    return worst;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof OutputDigest d && d.sha256.equals(sha256) && java.util.Arrays.equals(d.values, values);
  }

  @Override
  public int hashCode() {
    return sha256.hashCode() * 31 + java.util.Arrays.hashCode(values);
  }
}
