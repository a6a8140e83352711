package io.gitm.analysis.attribution;

import io.gitm.analysis.monitor.Monitor;
import io.gitm.analysis.monitor.Violation;
import io.gitm.device.HardwareSpec;
import io.gitm.planner.Graph;
import io.gitm.planner.Planner;
import io.gitm.stats.MultipleTesting;
import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.ClockReason;
import io.gitm.trace.CopyKind;
import io.gitm.trace.CopyRecord;
import io.gitm.trace.MarkerRecord;
import io.gitm.trace.OverheadRecord;
import io.gitm.trace.StateField;
import io.gitm.trace.StateSample;
import io.gitm.trace.TraceRecord;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.hipparchus.distribution.continuous.TDistribution;

/**
 * Causal attribution: turns the monitor's residuals and the trace's conditions into ranked hypotheses in the fixed
 * {@link Cause} taxonomy. A pure function of the records, the graph and the monitor's result: it reads only what a
 * trace holds (never a simulated device's ground truth), and needs no record that a real trace lacks
 * ({@code TrafficRecord}s and work records sharpen it when present).
 *
 * <p>Each cause has a detector that measures the time the cause cost ("lost" time) as a sum of events (device-idle
 * gaps, kernels, sample intervals, synchronizations). The effect is the lost time over the span; its interval and
 * p-value treat the events' costs as draws (a one-sided t-test that the total exceeds {@link #MIN_EFFECT} of the span,
 * at least {@link #MIN_EVENTS} events); p-values are adjusted by Benjamini–Hochberg ({@link MultipleTesting}) across
 * the tested causes. Hypotheses are ranked by effect times confidence. As evidence, each hypothesis carries the pairs
 * of the {@link GrangerMatrix} (telemetry × residual series) whose telemetry bears on its cause, and the doubly robust
 * effects of the per-kernel {@link Conditions} that belong to it; a significant first-launch effect is the cold-start
 * detector.
 *
 * <p>Device-idle time is partitioned, never counted twice: each gap in which no device operation ran goes to the
 * blocking host calls that overlap it or that the host returned from just before it (allocations and frees that
 * stalled, pageable copies, synchronizations; in proportion to their share of the gap, plus the re-issue time after
 * the last of them), or, when the host was not blocked at all and the gap is longer than
 * {@link #LAUNCH_GAP_LATENCIES} launch latencies, to the launch-bound host. The detectors are described in
 * {@code docs/attribution.md}.
 */
public final class Attribution {
  /** Windows of the span, for where lost time fell and for segments without iteration markers. */
  static final int CHUNKS = 10;
  /** The smallest effect (share of the span) worth a hypothesis. */
  public static final double MIN_EFFECT = 0.005;
  /** Fewest events (gaps, kernels, sample intervals) a hypothesis rests on. */
  static final int MIN_EVENTS = 3;
  /** Adjusted p-value below which a hypothesis is reported. */
  static final double ALPHA = 0.05;

  /** A blocking host call that ended at most this long before a device-idle gap began is one of its causes. */
  static final long TOUCH_NS = 1_000;
  /** An allocation or free that held the host longer than this stalled it (a pool-served one takes 1–2 µs). */
  static final long SLOW_ALLOC_NS = 10_000;
  /** A device-idle gap with the host not blocked counts as launch-bound beyond this many launch latencies. */
  static final double LAUNCH_GAP_LATENCIES = 2;
  /** Operations issued while another stream's work was running, needed before missing overlap is judged. */
  static final int MIN_OPPORTUNITIES = 8;
  /** Share of those operations that overlapped, below which the streams are judged serialized. */
  static final double SERIAL_RATE = 0.05;
  /** How long before another stream's work ended an operation must have been ready to count as an opportunity. */
  static final long OVERLAP_MARGIN_NS = 2_000;
  /** Kernels per stream kept to find one running beside a ready operation. */
  static final int RECENT = 8;
  /** Clock deficit (share below the boost clock) under which the clock counts as at speed. */
  static final double MIN_DEFICIT = 0.02;
  /** Measured over declared bytes above which a kernel moved excess traffic (the monitor's tolerance). */
  static final double TRAFFIC_TOLERANCE = 1.25;
  /** Host copies at least this large are judged against the link's rate. */
  static final long LINK_MIN_BYTES = 64 * 1024;
  /** Share of the calibrated rate (fixed cost included) below which a host copy ran slow. */
  static final double LINK_SLOW = 0.7;
  /** Fixed device-side cost of a kernel (the planner's), left out when judging a kernel's excess. */
  static final double KERNEL_FIXED_NS = 2_500;
  /** The planner's slack over a kernel's model time in its upper bound. */
  static final double PLANNER_SLACK = 1.5;
  /** Fixed cost of a copy (the planner's). */
  static final double COPY_FIXED_NS = 3_000;

  // what a host call was doing, for the device-idle partition
  static final byte ISSUE = 0;
  static final byte ALLOC = 1;
  static final byte PAGEABLE = 2;
  static final byte SYNC = 3;
  static final byte LAUNCH = 4;
  static final byte WARMUP = 5;

  private Attribution() {}

