package io.gitm.analysis.breakdown;

import io.gitm.analysis.breakdown.Breakdown.AnnotationTime;
import io.gitm.analysis.breakdown.Breakdown.QueueLength;
import io.gitm.analysis.breakdown.Breakdown.StreamIdle;
import io.gitm.analysis.breakdown.Breakdown.Temporal;
import io.gitm.analysis.breakdown.Breakdown.TypeTime;
import io.gitm.trace.TraceRecord;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Computes a {@link Breakdown} in a few sorted sweeps over primitive columns: one sort of the operations by start
 * (temporal, kernel types, overlap and idle), one of launches and starts by time (queue length), one of markers and
 * launches by thread and time (annotations).
 */
final class Sweeps {
  private Sweeps() {}

  static Breakdown of(Window window, List<? extends TraceRecord> records) {
    Columns c = Columns.of(records);
    int[] byStart = Sorts.by(c.n, (a, b) -> Long.compare(c.start[a], c.start[b]));
    long[] acc = typeSweep(c, byStart);
    long span = 0;
    if (c.n > 0) {
      long first = c.start[byStart[0]];
      long last = Long.MIN_VALUE;
      for (int i = 0; i < c.n; i++) {
        last = Math.max(last, c.end[i]);
      }
      span = last - first;
    }
    long busy = 0;
    long compute = 0;
    long comm = 0;
    long overlap = 0;
    for (int m = 1; m < acc.length; m++) {
      busy += acc[m];
      compute += (m & KernelType.COMPUTATION.bit()) != 0 ? acc[m] : 0;
      comm += (m & KernelType.COMMUNICATION.bit()) != 0 ? acc[m] : 0;
      int both = KernelType.COMPUTATION.bit() | KernelType.COMMUNICATION.bit();
      overlap += (m & both) == both ? acc[m] : 0;
    }
    long idle = span - busy;
    Temporal t = new Temporal(span, idle, compute, span - compute - idle);
    return new Breakdown(window, c.n, t, kernelTypes(acc), comm == 0 ? Double.NaN : (double) overlap / comm,
        idle(c, byStart), queues(c), annotations(c));
  }

  /**
   * The time each set of kernel types ran at once, indexed by its mask: each type's operations merged into
   * disjoint intervals (touching ones joined), then one sweep over the boundaries of the four lists.
   */
  static long[] typeSweep(Columns c, int[] byStart) {
    int types = KernelType.values().length;
    long[][] merged = new long[types][];
    int[] len = new int[types];
    for (int t = 0; t < types; t++) {
      merged[t] = new long[16];
    }
    long[] curS = new long[types];
    long[] curE = new long[types];
    boolean[] open = new boolean[types];
    for (int i : byStart) {
      int t = c.type[i];
      if (open[t] && c.start[i] <= curE[t]) {
        curE[t] = Math.max(curE[t], c.end[i]);
        continue;
      }
      if (open[t]) {
        merged[t] = push(merged[t], len[t], curS[t], curE[t]);
        len[t] += 2;
      }
      open[t] = true;
      curS[t] = c.start[i];
      curE[t] = c.end[i];
    }
    for (int t = 0; t < types; t++) {
      if (open[t]) {
        merged[t] = push(merged[t], len[t], curS[t], curE[t]);
        len[t] += 2;
      }
    }
    return boundarySweep(merged, len);
  }

  private static long[] push(long[] a, int n, long s, long e) {
    long[] out = n + 2 > a.length ? Arrays.copyOf(a, a.length * 2) : a;
    out[n] = s;
    out[n + 1] = e;
    return out;
  }

