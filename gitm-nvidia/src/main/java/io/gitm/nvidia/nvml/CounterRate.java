package io.gitm.nvidia.nvml;

/**
 * The rate of a cumulative counter that wraps at {@code bits} bits, from successive readings: the difference is
 * taken modulo 2^bits, so a counter that wrapped between two readings still gives the true increase (assuming it
 * wrapped at most once). The first reading, and a reading whose time did not advance, give NaN.
 */
final class CounterRate {
  private final long mask;
  private boolean has;
  private long previous;
  private long previousMicros;

  CounterRate(int bits) {
    if (bits < 1 || bits > 64) {
      throw new IllegalArgumentException("counter width must be 1-64 bits, got " + bits);
    }
    this.mask = bits == 64 ? -1L : (1L << bits) - 1;
  }

  /** Units per second of {@code value} read at {@code micros}, times {@code scale} (e.g. 1024 for KiB). */
  double update(long value, long micros, double scale) {
    if (!has) {
      has = true;
      previous = value;
      previousMicros = micros;
      return Double.NaN;
    }
    if (micros <= previousMicros) {
      return Double.NaN;
    }
    long delta = (value - previous) & mask;
    if (Long.compareUnsigned(delta, mask >>> 1) > 0) {
      previous = value;
      previousMicros = micros;
      return Double.NaN;
    }
    double seconds = (micros - previousMicros) / 1e6;
    previous = value;
    previousMicros = micros;
    double unsignedDelta = delta >= 0 ? delta : delta + 0x1p64;
    return unsignedDelta * scale / seconds;
  }
}
