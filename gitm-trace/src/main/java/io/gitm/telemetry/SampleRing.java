package io.gitm.telemetry;

import io.gitm.trace.StateSample;
import java.util.ArrayList;
import java.util.List;

/** The last {@code capacity} samples, oldest first; older ones are overwritten and counted as dropped. */
public final class SampleRing {
  private final StateSample[] slots;
  private long written;

  public SampleRing(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("ring capacity must be at least 1, got " + capacity);
    }
    this.slots = new StateSample[capacity];
  }

  public synchronized void add(StateSample s) {
    slots[(int) (written % slots.length)] = s;
    written++;
  }

  /** The samples held, oldest first. */
  public synchronized List<StateSample> snapshot() {
    int n = (int) Math.min(written, slots.length);
    List<StateSample> out = new ArrayList<>(n);
    for (long i = written - n; i < written; i++) {
      out.add(slots[(int) (i % slots.length)]);
    }
    return out;
  }

  public int capacity() {
    return slots.length;
  }

  public synchronized long written() {
    return written;
  }

  /** Samples overwritten before anyone could read them from the ring. */
  public synchronized long dropped() {
    return Math.max(0, written - slots.length);
  }
}