  /** Over disjoint sorted interval lists, one per type: the time spent under each mask of open types. */
  private static long[] boundarySweep(long[][] merged, int[] len) {
    int types = merged.length;
    long[] acc = new long[1 << types];
    int[] p = new int[types];
    int mask = 0;
    long prev = 0;
    while (true) {
      long next = Long.MAX_VALUE;
      for (int t = 0; t < types; t++) {
        if (p[t] < len[t]) {
          next = Math.min(next, merged[t][p[t]]);
        }
      }
      if (next == Long.MAX_VALUE) {
        return acc;
      }
      if (mask != 0) {
        acc[mask] += next - prev;
      }
      for (int t = 0; t < types; t++) {
        if (p[t] < len[t] && merged[t][p[t]] == next) {
          mask ^= 1 << t;
          p[t]++;
        }
      }
      prev = next;
    }
  }

  private static List<TypeTime> kernelTypes(long[] acc) {
    Map<String, Long> by = new LinkedHashMap<>();
    long total = 0;
    for (int m = 1; m < acc.length; m++) {
      int typed = m & (KernelType.COMPUTATION.bit() | KernelType.COMMUNICATION.bit() | KernelType.MEMORY.bit());
      if (typed != 0 && acc[m] > 0) {
        by.merge(KernelType.label(typed), acc[m], Long::sum);
        total += acc[m];
      }
    }
    List<TypeTime> out = new ArrayList<>();
    for (Map.Entry<String, Long> e : by.entrySet()) {
      out.add(new TypeTime(e.getKey(), e.getValue(), (double) e.getValue() / total));
    }
    out.sort(Comparator.comparingLong(TypeTime::ns).reversed().thenComparing(TypeTime::type));
    return out;
  }

  /** HTA's idle breakdown per stream, over the operations in start order. */
  private static List<StreamIdle> idle(Columns c, int[] byStart) {
    Slots slots = new Slots();
    long[][] g = new long[0][];
    for (int i : byStart) {
      int s = slots.slot(c.streamKey(i));
      if (s == g.length) {
        g = Arrays.copyOf(g, s + 1);
        // host wait, kernel wait, other, gaps, end so far (or MIN when none yet)
        g[s] = new long[] {0, 0, 0, 0, Long.MIN_VALUE};
      }
      long[] x = g[s];
      long prevEnd = x[4];
      if (prevEnd != Long.MIN_VALUE && c.start[i] > prevEnd) {
        long gap = c.start[i] - prevEnd;
        boolean hostWait = c.launch[i] >= 0 && c.apiStart[c.launch[i]] > prevEnd;
        x[hostWait ? 0 : gap < Breakdown.KERNEL_WAIT_THRESHOLD_NS ? 1 : 2] += gap;
        x[3]++;
      }
      x[4] = Math.max(prevEnd, c.end[i]);
    }
    List<StreamIdle> out = new ArrayList<>();
    for (int s = 0; s < g.length; s++) {
      long key = slots.key(s);
      out.add(new StreamIdle((int) (key >> 32), (int) key, g[s][0], g[s][1], g[s][2], g[s][3]));
    }
    out.sort(Comparator.comparingInt(StreamIdle::device).thenComparingInt(StreamIdle::stream));
    return out;
  }

  /** HTA's queue length per stream: +1 at each queueable launch, -1 at its operation's start, launches first. */
  private static List<QueueLength> queues(Columns c) {
    int m = 0;
    for (int i = 0; i < c.n; i++) {
      m += c.launch[i] >= 0 && c.queueable[c.launch[i]] ? 1 : 0;
    }
    long[] time = new long[2 * m];
    int[] op = new int[2 * m];
    int k = 0;
    for (int i = 0; i < c.n; i++) {
      if (c.launch[i] >= 0 && c.queueable[c.launch[i]]) {
        time[k] = c.apiStart[c.launch[i]];
        time[m + k] = c.start[i];
        op[k] = i;
        op[m + k++] = i;
      }
    }
    int[] order = Sorts.byKey(time, 2 * m);
    Slots slots = new Slots();
    List<Queue> qs = new ArrayList<>();
    for (int e : order) {
      int s = slots.slot(c.streamKey(op[e]));
      if (s == qs.size()) {
        qs.add(new Queue());
      }
      qs.get(s).step(e < m ? 1 : -1);
    }
    List<QueueLength> out = new ArrayList<>();
    for (int s = 0; s < qs.size(); s++) {
      long key = slots.key(s);
      out.add(qs.get(s).summary((int) (key >> 32), (int) key));
    }
    out.sort(Comparator.comparingInt(QueueLength::device).thenComparingInt(QueueLength::stream));
    return out;
  }

