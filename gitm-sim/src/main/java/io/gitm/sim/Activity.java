package io.gitm.sim;

/**
 * Device activity in 1 ms buckets over a sliding horizon of about 131 s: the share of time any kernel ran (NVML's
 * GPU utilization), the share it was memory-bound, the multiprocessor load, and host-link bytes. Utilization, power and PCIe throughput are read from it.
 */
final class Activity {
  static final long BUCKET_NS = 1_000_000;
  private static final int N = 1 << 17;
  private final long[] id = new long[N];
  private final double[] busy = new double[N];
  private final double[] memory = new double[N];
  private final double[] load = new double[N];
  private final double[] tx = new double[N];
  private final double[] rx = new double[N];

  Activity() {
    java.util.Arrays.fill(id, -1);
  }

  private int slot(long bucket) {
    int i = (int) (bucket & (N - 1));
    if (id[i] != bucket) {
      id[i] = bucket;
      busy[i] = 0;
      memory[i] = 0;
      load[i] = 0;
      tx[i] = 0;
      rx[i] = 0;
    }
    return i;
  }

  /** Adds a kernel interval weighted by {@code smShare} of the device and its memory-bound share. */
  void addKernel(long start, long end, double smShare, double memShare) {
    long first = start / BUCKET_NS;
    if (end <= (first + 1) * BUCKET_NS) {
      int i = slot(first);
      double frac = (double) (end - start) / BUCKET_NS;
      busy[i] += frac;
      memory[i] += frac * Math.max(memShare, 0.0);
      load[i] += frac * smShare;
      return;
    }
    for (long b = start / BUCKET_NS; b * BUCKET_NS < end; b++) {
      long lo = Math.max(start, b * BUCKET_NS);
      long hi = Math.min(end, (b + 1) * BUCKET_NS);
      int i = slot(b);
      double frac = (double) (hi - lo) / BUCKET_NS;
      busy[i] += frac;
      memory[i] += frac * Math.max(memShare, 0.0);
      load[i] += frac * smShare;
    }
  }

  /** Adds host-link traffic: {@code toDevice} bytes over [start, end). */
  void addTransfer(long start, long end, long bytes, boolean toDevice) {
    long span = Math.max(1, end - start);
    for (long b = start / BUCKET_NS; b * BUCKET_NS < Math.max(end, start + 1); b++) {
      long lo = Math.max(start, b * BUCKET_NS);
      long hi = Math.min(Math.max(end, start + 1), (b + 1) * BUCKET_NS);
      int i = slot(b);
      double share = bytes * (double) (hi - lo) / span;
      if (toDevice) {
        rx[i] += share;
      } else {
        tx[i] += share;
      }
    }
  }

  private double read(double[] a, long bucket) {
    int i = (int) (bucket & (N - 1));
    return id[i] == bucket ? a[i] : 0;
  }

  /**
   * A share field of a bucket, capped at 1. The fields add non-negative terms uncapped: capping the sum once equals
   * capping after every term, since a capped sum stays at 1 and an uncapped one stays at or above it.
   */
  private double share(double[] a, long bucket) {
    return Math.min(1.0, read(a, bucket));
  }

  /** Share of the multiprocessor array busy in {@code bucket} (drives power). */
  double loadIn(long bucket) {
    return share(load, bucket);
  }

  /** Mean of a field over [from, to), by whole buckets; share fields are capped at 1 per bucket. */
  private double mean(double[] a, boolean share, long from, long to) {
    long b0 = Math.max(0, from / BUCKET_NS);
    long b1 = Math.max(b0 + 1, (to + BUCKET_NS - 1) / BUCKET_NS);
    double s = 0;
    for (long b = b0; b < b1; b++) {
      s += share ? share(a, b) : read(a, b);
    }
    return s / (b1 - b0);
  }

  double utilization(long from, long to) {
    return mean(busy, true, from, to);
  }

  double memoryUtilization(long from, long to) {
    return mean(memory, true, from, to);
  }

  /** Bytes per second to the device over [from, to). */
  double rxRate(long from, long to) {
    return mean(rx, false, from, to) / (BUCKET_NS / 1e9);
  }

  double txRate(long from, long to) {
    return mean(tx, false, from, to) / (BUCKET_NS / 1e9);
  }
}
