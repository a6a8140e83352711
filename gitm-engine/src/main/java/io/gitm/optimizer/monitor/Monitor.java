package io.gitm.optimizer.monitor;

import io.gitm.planner.Graph;
import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.OverheadRecord;
import io.gitm.trace.TraceRecord;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Matches observed executions to the predicted graph, computes residuals, and checks the three invariants. A pure
 * function of the graph and the records.
 *
 * <p>The tracer's own overhead intervals ({@link OverheadRecord}) are subtracted from any device-idle gap they fall
 * in before gaps are judged. Violations need a minimum share of the executions of a subject ({@link #MIN_RATE}) so
 * one outlier does not make a violation.
 */
public final class Monitor {
  /** Share of a subject's executions that must breach an invariant for a violation. */
  static final double MIN_RATE = 0.05;
  /** Measured over declared bytes above which the memory-traffic invariant is breached. */
  static final double TRAFFIC_TOLERANCE = 1.25;

  private Monitor() {}

  /**
   * What the monitor found.
   *
   * @param residualNs per node: observed duration minus the node's upper bound (positive = too slow)
   * @param idle the idle-time breakdown of the device(s) over the span
   * @param spanNs from the first issued operation to the last end
   * @param busyNs time at least one operation was running
   */
  public record Result(List<Violation> violations, double[] residualNs, Idle idle, long spanNs, long busyNs,
      long judgedKernels, long judgedPairs) {
    public Result {
      violations = List.copyOf(violations);
    }
  }

  /**
   * Device idle time in the manner of Holistic Trace Analysis: {@code kernelWaitNs} — short gaps between back-to-back
   * operations (launch overhead, below {@code threshold}); {@code hostWaitNs} — longer gaps while the host was inside a
   * blocking API call (synchronization, allocation, pageable copy); {@code otherNs} — longer gaps while the host was
   * doing its own work (or issuing launches).
   */
  public record Idle(long kernelWaitNs, long hostWaitNs, long otherNs, long overheadNs, long thresholdNs) {
    public long totalNs() {
      return kernelWaitNs + hostWaitNs + otherNs;
    }
  }

  public static Result check(Graph graph, List<? extends TraceRecord> trace, double launchLatencyNs) {
    List<Graph.Node> nodes = graph.nodes();
    double[] residual = new double[nodes.size()];
    // executions per subject (kernel name, copy kind), as index lists in start order
    Map<String, int[]> bySubject = new LinkedHashMap<>();
    for (Graph.Node n : nodes) {
      residual[n.index()] = n.durationNs() - n.upperNs();
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
    long judged = 0;
    for (Map.Entry<String, int[]> e : bySubject.entrySet()) {
      int[] v = e.getValue();
      int[] idx = Arrays.copyOf(v, v[v.length - 1]);
      judged += idx.length;
      time(nodes, residual, e.getKey(), idx).ifPresent(out::add);
      traffic(nodes, e.getKey(), idx).ifPresent(out::add);
    }
    concurrency(graph).ifPresent(out::add);
    out.sort(Comparator.comparingDouble(Violation::excessNs).reversed());
    long[] span = span(nodes);
    Idle idle = idle(nodes, trace, launchLatencyNs);
    return new Result(out, residual, idle, span[1] - span[0], busy(nodes), judged, graph.concurrentPairs().size());
  }

  private static java.util.Optional<Violation> time(List<Graph.Node> nodes, double[] residual, String subject,
      int[] idx) {
    int n = 0;
    for (int i : idx) {
      n += residual[i] > 0 ? 1 : 0;
    }
    if (n == 0 || (double) n / idx.length < MIN_RATE) {
      return java.util.Optional.empty();
    }
    double excess = 0;
    double[] ratios = new double[n];
    double[] d = new double[idx.length];
    double[] b = new double[idx.length];
    List<String> ex = new ArrayList<>();
    int r = 0;
    for (int j = 0; j < idx.length; j++) {
      Graph.Node g = nodes.get(idx[j]);
      d[j] = g.durationNs();
      b[j] = g.upperNs();
      if (residual[idx[j]] > 0) {
        ratios[r++] = g.durationNs() / Math.max(1, g.upperNs());
        excess += residual[idx[j]];
        if (ex.size() < 5) {
          ex.add(ref(g));
        }
      }
    }
    return java.util.Optional.of(new Violation(Violation.Invariant.KERNEL_TIME, subject, median(d), median(b),
        median(ratios), n, idx.length, excess, ex));
  }

  private static java.util.Optional<Violation> traffic(List<Graph.Node> nodes, String subject, int[] idx) {
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
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(new Violation(Violation.Invariant.MEMORY_TRAFFIC, subject, obs / measured,
        pred / measured, median(Arrays.copyOf(ratios, n)), n, measured, excess, ex));
  }

  private static java.util.Optional<Violation> concurrency(Graph graph) {
    List<int[]> pairs = graph.concurrentPairs();
    int n = 0;
    double lost = 0;
    List<String> ex = new ArrayList<>();
    for (int[] p : pairs) {
      Graph.Node a = graph.nodes().get(p[0]);
      Graph.Node b = graph.nodes().get(p[1]);
      boolean overlap = a.startNs() < b.endNs() && b.startNs() < a.endNs();
      if (!overlap) {
        n++;
        lost += Math.min(a.durationNs(), b.durationNs());
        if (ex.size() < 5) {
          ex.add(ref(a) + " / " + ref(b));
        }
      }
    }
    if (n == 0 || (double) n / pairs.size() < MIN_RATE) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(new Violation(Violation.Invariant.STREAM_CONCURRENCY, "streams of device "
        + graph.nodes().get(pairs.getFirst()[0]).device(), pairs.size() - n, pairs.size(), (double) n / pairs.size(),
        n, pairs.size(), lost, ex));
  }

  static String ref(Graph.Node g) {
    return g.kind().name().toLowerCase() + " '" + g.name() + "' stream " + g.stream() + " corr " + g.correlationId()
        + " at " + g.startNs() + " ns";
  }

  private static double median(double[] v) {
    Arrays.sort(v);
    return v.length == 0 ? Double.NaN : v[v.length / 2];
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

  static Idle idle(List<Graph.Node> nodes, List<? extends TraceRecord> trace, double launchLatencyNs) {
    List<ApiCallRecord> blocking = new ArrayList<>();
    List<OverheadRecord> overhead = new ArrayList<>();
    for (TraceRecord r : trace) {
      if (r instanceof ApiCallRecord a && blocks(a)) {
        blocking.add(a);
      } else if (r instanceof OverheadRecord o) {
        overhead.add(o);
      }
    }
    blocking.sort(Comparator.comparingLong(ApiCallRecord::startNs));
    overhead.sort(Comparator.comparingLong(OverheadRecord::startNs));
    long threshold = Math.max(5_000, Math.round(4 * launchLatencyNs));
    long kernelWait = 0;
    long hostWait = 0;
    long other = 0;
    long overheadNs = 0;
    long curEnd = Long.MIN_VALUE;
    for (Graph.Node n : nodes) {
      if (curEnd != Long.MIN_VALUE && n.startNs() > curEnd) {
        long from = curEnd;
        long to = n.startNs();
        long o = covered(overhead, from, to);
        overheadNs += o;
        long gap = to - from - o;
        if (gap <= 0) {
          // nothing left once the tracer's own time is taken out
        } else if (gap <= threshold) {
          kernelWait += gap;
        } else {
          long h = Math.min(gap, covered(blocking, from, to));
          hostWait += h;
          other += gap - h;
        }
      }
      curEnd = Math.max(curEnd, n.endNs());
    }
    return new Idle(kernelWait, hostWait, other, overheadNs, threshold);
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

  /** Time within [from, to) covered by the (start-sorted) intervals. */
  static long covered(List<? extends TraceRecord> sorted, long from, long to) {
    int lo = 0;
    int hi = sorted.size();
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (sorted.get(mid).startNs() < from - 10_000_000L) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    long total = 0;
    long reached = from;
    for (int i = lo; i < sorted.size(); i++) {
      TraceRecord r = sorted.get(i);
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
}