  /** One stream's queue length so far and the histogram of the values it took. */
  private static final class Queue {
    int q;
    long n;
    double sum;
    double sumSq;
    long[] hist = new long[8];

    void step(int delta) {
      q += delta;
      int v = Math.max(q, 0);
      if (v >= hist.length) {
        hist = Arrays.copyOf(hist, Math.max(hist.length * 2, v + 1));
      }
      hist[v]++;
      n++;
      sum += q;
      sumSq += (double) q * q;
    }

    QueueLength summary(int device, int stream) {
      double mean = sum / n;
      double var = n > 1 ? Math.max(0, (sumSq - sum * mean) / (n - 1)) : Double.NaN;
      return new QueueLength(device, stream, n, mean, Math.sqrt(var), (int) kth(0), quantile(0.25), quantile(0.5),
          quantile(0.75), (int) kth(n - 1));
    }

    /** The quantile with linear interpolation between the order statistics (pandas' and numpy's default). */
    private double quantile(double p) {
      double pos = p * (n - 1);
      long lo = (long) Math.floor(pos);
      double a = kth(lo);
      double b = kth(Math.min(lo + 1, n - 1));
      return a + (b - a) * (pos - lo);
    }

    /** The {@code k}-th smallest value (from 0). */
    private long kth(long k) {
      long seen = 0;
      for (int v = 0; v < hist.length; v++) {
        seen += hist[v];
        if (seen > k) {
          return v;
        }
      }
      return hist.length - 1;
    }
  }

  /**
   * Operations by the innermost user annotation (the latest-starting, then the shortest) open when their launch
   * call began: on the launching thread, else on any thread (autograd's thread launches the backward pass while the
   * main thread is inside its annotation). Two sweeps, each over markers and launches sorted by start.
   */
  private static List<AnnotationTime> annotations(Columns c) {
    int[] at = new int[c.n];
    Arrays.fill(at, -1);
    sweep(c, at, true);
    sweep(c, at, false);
    long[] count = new long[c.markers + 1];
    long[] kernels = new long[c.markers + 1];
    long[] ns = new long[c.markers + 1];
    for (int i = 0; i < c.n; i++) {
      int m = at[i] < 0 ? c.markers : at[i];
      count[m]++;
      kernels[m] += c.kernel[i] ? 1 : 0;
      ns[m] += c.end[i] - c.start[i];
    }
    return byName(c, count, kernels, ns);
  }

  /**
   * Sets {@code at[i]} for each launched operation still without one to the innermost marker open at its launch:
   * per thread when {@code perThread}, else over all threads; open markers are kept in a heap, latest start on top,
   * and dropped once they have ended.
   */
  private static void sweep(Columns c, int[] at, boolean perThread) {
    int[] markers = Sorts.by(c.markers, (a, b) -> {
      int x = perThread ? Long.compare(c.markThread[a], c.markThread[b]) : 0;
      return x != 0 ? x : Long.compare(c.markStart[a], c.markStart[b]);
    });
    int[] ops = Sorts.by(c.n, (a, b) -> {
      int x = perThread ? Long.compare(thread(c, a), thread(c, b)) : 0;
      return x != 0 ? x : Long.compare(c.launchTime(a), c.launchTime(b));
    });
    Heap open = new Heap(c);
    int p = 0;
    long thread = Long.MIN_VALUE;
    for (int i : ops) {
      if (c.launch[i] < 0 || at[i] >= 0) {
        continue;
      }
      long th = perThread ? thread(c, i) : 0;
      long t = c.launchTime(i);
      if (perThread && th != thread) {
        thread = th;
        open.clear();
        while (p < c.markers && c.markThread[markers[p]] < th) {
          p++;
        }
      }
      while (p < c.markers && (!perThread || c.markThread[markers[p]] == th) && c.markStart[markers[p]] <= t) {
        open.push(markers[p++]);
      }
      while (open.size() > 0 && c.markEnd[open.top()] <= t) {
        open.pop();
      }
      at[i] = open.size() > 0 ? open.top() : -1;
    }
  }

