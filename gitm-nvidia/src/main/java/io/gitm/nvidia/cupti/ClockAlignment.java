package io.gitm.nvidia.cupti;

import io.gitm.api.Ticker;
import java.util.function.LongSupplier;

/**
 * The offset between CUPTI's clock and the host monotonic clock, measured by bracketing: read the host clock, the
 * CUPTI clock, the host clock again, and take the read whose bracket is tightest. {@code offsetNs} is CUPTI time
 * minus host time at the bracket's midpoint; the true offset lies within {@code ± uncertaintyNs} of it.
 */
record ClockAlignment(long offsetNs, long uncertaintyNs, int samples) {
  ClockAlignment {
    if (uncertaintyNs < 0 || samples < 1) {
      throw new IllegalArgumentException("bad clock alignment: uncertainty " + uncertaintyNs + ", samples " + samples);
    }
  }

  /** Measures with {@code samples} bracketed reads of {@code other} between reads of {@code host}. */
  static ClockAlignment measure(Ticker host, LongSupplier other, int samples) {
    if (samples < 1) {
      throw new IllegalArgumentException("clock alignment needs at least one sample, got " + samples);
    }
    long bestWidth = Long.MAX_VALUE;
    long bestOffset = 0;
    for (int i = 0; i < samples; i++) {
      long h0 = host.nanos();
      long c = other.getAsLong();
      long h1 = host.nanos();
      long width = h1 - h0;
      if (width < 0) {
        throw new IllegalStateException("host clock went backwards during clock alignment (" + width + " ns)");
      }
      if (width < bestWidth) {
        bestWidth = width;
        bestOffset = c - (h0 + width / 2);
      }
    }
    return new ClockAlignment(bestOffset, (bestWidth + 1) / 2, samples);
  }

  /** Converts a time of the other clock to host monotonic time. */
  long toHost(long otherNs) {
    return otherNs - offsetNs;
  }
}
