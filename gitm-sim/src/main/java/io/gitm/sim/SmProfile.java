package io.gitm.sim;

import java.util.Arrays;

/**
 * Multiprocessors in use over simulated time, as a step function: {@code level[i]} holds from {@code time[i]} until
 * {@code time[i + 1]} (the last one for ever). Kernels reserve multiprocessors for their interval; a kernel starts at
 * the earliest time its need fits under the capacity for its whole duration. Only the future matters, so the
 * profile is pruned to the present and stays as small as the work in flight.
 */
final class SmProfile {
  private long[] time = new long[16];
  private int[] level = new int[16];
  private int size;
  /** End of the latest reservation: from there on the profile is zero. */
  private long maxEnd;

  SmProfile() {
    size = 1;
  }

  /** Index of the step holding at {@code t}. */
  private int floor(long t) {
    int i = Arrays.binarySearch(time, 0, size, t);
    return i >= 0 ? i : -i - 2;
  }

  /** The earliest start at or after {@code ready} where {@code need} more fit under {@code capacity} for {@code d}. */
  long earliest(long ready, long d, int need, int capacity) {
    if (ready >= maxEnd) {
      return ready;
    }
    int n = Math.min(need, capacity);
    long s = ready;
    long dur = Math.max(1, d);
    int i = floor(s); // >= 0: the profile is never pruned past a ready time
    while (true) {
      long end = s + dur;
      int j = i;
      boolean fits = true;
      while (j < size && (j == i || time[j] < end)) {
        if (level[j] + n > capacity) {
          fits = false;
          break;
        }
        j++;
      }
      if (fits) {
        return s;
      }
      // the step at j is too full: try from the next step on
      i = j + 1;
      if (i >= size) {
        return Math.max(s, maxEnd);
      }
      s = Math.max(s, time[i]);
    }
  }

  void reserve(long start, long end, int n) {
    if (end <= start || n == 0) {
      return;
    }
    if (start >= maxEnd) {
      // the last step is zero and starts no later than maxEnd: append
      if (time[size - 1] == start) {
        level[size - 1] = n;
      } else {
        push(start, n);
      }
      push(end, 0);
      maxEnd = end;
      return;
    }
    int a = split(start);
    int b = split(end);
    for (int i = a; i < b; i++) {
      level[i] += n;
    }
    maxEnd = Math.max(maxEnd, end);
  }

  private void push(long t, int v) {
    ensure(size + 1);
    time[size] = t;
    level[size] = v;
    size++;
  }

  private void ensure(int cap) {
    if (cap > time.length) {
      time = Arrays.copyOf(time, cap * 2);
      level = Arrays.copyOf(level, cap * 2);
    }
  }

  /** Makes {@code t} a step boundary; returns its index. */
  private int split(long t) {
    int i = floor(t);
    if (i >= 0 && time[i] == t) {
      return i;
    }
    int at = i + 1;
    ensure(size + 1);
    System.arraycopy(time, at, time, at + 1, size - at);
    System.arraycopy(level, at, level, at + 1, size - at);
    time[at] = t;
    level[at] = i >= 0 ? level[i] : 0;
    size++;
    return at;
  }

  /** Forgets the profile before {@code t}: no later reservation starts earlier. */
  void prune(long t) {
    int i = floor(t);
    if (i <= 0) {
      return;
    }
    System.arraycopy(time, i, time, 0, size - i);
    System.arraycopy(level, i, level, 0, size - i);
    size -= i;
  }

  int size() {
    return size;
  }
}
