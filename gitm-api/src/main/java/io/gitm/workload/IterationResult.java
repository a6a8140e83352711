package io.gitm.workload;

/**
 * What one iteration measured: host wall time on the device's clock, the units of work it did (e.g. messages) and
 * any named extras.
 */
public record IterationResult(long wallNanos, long units, java.util.Map<String, Double> extras) {
  public IterationResult {
    if (wallNanos < 0 || units < 0) {
      throw new IllegalArgumentException("negative time or units");
    }
    extras = java.util.Map.copyOf(extras == null ? java.util.Map.of() : extras);
  }

  /** Units per second in this iteration. */
  public double rate() {
    return wallNanos == 0 ? 0 : units * 1e9 / wallNanos;
  }
}
