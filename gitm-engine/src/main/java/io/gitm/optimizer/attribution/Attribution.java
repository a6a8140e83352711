package io.gitm.optimizer.attribution;

import io.gitm.device.HardwareSpec;
import io.gitm.optimizer.monitor.Monitor;
import io.gitm.optimizer.monitor.Violation;
import io.gitm.planner.Graph;
import io.gitm.planner.Planner;
import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.ApiKind;
import io.gitm.trace.CopyRecord;
import io.gitm.trace.MemoryKind;
import io.gitm.trace.StateField;
import io.gitm.trace.StateSample;
import io.gitm.trace.SyncKind;
import io.gitm.trace.SyncRecord;
import io.gitm.trace.TraceRecord;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.hipparchus.distribution.continuous.TDistribution;

/**
 * Causal attribution: turns the monitor's residuals and the trace's conditions into ranked hypotheses in the fixed
 * {@link Cause} taxonomy. A pure function of the records, the graph and the monitor's result.
 *
 * <p>Each cause has a detector that measures the time the cause cost ("lost" time) in each of {@link #CHUNKS} equal
 * windows of the span. The effect is the lost time over the span; its interval and p-value come from the spread
 * over the windows (a one-sided t-test that the lost share exceeds {@link #MIN_EFFECT}); p-values are adjusted by
 * Benjamini–Hochberg across causes. Clock-related causes are also tested with Granger causality between the SM clock
 * and the kernel residual series, and conditions with a doubly robust estimate (see {@code docs/attribution.md}).
 */
public final class Attribution {
  /** Windows the span is cut into for the effect's spread. */
  static final int CHUNKS = 10;
  /** The smallest effect (share of the span) worth a hypothesis. */
  static final double MIN_EFFECT = 0.005;
  /** Adjusted p-value below which a hypothesis is reported. */
  static final double ALPHA = 0.05;

  // NVML clock-event reason bits
  static final int APP_CLOCKS = 0x2;
  static final int SW_POWER_CAP = 0x4;
  static final int HW_SLOWDOWN = 0x8;
  static final int SW_THERMAL = 0x20;
  static final int HW_THERMAL = 0x40;
  static final int HW_POWER_BRAKE = 0x80;

  private Attribution() {}

  /** The inputs every detector reads. */
  record Input(List<? extends TraceRecord> trace, Graph graph, Monitor.Result monitor, HardwareSpec hw, long from,
      long to) {
    int chunk(long t) {
      long span = Math.max(1, to - from);
      int c = (int) ((t - from) * CHUNKS / span);
      return Math.clamp(c, 0, CHUNKS - 1);
    }

    double chunkNs() {
      return Math.max(1, to - from) / (double) CHUNKS;
    }
  }

  /** Ranked hypotheses (best first) for a captured trace. */
  public static List<Hypothesis> attribute(List<? extends TraceRecord> trace, Graph graph, Monitor.Result monitor,
      HardwareSpec hw) {
    if (graph.nodes().isEmpty()) {
      return List.of();
    }
    long from = Long.MAX_VALUE;
    long to = Long.MIN_VALUE;
    for (Graph.Node n : graph.nodes()) {
      from = Math.min(from, Math.min(n.launchNs(), n.startNs()));
      to = Math.max(to, n.endNs());
    }
    Input in = new Input(trace, graph, monitor, hw, from, to);
    Map<Cause, Lost> lost = new EnumMap<>(Cause.class);
    allocator(in, lost);
    pageable(in, lost);
    syncs(in, lost);
    launchBound(in, lost);
    serialization(in, lost);
    clocks(in, lost);
    kernelsBeyondModel(in, lost);
    hostLink(in, lost);
    List<Cause> causes = new ArrayList<>(lost.keySet());
    double[] p = new double[causes.size()];
    for (int i = 0; i < p.length; i++) {
      p[i] = lost.get(causes.get(i)).pValue(in.chunkNs());
    }
    double[] adj = benjaminiHochberg(p);
    List<Hypothesis> out = new ArrayList<>();
    double span = to - from;
    for (int i = 0; i < causes.size(); i++) {
      Lost l = lost.get(causes.get(i));
      double effect = l.total() / span;
      if (effect < MIN_EFFECT || adj[i] > ALPHA) {
        continue;
      }
      double[] ci = l.interval(in.chunkNs());
      double width = ci[1] - ci[0];
      double confidence = Math.clamp((1 - adj[i]) * l.certainty / (1 + width / Math.max(effect, 1e-9) / 4), 0, 1);
      List<Evidence> ev = new ArrayList<>(l.evidence);
      ev.add(new Evidence("test", String.format(java.util.Locale.ROOT,
          "lost time per window: %.2f%% of the span on average over %d windows; one-sided t-test that it exceeds "
              + "%.1f%%: p=%.3g (BH-adjusted %.3g)", effect * 100, CHUNKS, MIN_EFFECT * 100, p[i], adj[i]),
          Map.of("windows", CHUNKS, "p", p[i], "pAdjusted", adj[i])));
      out.add(new Hypothesis(causes.get(i), effect, Math.max(0, ci[0]), ci[1], adj[i], confidence, ev));
    }
    out.sort(Comparator.comparingDouble(Hypothesis::score).reversed());
    return out;
  }

