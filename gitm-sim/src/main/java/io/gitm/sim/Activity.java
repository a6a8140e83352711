package io.gitm.sim;

import java.util.Arrays;

/**
 * Device activity in 1 ms buckets over a sliding horizon of about 131 s: the share of time any kernel ran (NVML's
 * GPU utilization), the share it was memory-bound, the multiprocessor load, and host-link bytes. Utilization, power
 * and PCIe throughput are read from it.
 */
final class Activity {
  static final long BUCKET_NS = 1_000_000;
  /** Buckets kept: a ring of {@code N}, where a bucket takes the slot of the one {@code N} before it. */
  private static final int N = 1 << 17;
  /** Slots held at first: the ring grows as simulated time passes, so a short-lived device stays small. */
  private static final int FIRST = 1 << 8;
  private int capacity = FIRST;
  private long[] id = new long[FIRST];
  private double[] busy = new double[FIRST];
  private double[] memory = new double[FIRST];
  private double[] load = new double[FIRST];
  private double[] tx = new double[FIRST];
  private double[] rx = new double[FIRST];
  /** Lowest and highest bucket slotted while {@code capacity < N}: all of them are held, none is forgotten. */
  private long lowest = Long.MAX_VALUE;
  private long highest = Long.MIN_VALUE;

  Activity() {
    Arrays.fill(id, -1);
  }

  /**
   * Grows the ring until it holds {@code bucket} beside every bucket slotted so far (or reaches {@code N}). While the
   * slotted buckets span less than the capacity, none shares a slot, so the ring holds what a ring of {@code N} would
   * hold: every bucket slotted.
   */
  private void grow(long bucket) {
    lowest = Math.min(lowest, bucket);
    highest = Math.max(highest, bucket);
    int c = capacity;
    while (c < N && highest - lowest >= c) {
      c *= 2;
    }
    if (c == capacity) {
      return;
    }
    long[] oldId = id;
    double[] oldBusy = busy;
    double[] oldMemory = memory;
    double[] oldLoad = load;
    double[] oldTx = tx;
    double[] oldRx = rx;
    id = new long[c];
    Arrays.fill(id, -1);
    busy = new double[c];
    memory = new double[c];
    load = new double[c];
    tx = new double[c];
    rx = new double[c];
    for (int j = 0; j < oldId.length; j++) {
      long b = oldId[j];
      if (b >= 0) {
        int i = (int) (b & (c - 1));
        id[i] = b;
        busy[i] = oldBusy[j];
        memory[i] = oldMemory[j];
        load[i] = oldLoad[j];
        tx[i] = oldTx[j];
        rx[i] = oldRx[j];
      }
    }
    capacity = c;
  }

  private int slot(long bucket) {
    if (capacity < N && (bucket < lowest || bucket > highest)) {
      grow(bucket);
    }
    int i = (int) (bucket & (capacity - 1));
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
    int i = (int) (bucket & (capacity - 1));
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