  private static long thread(Columns c, int i) {
    return c.launch[i] < 0 ? Long.MIN_VALUE : c.apiThread[c.launch[i]];
  }

  /** A binary heap of marker indices, the latest start on top (then the earliest end, then the lowest index). */
  private static final class Heap {
    private final Columns c;
    private int[] a = new int[16];
    private int n;

    Heap(Columns c) {
      this.c = c;
    }

    int size() {
      return n;
    }

    int top() {
      return a[0];
    }

    void clear() {
      n = 0;
    }

    void push(int m) {
      a = n == a.length ? Arrays.copyOf(a, n * 2) : a;
      int i = n++;
      a[i] = m;
      while (i > 0 && above(a[i], a[(i - 1) / 2])) {
        swap(i, (i - 1) / 2);
        i = (i - 1) / 2;
      }
    }

    void pop() {
      a[0] = a[--n];
      int i = 0;
      while (true) {
        int l = 2 * i + 1;
        int best = i;
        if (l < n && above(a[l], a[best])) {
          best = l;
        }
        if (l + 1 < n && above(a[l + 1], a[best])) {
          best = l + 1;
        }
        if (best == i) {
          return;
        }
        swap(i, best);
        i = best;
      }
    }

    private boolean above(int x, int y) {
      if (c.markStart[x] != c.markStart[y]) {
        return c.markStart[x] > c.markStart[y];
      }
      return c.markEnd[x] != c.markEnd[y] ? c.markEnd[x] < c.markEnd[y] : x < y;
    }

    private void swap(int i, int j) {
      int t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
  }

  private static List<AnnotationTime> byName(Columns c, long[] count, long[] kernels, long[] ns) {
    Map<String, long[]> by = new HashMap<>();
    long total = 0;
    for (int m = 0; m <= c.markers; m++) {
      if (count[m] > 0) {
        long[] x = by.computeIfAbsent(m == c.markers ? Breakdown.NO_ANNOTATION : c.markName[m], k -> new long[3]);
        x[0] += count[m];
        x[1] += kernels[m];
        x[2] += ns[m];
        total += ns[m];
      }
    }
    List<AnnotationTime> out = new ArrayList<>();
    for (Map.Entry<String, long[]> e : by.entrySet()) {
      long[] x = e.getValue();
      out.add(new AnnotationTime(e.getKey(), x[0], x[1], x[2], total == 0 ? 0 : (double) x[2] / total));
    }
    out.sort(Comparator.comparingLong(AnnotationTime::deviceNs).reversed().thenComparing(AnnotationTime::name));
    return out;
  }

  /** Dense slots for stream keys; linear search with the last key cached (a job has few streams). */
  static final class Slots {
    private long[] keys = new long[8];
    private int n;
    private long lastKey;
    private int lastSlot = -1;

    int slot(long key) {
      if (lastSlot >= 0 && key == lastKey) {
        return lastSlot;
      }
      int i = 0;
      while (i < n && keys[i] != key) {
        i++;
      }
      if (i == n) {
        keys = n == keys.length ? Arrays.copyOf(keys, n * 2) : keys;
        keys[n++] = key;
      }
      lastKey = key;
      lastSlot = i;
      return i;
    }

    long key(int slot) {
      return keys[slot];
    }
  }
}