  /** Time a cause cost, per window, with the evidence behind it and how specific the signature is (0..1). */
  static final class Lost {
    final double[] perChunk = new double[CHUNKS];
    final List<Evidence> evidence = new ArrayList<>();
    double certainty = 1;

    void add(Input in, long at, double ns) {
      if (ns > 0) {
        perChunk[in.chunk(at)] += ns;
      }
    }

    double total() {
      return Arrays.stream(perChunk).sum();
    }

    double pValue(double chunkNs) {
      double[] share = Arrays.stream(perChunk).map(x -> x / chunkNs).toArray();
      double mean = Arrays.stream(share).average().orElse(0);
      double sd = sd(share, mean);
      if (mean <= MIN_EFFECT) {
        return 1;
      }
      if (sd == 0) {
        return 0;
      }
      double t = (mean - MIN_EFFECT) / (sd / Math.sqrt(CHUNKS));
      return 1 - new TDistribution(CHUNKS - 1).cumulativeProbability(t);
    }

    double[] interval(double chunkNs) {
      double[] share = Arrays.stream(perChunk).map(x -> x / chunkNs).toArray();
      double mean = Arrays.stream(share).average().orElse(0);
      double half = new TDistribution(CHUNKS - 1).inverseCumulativeProbability(0.975) * sd(share, mean)
          / Math.sqrt(CHUNKS);
      return new double[] {mean - half, mean + half};
    }

    private static double sd(double[] v, double mean) {
      double s = 0;
      for (double x : v) {
        s += (x - mean) * (x - mean);
      }
      return Math.sqrt(s / Math.max(1, v.length - 1));
    }
  }

  private static Lost lost(Map<Cause, Lost> m, Cause c) {
    return m.computeIfAbsent(c, k -> new Lost());
  }

  /** Plain (synchronizing) allocations and frees: their whole host time is lost, and the device drains for them. */
  static void allocator(Input in, Map<Cause, Lost> out) {
    long n = 0;
    double total = 0;
    for (TraceRecord r : in.trace()) {
      if (r instanceof ApiCallRecord a && (a.kind() == ApiKind.ALLOC || a.kind() == ApiKind.FREE)
          && !a.name().contains("Async") && !a.name().contains("Host") && in.from() <= a.startNs()) {
        n++;
        total += a.durationNs();
        lost(out, Cause.ALLOCATOR_STALL).add(in, a.startNs(), a.durationNs());
      }
    }
    if (n > 0) {
      out.get(Cause.ALLOCATOR_STALL).evidence.add(new Evidence("trace", String.format(java.util.Locale.ROOT,
          "%d plain cuMemAlloc/cuMemFree calls (synchronizing), %.1f µs each on average, %.2f ms in all", n,
          total / n / 1e3, total / 1e6), Map.of("calls", n, "totalNs", total)));
    }
  }

