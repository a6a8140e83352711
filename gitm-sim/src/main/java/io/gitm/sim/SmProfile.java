package io.gitm.sim;

import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * Multiprocessors in use over simulated time, as a step function: a key is the time from which its value holds
 * until the next key. Kernels reserve multiprocessors for their interval; a kernel starts at the earliest time its
 * need fits under the capacity for its whole duration.
 */
final class SmProfile {
  private final TreeMap<Long, Integer> level = new TreeMap<>();

  SmProfile() {
    level.put(0L, 0);
  }

  /** The earliest start at or after {@code ready} where {@code need} more fit under {@code capacity} for {@code d}. */
  long earliest(long ready, long d, int need, int capacity) {
    int n = Math.min(need, capacity);
    long s = ready;
    outer:
    while (true) {
      long end = s + Math.max(1, d);
      Long k = level.floorKey(s);
      NavigableMap<Long, Integer> seg = level.tailMap(k, true);
      for (Map.Entry<Long, Integer> e : seg.entrySet()) {
        if (e.getKey() >= end) {
          break;
        }
        if (e.getValue() + n > capacity) {
          Long next = level.higherKey(e.getKey());
          if (next == null) {
            throw new IllegalStateException("multiprocessor profile never frees up");
          }
          s = Math.max(s, next);
          continue outer;
        }
      }
      return s;
    }
  }

  void reserve(long start, long end, int n) {
    if (end <= start || n == 0) {
      return;
    }
    split(start);
    split(end);
    for (Map.Entry<Long, Integer> e : level.subMap(start, true, end, false).entrySet()) {
      e.setValue(e.getValue() + n);
    }
  }

  private void split(long t) {
    if (!level.containsKey(t)) {
      level.put(t, level.floorEntry(t).getValue());
    }
  }

  /** Forgets the profile before {@code t}: no later reservation starts earlier. */
  void prune(long t) {
    Map.Entry<Long, Integer> f = level.floorEntry(t);
    if (f == null || f.getKey() == t) {
      level.headMap(t, false).clear();
      return;
    }
    int v = f.getValue();
    level.headMap(t, false).clear();
    level.put(t, v);
  }

  int size() {
    return level.size();
  }
}