  /** The inputs every detector reads. */
  record Input(List<? extends TraceRecord> trace, Graph graph, Monitor.Result monitor, HardwareSpec hw, long from,
      long to, Host host, int[] launchOrder) {
    int chunk(long t) {
      long span = Math.max(1, to - from);
      int c = (int) ((t - from) * (double) CHUNKS / span);
      return Math.clamp(c, 0, CHUNKS - 1);
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
    Input in = new Input(trace, graph, monitor, hw, from, to, Host.of(trace), graph.launchOrder());
    Map<Cause, Lost> lost = new EnumMap<>(Cause.class);
    Queued.Waits queued = Queued.measure(in);
    idle(in, queued.charged(), lost);
    syncs(in, lost);
    pageable(in, lost);
    serialization(in, lost);
    Clock clock = Clock.of(in);
    clocks(in, clock, lost);
    kernels(in, clock, lost);
    Queued.charge(in, queued, lost);
    hostLink(in, lost);
    GrangerMatrix.addTo(in, clock, lost);
    Conditions.estimate(in, clock, lost);
    return rank(in, lost);
  }

  private static List<Hypothesis> rank(Input in, Map<Cause, Lost> lost) {
    // the family of tests: causes whose detector found enough events to be tested at all
    List<Cause> causes = new ArrayList<>();
    for (Map.Entry<Cause, Lost> e : lost.entrySet()) {
      if (e.getValue().events >= MIN_EVENTS) {
        causes.add(e.getKey());
      }
    }
    double span = Math.max(1, in.to() - in.from());
    double[] p = new double[causes.size()];
    for (int i = 0; i < p.length; i++) {
      p[i] = lost.get(causes.get(i)).pValue(span);
    }
    double[] adj = MultipleTesting.benjaminiHochberg(p, ALPHA).adjusted();
    List<Hypothesis> out = new ArrayList<>();
    for (int i = 0; i < causes.size(); i++) {
      Lost l = lost.get(causes.get(i));
      double effect = l.total() / span;
      if (effect < MIN_EFFECT || adj[i] > ALPHA || l.certainty <= 0) {
        continue;
      }
      double[] ci = l.interval(span);
      double width = ci[1] - ci[0];
      double confidence = Math.clamp((1 - adj[i]) * l.certainty / (1 + width / Math.max(effect, 1e-9) / 4), 0, 1);
      List<Evidence> ev = new ArrayList<>(l.evidence);
      ev.add(new Evidence("test", String.format(Locale.ROOT,
          "lost time: %.2f%% of the span in %d events (in %d of %d windows of the span); one-sided t-test that it"
              + " exceeds %.1f%%: p=%.3g (BH-adjusted %.3g)", effect * 100, l.events, l.windows(), CHUNKS,
          MIN_EFFECT * 100, p[i], adj[i]), Map.of("events", l.events, "windows", l.windows(), "p", p[i],
          "pAdjusted", adj[i])));
      out.add(new Hypothesis(causes.get(i), effect, Math.max(0, ci[0]), ci[1], adj[i], confidence, ev));
    }
    out.sort(Comparator.comparingDouble(Hypothesis::score).reversed());
    return out;
  }

  /**
   * Time a cause cost, as a sum of events (a gap, a kernel, a sample interval), with the evidence behind it and how
   * specific the signature is (0..1). The test treats the events' costs as draws: the total's standard error is
   * {@code sqrt(k) * sd}; a one-sided t-test ({@code k - 1} degrees of freedom) asks whether the total exceeds
   * {@link #MIN_EFFECT} of the span. Fewer than {@link #MIN_EVENTS} events are never significant.
   */
  static final class Lost {
    final double[] perChunk = new double[CHUNKS];
    final List<Evidence> evidence = new ArrayList<>();
    double certainty = 1;
    long events;
    double sum;
    private double mean;
    private double m2;

    void add(Input in, long at, double ns) {
      if (ns > 0) {
        perChunk[in.chunk(at)] += ns;
        events++;
        sum += ns;
        double d = ns - mean;
        mean += d / events;
        m2 += d * (ns - mean);
      }
    }

    double total() {
      return sum;
    }

    double sd() {
      return events < 2 ? 0 : Math.sqrt(m2 / (events - 1));
    }

    double pValue(double spanNs) {
      if (events < MIN_EVENTS || sum <= MIN_EFFECT * spanNs) {
        return 1;
      }
      double se = Math.sqrt(events) * sd();
      if (se == 0) {
        return 0;
      }
      double t = (sum - MIN_EFFECT * spanNs) / se;
      return 1 - new TDistribution(events - 1).cumulativeProbability(t);
    }

    /** The 95% interval of the effect (share of the span). */
    double[] interval(double spanNs) {
      double half = events < 2 ? 0
          : new TDistribution(events - 1).inverseCumulativeProbability(0.975) * Math.sqrt(events) * sd();
      return new double[] {(sum - half) / spanNs, (sum + half) / spanNs};
    }

    /** How many of the windows hold lost time. */
    int windows() {
      int w = 0;
      for (double x : perChunk) {
        w += x > 0 ? 1 : 0;
      }
      return w;
    }
  }

  private static Lost lost(Map<Cause, Lost> m, Cause c) {
    return m.computeIfAbsent(c, k -> new Lost());
  }

  /**
   * What the host did, gathered in one pass over the trace: its driver calls in start order, each with what it was
   * doing ({@link #ISSUE}, {@link #LAUNCH}, {@link #ALLOC}, {@link #PAGEABLE}, {@link #SYNC}, or {@link #WARMUP}: a
   * stream-ordered pool growing to its working size in the first iterations, blocking but no cause); the synchronizing
   * calls with the
   * device-idle time each is charged with; the iterations the job marked; the tracer's own intervals; the
   * device-state samples in time order.
   */
  static final class Host {
    long[] start;
    long[] end;
    byte[] cat;
    int calls;
    long[] syncStart = new long[64];
    double[] syncCost = new double[64];
    int[] syncCall = new int[64];
    int syncs;
    /** Per call: blocking, with all work issued before it finished when it returned (set by {@link #idle}). */
    boolean[] drained = new boolean[0];
    /** Per call: blocking, with work issued before it still running when it returned (set by {@link #idle}). */
    boolean[] leftBusy = new boolean[0];
    long[] iterStart = new long[0];
    /** Correlation ids of the copies from or to pageable memory, sorted. */
    long[] pageable = new long[0];
    long launches;
    long slowAllocs;
    double slowAllocNs;
    long ownGaps;
    double ownGapNs;
    long[] overStart = new long[0];
    long[] overEnd = new long[0];
    List<StateSample> samples = new ArrayList<>();
    /** Per device, its other tenants: from the samples holding {@link StateField#OTHER_PROCESSES}, whatever else. */
    Map<Integer, Conditions.Tenants> tenants = Map.of();
    double retiredPages;

    static Host of(List<? extends TraceRecord> trace) {
      Host h = new Host();
      List<StateSample> tenantSamples = new ArrayList<>();
      int apiCalls = 0;
      long[] pageable = new long[16];
      int np = 0;
      List<MarkerRecord> iterations = new ArrayList<>();
      List<OverheadRecord> overhead = new ArrayList<>();
      boolean sorted = true;
      long prevStart = Long.MIN_VALUE;
      for (TraceRecord r : trace) {
        switch (r) {
          case ApiCallRecord a -> {
            apiCalls++;
            sorted &= a.startNs() >= prevStart;
            prevStart = a.startNs();
          }
          case CopyRecord c -> {
            if (Planner.pageable(c) && c.correlationId() != 0) {
              if (np == pageable.length) {
                pageable = Arrays.copyOf(pageable, np * 2);
              }
              pageable[np++] = c.correlationId();
            }
          }
          case StateSample s -> {
            h.samples.add(s);
            if (Double.isFinite(s.get(StateField.OTHER_PROCESSES))) {
              tenantSamples.add(s);
            }
            double p = (s.has(StateField.RETIRED_PAGES) ? s.get(StateField.RETIRED_PAGES) : 0)
                + (s.has(StateField.REMAPPED_ROWS) ? s.get(StateField.REMAPPED_ROWS) : 0);
            if (p > h.retiredPages) {
              h.retiredPages = p;
            }
          }
          case MarkerRecord m -> {
            if (m.name().startsWith("iteration")) {
              iterations.add(m);
            }
          }
          case OverheadRecord o -> overhead.add(o);
          default -> {
          }
        }
      }
      pageable = Arrays.copyOf(pageable, np);
      Arrays.sort(pageable);
      h.pageable = pageable;
      // the calls in start order: as recorded (one host thread records them in order), else sorted
      List<ApiCallRecord> api;
      if (sorted) {
        api = null;
      } else {
        api = new ArrayList<>(apiCalls);
        for (TraceRecord r : trace) {
          if (r instanceof ApiCallRecord a) {
            api.add(a);
          }
        }
        api.sort(Comparator.comparingLong(ApiCallRecord::startNs));
      }
      iterations.sort(Comparator.comparingLong(MarkerRecord::startNs));
      // a stream-ordered pool grows to its working size in the first iterations (one per buffer set in flight):
      // warm-up, not a stall
      int warmIterations = Math.max(2, iterations.size() / 10);
      long warm = iterations.size() > warmIterations ? iterations.get(warmIterations).startNs() : Long.MIN_VALUE;
      h.start = new long[apiCalls];
      h.end = new long[apiCalls];
      h.cat = new byte[apiCalls];
      long[] prevEnd = {Long.MIN_VALUE};
      long[] finalPageable = pageable;
      java.util.function.Consumer<ApiCallRecord> add = a -> {
        int i = h.calls++;
        h.start[i] = a.startNs();
        h.end[i] = a.endNs();
        byte c = category(a, finalPageable);
        if (c == ALLOC && a.startNs() < warm && a.name().contains("Async")) {
          c = WARMUP;
        }
        h.cat[i] = c;
        if (c == SYNC) {
          if (h.syncs == h.syncStart.length) {
            h.syncStart = Arrays.copyOf(h.syncStart, h.syncs * 2);
            h.syncCost = Arrays.copyOf(h.syncCost, h.syncs * 2);
            h.syncCall = Arrays.copyOf(h.syncCall, h.syncs * 2);
          }
          h.syncStart[h.syncs] = a.startNs();
          h.syncCall[h.syncs++] = i;
        } else if (c == ALLOC) {
          h.slowAllocs++;
          h.slowAllocNs += a.durationNs();
        } else if (c == LAUNCH) {
          h.launches++;
        }
        if (prevEnd[0] != Long.MIN_VALUE && a.startNs() > prevEnd[0]) {
          h.ownGaps++;
          h.ownGapNs += a.startNs() - prevEnd[0];
        }
        prevEnd[0] = Math.max(prevEnd[0], a.endNs());
      };
      if (api == null) {
        for (TraceRecord r : trace) {
          if (r instanceof ApiCallRecord a) {
            add.accept(a);
          }
        }
      } else {
        api.forEach(add);
      }
      h.iterStart = iterations.stream().mapToLong(MarkerRecord::startNs).toArray();
      overhead.sort(Comparator.comparingLong(OverheadRecord::startNs));
      h.overStart = overhead.stream().mapToLong(OverheadRecord::startNs).toArray();
      h.overEnd = overhead.stream().mapToLong(OverheadRecord::endNs).toArray();
      h.tenants = Conditions.Tenants.of(tenantSamples);
      h.samples.removeIf(s -> !(s.has(StateField.SM_CLOCK) && s.has(StateField.CLOCK_EVENT_REASONS)
          && Double.isFinite(s.get(StateField.SM_CLOCK)) && Double.isFinite(s.get(StateField.CLOCK_EVENT_REASONS))));
      h.samples.sort(Comparator.comparingLong(StateSample::timeNs));
      return h;
    }

    /** The ordinal of synchronizing call {@code k} (a call of category {@link #SYNC}). */
    int syncOf(int k) {
      return Arrays.binarySearch(syncCall, 0, syncs, k);
    }

    /** What a driver call was doing: stalling in the allocator, staging a pageable copy, waiting, or issuing work. */
    static byte category(ApiCallRecord a, long[] pageableCorrelations) {
      String n = a.name();
      return switch (a.kind()) {
        case SYNC -> n.contains("WaitEvent") ? ISSUE : SYNC;
        case ALLOC, FREE -> n.contains("Host") ? ISSUE
            : !n.contains("Async") || a.durationNs() > SLOW_ALLOC_NS ? ALLOC : ISSUE;
        case COPY -> Arrays.binarySearch(pageableCorrelations, a.correlationId()) >= 0 ? PAGEABLE
            : n.contains("Async") ? ISSUE : SYNC;
        case LAUNCH -> LAUNCH;
        default -> ISSUE;
      };
    }

    /** The tracer's own time within [from, to). */
    long overhead(long from, long to) {
      if (overStart.length == 0) {
        return 0;
      }
      int i = Arrays.binarySearch(overStart, from - 10_000_000L);
      i = i < 0 ? -i - 1 : i;
      long total = 0;
      long reached = from;
      for (; i < overStart.length && overStart[i] < to; i++) {
        long s = Math.max(reached, overStart[i]);
        long e = Math.min(to, overEnd[i]);
        if (e > s) {
          total += e - s;
          reached = e;
        }
      }
      return total;
    }

    /** The iteration holding time {@code t}, or -1 outside the marked iterations. */
    int iteration(long t) {
      int i = Arrays.binarySearch(iterStart, t);
      i = i >= 0 ? i : -i - 2;
      return i;
    }
  }

  /**
   * The device-idle partition: each gap between device operations (the tracer's own time taken out) goes to the
   * blocking host calls that overlap it or that the host returned from just before it, in proportion to their share of
   * the gap (the time from the last one's return to the gap's end, re-issuing work, goes to that one). A gap with the
   * host never blocked in it: when a blocking call earlier in the same iteration drained the device (no work issued
   * before that call was still running after it), the host's driver calls in the gap other than launches (frees,
   * allocations, copies to issue, event records: the pipeline refilling) are the last such call's cost; the rest of
   * the gap (the host's own code, launches) goes to the launch-bound host when the gap is longer than
   * {@link #LAUNCH_GAP_LATENCIES} launch latencies. Synchronizations are charged here and judged by {@link #syncs}.
   * {@code queued[i]}, the part of the gap before node i that the job's ready work waited behind another context
   * ({@link Queued}), is taken out of the gap first: that time is not the host's.
   */
  static void idle(Input in, double[] queued, Map<Cause, Lost> out) {
    Host h = in.host();
    List<Graph.Node> nodes = in.graph().nodes();
    boolean[] drained = drained(in);
    h.drained = drained;
    h.leftBusy = leftBusy(in);
    double launchGap = LAUNCH_GAP_LATENCIES * Math.max(1_000, in.hw().launchLatencyNs());
    double[] w = new double[6];
    int[] syncCall = new int[16];
    double[] syncWeight = new double[16];
    long curEnd = Long.MIN_VALUE;
    int j = 0;
    int lastDrain = -1;
    int drainGaps = 0;
    long launchGaps = 0;
    double launchNs = 0;
    double allocNs = 0;
    double pageableNs = 0;
    for (int ni = 0; ni < nodes.size(); ni++) {
      Graph.Node n = nodes.get(ni);
      long g1 = n.startNs();
      if (curEnd != Long.MIN_VALUE && g1 > curEnd) {
        long g0 = curEnd;
        double len = (g1 - g0) - h.overhead(g0, g1) - queued[ni];
        if (len > 0) {
          while (j < h.calls && h.end[j] < g0 - TOUCH_NS) {
            if (drained[j] && (lastDrain < 0 || h.end[j] >= h.end[lastDrain])) {
              lastDrain = j;
              drainGaps = 0;
            }
            j++;
          }
          Arrays.fill(w, 0);
          int ns = 0;
          int last = -1;
          int drainer = -1;
          long lastEnd = Long.MIN_VALUE;
          double refill = 0;
          for (int k = j; k < h.calls && h.start[k] < g1; k++) {
            byte c = h.cat[k];
            double o = Math.max(0, Math.min(h.end[k], g1) - Math.max(h.start[k], g0));
            if (!blocking(c)) {
              refill += c == ISSUE ? o : 0;
              continue;
            }
            if (h.end[k] < g0 - TOUCH_NS) {
              continue;
            }
            w[c] += o;
            if (c == SYNC) {
              if (ns == syncCall.length) {
                syncCall = Arrays.copyOf(syncCall, ns * 2);
                syncWeight = Arrays.copyOf(syncWeight, ns * 2);
              }
              syncCall[ns] = h.syncOf(k);
              syncWeight[ns++] = o;
            }
            if (h.end[k] <= g1 && h.end[k] > lastEnd) {
              lastEnd = h.end[k];
              last = k;
            }
            if (h.start[k] <= g0 && (drainer < 0 || h.end[k] > h.end[drainer])) {
              drainer = k;
            }
          }
          double charged = 0;
          if (last >= 0) {
            // the device drained while the host was blocked: re-issuing work after the call is the cost of the call the
            // host was in when the device went idle (or the last one, when none was)
            charged = g1 - Math.max(g0, lastEnd);
            if (drainer >= 0) {
              last = drainer;
            }
          } else if (lastDrain >= 0 && (h.iterStart.length >= 2
              ? h.iteration(h.end[lastDrain]) == h.iteration(g0) && h.iteration(g0) >= 0 : drainGaps == 0)) {
            // the pipeline is refilling after a drain in the same iteration (without iteration markers: the first gap
            // after it): a short gap is the drain's cost, a longer one only for the host's non-launch driver calls
            charged = len <= launchGap ? len : Math.min(len, refill);
            last = lastDrain;
          }
          drainGaps++;
          if (last >= 0 && charged > 0) {
            w[h.cat[last]] += charged;
            if (h.cat[last] == SYNC) {
              if (ns == syncCall.length) {
                syncCall = Arrays.copyOf(syncCall, ns * 2);
                syncWeight = Arrays.copyOf(syncWeight, ns * 2);
              }
              syncCall[ns] = h.syncOf(last);
              syncWeight[ns++] = charged;
            }
          }
          double total = w[ALLOC] + w[PAGEABLE] + w[SYNC] + w[WARMUP];
          // a gap the host was blocked in is the blocking calls'; after a drain only the refill is theirs
          double blocked = total == 0 ? 0 : lastEnd != Long.MIN_VALUE ? len : Math.min(len, total);
          if (blocked > 0) {
            double a = blocked * w[ALLOC] / total;
            double p = blocked * w[PAGEABLE] / total;
            allocNs += a;
            pageableNs += p;
            if (a > 0) {
              lost(out, Cause.ALLOCATOR_STALL).add(in, g0, a);
            }
            if (p > 0) {
              lost(out, Cause.PAGEABLE_COPIES).add(in, g0, p);
            }
            for (int s = 0; s < ns; s++) {
              h.syncCost[syncCall[s]] += blocked * syncWeight[s] / total;
            }
          }
          double free = len - blocked;
          if (free > 0 && len > launchGap) {
            launchGaps++;
            launchNs += free;
            lost(out, Cause.LAUNCH_BOUND_HOST).add(in, g0, free);
          }
        }
      }
      curEnd = Math.max(curEnd, n.endNs());
    }
    Monitor.Idle idle = in.monitor().idle();
    Lost l = out.get(Cause.LAUNCH_BOUND_HOST);
    if (l != null) {
      l.evidence.add(new Evidence("idle", String.format(Locale.ROOT,
          "the device idled %.2f ms in %d gaps longer than %.1f µs while the host was not blocked in a driver call"
              + " (the host spent %.2f ms in %d stretches outside any driver call; idle breakdown: kernel wait %.2f ms,"
              + " host wait %.2f ms, other %.2f ms)", launchNs / 1e6, launchGaps, launchGap / 1e3, h.ownGapNs / 1e6,
          h.ownGaps, idle.kernelWaitNs() / 1e6, idle.hostWaitNs() / 1e6, idle.otherNs() / 1e6),
          Map.of("gaps", launchGaps, "idleNs", launchNs, "hostOwnNs", h.ownGapNs)));
    }
    Lost a = out.get(Cause.ALLOCATOR_STALL);
    if (a != null) {
      a.evidence.add(new Evidence("trace", String.format(Locale.ROOT,
          "%d allocations/frees held the host (synchronizing, or over %d µs): %.1f µs each on average, %.2f ms in all;"
              + " the device idled %.2f ms around them", h.slowAllocs, SLOW_ALLOC_NS / 1000,
          h.slowAllocNs / Math.max(1, h.slowAllocs) / 1e3, h.slowAllocNs / 1e6, allocNs / 1e6),
          Map.of("calls", h.slowAllocs, "callNs", h.slowAllocNs, "idleNs", allocNs)));
    }
    Lost p = out.get(Cause.PAGEABLE_COPIES);
    if (p != null) {
      p.evidence.add(new Evidence("idle", String.format(Locale.ROOT,
          "the device idled %.2f ms while the host was blocked in copies staged through pageable memory",
          pageableNs / 1e6), Map.of("idleNs", pageableNs)));
    }
  }

  private static boolean blocking(byte category) {
    return category == ALLOC || category == PAGEABLE || category == SYNC || category == WARMUP;
  }

  /**
   * Per host call, whether it drained the device: it was blocking, work issued before it was still running when it
   * began, and all of that work had finished when it returned.
   */
  static boolean[] drained(Input in) {
    Host h = in.host();
    List<Graph.Node> nodes = in.graph().nodes();
    int[] byLaunch = in.launchOrder();
    boolean[] drained = new boolean[h.calls];
    int q = 0;
    long maxEnd = Long.MIN_VALUE;
    for (int k = 0; k < h.calls; k++) {
      if (!blocking(h.cat[k])) {
        continue;
      }
      while (q < byLaunch.length && nodes.get(byLaunch[q]).launchNs() < h.start[k]) {
        maxEnd = Math.max(maxEnd, nodes.get(byLaunch[q]).endNs());
        q++;
      }
      drained[k] = maxEnd > h.start[k] + TOUCH_NS && maxEnd <= h.end[k] + TOUCH_NS;
    }
    return drained;
  }

  /**
   * Per host call, whether it was blocking and left the device busy: work issued before it was still running when it
   * returned (a wait for part of the work only). A call that found the device idle neither drained it nor left it
   * busy.
   */
  static boolean[] leftBusy(Input in) {
    Host h = in.host();
    List<Graph.Node> nodes = in.graph().nodes();
    int[] byLaunch = in.launchOrder();
    boolean[] busy = new boolean[h.calls];
    int q = 0;
    long maxEnd = Long.MIN_VALUE;
    for (int k = 0; k < h.calls; k++) {
      if (!blocking(h.cat[k])) {
        continue;
      }
      while (q < byLaunch.length && nodes.get(byLaunch[q]).launchNs() < h.start[k]) {
        maxEnd = Math.max(maxEnd, nodes.get(byLaunch[q]).endNs());
        q++;
      }
      busy[k] = maxEnd > h.end[k] + TOUCH_NS;
    }
    return busy;
  }

  /**
   * Host synchronizations beyond what the job needs. A job that pipelines (work on two or more streams, and waits
   * that left the device busy) needs no wait that drains the device: every draining synchronization is excess.
   * Otherwise, with iteration markers, the job's own synchronizations are the ones at the same place in at least half
   * of the iterations after the first — the same number of launches since the iteration began, or the same number
   * before it ends (a job repeats its structure every iteration) —; the rest are excess. Without markers the need is
   * one per 100 launches (the cheapest). Each excess one costs the device-idle time charged to it by {@link #idle}, or
   * the overlap its drain destroyed ({@link #refill}).
   */
  static void syncs(Input in, Map<Cause, Lost> out) {
    Host h = in.host();
    if (h.syncs == 0) {
      return;
    }
    boolean[] excess = new boolean[h.syncs];
    int draining = 0;
    int busy = 0;
    for (int s = 0; s < h.syncs; s++) {
      draining += h.drained.length > 0 && h.drained[h.syncCall[s]] ? 1 : 0;
      busy += h.leftBusy.length > 0 && h.leftBusy[h.syncCall[s]] ? 1 : 0;
    }
    int iterations = h.iterStart.length;
    long needed;
    String rule;
    if (busy > 0 && streams(in.graph()) >= 2) {
      needed = h.syncs - draining;
      rule = "no wait that drains the device (it pipelines over several streams, and " + busy + " of its waits"
          + " left the device busy)";
      for (int s = 0; s < h.syncs; s++) {
        excess[s] = h.drained[h.syncCall[s]];
      }
    } else if (iterations >= 2) {
      needed = recurring(h, excess);
      rule = "those at the same place (launches since the iteration began, or before it ended) in at least half of"
          + " the iterations after the first: " + needed + " of them, " + (needed % iterations == 0
          ? String.valueOf(needed / iterations) : String.format(Locale.ROOT, "%.1f", needed / (double) iterations))
          + " per iteration";
    } else {
      needed = Math.max(1, h.launches / 100);
      rule = "one per 100 launches";
      if (h.syncs > needed) {
        Integer[] order = new Integer[h.syncs];
        for (int s = 0; s < h.syncs; s++) {
          order[s] = s;
        }
        Arrays.sort(order, Comparator.comparingDouble(s -> h.syncCost[s]));
        for (int r = (int) needed; r < h.syncs; r++) {
          excess[order[r]] = true;
        }
      }
    }
    long n = 0;
    double total = 0;
    Lost l = null;
    List<Graph.Node> nodes = in.graph().nodes();
    for (int s = 0; s < h.syncs; s++) {
      if (excess[s]) {
        n++;
        double cost = Math.max(h.syncCost[s], h.drained.length > 0 && h.drained[h.syncCall[s]] ? refill(h, nodes,
            h.syncCall[s]) : 0);
        total += cost;
        if (cost > 0) {
          l = lost(out, Cause.SYNCHRONOUS_HOST_CALLS);
          l.add(in, h.syncStart[s], cost);
        }
      }
    }
    if (l != null) {
      l.certainty = Math.min(1, n / (double) h.syncs * 2);
      l.evidence.add(new Evidence("trace", String.format(Locale.ROOT,
          "%d host synchronizations where the job needs %s: %d excess, %d of them draining the device, which then"
              + " idled %.2f ms", h.syncs, rule, n, draining, total / 1e6), Map.of("syncs", h.syncs, "needed", needed,
          "excess", n, "draining", draining, "idleNs", total)));
    }
  }

  /**
   * Marks as excess the synchronizations inside marked iterations that do not recur: a synchronization's place is the
   * number of launches in its iteration before it, and the number after it; a place held by a synchronization in at
   * least half of the iterations after the first (at least two) is the job's own. Returns how many are needed.
   */
  static long recurring(Host h, boolean[] excess) {
    int iterations = h.iterStart.length;
    int[] launchesBefore = new int[h.calls + 1];
    for (int k = 0; k < h.calls; k++) {
      launchesBefore[k + 1] = launchesBefore[k] + (h.cat[k] == LAUNCH ? 1 : 0);
    }
    // per iteration, the launches before its first call and before its end
    int[] first = new int[iterations + 1];
    for (int i = 0; i <= iterations; i++) {
      int lo = 0;
      int hi = h.calls;
      long t = i < iterations ? h.iterStart[i] : Long.MAX_VALUE;
      while (lo < hi) {
        int mid = (lo + hi) >>> 1;
        if (h.start[mid] < t) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      first[i] = launchesBefore[lo];
    }
    int[] iter = new int[h.syncs];
    long[] fromStart = new long[h.syncs];
    long[] toEnd = new long[h.syncs];
    Map<Long, Set<Integer>> heldBy = new java.util.HashMap<>();
    int skip = iterations > 2 ? 1 : 0;
    for (int s = 0; s < h.syncs; s++) {
      int i = h.iteration(h.syncStart[s]);
      iter[s] = i;
      if (i < 0) {
        continue;
      }
      int k = h.syncCall[s];
      // places as keys: launches since the start (even keys), launches to the end (odd keys)
      fromStart[s] = 2L * (launchesBefore[k] - first[i]);
      toEnd[s] = 2L * (first[i + 1] - launchesBefore[k]) + 1;
      if (i >= skip) {
        heldBy.computeIfAbsent(fromStart[s], x -> new HashSet<>()).add(i);
        heldBy.computeIfAbsent(toEnd[s], x -> new HashSet<>()).add(i);
      }
    }
    int quorum = Math.max(2, (iterations - skip + 1) / 2);
    long needed = 0;
    for (int s = 0; s < h.syncs; s++) {
      boolean own = iter[s] < 0 || heldBy.getOrDefault(fromStart[s], Set.of()).size() >= quorum
          || heldBy.getOrDefault(toEnd[s], Set.of()).size() >= quorum;
      excess[s] = !own;
      needed += own ? 1 : 0;
    }
    return needed;
  }

  /**
   * How long the device took to get ahead of the host again after call {@code k} drained it: from the call's return
   * to the start of the first operation still running when the host next blocked (the work queued while the host
   * refilled the pipeline ran alone instead of beside the drained work), at most the time the host was blocked.
   */
  static double refill(Host h, List<Graph.Node> nodes, int k) {
    long r = h.end[k];
    long next = Long.MAX_VALUE;
    for (int c = k + 1; c < h.calls; c++) {
      if (blocking(h.cat[c])) {
        next = h.start[c];
        break;
      }
    }
    int lo = 0;
    int hi = nodes.size();
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (nodes.get(mid).startNs() < r) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    for (int i = lo; i < nodes.size() && i < lo + 256 && nodes.get(i).startNs() < next; i++) {
      if (nodes.get(i).endNs() >= next) {
        return Math.min(h.end[k] - h.start[k], nodes.get(i).startNs() - r);
      }
    }
    return 0;
  }

  /** How many streams ran device operations. */
  static int streams(Graph g) {
    long first = Long.MIN_VALUE;
    for (Graph.Node n : g.nodes()) {
      long key = ((long) n.device() << 32) | (n.stream() & 0xffffffffL);
      if (first == Long.MIN_VALUE) {
        first = key;
      } else if (key != first) {
        return 2;
      }
    }
    return first == Long.MIN_VALUE ? 0 : 1;
  }

  /** Copies from or to pageable memory: the time the copy took beyond the same bytes at the pinned rate. */
  static void pageable(Input in, Map<Cause, Lost> out) {
    long n = 0;
    double extra = 0;
    long bytes = 0;
    for (TraceRecord r : in.trace()) {
      if (r instanceof CopyRecord c && Planner.pageable(c)) {
        double atPinned = c.bytes() / Planner.copyRate(c.kind(), false, in.hw()) * 1e9;
        double atPageable = c.bytes() / Planner.copyRate(c.kind(), true, in.hw()) * 1e9;
        double e = Math.max(0, Math.min(c.durationNs() - atPinned, atPageable - atPinned));
        n++;
        bytes += c.bytes();
        extra += e;
        lost(out, Cause.PAGEABLE_COPIES).add(in, c.startNs(), e);
      }
    }
    if (n > 0) {
      out.get(Cause.PAGEABLE_COPIES).evidence.add(new Evidence("trace", String.format(Locale.ROOT,
          "%d copies from/to pageable host memory (%.1f MiB): %.2f ms beyond the same copies at the calibrated pinned"
              + " rate; each blocks the host until it ends", n, bytes / 1048576.0, extra / 1e6),
          Map.of("copies", n, "bytes", bytes, "extraNs", extra)));
    }
  }

  /**
   * Work of different streams that ran one piece after another. Two signatures: predicted-concurrent pairs (the
   * planner's, with no stream wait between them) that did not overlap; and, since a stream wait's event may come from
   * any stream, operations issued while another stream's work was running that (almost) never overlapped it — a
   * single hardware queue, or events chaining every stream (the evidence says which cannot be told apart). The lost
   * time is the overlap that did not happen.
   */
  static void serialization(Input in, Map<Cause, Lost> out) {
    List<Graph.Node> nodes = in.graph().nodes();
    List<int[]> pairs = in.graph().concurrentPairs();
    int broken = 0;
    Lost pairLost = new Lost();
    for (int[] p : pairs) {
      Graph.Node a = nodes.get(p[0]);
      Graph.Node b = nodes.get(p[1]);
      if (!(a.startNs() < b.endNs() && b.startNs() < a.endNs())) {
        broken++;
        pairLost.add(in, b.startNs(), Math.min(a.durationNs(), b.durationNs()));
      }
    }
    if (broken > 0 && (double) broken / pairs.size() >= 0.05) {
      pairLost.certainty = Math.clamp((double) broken / pairs.size() * 1.5, 0, 1);
      pairLost.evidence.add(new Evidence("invariant", String.format(Locale.ROOT,
          "%d of %d predicted-concurrent pairs on different streams did not overlap", broken, pairs.size()),
          Map.of("broken", broken, "pairs", pairs.size())));
      out.put(Cause.FALSE_SERIALIZATION, pairLost);
      return;
    }
    // operations in issue order: was each one, once ready, able to run beside the work of the other streams? Judged
    // per segment (an iteration, or a window of the span), so that streams that stop overlapping mid-run show
    Host h = in.host();
    boolean byIteration = h.iterStart.length >= 4;
    int segments = byIteration ? h.iterStart.length : CHUNKS;
    int[] opportunities = new int[segments];
    int[] overlapped = new int[segments];
    double[] segmentLost = new double[segments];
    long[] segmentAt = new long[segments];
    int[] order = in.launchOrder();
    long[] keys = new long[8];
    long[] lastEnd = new long[8];
    // the last few kernels of each stream, to find one running when an operation was ready
    int[] recent = new int[8 * RECENT];
    int[] recentNext = new int[8];
    Arrays.fill(recent, -1);
    long[] heldUntil = new long[8];
    long[] heldLength = new long[8];
    int[] heldSegment = new int[8];
    Arrays.fill(heldSegment, -1);
    int streams = 0;
    // kernels that would fit on the device together (their blocks within its multiprocessors)
    int sms = Math.max(1, in.hw().multiprocessors());
    int[] fit = new int[segments];
    int[] fitServed = new int[segments];
    double[] fitLost = new double[segments];
    for (int idx : order) {
      Graph.Node n = nodes.get(idx);
      long key = ((long) n.device() << 32) | (n.stream() & 0xffffffffL);
      int s = 0;
      while (s < streams && keys[s] != key) {
        s++;
      }
      if (s == streams) {
        if (streams == keys.length) {
          keys = Arrays.copyOf(keys, streams * 2);
          lastEnd = Arrays.copyOf(lastEnd, streams * 2);
          recent = Arrays.copyOf(recent, streams * 2 * RECENT);
          Arrays.fill(recent, streams * RECENT, recent.length, -1);
          recentNext = Arrays.copyOf(recentNext, streams * 2);
          heldUntil = Arrays.copyOf(heldUntil, streams * 2);
          heldLength = Arrays.copyOf(heldLength, streams * 2);
          heldSegment = Arrays.copyOf(heldSegment, streams * 2);
          Arrays.fill(heldSegment, streams, streams * 2, -1);
        }
        keys[s] = key;
        lastEnd[s] = Long.MIN_VALUE;
        streams++;
      }
      long ready = Math.max(n.launchNs(), lastEnd[s]);
      boolean justHeld = false;
      long other = Long.MIN_VALUE;
      for (int o = 0; o < streams; o++) {
        if (o != s && (keys[o] >>> 32) == (key >>> 32) && lastEnd[o] > other) {
          other = lastEnd[o];
        }
      }
      // a copy staged through pageable memory is the host's to overlap, not the streams' (PAGEABLE_COPIES)
      boolean staged = n.kind() == Graph.Kind.COPY && Arrays.binarySearch(h.pageable, n.correlationId()) >= 0;
      if (other != Long.MIN_VALUE && other - OVERLAP_MARGIN_NS > ready && !staged) {
        int seg = byIteration ? h.iteration(n.launchNs()) : in.chunk(n.launchNs());
        if (seg >= 0) {
          opportunities[seg]++;
          boolean served = n.startNs() + OVERLAP_MARGIN_NS < other;
          if (served) {
            overlapped[seg]++;
          } else {
            segmentLost[seg] += Math.min(n.durationNs(), other - ready);
            segmentAt[seg] = segmentAt[seg] == 0 ? n.startNs() : segmentAt[seg];
          }
          // a kernel of another stream already running when this kernel was ready, that it would fit beside
          Graph.Node k = null;
          for (int o = 0; o < streams && n.kind() == Graph.Kind.KERNEL && k == null; o++) {
            for (int r = 0; o != s && r < RECENT; r++) {
              int ci = recent[o * RECENT + r];
              Graph.Node c = ci < 0 ? null : nodes.get(ci);
              if (c != null && c.device() == n.device() && c.startNs() <= ready
                  && c.endNs() - OVERLAP_MARGIN_NS > ready && n.blocks() + c.blocks() <= sms) {
                k = c;
                break;
              }
            }
          }
          if (k != null) {
            boolean beside = n.startNs() + OVERLAP_MARGIN_NS < k.endNs();
            fit[seg]++;
            fitServed[seg] += beside ? 1 : 0;
            if (!beside) {
              // this operation and the short ones queued behind it on its stream ran after the kernel instead of
              // beside it
              fitLost[seg] += Math.min(n.durationNs(), k.endNs() - ready);
              heldUntil[s] = k.endNs();
              heldLength[s] = k.durationNs();
              heldSegment[s] = seg;
              justHeld = true;
            }
          }
        }
      }
      if (heldSegment[s] >= 0 && !justHeld) {
        if (n.launchNs() < heldUntil[s] && n.startNs() >= heldUntil[s] - OVERLAP_MARGIN_NS
            && n.durationNs() < heldLength[s] / 2) {
          fitLost[heldSegment[s]] += n.durationNs();
        } else {
          heldSegment[s] = -1;
        }
      }
      lastEnd[s] = Math.max(lastEnd[s], n.endNs());
      if (n.kind() == Graph.Kind.KERNEL) {
        recent[s * RECENT + recentNext[s]] = idx;
        recentNext[s] = (recentNext[s] + 1) % RECENT;
      }
    }
    int judged = 0;
    int serial = 0;
    int serialOpportunities = 0;
    int allOpportunities = 0;
    int allOverlapped = 0;
    Lost l = new Lost();
    for (int seg = 0; seg < segments; seg++) {
      allOpportunities += opportunities[seg];
      allOverlapped += overlapped[seg];
      if (opportunities[seg] == 0) {
        continue;
      }
      judged++;
      if (overlapped[seg] < SERIAL_RATE * opportunities[seg]) {
        serial++;
        serialOpportunities += opportunities[seg];
        l.add(in, segmentAt[seg], segmentLost[seg]);
      }
    }
    if (serial >= MIN_EVENTS && serialOpportunities >= MIN_OPPORTUNITIES && serial * 2 >= judged) {
      l.certainty = 0.8 * serial / judged;
      l.evidence.add(new Evidence("trace", String.format(Locale.ROOT,
          "in %d of %d %s, operations issued while work of another stream was running never ran beside it (%d such"
              + " operations there; %d of %d overlapped over the whole run): the streams ran as one queue (a single"
              + " hardware queue, or events chaining every stream)", serial, judged,
          byIteration ? "iterations" : "windows of the span", serialOpportunities, allOverlapped, allOpportunities),
          Map.of("segments", judged, "serialized", serial, "opportunities", allOpportunities,
              "overlapped", allOverlapped)));
      out.put(Cause.FALSE_SERIALIZATION, l);
      return;
    }
    // kernels that fit the device together never ran together while copies still ran beside kernels: the device has
    // fewer multiprocessors than it reports (another tenant)
    int fitJudged = 0;
    int fitNever = 0;
    int fitAll = 0;
    Lost c = new Lost();
    for (int seg = 0; seg < segments; seg++) {
      fitAll += fit[seg];
      if (fit[seg] == 0) {
        continue;
      }
      fitJudged++;
      if (fitServed[seg] == 0) {
        fitNever++;
        c.add(in, segmentAt[seg], fitLost[seg]);
      }
    }
    if (fitNever >= MIN_EVENTS && fitNever * 2 >= fitJudged && allOverlapped > 0) {
      c.certainty = 0.6 * fitNever / fitJudged;
      c.evidence.add(new Evidence("trace", String.format(Locale.ROOT,
          "in %d of %d %s, kernels of different streams whose blocks fit the device's %d multiprocessors together never"
              + " ran together (%d such kernels in all), while %d operations did run beside other streams' work:"
              + " fewer multiprocessors were available than the device has", fitNever, fitJudged,
          byIteration ? "iterations" : "windows of the span", sms, fitAll, allOverlapped),
          Map.of("segments", fitJudged, "never", fitNever, "kernels", fitAll)));
      out.put(Cause.CONTENTION, c);
    }
  }

  /** The SM clock's deficit and clock-event reasons over time, from the state samples. */
  record Clock(long[] time, double[] deficit, int[] bits, double boost) {
    static Clock of(Input in) {
      List<StateSample> s = in.host().samples;
      double boost = in.hw().smClockMHz() > 0 ? in.hw().smClockMHz() : 0;
      for (StateSample x : s) {
        boost = Math.max(boost, x.get(StateField.SM_CLOCK));
      }
      long[] t = new long[s.size()];
      double[] d = new double[s.size()];
      int[] b = new int[s.size()];
      for (int i = 0; i < t.length; i++) {
        StateSample x = s.get(i);
        t[i] = x.timeNs();
        b[i] = (int) x.get(StateField.CLOCK_EVENT_REASONS);
        d[i] = boost > 0 ? Math.max(0, 1 - x.get(StateField.SM_CLOCK) / boost) : 0;
      }
      return new Clock(t, d, b, boost);
    }

    /** The sample interval holding {@code t}: the last sample at or before it, or -1. */
    int at(long t) {
      int i = Arrays.binarySearch(time, t);
      return i >= 0 ? i : -i - 2;
    }

    /** Whether the clock was lowered by a throttle (not idle) at {@code t}; unknown counts as not. */
    boolean slowAt(long t) {
      int i = at(t);
      return i >= 0 && i + 1 < time.length && deficit[i] >= MIN_DEFICIT && !clockCauses(bits[i]).isEmpty();
    }
  }

  /**
   * Clock causes from the state samples: for each sample interval with a throttle reason set and the SM clock below
   * its boost clock, each kernel's part of the interval's kernel-busy time times the share of its time the lowered
   * clock cost it ({@link #clockShare}) is lost, split evenly between the causes whose reason bits are set; each
   * kernel's part is one event.
   */
  static void clocks(Input in, Clock clock, Map<Cause, Lost> out) {
    if (clock.time().length < 2) {
      return;
    }
    List<Graph.Node> nodes = in.graph().nodes();
    Map<ShapeKey, Double> atSpeed = atSpeed(nodes, clock);
    Map<Cause, long[]> counts = new EnumMap<>(Cause.class);
    Map<Cause, Double> deficitSum = new EnumMap<>(Cause.class);
    long[] judged = new long[2];
    int k = 0;
    long[] time = clock.time();
    for (int i = 0; i + 1 < time.length; i++) {
      long t0 = time[i];
      long t1 = time[i + 1];
      double deficit = clock.deficit()[i];
      List<Cause> causes = clockCauses(clock.bits()[i]);
      while (k < nodes.size() && nodes.get(k).endNs() <= t0) {
        k++;
      }
      if (causes.isEmpty() || deficit < MIN_DEFICIT) {
        continue;
      }
      // kernel-busy time in [t0, t1): the union of kernel intervals (nodes are in start order), one event per kernel's
      // share of it, so that a run of few sample intervals still has events to test
      long reached = t0;
      for (int j = k; j < nodes.size() && nodes.get(j).startNs() < t1; j++) {
        Graph.Node n = nodes.get(j);
        if (n.kind() == Graph.Kind.KERNEL) {
          long s = Math.max(reached, n.startNs());
          long e = Math.min(t1, n.endNs());
          if (e > s) {
            double share = clockShare(n, deficit, atSpeed, judged);
            for (Cause c : causes) {
              lost(out, c).add(in, s, (e - s) * share / causes.size());
            }
            reached = e;
          }
        }
      }
      for (Cause c : causes) {
        counts.computeIfAbsent(c, x -> new long[1])[0]++;
        deficitSum.merge(c, deficit, Double::sum);
      }
    }
    for (Map.Entry<Cause, long[]> e : counts.entrySet()) {
      long n = e.getValue()[0];
      Lost l = out.get(e.getKey());
      if (l == null) {
        continue;
      }
      l.evidence.add(new Evidence("telemetry", String.format(Locale.ROOT,
          "%d of %d state samples show clock-event reasons of %s, with the SM clock %.0f%% below %.0f MHz on average;"
              + " the time lost per throttled kernel: %d against the same kernel's executions at speed (its time beyond"
              + " their median, at most the deficit), %d with none at speed as its whole time times the deficit (an"
              + " upper bound)", n, time.length, e.getKey().label(), deficitSum.get(e.getKey()) / n * 100,
          clock.boost(), judged[0], judged[1]), Map.of("samples", n, "of", time.length, "meanDeficit",
          deficitSum.get(e.getKey()) / n, "againstAtSpeed", judged[0], "wholeTime", judged[1])));
    }
  }

  /**
   * A kernel's shape: its name, its grid, and its declared bytes and lower bound (which follow from its declared work):
   * the same launch of the same code.
   */
  record ShapeKey(String name, long blocks, long bytes, double lowerNs) {
    static ShapeKey of(Graph.Node n) {
      return new ShapeKey(n.name(), n.blocks(), n.predictedBytes(), n.lowerNs());
    }
  }

  /**
   * The median duration of each kernel shape's executions that started in a sample interval at speed: the samples at
   * both its ends show the SM clock within {@link #MIN_DEFICIT} of the boost clock (a sample taken while the device
   * idled, at its idle clock, says nothing of the clock once work arrived; a clock that is lowered between two samples
   * shows only in the second).
   */
  static Map<ShapeKey, Double> atSpeed(List<Graph.Node> nodes, Clock clock) {
    return medians(nodes, n -> {
      int i = clock.at(n.startNs());
      return i >= 0 && i + 1 < clock.time().length && clock.deficit()[i] < MIN_DEFICIT
          && clock.deficit()[i + 1] < MIN_DEFICIT;
    }, ShapeKey::of);
  }

  /** The median duration of the kernels {@code include} accepts, per {@code key}. */
  static <K> Map<K, Double> medians(List<Graph.Node> nodes, java.util.function.Predicate<Graph.Node> include,
      java.util.function.Function<Graph.Node, K> key) {
    Map<K, long[]> durations = new java.util.HashMap<>();
    for (Graph.Node n : nodes) {
      if (n.kind() != Graph.Kind.KERNEL || !include.test(n)) {
        continue;
      }
      // [count, durations...]
      K k = key.apply(n);
      long[] d = durations.computeIfAbsent(k, x -> new long[5]);
      if (d[0] + 1 == d.length) {
        d = Arrays.copyOf(d, d.length * 2);
        durations.put(k, d);
      }
      d[(int) ++d[0]] = n.durationNs();
    }
    Map<K, Double> median = new java.util.HashMap<>();
    for (Map.Entry<K, long[]> e : durations.entrySet()) {
      long[] d = e.getValue();
      int m = (int) d[0];
      long[] v = Arrays.copyOfRange(d, 1, m + 1);
      Arrays.sort(v);
      median.put(e.getKey(), m % 2 == 1 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2.0);
    }
    return median;
  }

  /**
   * The share of kernel {@code n}'s time that a clock {@code deficit} below the boost clock cost it, at most the
   * deficit (a kernel all of whose time scales with the clock takes {@code 1 / (1 - deficit)} as long, so it lost
   * {@code deficit} of its time): its time beyond the median of the same shape's executions at speed, which leaves out
   * what does not scale with the SM clock (bytes at the memory's bandwidth, the fixed cost of a launch). Without such
   * an execution, the deficit: an upper bound. The planner's bound is not used: at low occupancy a kernel its roofline
   * calls bandwidth-bound still scales with the clock. {@code judged} counts the two ways.
   */
  static double clockShare(Graph.Node n, double deficit, Map<ShapeKey, Double> atSpeed, long[] judged) {
    double dur = n.durationNs();
    if (dur <= 0) {
      return 0;
    }
    Double ref = atSpeed.get(ShapeKey.of(n));
    if (ref != null) {
      judged[0]++;
      return Math.clamp((dur - ref) / dur, 0, deficit);
    }
    judged[1]++;
    return deficit;
  }

  /**
   * The causes named by a set of clock-event reason bits: power brake (0x80), thermal (0x20, 0x40), power cap (0x4),
   * clock setting (0x2); the hardware-slowdown bit 0x8 alone, which NVML sets with both HW thermal and power brake,
   * counts as the power brake. Empty when no bit explains a slowdown (idle 0x1, sync boost, display).
   */
  static List<Cause> clockCauses(int bits) {
    List<Cause> c = new ArrayList<>(2);
    if ((bits & ClockReason.HW_POWER_BRAKE_SLOWDOWN) != 0) {
      c.add(Cause.POWER_BRAKE);
    }
    if ((bits & (ClockReason.SW_THERMAL_SLOWDOWN | ClockReason.HW_THERMAL_SLOWDOWN)) != 0) {
      c.add(Cause.THERMAL_THROTTLING);
    }
    if ((bits & ClockReason.SW_POWER_CAP) != 0) {
      c.add(Cause.POWER_THROTTLING);
    }
    if ((bits & ClockReason.APPLICATIONS_CLOCKS_SETTING) != 0) {
      c.add(Cause.CLOCK_DROP);
    }
    if (c.isEmpty() && (bits & ClockReason.HW_SLOWDOWN) != 0) {
      c.add(Cause.POWER_BRAKE);
    }
    return c;
  }

  /**
   * Kernels slower than their model, with the clock at speed. Excess traffic: kernels whose measured bytes exceed the
   * declared ones (the memory-traffic invariant), the share of their time spent on the extra bytes. Degraded device
   * memory: when the device reports retired pages or remapped rows, the time bandwidth-bound kernels took beyond
   * their roofline. Contention: compute-bound kernels that fill the device, beyond their upper bound while the clock
   * was at speed and no bytes were in excess (another tenant holding multiprocessors). Memory-bound below roofline:
   * bandwidth-bound kernels beyond their upper bound with nothing else to explain it.
   */
  static void kernels(Input in, Clock clock, Map<Cause, Lost> out) {
    Set<String> excessTraffic = new HashSet<>();
    for (Violation v : in.monitor().violations()) {
      if (v.invariant() == Violation.Invariant.MEMORY_TRAFFIC) {
        excessTraffic.add(v.subject());
        lost(out, Cause.EXCESS_TRAFFIC).evidence.add(new Evidence("invariant", String.format(Locale.ROOT,
            "kernel '%s' moved %.1f× its declared bytes in %d of %d executions", v.subject(), v.howFar(), v.count(),
            v.of()), Map.of("kernel", v.subject(), "ratio", v.howFar(), "examples", v.examples())));
      }
    }
    boolean retired = in.host().retiredPages > 0;
    int sms = Math.max(1, in.hw().multiprocessors());
    long full = 0;
    long slowFull = 0;
    double contention = 0;
    long slowMemory = 0;
    double belowRoofline = 0;
    long memoryKernels = 0;
    double degraded = 0;
    double bandwidth = in.hw().memoryBandwidth();
    for (Graph.Node n : in.graph().nodes()) {
      if (n.kind() != Graph.Kind.KERNEL) {
        continue;
      }
      long dur = n.durationNs();
      boolean traffic = n.measuredBytes() > 0 && n.predictedBytes() > 0
          && n.measuredBytes() > TRAFFIC_TOLERANCE * n.predictedBytes();
      if (traffic && excessTraffic.contains(n.name())) {
        double r = (double) n.measuredBytes() / n.predictedBytes();
        lost(out, Cause.EXCESS_TRAFFIC).add(in, n.startNs(), dur * (1 - 1 / r) * (n.memoryBound() ? 1 : 0.3));
      }
      if (n.basis() != Graph.Basis.MODEL || clock.slowAt(n.startNs())) {
        continue;
      }
      // judged on the bytes it really moved where they were measured
      double memory = bandwidth > 0 ? (n.measuredBytes() > 0 ? n.measuredBytes() : n.predictedBytes()) / bandwidth
          * 1e9 : 0;
      boolean bandwidthBound = n.bound() == Graph.Bound.MEMORY || memory > n.lowerNs();
      if (retired && bandwidthBound) {
        memoryKernels++;
        double beyond = dur - Math.max(n.lowerNs(), memory) - KERNEL_FIXED_NS;
        if (beyond > 0) {
          degraded += beyond;
          lost(out, Cause.MEMORY_DEGRADED).add(in, n.startNs(), beyond);
        }
        continue;
      }
      if (traffic && bandwidthBound) {
        // its extra bytes explain its time; a kernel still compute-bound at its measured bytes is judged below
        continue;
      }
      // the model's time without the slack: what the execution should have taken at worst
      double expected = n.upperNs() / PLANNER_SLACK;
      if (n.bound() == Graph.Bound.MEMORY) {
        memoryKernels++;
        if (dur > n.upperNs()) {
          slowMemory++;
          belowRoofline += dur - expected;
          lost(out, Cause.MEMORY_BOUND_BELOW_ROOFLINE).add(in, n.startNs(), dur - expected);
        }
      } else if (n.bound() == Graph.Bound.COMPUTE && n.blocks() >= sms) {
        full++;
        if (dur > n.upperNs()) {
          slowFull++;
          contention += dur - expected;
          lost(out, Cause.CONTENTION).add(in, n.startNs(), dur - expected);
        }
      }
    }
    if (retired && degraded > 0) {
      out.get(Cause.MEMORY_DEGRADED).evidence.add(new Evidence("telemetry", String.format(Locale.ROOT,
          "the device reports %.0f retired pages / remapped rows, and %d bandwidth-bound kernels took %.2f ms beyond"
              + " their roofline at the calibrated bandwidth", in.host().retiredPages, memoryKernels, degraded / 1e6),
          Map.of("pages", in.host().retiredPages, "kernels", memoryKernels, "beyondNs", degraded)));
    }
    Lost c = out.get(Cause.CONTENTION);
    if (c != null && slowFull > 0) {
      c.certainty = Math.min(1, slowFull / (double) Math.max(1, full)) * 0.8;
      c.evidence.add(new Evidence("invariant", String.format(Locale.ROOT,
          "%d of %d compute-bound kernels that fill the device ran beyond their upper bound with the SM clock at speed"
              + " (%.2f ms beyond the model): fewer multiprocessors than the device has were available", slowFull, full,
          contention / 1e6), Map.of("slow", slowFull, "of", full, "beyondNs", contention)));
    }
    Lost m = out.get(Cause.MEMORY_BOUND_BELOW_ROOFLINE);
    if (m != null) {
      m.certainty = Math.min(1, slowMemory / (double) Math.max(1, memoryKernels)) * 0.6;
      m.evidence.add(new Evidence("invariant", String.format(Locale.ROOT,
          "%d of %d bandwidth-bound kernels ran beyond their upper bound (%.2f ms beyond the model)", slowMemory,
          memoryKernels, belowRoofline / 1e6), Map.of("slow", slowMemory, "of", memoryKernels)));
    }
  }

  /** Host copies (at least {@link #LINK_MIN_BYTES}) below {@link #LINK_SLOW} of the calibrated rate for their kind. */
  static void hostLink(Input in, Map<Cause, Lost> out) {
    long n = 0;
    long slow = 0;
    double extra = 0;
    for (TraceRecord r : in.trace()) {
      if (r instanceof CopyRecord c && c.bytes() >= LINK_MIN_BYTES && c.durationNs() > 0
          && (c.kind() == CopyKind.HTOD || c.kind() == CopyKind.DTOH)) {
        n++;
        double expected = c.bytes() / Planner.copyRate(c, in.hw()) * 1e9 + COPY_FIXED_NS;
        if (c.durationNs() > expected / LINK_SLOW) {
          slow++;
          extra += c.durationNs() - expected;
          lost(out, Cause.HOST_LINK_DEGRADED).add(in, c.startNs(), c.durationNs() - expected);
        }
      }
    }
    Lost l = out.get(Cause.HOST_LINK_DEGRADED);
    if (l != null) {
      l.certainty = n == 0 ? 0 : (double) slow / n;
      l.evidence.add(new Evidence("trace", String.format(Locale.ROOT,
          "%d of %d host copies of %d KiB or more ran below %.0f%% of the calibrated rate for their memory kind"
              + " (%.2f ms beyond it)", slow, n, LINK_MIN_BYTES / 1024, LINK_SLOW * 100, extra / 1e6),
          Map.of("slow", slow, "copies", n, "extraNs", extra)));
    }
  }
}