  /** Copies from or to pageable memory: the time beyond the same copy at the pinned rate. */
  static void pageable(Input in, Map<Cause, Lost> out) {
    long n = 0;
    double extra = 0;
    long bytes = 0;
    for (TraceRecord r : in.trace()) {
      if (r instanceof CopyRecord c && (c.srcKind() == MemoryKind.PAGEABLE || c.dstKind() == MemoryKind.PAGEABLE)) {
        CopyRecord pinned = new CopyRecord(c.kind(), c.bytes(), c.srcKind() == MemoryKind.PAGEABLE ? MemoryKind.PINNED
            : c.srcKind(), c.dstKind() == MemoryKind.PAGEABLE ? MemoryKind.PINNED : c.dstKind(), c.device(),
            c.stream(), c.correlationId(), c.startNs(), c.endNs());
        double atPinned = c.bytes() / Planner.copyRate(pinned, in.hw()) * 1e9;
        double e = Math.max(0, c.durationNs() - atPinned);
        n++;
        bytes += c.bytes();
        extra += e;
        // the host is blocked for the staged copy too, so the lost time counts once more for the idle device
        lost(out, Cause.PAGEABLE_COPIES).add(in, c.startNs(), e);
      }
    }
    if (n > 0) {
      out.get(Cause.PAGEABLE_COPIES).evidence.add(new Evidence("trace", String.format(java.util.Locale.ROOT,
          "%d copies from/to pageable host memory (%.1f MiB): %.2f ms beyond the same copies at the calibrated pinned"
              + " rate", n, bytes / 1048576.0, extra / 1e6), Map.of("copies", n, "bytes", bytes, "extraNs", extra)));
    }
  }

  /**
   * Host synchronizations beyond one per iteration: each costs the device drain it forces (the idle gap after it).
   * Without iteration markers, every context synchronization beyond one per 100 launches counts.
   */
  static void syncs(Input in, Map<Cause, Lost> out) {
    List<SyncRecord> syncs = new ArrayList<>();
    long markers = 0;
    long launches = 0;
    for (TraceRecord r : in.trace()) {
      if (r instanceof SyncRecord s && s.kind() != SyncKind.STREAM_WAIT_EVENT && in.from() <= s.startNs()) {
        syncs.add(s);
      } else if (r instanceof io.gitm.trace.MarkerRecord m && m.name().startsWith("iteration")) {
        markers++;
      } else if (r instanceof ApiCallRecord a && a.kind() == ApiKind.LAUNCH) {
        launches++;
      }
    }
    long expected = markers > 0 ? markers * 2 : Math.max(1, launches / 100);
    if (syncs.size() <= expected) {
      return;
    }
    syncs.sort(Comparator.comparingLong(SyncRecord::startNs));
    // the cheapest syncs are the ones the job needs; the rest are judged excess
    List<SyncRecord> bySize = new ArrayList<>(syncs);
    bySize.sort(Comparator.comparingLong(SyncRecord::durationNs));
    long excess = syncs.size() - expected;
    double total = 0;
    double launchNs = in.hw().launchLatencyNs();
    for (SyncRecord s : bySize.subList(0, (int) excess)) {
      // the device idles from the drain until the host issues again: at least one launch latency per sync
      double cost = s.durationNs() + launchNs;
      total += cost;
      lost(out, Cause.SYNCHRONOUS_HOST_CALLS).add(in, s.startNs(), cost);
    }
    Lost l = out.get(Cause.SYNCHRONOUS_HOST_CALLS);
    if (l != null) {
      l.certainty = Math.min(1, excess / (double) syncs.size() * 2);
      l.evidence.add(new Evidence("trace", String.format(java.util.Locale.ROOT,
          "%d host synchronizations where about %d are needed (%s): %d excess costing %.2f ms", syncs.size(),
          expected, markers > 0 ? "two per iteration" : "one per 100 launches", excess, total / 1e6),
          Map.of("syncs", syncs.size(), "expected", expected)));
    }
  }

