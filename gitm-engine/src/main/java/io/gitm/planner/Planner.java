package io.gitm.planner;

import io.gitm.device.HardwareSpec;
import io.gitm.device.Work;
import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.CopyKind;
import io.gitm.trace.CopyRecord;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.MemoryKind;
import io.gitm.trace.MemsetRecord;
import io.gitm.trace.SyncKind;
import io.gitm.trace.SyncRecord;
import io.gitm.trace.TraceRecord;
import io.gitm.trace.TrafficRecord;
import io.gitm.trace.WorkRecord;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The behavioural compiler: predicts the graph a captured job should have had on a device of the given ceilings. A
 * pure function of the records.
 *
 * <p>Kernel bounds: the lower bound is the roofline, {@code max(flops / peak(precision), bytes / bandwidth)} at the
 * calibrated clock, plus the dependent-access chain at memory latency; the upper bound widens it by wave quantization
 * (a partial last wave costs a full one) and adds the fixed device-side cost of a kernel ({@link #KERNEL_FIXED_NS}),
 * then a slack of {@link #SLACK}. A kernel with no declared work is predicted from its own history: the lower bound is
 * its fastest execution, the upper bound {@link #EMPIRICAL_SLACK} times its median.
 *
 * <p>Copy bounds: bytes at the calibrated rate for the direction and host memory kind (pinned or pageable), plus a
 * fixed cost of {@link #COPY_FIXED_NS}, with the same slack.
 */
public final class Planner {
  /** Device-side cost of the smallest kernel (launch processing, block scheduling, drain), ns; H200-measured floor. */
  static final double KERNEL_FIXED_NS = 2_500;
  /** Fixed cost of a copy (DMA set-up, completion), ns. */
  static final double COPY_FIXED_NS = 3_000;
  /**
   * Latency of one dependent off-chip access (an L2 hit at the boost clock, the fastest way off the multiprocessor),
   * ns: a floor, below the 125 ns per step the H200 preset was calibrated to.
   */
  static final double OFF_CHIP_LATENCY_NS = 100;
  /** Latency of one dependent on-chip access (an L1 hit, about 30 cycles), ns: a floor. */
  static final double ON_CHIP_LATENCY_NS = 15;
  /** Factor on the widened model bound before an execution is judged too slow. */
  static final double SLACK = 1.5;
  /** Factor on a kernel's median for the empirical upper bound. */
  static final double EMPIRICAL_SLACK = 1.5;
  /** How long before another operation's end a node must have been ready for the two to be predicted to overlap. */
  static final long OVERLAP_MARGIN_NS = 2_000;

  private Planner() {}

  /** Predicts the graph of {@code trace} on a device with ceilings {@code hw}. */
  public static Graph predict(List<? extends TraceRecord> trace, HardwareSpec hw) {
    Map<Long, ApiCallRecord> calls = new HashMap<>();
    Map<Long, WorkRecord> workByCorrelation = new HashMap<>();
    Map<String, ArrayDeque<WorkRecord>> workByOrder = new HashMap<>();
    Map<Long, TrafficRecord> traffic = new HashMap<>();
    List<TraceRecord> ops = new ArrayList<>();
    List<SyncRecord> waits = new ArrayList<>();
    for (TraceRecord r : trace) {
      switch (r) {
        case ApiCallRecord a -> {
          if (a.correlationId() != 0) {
            calls.putIfAbsent(a.correlationId(), a);
          }
        }
        case WorkRecord w -> {
          if (w.correlationId() != 0) {
            workByCorrelation.put(w.correlationId(), w);
          } else {
            workByOrder.computeIfAbsent(w.kernel() + '\u0000' + w.stream(), k -> new ArrayDeque<>()).add(w);
          }
        }
        case TrafficRecord t -> traffic.put(t.correlationId(), t);
        case KernelRecord k -> ops.add(k);
        case CopyRecord c -> ops.add(c);
        case MemsetRecord m -> ops.add(m);
        case SyncRecord s -> {
          if (s.kind() == SyncKind.STREAM_WAIT_EVENT) {
            waits.add(s);
          }
        }
        default -> {
        }
      }
    }
    ops.sort((x, y) -> Long.compare(x.startNs(), y.startNs()));
    // work records without a correlation id are matched by order, which needs kernels in their stream's order
    Map<String, Long> medianByName = empiricalMedians(ops);
    Map<String, Long> minByName = empiricalMinimums(ops);
    List<Graph.Node> nodes = new ArrayList<>(ops.size());
    int model = 0;
    for (TraceRecord r : ops) {
      int i = nodes.size();
      Graph.Node n = switch (r) {
        case KernelRecord k -> {
          WorkRecord w = k.correlationId() != 0 ? workByCorrelation.get(k.correlationId()) : null;
          if (w == null) {
            ArrayDeque<WorkRecord> q = workByOrder.get(k.name() + '\u0000' + k.stream());
            w = q == null ? null : q.poll();
          }
          TrafficRecord t = k.correlationId() != 0 ? traffic.get(k.correlationId()) : null;
          yield kernel(i, k, w, t, hw, launch(calls, k.correlationId(), k.startNs()), medianByName, minByName);
        }
        case CopyRecord c -> copy(i, c, hw, launch(calls, c.correlationId(), c.startNs()));
        case MemsetRecord m -> {
          double lower = m.bytes() / hw.memoryBandwidth() * 1e9;
          yield new Graph.Node(i, Graph.Kind.MEMSET, "memset", m.device(), m.stream(), m.correlationId(),
              launch(calls, m.correlationId(), m.startNs()), m.startNs(), m.endNs(), lower,
              (lower + COPY_FIXED_NS) * SLACK, m.bytes(), -1, true, Graph.Basis.MODEL);
        }
        default -> throw new AssertionError(r);
      };
      if (n.basis() == Graph.Basis.MODEL) {
        model++;
      }
      nodes.add(n);
    }
    return new Graph(nodes, model, concurrentPairs(nodes, waits), hw.source());
  }

  private static long launch(Map<Long, ApiCallRecord> calls, long corr, long otherwise) {
    ApiCallRecord a = corr == 0 ? null : calls.get(corr);
    return a == null ? otherwise : Math.min(a.startNs(), otherwise);
  }

  static Graph.Node kernel(int i, KernelRecord k, WorkRecord wr, TrafficRecord t, HardwareSpec hw, long launchNs,
      Map<String, Long> medianByName, Map<String, Long> minByName) {
    long measured = t == null ? -1 : t.bytes();
    if (wr == null) {
      double med = medianByName.getOrDefault(k.name(), k.durationNs());
      double min = minByName.getOrDefault(k.name(), k.durationNs());
      return new Graph.Node(i, Graph.Kind.KERNEL, k.name(), k.device(), k.stream(), k.correlationId(), launchNs,
          k.startNs(), k.endNs(), min, med * EMPIRICAL_SLACK, -1, measured, false, Graph.Basis.EMPIRICAL);
    }
    Work w = wr.work();
    double peak = hw.flopsFor(w.precision());
    double compute = peak > 0 ? w.flops() / peak * 1e9 : 0;
    double memory = w.bytes() / hw.memoryBandwidth() * 1e9;
    double chain = w.dependentAccesses() * OFF_CHIP_LATENCY_NS + w.dependentOnChipAccesses() * ON_CHIP_LATENCY_NS;
    double lower = Math.max(Math.max(compute, memory), chain);
    long blocks = k.grid().volume();
    // a partial last wave takes as long as a full one: at least one block per multiprocessor per wave
    double waves = Math.max(1, Math.ceil((double) blocks / Math.max(1, hw.multiprocessors())));
    double fill = Math.min(1.0, (double) blocks / Math.max(1, hw.multiprocessors()) / waves);
    double upper = (lower / Math.max(0.05, fill) + KERNEL_FIXED_NS) * SLACK;
    return new Graph.Node(i, Graph.Kind.KERNEL, k.name(), k.device(), k.stream(), k.correlationId(), launchNs,
        k.startNs(), k.endNs(), lower, upper, w.bytes(), measured, memory >= compute, Graph.Basis.MODEL);
  }

  static Graph.Node copy(int i, CopyRecord c, HardwareSpec hw, long launchNs) {
    double rate = copyRate(c, hw);
    double lower = c.bytes() / rate * 1e9;
    return new Graph.Node(i, Graph.Kind.COPY, copyName(c), c.device(), c.stream(), c.correlationId(), launchNs,
        c.startNs(), c.endNs(), lower, (lower + COPY_FIXED_NS) * SLACK, c.bytes(), -1, true, Graph.Basis.MODEL);
  }

  /** The calibrated rate of a copy, bytes per second, for its direction and host memory kind. */
  public static double copyRate(CopyRecord c, HardwareSpec hw) {
    boolean pageable = c.srcKind() == MemoryKind.PAGEABLE || c.dstKind() == MemoryKind.PAGEABLE;
    double r = switch (c.kind()) {
      case HTOD -> pageable ? hw.hostToDevicePageable() : hw.hostToDevicePinned();
      case DTOH -> pageable ? hw.deviceToHostPageable() : hw.deviceToHostPinned();
      case DTOD -> hw.memoryBandwidth() / 2;
      default -> hw.hostToDevicePinned();
    };
    return r > 0 ? r : 1e9;
  }

  static String copyName(CopyRecord c) {
    return "copy " + c.kind().name() + (c.kind() == CopyKind.HTOD || c.kind() == CopyKind.DTOH
        ? " " + (c.srcKind() == MemoryKind.PAGEABLE || c.dstKind() == MemoryKind.PAGEABLE ? "pageable" : "pinned")
        : "");
  }

  private static Map<String, Long> empiricalMedians(List<TraceRecord> ops) {
    Map<String, long[]> d = durations(ops);
    Map<String, Long> m = new HashMap<>();
    d.forEach((name, v) -> {
      long[] s = Arrays.copyOf(v, (int) v[v.length - 1]);
      Arrays.sort(s);
      m.put(name, s.length == 0 ? 0 : s[s.length / 2]);
    });
    return m;
  }

  private static Map<String, Long> empiricalMinimums(List<TraceRecord> ops) {
    Map<String, Long> m = new HashMap<>();
    for (TraceRecord r : ops) {
      if (r instanceof KernelRecord k) {
        m.merge(k.name(), k.durationNs(), Math::min);
      }
    }
    return m;
  }

  /** Durations per kernel name; the last slot of each array holds the count. */
  private static Map<String, long[]> durations(List<TraceRecord> ops) {
    Map<String, long[]> d = new HashMap<>();
    for (TraceRecord r : ops) {
      if (r instanceof KernelRecord k) {
        long[] v = d.computeIfAbsent(k.name(), x -> new long[9]);
        int n = (int) v[v.length - 1];
        if (n == v.length - 1) {
          v = Arrays.copyOf(v, v.length * 2);
          v[v.length - 1] = n;
          d.put(k.name(), v);
        }
        v[n] = k.durationNs();
        v[v.length - 1] = n + 1;
      }
    }
    return d;
  }

  /**
   * Pairs predicted to overlap: for each node, the latest node of every other stream of its device that was issued
   * before it and was still running (by a margin) when the node was ready (issued and its own stream free), unless a stream wait on the node's stream (issued after that
   * node) orders them.
   */
  static List<int[]> concurrentPairs(List<Graph.Node> nodes, List<SyncRecord> waits) {
    List<int[]> pairs = new ArrayList<>();
    Map<Long, Integer> lastOnStream = new HashMap<>();
    Map<Long, long[]> waitTimes = new HashMap<>();
    for (SyncRecord w : waits) {
      long key = ((long) w.device() << 32) | (w.stream() & 0xffffffffL);
      waitTimes.merge(key, new long[] {w.startNs()}, (a, b) -> {
        long[] c = Arrays.copyOf(a, a.length + 1);
        c[a.length] = b[0];
        return c;
      });
    }
    waitTimes.values().forEach(Arrays::sort);
    // nodes by launch time, so "issued before" is a prefix
    Integer[] order = new Integer[nodes.size()];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    Arrays.sort(order, (a, b) -> Long.compare(nodes.get(a).launchNs(), nodes.get(b).launchNs()));
    for (Integer idx : order) {
      Graph.Node n = nodes.get(idx);
      long key = ((long) n.device() << 32) | (n.stream() & 0xffffffffL);
      long[] myWaits = waitTimes.get(key);
      Integer mine = lastOnStream.get(key);
      // the earliest the node could start: issued, and its own stream's previous operation done
      long ready = Math.max(n.launchNs(), mine == null ? Long.MIN_VALUE : nodes.get(mine).endNs());
      for (Map.Entry<Long, Integer> e : lastOnStream.entrySet()) {
        if (e.getKey() == key || (e.getKey() >>> 32) != n.device()) {
          continue;
        }
        Graph.Node o = nodes.get(e.getValue());
        // predicted to overlap only when the node could have started well before the other ended
        if (o.launchNs() > n.launchNs() || o.endNs() - OVERLAP_MARGIN_NS <= ready) {
          continue;
        }
        if (myWaits != null && waitBetween(myWaits, o.launchNs(), n.launchNs())) {
          continue;
        }
        pairs.add(new int[] {o.index(), n.index()});
      }
      lastOnStream.put(key, idx);
    }
    return pairs;
  }

  private static boolean waitBetween(long[] sorted, long after, long before) {
    int i = Arrays.binarySearch(sorted, after);
    int from = i >= 0 ? i : -i - 1;
    return from < sorted.length && sorted[from] <= before;
  }
}
