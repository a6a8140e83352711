package io.gitm.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ActivityTest {
  /** The ring of 2^17 one-millisecond buckets, whole from the start: what {@link Activity} must read the same as. */
  static final class FullRing {
    static final int N = 1 << 17;
    final long[] id = new long[N];
    final double[] busy = new double[N];
    final double[] rx = new double[N];

    FullRing() {
      java.util.Arrays.fill(id, -1);
    }

    int slot(long b) {
      int i = (int) (b & (N - 1));
      if (id[i] != b) {
        id[i] = b;
        busy[i] = 0;
        rx[i] = 0;
      }
      return i;
    }

    void addKernel(long start, long end) {
      for (long b = start / Activity.BUCKET_NS; b * Activity.BUCKET_NS < end; b++) {
        long lo = Math.max(start, b * Activity.BUCKET_NS);
        long hi = Math.min(end, (b + 1) * Activity.BUCKET_NS);
        busy[slot(b)] += (double) (hi - lo) / Activity.BUCKET_NS;
      }
    }

    void addTransfer(long start, long end, long bytes) {
      long span = Math.max(1, end - start);
      for (long b = start / Activity.BUCKET_NS; b * Activity.BUCKET_NS < Math.max(end, start + 1); b++) {
        long lo = Math.max(start, b * Activity.BUCKET_NS);
        long hi = Math.min(Math.max(end, start + 1), (b + 1) * Activity.BUCKET_NS);
        rx[slot(b)] += bytes * (double) (hi - lo) / span;
      }
    }

    double mean(double[] a, boolean share, long from, long to) {
      long b0 = Math.max(0, from / Activity.BUCKET_NS);
      long b1 = Math.max(b0 + 1, (to + Activity.BUCKET_NS - 1) / Activity.BUCKET_NS);
      double s = 0;
      for (long b = b0; b < b1; b++) {
        int i = (int) (b & (N - 1));
        double v = id[i] == b ? a[i] : 0;
        s += share ? Math.min(1, v) : v;
      }
      return s / (b1 - b0);
    }
  }

  @Test
  void readsWhatAWholeRingReadsAsItGrowsAndPastItsHorizon() {
    Activity a = new Activity();
    FullRing ref = new FullRing();
    SplittableRandom r = new SplittableRandom(3);
    long t = 0;
    // out-of-order intervals (kernels queued ahead, on several streams): 3 s of steady work in which every bucket is
    // used while the ring grows from 256 buckets, then gaps of up to 5 s, 300 s in all, so that the ring wraps
    int n = 0;
    while (t < 300_000_000_000L) {
      boolean steady = t < 3_000_000_000L;
      long start = t + r.nextLong(-2_000_000, 3_000_000);
      start = Math.max(0, start);
      long end = start + r.nextLong(1, 4_000_000);
      if (r.nextInt(3) == 0) {
        long bytes = r.nextLong(1, 1 << 24);
        a.addTransfer(start, end, bytes, true);
        ref.addTransfer(start, end, bytes);
      } else {
        a.addKernel(start, end, 0.5, 0.25);
        ref.addKernel(start, end);
      }
      t += !steady && r.nextInt(50) == 0 ? r.nextLong(1, 5_000_000_000L) : r.nextLong(1, 400_000);
      if (++n % (steady ? 300 : 20) == 0) {
        long from = Math.max(0, t - r.nextLong(1, 140_000_000_000L));
        assertThat(a.utilization(from, t)).isEqualTo(ref.mean(ref.busy, true, from, t));
        assertThat(a.rxRate(from, t)).isEqualTo(ref.mean(ref.rx, false, from, t) / (Activity.BUCKET_NS / 1e9));
      }
    }
  }
}