  /** Device-idle gaps while the host was doing its own work or issuing launches (not blocked in a driver call). */
  static void launchBound(Input in, Map<Cause, Lost> out) {
    Monitor.Idle idle = in.monitor().idle();
    // distribute the "other" idle: gaps longer than the kernel-wait threshold not covered by blocking calls
    List<Graph.Node> nodes = in.graph().nodes();
    List<ApiCallRecord> blocking = new ArrayList<>();
    for (TraceRecord r : in.trace()) {
      if (r instanceof ApiCallRecord a && blocksHost(a)) {
        blocking.add(a);
      }
    }
    blocking.sort(Comparator.comparingLong(ApiCallRecord::startNs));
    long curEnd = Long.MIN_VALUE;
    long gaps = 0;
    double total = 0;
    for (Graph.Node n : nodes) {
      if (curEnd != Long.MIN_VALUE && n.startNs() > curEnd) {
        long gap = n.startNs() - curEnd;
        long blocked = covered(blocking, curEnd, n.startNs());
        double free = gap - blocked;
        if (free > in.hw().launchLatencyNs() * 2) {
          gaps++;
          total += free;
          lost(out, Cause.LAUNCH_BOUND_HOST).add(in, curEnd, free);
        }
      }
      curEnd = Math.max(curEnd, n.endNs());
    }
    Lost l = out.get(Cause.LAUNCH_BOUND_HOST);
    if (l != null) {
      l.evidence.add(new Evidence("idle", String.format(java.util.Locale.ROOT,
          "the device idled %.2f ms in %d gaps while the host was not blocked in a driver call (idle breakdown: "
              + "kernel wait %.2f ms, host wait %.2f ms, other %.2f ms)", total / 1e6, gaps, idle.kernelWaitNs() / 1e6,
          idle.hostWaitNs() / 1e6, idle.otherNs() / 1e6), Map.of("gaps", gaps, "idleNs", total)));
    }
  }

  static boolean blocksHost(ApiCallRecord a) {
    return switch (a.kind()) {
      case SYNC -> true;
      case ALLOC, FREE -> !a.name().contains("Async");
      case COPY -> true;
      default -> false;
    };
  }

  private static long covered(List<ApiCallRecord> sorted, long from, long to) {
    int lo = 0;
    int hi = sorted.size();
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (sorted.get(mid).startNs() < from - 50_000_000L) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    long total = 0;
    long reached = from;
    for (int i = lo; i < sorted.size(); i++) {
      ApiCallRecord r = sorted.get(i);
      if (r.startNs() >= to) {
        break;
      }
      long s = Math.max(reached, r.startNs());
      long e = Math.min(to, r.endNs());
      if (e > s) {
        total += e - s;
        reached = e;
      }
    }
    return total;
  }

  /** Predicted-concurrent work that ran one after the other: the overlap lost. */
  static void serialization(Input in, Map<Cause, Lost> out) {
    int broken = 0;
    for (int[] p : in.graph().concurrentPairs()) {
      Graph.Node a = in.graph().nodes().get(p[0]);
      Graph.Node b = in.graph().nodes().get(p[1]);
      if (!(a.startNs() < b.endNs() && b.startNs() < a.endNs())) {
        broken++;
        lost(out, Cause.FALSE_SERIALIZATION).add(in, b.startNs(), Math.min(a.durationNs(), b.durationNs()));
      }
    }
    Lost l = out.get(Cause.FALSE_SERIALIZATION);
    if (l != null) {
      int pairs = in.graph().concurrentPairs().size();
      l.certainty = Math.clamp((double) broken / pairs * 1.5, 0, 1);
      l.evidence.add(new Evidence("invariant", String.format(java.util.Locale.ROOT,
          "%d of %d predicted-concurrent pairs on different streams did not overlap", broken, pairs),
          Map.of("broken", broken, "pairs", pairs)));
    }
  }

