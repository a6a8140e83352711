package io.gitm.analysis.monitor;

import static io.gitm.stats.Sample.upperMedian;

import io.gitm.planner.Graph;
import io.gitm.stats.Sample;
import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.MarkerRecord;
import io.gitm.trace.OverheadRecord;
import io.gitm.trace.TraceRecord;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Matches observed executions to the predicted graph, computes residuals, and checks the three invariants. A pure
 * function of the graph and the records.
 *
 * <p>The tracer's own overhead intervals ({@link OverheadRecord}) are subtracted before anything is judged: from an
 * execution's duration where they overlap it (kernel time, residuals), from the lost overlap of a predicted-concurrent
 * pair where they overlap the pair, and from any device-idle gap they fall in. Violations need a minimum share of the
 * executions of a subject ({@link #MIN_RATE}) so one outlier does not make a violation. An execution faster than a
 * model-based lower bound cannot happen: it is reported as a {@link Floor} (a model or measurement error), not as a
 * violation. A typical value is the upper median ({@link Sample#upperMedian}), always one of the values observed.
 */
public final class Monitor {
  /** Share of a subject's executions that must breach an invariant for a violation. */
  static final double MIN_RATE = 0.05;
  /** Measured over declared bytes above which the memory-traffic invariant is breached. */
  static final double TRAFFIC_TOLERANCE = 1.25;
  /**
   * Share of a model-based lower bound below which an execution is reported as faster than possible (room for a
   * clock boost above the calibrated one and for timer granularity).
   */
  static final double FLOOR_TOLERANCE = 0.97;
  /**
   * Markers that delimit iterations: gitm's profiler's ({@code iteration 12}) and PyTorch's
   * ({@code ProfilerStep#12}).
   */
  static final Pattern ITERATION = Pattern.compile("(?i)(iteration \\d+|ProfilerStep#\\d+)");

  private Monitor() {}

  /**
   * What the monitor found.
   *
   * @param residualNs per node: observed duration (less the tracer's overhead within it) minus the node's upper bound
   *     (positive = too slow)
   * @param idle the idle-time breakdown of the device(s) over the span
   * @param spanNs from the first issued operation to the last end
   * @param busyNs time at least one operation was running
   * @param floors subjects with executions faster than their model-based lower bound
   * @param iterations per iteration (when the trace marks them), the residuals of the operations it issued
   * @param overheadInExecutionsNs tracer overhead subtracted from execution durations
   */
  public record Result(List<Violation> violations, double[] residualNs, Idle idle, long spanNs, long busyNs,
      long judgedKernels, long judgedPairs, List<Floor> floors, List<Iteration> iterations,
      long overheadInExecutionsNs) {
    public Result {
      violations = List.copyOf(violations);
      floors = List.copyOf(floors);
      iterations = List.copyOf(iterations);
    }
  }

  /**
   * Executions of one subject faster than their model-based lower bound: impossible, so the declared work, the
   * calibration or the timestamps are wrong.
   *
   * @param ratio median of duration over lower bound among those executions
   * @param examples up to five record references
   */
  public record Floor(String subject, Graph.Basis basis, long count, long of, double ratio, List<String> examples) {
    public Floor {
      examples = List.copyOf(examples);
    }
  }

  /**
   * One iteration's residuals: the operations issued within its marker.
   *
   * @param ops operations issued within the marker
   * @param deviceNs their durations, less the tracer's overhead
   * @param lowerNs the sum of their lower bounds
   * @param excessNs time beyond their upper bounds (the sum of positive residuals)
   * @param beyond how many ran beyond their upper bound
   */
  public record Iteration(String name, long startNs, long endNs, int ops, double deviceNs, double lowerNs,
      double excessNs, int beyond) {}

  /**
   * Device idle time with Holistic Trace Analysis's categories, per stream and per device. A gap is the time between an
   * operation's end and the next operation's start (on the stream; on the device, between the end of all work and the
   * next start), less the tracer's overhead within it. {@code hostWaitNs}: the next operation was issued (its API
   * call began) after the gap had begun, so the device waited for the host to enqueue work; {@code kernelWaitNs}:
   * otherwise, gaps up to {@code thresholdNs} (the cost of launching back-to-back work); {@code otherNs}: the rest
   * (work already enqueued, yet the device idled: stream waits, events, or an issue time not in the trace). Host wait
   * is split further by what the host was inside while the device idled: a blocking synchronization
   * ({@code hostSyncNs}), a blocking allocation or free ({@code hostAllocNs}), a blocking (pageable) copy
   * ({@code hostCopyNs}); the remainder is the host's own work. The totals are the sum over devices.
   *
   * @param devices per device (its {@code stream} is -1); {@code streams} per stream
   */
  public record Idle(long kernelWaitNs, long hostWaitNs, long otherNs, long overheadNs, long thresholdNs,
      long hostSyncNs, long hostAllocNs, long hostCopyNs, List<Part> devices, List<Part> streams) {
    public Idle {
      devices = List.copyOf(devices);
      streams = List.copyOf(streams);
    }

    public long totalNs() {
      return kernelWaitNs + hostWaitNs + otherNs;
    }
  }

  /** One stream's or device's idle time by category. */
  public record Part(int device, int stream, long kernelWaitNs, long hostWaitNs, long otherNs) {
    public long totalNs() {
      return kernelWaitNs + hostWaitNs + otherNs;
    }
  }

  public static Result check(Graph graph, List<? extends TraceRecord> trace, double launchLatencyNs) {
    List<Graph.Node> nodes = graph.nodes();
    List<OverheadRecord> overhead = new ArrayList<>();
    List<MarkerRecord> markers = new ArrayList<>();
    List<ApiCallRecord> sync = new ArrayList<>();
    List<ApiCallRecord> alloc = new ArrayList<>();
    List<ApiCallRecord> copy = new ArrayList<>();
    for (TraceRecord r : trace) {
      switch (r) {
        case ApiCallRecord a when blocks(a) -> {
          switch (a.kind()) {
            case SYNC -> sync.add(a);
            case ALLOC, FREE -> alloc.add(a);
            default -> copy.add(a);
          }
        }
        case OverheadRecord o -> overhead.add(o);
        case MarkerRecord m when ITERATION.matcher(m.name()).matches() -> markers.add(m);
        default -> {
        }
      }
    }
    Intervals tracer = Intervals.of(overhead);
    double[] residual = new double[nodes.size()];
    double[] duration = new double[nodes.size()];
    long overheadIn = 0;
    // executions per subject (kernel name, copy kind), as index lists in start order
    Map<String, int[]> bySubject = new LinkedHashMap<>();
    for (Graph.Node n : nodes) {
      long o = tracer.covered(n.startNs(), n.endNs());
      overheadIn += o;
      duration[n.index()] = n.durationNs() - o;
      residual[n.index()] = duration[n.index()] - n.upperNs();
      if (n.kind() == Graph.Kind.KERNEL || n.kind() == Graph.Kind.COPY) {
        int[] v = bySubject.computeIfAbsent(n.name(), k -> new int[9]);
        int c = v[v.length - 1];
        if (c == v.length - 1) {
          v = Arrays.copyOf(v, v.length * 2);
          v[v.length - 1] = c;
          bySubject.put(n.name(), v);
        }
        v[c] = n.index();
        v[v.length - 1] = c + 1;
      }
    }
    List<Violation> out = new ArrayList<>();
    List<Floor> floors = new ArrayList<>();
    long judged = 0;
    for (Map.Entry<String, int[]> e : bySubject.entrySet()) {
      int[] v = e.getValue();
      int[] idx = Arrays.copyOf(v, v[v.length - 1]);
      judged += idx.length;
      time(nodes, duration, residual, e.getKey(), idx).ifPresent(out::add);
      traffic(nodes, e.getKey(), idx).ifPresent(out::add);
      floor(nodes, duration, e.getKey(), idx).ifPresent(floors::add);
    }
    concurrency(graph, tracer).ifPresent(out::add);
    out.sort(Comparator.comparingDouble(Violation::excessNs).reversed());
    floors.sort(Comparator.comparingLong(Floor::count).reversed());
    long[] span = span(nodes);
    Idle idle = idle(nodes, tracer, Intervals.of(sync), Intervals.of(alloc), Intervals.of(copy), launchLatencyNs);
    return new Result(out, residual, idle, span[1] - span[0], busy(nodes), judged, graph.concurrentPairs().size(),
        floors, iterations(nodes, duration, residual, markers), overheadIn);
  }

  /** The basis of a subject's predictions, in words (the basis of most of its executions, others named). */
  static String basis(List<Graph.Node> nodes, int[] idx) {
    int[] c = new int[Graph.Basis.values().length];
    for (int i : idx) {
      c[nodes.get(i).basis().ordinal()]++;
    }
    StringBuilder b = new StringBuilder();
    for (Graph.Basis x : Graph.Basis.values()) {
      if (c[x.ordinal()] == 0) {
        continue;
      }
      b.append(b.isEmpty() ? "" : "; ").append(x.label());
      if (c[x.ordinal()] < idx.length) {
        b.append(" (").append(c[x.ordinal()]).append(" of ").append(idx.length).append(')');
      }
      if (x == Graph.Basis.PEERS) {
        for (int i : idx) {
          if (nodes.get(i).basis() == x) {
            b.append(": ").append(nodes.get(i).peers());
            break;
          }
        }
      }
    }
    return b.toString();
  }

  private static Optional<Floor> floor(List<Graph.Node> nodes, double[] duration, String subject, int[] idx) {
    int judged = 0;
    int below = 0;
    double[] ratios = null;
    List<String> ex = new ArrayList<>();
    Graph.Basis basis = null;
    for (int i : idx) {
      Graph.Node g = nodes.get(i);
      if (!g.basis().modelBased() || g.lowerNs() <= 0) {
        continue;
      }
      judged++;
      if (duration[i] < g.lowerNs() * FLOOR_TOLERANCE) {
        if (ratios == null) {
          ratios = new double[idx.length];
        }
        ratios[below++] = duration[i] / g.lowerNs();
        basis = g.basis();
        if (ex.size() < 5) {
          ex.add(ref(g));
        }
      }
    }
    if (below == 0) {
      return Optional.empty();
    }
    return Optional.of(new Floor(subject, basis, below, judged, upperMedian(Arrays.copyOf(ratios, below)), ex));
  }

  /** Per iteration marker, the residuals of the operations issued within it (by their launch time). */
  static List<Iteration> iterations(List<Graph.Node> nodes, double[] duration, double[] residual,
      List<MarkerRecord> markers) {
    if (markers.isEmpty()) {
      return List.of();
    }
    List<MarkerRecord> m = new ArrayList<>(markers);
    m.sort(Comparator.comparingLong(MarkerRecord::startNs));
    long[] starts = new long[m.size()];
    long[] ends = new long[m.size()];
    for (int i = 0; i < starts.length; i++) {
      starts[i] = m.get(i).startNs();
      ends[i] = m.get(i).endNs();
    }
    int[] ops = new int[m.size()];
    int[] beyond = new int[m.size()];
    double[] dev = new double[m.size()];
    double[] lower = new double[m.size()];
    double[] excess = new double[m.size()];
    int at = -1;
    for (Graph.Node n : nodes) {
      long l = n.launchNs();
      // the last marker that starts at or before the launch: launches mostly come in order, so step forward from the
      // previous one, and search only when a launch goes back
      if (at >= 0 && l < starts[at]) {
        at = Arrays.binarySearch(starts, l);
        at = at >= 0 ? at : -at - 2;
      }
      while (at + 1 < starts.length && starts[at + 1] <= l) {
        at++;
      }
      if (at < 0 || l > ends[at]) {
        continue;
      }
      ops[at]++;
      dev[at] += duration[n.index()];
      lower[at] += n.lowerNs();
      if (residual[n.index()] > 0) {
        excess[at] += residual[n.index()];
        beyond[at]++;
      }
    }
    List<Iteration> out = new ArrayList<>(m.size());
    for (int i = 0; i < m.size(); i++) {
      MarkerRecord r = m.get(i);
      out.add(new Iteration(r.name(), r.startNs(), r.endNs(), ops[i], dev[i], lower[i], excess[i], beyond[i]));
    }
    return out;
  }

  private static Optional<Violation> time(List<Graph.Node> nodes, double[] duration, double[] residual,
      String subject, int[] idx) {
    int n = 0;
    for (int i : idx) {
      n += residual[i] > 0 ? 1 : 0;
    }
    if (n == 0 || (double) n / idx.length < MIN_RATE) {
      return Optional.empty();
    }
    double excess = 0;
    double[] ratios = new double[n];
    double[] d = new double[idx.length];
    double[] b = new double[idx.length];
    List<String> ex = new ArrayList<>();
    int r = 0;
    for (int j = 0; j < idx.length; j++) {
      Graph.Node g = nodes.get(idx[j]);
      d[j] = duration[idx[j]];
      b[j] = g.upperNs();
      if (residual[idx[j]] > 0) {
        ratios[r++] = duration[idx[j]] / Math.max(1, g.upperNs());
        excess += residual[idx[j]];
        if (ex.size() < 5) {
          ex.add(ref(g));
        }
      }
    }
    return Optional.of(new Violation(Violation.Invariant.KERNEL_TIME, subject, upperMedian(d), upperMedian(b),
        upperMedian(ratios), n, idx.length, excess, ex, basis(nodes, idx)));
  }

  private static Optional<Violation> traffic(List<Graph.Node> nodes, String subject, int[] idx) {
    int n = 0;
    int measured = 0;
    double excess = 0;
    double[] ratios = new double[idx.length];
    List<String> ex = new ArrayList<>();
    double obs = 0;
    double pred = 0;
    for (int i : idx) {
      Graph.Node g = nodes.get(i);
      if (g.measuredBytes() < 0 || g.predictedBytes() <= 0) {
        continue;
      }
      measured++;
      obs += g.measuredBytes();
      pred += g.predictedBytes();
      double r = (double) g.measuredBytes() / g.predictedBytes();
      if (r > TRAFFIC_TOLERANCE) {
        ratios[n++] = r;
        // the share of the execution spent moving the extra bytes, when it is memory-bound
        excess += g.memoryBound() ? g.durationNs() * (1 - 1 / r) : 0;
        if (ex.size() < 5) {
          ex.add(ref(g));
        }
      }
    }
    if (n == 0 || (double) n / measured < MIN_RATE) {
      return Optional.empty();
    }
    return Optional.of(new Violation(Violation.Invariant.MEMORY_TRAFFIC, subject, obs / measured,
        pred / measured, upperMedian(Arrays.copyOf(ratios, n)), n, measured, excess, ex,
        "declared bytes against measured bytes"));
  }

  private static Optional<Violation> concurrency(Graph graph, Intervals tracer) {
    List<int[]> pairs = graph.concurrentPairs();
    int n = 0;
    double lost = 0;
    List<String> ex = new ArrayList<>();
    for (int[] p : pairs) {
      Graph.Node a = graph.nodes().get(p[0]);
      Graph.Node b = graph.nodes().get(p[1]);
      boolean overlap = a.startNs() < b.endNs() && b.startNs() < a.endNs();
      if (!overlap) {
        // the tracer's own time within the pair's extent explains that much of the lost overlap
        long o = tracer.covered(Math.min(a.startNs(), b.startNs()), Math.max(a.endNs(), b.endNs()));
        double l = Math.min(a.durationNs(), b.durationNs()) - o;
        if (l <= 0) {
          continue;
        }
        n++;
        lost += l;
        if (ex.size() < 5) {
          ex.add(ref(a) + " / " + ref(b));
        }
      }
    }
    if (n == 0 || (double) n / pairs.size() < MIN_RATE) {
      return Optional.empty();
    }
    return Optional.of(new Violation(Violation.Invariant.STREAM_CONCURRENCY, "streams of device "
        + graph.nodes().get(pairs.getFirst()[0]).device(), pairs.size() - n, pairs.size(), (double) n / pairs.size(),
        n, pairs.size(), lost, ex, "launch times, stream order and stream waits"));
  }

  static String ref(Graph.Node g) {
    return g.kind().name().toLowerCase() + " '" + g.name() + "' stream " + g.stream() + " corr " + g.correlationId()
        + " at " + g.startNs() + " ns";
  }

  private static long[] span(List<Graph.Node> nodes) {
    long first = Long.MAX_VALUE;
    long last = Long.MIN_VALUE;
    for (Graph.Node n : nodes) {
      first = Math.min(first, Math.min(n.launchNs(), n.startNs()));
      last = Math.max(last, n.endNs());
    }
    return nodes.isEmpty() ? new long[] {0, 0} : new long[] {first, last};
  }

  /** Time at least one operation ran (union of intervals; nodes are in start order). */
  static long busy(List<Graph.Node> nodes) {
    long busy = 0;
    long curStart = Long.MIN_VALUE;
    long curEnd = Long.MIN_VALUE;
    for (Graph.Node n : nodes) {
      if (n.startNs() > curEnd) {
        if (curEnd > curStart) {
          busy += curEnd - curStart;
        }
        curStart = n.startNs();
        curEnd = n.endNs();
      } else {
        curEnd = Math.max(curEnd, n.endNs());
      }
    }
    if (curEnd > curStart) {
      busy += curEnd - curStart;
    }
    return busy;
  }

  static Idle idle(List<Graph.Node> nodes, Intervals tracer, Intervals syncs, Intervals allocs, Intervals copies,
      double launchLatencyNs) {
    long threshold = Math.max(5_000, Math.round(4 * launchLatencyNs));
    // one pass in start order: a gap state per stream and per device (a job has few of either)
    Slots streamSlots = new Slots();
    Slots deviceSlots = new Slots();
    List<Gaps> streamGaps = new ArrayList<>();
    List<Gaps> deviceGaps = new ArrayList<>();
    for (Graph.Node n : nodes) {
      int s = streamSlots.slot(((long) n.device() << 32) | (n.stream() & 0xffffffffL));
      if (s == streamGaps.size()) {
        streamGaps.add(new Gaps(n.device(), n.stream()));
      }
      int d = deviceSlots.slot(n.device());
      if (d == deviceGaps.size()) {
        deviceGaps.add(new Gaps(n.device(), -1));
      }
      streamGaps.get(s).next(n, tracer, threshold, null, null, null);
      deviceGaps.get(d).next(n, tracer, threshold, syncs, allocs, copies);
    }
    streamGaps.sort(Comparator.comparingInt((Gaps g) -> g.device).thenComparingInt(g -> g.stream));
    deviceGaps.sort(Comparator.comparingInt(g -> g.device));
    List<Part> streams = new ArrayList<>();
    for (Gaps g : streamGaps) {
      streams.add(g.part());
    }
    List<Part> devices = new ArrayList<>();
    long[] total = new long[7];
    for (Gaps g : deviceGaps) {
      devices.add(g.part());
      for (int i = 0; i < total.length; i++) {
        total[i] += g.c[i];
      }
    }
    return new Idle(total[0], total[1], total[2], total[3], threshold, total[4], total[5], total[6], devices, streams);
  }

  /** Dense slots for keys; linear search, the last key cached (a job has few streams and devices). */
  private static final class Slots {
    private long[] keys = new long[8];
    private int n;
    private long lastKey = Long.MIN_VALUE;
    private int lastSlot = -1;

    int slot(long key) {
      if (key == lastKey) {
        return lastSlot;
      }
      int i = 0;
      while (i < n && keys[i] != key) {
        i++;
      }
      if (i == n) {
        if (n == keys.length) {
          keys = Arrays.copyOf(keys, n * 2);
        }
        keys[n++] = key;
      }
      lastKey = key;
      lastSlot = i;
      return i;
    }
  }

  /**
   * The idle gaps of one stream's or one device's operations (fed in start order), by category: {kernel wait, host
   * wait, other, tracer overhead taken out, then host wait inside blocking synchronizations, allocations, copies}
   * (the last three only where the call intervals are given).
   */
  private static final class Gaps {
    final int device;
    final int stream;
    final long[] c = new long[7];
    private long curEnd = Long.MIN_VALUE;

    Gaps(int device, int stream) {
      this.device = device;
      this.stream = stream;
    }

    void next(Graph.Node n, Intervals tracer, long threshold, Intervals sync, Intervals alloc, Intervals copy) {
      if (curEnd != Long.MIN_VALUE && n.startNs() > curEnd) {
        long from = curEnd;
        long to = n.startNs();
        long o = tracer.covered(from, to);
        c[3] += o;
        long gap = to - from - o;
        // issued after the device went idle: it waited for the host (a launch time equal to the start is unknown)
        boolean hostWait = n.launchNs() < n.startNs() && n.launchNs() > from;
        if (gap <= 0) {
          // nothing left once the tracer's own time is taken out
        } else if (hostWait) {
          c[1] += gap;
          if (sync != null) {
            long s = Math.min(gap, sync.covered(from, to));
            long a = Math.min(gap - s, alloc.covered(from, to));
            long p = Math.min(gap - s - a, copy.covered(from, to));
            c[4] += s;
            c[5] += a;
            c[6] += p;
          }
        } else if (gap <= threshold) {
          c[0] += gap;
        } else {
          c[2] += gap;
        }
      }
      curEnd = Math.max(curEnd, n.endNs());
    }

    Part part() {
      return new Part(device, stream, c[0], c[1], c[2]);
    }
  }

  /** Whether a host call blocks the host until the device (or the driver) is done. */
  static boolean blocks(ApiCallRecord a) {
    String n = a.name();
    return switch (a.kind()) {
      case SYNC -> !n.contains("WaitEvent");
      case ALLOC, FREE -> !n.contains("Async") && !n.contains("Host");
      case COPY -> !n.contains("Async");
      default -> false;
    };
  }

  /** The union of a set of intervals, as disjoint sorted intervals, to ask how much of a range they cover. */
  static final class Intervals {
    private final long[] starts;
    private final long[] ends;

    private Intervals(long[] starts, long[] ends) {
      this.starts = starts;
      this.ends = ends;
    }

    static Intervals of(List<? extends TraceRecord> records) {
      List<? extends TraceRecord> sorted = new ArrayList<>(records);
      sorted.sort(Comparator.comparingLong(TraceRecord::startNs));
      long[] s = new long[sorted.size()];
      long[] e = new long[sorted.size()];
      int n = 0;
      for (TraceRecord r : sorted) {
        if (r.endNs() <= r.startNs()) {
          continue;
        }
        if (n > 0 && r.startNs() <= e[n - 1]) {
          e[n - 1] = Math.max(e[n - 1], r.endNs());
        } else {
          s[n] = r.startNs();
          e[n] = r.endNs();
          n++;
        }
      }
      return new Intervals(Arrays.copyOf(s, n), Arrays.copyOf(e, n));
    }

    /** Time within [from, to) the intervals cover. */
    long covered(long from, long to) {
      if (starts.length == 0 || to <= from) {
        return 0;
      }
      // the first interval that ends after from (ends are sorted: the intervals are disjoint)
      int i = Arrays.binarySearch(ends, from);
      i = i >= 0 ? i + 1 : -i - 1;
      long total = 0;
      for (; i < starts.length && starts[i] < to; i++) {
        total += Math.min(to, ends[i]) - Math.max(from, starts[i]);
      }
      return total;
    }
  }
}
