package io.gitm.trace;

import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;

/**
 * A point-in-time reading of one device's state. A field that was not read (unsupported, or failed this time)
 * is {@code NaN}.
 */
public record StateSample(int device, long timeNs, double[] values) implements TraceRecord {
  private static final int N = StateField.values().length;

  public StateSample {
    if (values == null) {
      values = new double[N];
      Arrays.fill(values, Double.NaN);
    } else if (values.length != N) {
      throw new IllegalArgumentException("a state sample has " + N + " fields, got " + values.length);
    } else {
      values = values.clone();
    }
  }

  public static StateSample of(int device, long timeNs, Map<StateField, Double> fields) {
    double[] v = new double[N];
    Arrays.fill(v, Double.NaN);
    fields.forEach((f, x) -> v[f.ordinal()] = x);
    return new StateSample(device, timeNs, v);
  }

  public double get(StateField f) {
    return values[f.ordinal()];
  }

  public boolean has(StateField f) {
    return !Double.isNaN(values[f.ordinal()]);
  }

  /** The fields that were read, in declaration order. */
  public Map<StateField, Double> present() {
    Map<StateField, Double> m = new EnumMap<>(StateField.class);
    for (StateField f : StateField.values()) {
      if (has(f)) {
        m.put(f, get(f));
      }
    }
    return m;
  }

  @Override
  public double[] values() {
    return values.clone();
  }

  @Override
  public long startNs() {
    return timeNs;
  }

  @Override
  public long endNs() {
    return timeNs;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof StateSample s && s.device == device && s.timeNs == timeNs && Arrays.equals(s.values, values);
  }

  @Override
  public int hashCode() {
    return 31 * (31 * device + Long.hashCode(timeNs)) + Arrays.hashCode(values);
  }

  @Override
  public String toString() {
    return "StateSample[device=" + device + ", timeNs=" + timeNs + ", " + present() + "]";
  }
}