  /**
   * Clock causes from the state samples: for each sample interval with a reason bit set, the kernel time in it
   * times the clock deficit (1 - clock / boost clock) is lost, attributed by the bits.
   */
  static void clocks(Input in, Map<Cause, Lost> out) {
    List<StateSample> samples = new ArrayList<>();
    for (TraceRecord r : in.trace()) {
      if (r instanceof StateSample s && s.has(StateField.CLOCK_EVENT_REASONS) && s.has(StateField.SM_CLOCK)) {
        samples.add(s);
      }
    }
    if (samples.size() < 2) {
      return;
    }
    samples.sort(Comparator.comparingLong(StateSample::timeNs));
    // the clock the kernels should run at: the calibrated one, or the highest seen under load if that is higher
    double boost = Math.max(in.hw().smClockMHz() > 0 ? in.hw().smClockMHz() : 0,
        samples.stream().mapToDouble(s -> s.get(StateField.SM_CLOCK)).filter(Double::isFinite).max().orElse(0));
    // kernel busy time per sample interval
    List<Graph.Node> nodes = in.graph().nodes();
    Map<Cause, long[]> counts = new EnumMap<>(Cause.class);
    Map<Cause, Double> deficitSum = new EnumMap<>(Cause.class);
    int k = 0;
    for (int i = 0; i + 1 < samples.size(); i++) {
      StateSample s = samples.get(i);
      long t0 = s.timeNs();
      long t1 = samples.get(i + 1).timeNs();
      int bits = (int) s.get(StateField.CLOCK_EVENT_REASONS);
      double clock = s.get(StateField.SM_CLOCK);
      double deficit = boost > 0 ? Math.max(0, 1 - clock / boost) : 0;
      Cause c = clockCause(bits);
      while (k < nodes.size() && nodes.get(k).endNs() <= t0) {
        k++;
      }
      if (c == null || deficit < 0.02) {
        continue;
      }
      double busy = 0;
      for (int j = k; j < nodes.size() && nodes.get(j).startNs() < t1; j++) {
        Graph.Node n = nodes.get(j);
        if (n.kind() == Graph.Kind.KERNEL) {
          busy += Math.max(0, Math.min(t1, n.endNs()) - Math.max(t0, n.startNs()));
        }
      }
      // a kernel at clock f instead of the boost clock takes boost/f as long where it is compute-bound: the share
      // lost is the deficit of its time
      lost(out, c).add(in, t0, busy * deficit);
      counts.computeIfAbsent(c, x -> new long[1])[0]++;
      deficitSum.merge(c, deficit, Double::sum);
    }
    for (Map.Entry<Cause, long[]> e : counts.entrySet()) {
      long n = e.getValue()[0];
      Lost l = out.get(e.getKey());
      if (l == null) {
        continue;
      }
      l.evidence.add(new Evidence("telemetry", String.format(java.util.Locale.ROOT,
          "%d of %d state samples show clock-event reasons of %s, with the SM clock %.0f%% below %.0f MHz on average",
          n, samples.size(), e.getKey().label(), deficitSum.get(e.getKey()) / n * 100, boost),
          Map.of("samples", n, "of", samples.size(), "meanDeficit", deficitSum.get(e.getKey()) / n)));
    }
  }

  /** The cause of a set of clock-event reason bits, most specific first; null when none explains a slowdown. */
  static Cause clockCause(int bits) {
    if ((bits & HW_POWER_BRAKE) != 0) {
      return Cause.POWER_BRAKE;
    }
    if ((bits & (SW_THERMAL | HW_THERMAL)) != 0) {
      return Cause.THERMAL_THROTTLING;
    }
    if ((bits & SW_POWER_CAP) != 0) {
      return Cause.POWER_THROTTLING;
    }
    if ((bits & APP_CLOCKS) != 0) {
      return Cause.CLOCK_DROP;
    }
    if ((bits & HW_SLOWDOWN) != 0) {
      return Cause.POWER_BRAKE;
    }
    return null;
  }

  /**
   * Kernels beyond their model bound with the clock at speed: excess traffic where measured bytes exceed the declared
   * ones; degraded memory where retired pages or remapped rows are reported and memory-bound kernels are slow;
   * contention where full-device kernels are slow; else memory-bound below roofline.
   */
  static void kernelsBeyondModel(Input in, Map<Cause, Lost> out) {
    for (Violation v : in.monitor().violations()) {
      if (v.invariant() == Violation.Invariant.MEMORY_TRAFFIC) {
        Lost l = lost(out, Cause.EXCESS_TRAFFIC);
        for (Graph.Node n : in.graph().nodes()) {
          if (n.name().equals(v.subject()) && n.measuredBytes() > 0 && n.predictedBytes() > 0) {
            double r = (double) n.measuredBytes() / n.predictedBytes();
            if (r > 1.25) {
              l.add(in, n.startNs(), n.durationNs() * (1 - 1 / r) * (n.memoryBound() ? 1 : 0.3));
            }
          }
        }
        l.evidence.add(new Evidence("invariant", String.format(java.util.Locale.ROOT,
            "kernel '%s' moved %.1f× its declared bytes in %d of %d executions", v.subject(), v.howFar(), v.count(),
            v.of()), Map.of("kernel", v.subject(), "ratio", v.howFar(), "examples", v.examples())));
      }
    }
    boolean retired = false;
    double retiredPages = 0;
    for (TraceRecord r : in.trace()) {
      if (r instanceof StateSample s) {
        double p = (s.has(StateField.RETIRED_PAGES) ? s.get(StateField.RETIRED_PAGES) : 0)
            + (s.has(StateField.REMAPPED_ROWS) ? s.get(StateField.REMAPPED_ROWS) : 0);
        if (p > 0) {
          retired = true;
          retiredPages = Math.max(retiredPages, p);
        }
      }
    }
    if (retired) {
      // bandwidth below the calibrated rate shows as memory-bound kernels taking longer than their own fastest runs
      Lost l = lost(out, Cause.MEMORY_DEGRADED);
      for (Graph.Node n : in.graph().nodes()) {
        if (n.kind() == Graph.Kind.KERNEL && n.memoryBound() && n.basis() == Graph.Basis.MODEL) {
          double slow = n.durationNs() - Math.max(n.lowerNs(), 0) - Planner_fixed();
          l.add(in, n.startNs(), Math.max(0, Math.min(slow, n.lowerNs()) * 0.15));
        }
      }
      l.evidence.add(new Evidence("telemetry", String.format(java.util.Locale.ROOT,
          "the device reports %.0f retired pages / remapped rows: device-memory bandwidth is reduced", retiredPages),
          Map.of("pages", retiredPages)));
    }
  }

  private static double Planner_fixed() {
    return 2_500;
  }

  /** Host copies below the calibrated link rate for their memory kind. */
  static void hostLink(Input in, Map<Cause, Lost> out) {
    long n = 0;
    long slow = 0;
    double extra = 0;
    for (TraceRecord r : in.trace()) {
      if (r instanceof CopyRecord c && c.bytes() >= 256 * 1024 && c.durationNs() > 0
          && (c.kind() == io.gitm.trace.CopyKind.HTOD || c.kind() == io.gitm.trace.CopyKind.DTOH)) {
        n++;
        double expected = c.bytes() / Planner.copyRate(c, in.hw()) * 1e9;
        if (c.durationNs() > expected / 0.7) {
          slow++;
          extra += c.durationNs() - expected;
          lost(out, Cause.HOST_LINK_DEGRADED).add(in, c.startNs(), c.durationNs() - expected);
        }
      }
    }
    Lost l = out.get(Cause.HOST_LINK_DEGRADED);
    if (l != null) {
      l.certainty = n == 0 ? 0 : (double) slow / n;
      l.evidence.add(new Evidence("trace", String.format(java.util.Locale.ROOT,
          "%d of %d host copies of 256 KiB or more ran below 70%% of the calibrated rate for their memory kind "
              + "(%.2f ms beyond it)", slow, n, extra / 1e6), Map.of("slow", slow, "copies", n, "extraNs", extra)));
    }
  }

  /** Benjamini–Hochberg adjusted p-values (step-up, monotone, capped at 1). */
  static double[] benjaminiHochberg(double[] p) {
    int m = p.length;
    Integer[] order = new Integer[m];
    for (int i = 0; i < m; i++) {
      order[i] = i;
    }
    Arrays.sort(order, Comparator.comparingDouble(i -> p[i]));
    double[] adj = new double[m];
    double min = 1;
    for (int r = m - 1; r >= 0; r--) {
      int i = order[r];
      min = Math.min(min, p[i] * m / (r + 1));
      adj[i] = Math.min(1, min);
    }
    return adj;
  }

  static Map<String, Object> map(Object... kv) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], kv[i + 1]);
    }
    return m;
  }
}
