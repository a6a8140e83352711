package io.gitm.planner;

import io.gitm.device.HardwareSpec;
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
 * calibrated clock, or the dependent-access chain at the shortest memory latencies ({@link #OFF_CHIP_LATENCY_NS},
 * {@link #ON_CHIP_LATENCY_NS}) when that is longer: no execution can be faster. The upper bound widens the roofline by
 * the share of the device the grid fills (a partial last wave costs a full one; a grid of fewer blocks than
 * multiprocessors draws a share of the device), takes the chain at the longest latencies ({@link #OFF_CHIP_MISS_NS},
 * {@link #ON_CHIP_SLOW_NS}), adds the fixed device-side cost of a kernel ({@link #KERNEL_FIXED_NS}), then a slack of
 * {@link #SLACK}. A kernel with no declared work is predicted from its own history: the lower bound is its fastest
 * execution, the upper bound {@link #EMPIRICAL_SLACK} times its median ({@link Graph.Basis#EMPIRICAL}). With fewer
 * than {@link #MIN_HISTORY} executions of its own it is predicted the same way from its peers ({@link
 * Graph.Basis#PEERS}): the kernels of its name family ({@link #family}) with the same grid shape, else of its family,
 * else of its grid shape, when that pool holds at least {@link #MIN_HISTORY} executions and another name.
 *
 * <p>Copy bounds: the upper bound is bytes at the calibrated rate for the direction and host memory kind (pinned or
 * pageable), plus a fixed cost of {@link #COPY_FIXED_NS}, with the same slack; the lower bound is the same bytes at
 * that rate, except for a pageable copy, whose device-side record is only the DMA from or to the driver's pinned
 * staging buffer: bytes at the pinned rate. A memset's bytes at the memory bandwidth
 * ({@link Graph.Basis#COPY_MODEL}).
 */
public final class Planner {
  /** Device-side cost of the smallest kernel (launch processing, block scheduling, drain), ns; H200-measured floor. */
  static final double KERNEL_FIXED_NS = 2_500;
  /** Fixed cost of a copy (DMA set-up, completion), ns. */
  static final double COPY_FIXED_NS = 3_000;
  /**
   * Shortest latency of one dependent off-chip access (an L2 hit at the boost clock, the fastest way off the
   * multiprocessor), ns: a floor, below the 125 ns per step the H200 preset was calibrated to.
   */
  static final double OFF_CHIP_LATENCY_NS = 100;
  /** Longest latency of one dependent off-chip access (a device-memory miss), ns. */
  static final double OFF_CHIP_MISS_NS = 600;
  /** Shortest latency of one dependent on-chip access (an L1 hit, about 30 cycles) at the calibrated clock, ns. */
  static final double ON_CHIP_LATENCY_NS = 15;
  /** Longest latency of one dependent on-chip access (bank conflicts, a slow clock), ns. */
  static final double ON_CHIP_SLOW_NS = 80;
  /** Factor on the widened model bound before an execution is judged too slow. */
  static final double SLACK = 1.5;
  /** Factor on a kernel's median for the empirical upper bound. */
  static final double EMPIRICAL_SLACK = 1.5;
  /** Executions of its own a kernel without declared work needs to be predicted from its own history. */
  static final int MIN_HISTORY = 3;
  /** How long before another operation's end a node must have been ready for the two to be predicted to overlap. */
  static final long OVERLAP_MARGIN_NS = 2_000;

  private Planner() {}

  /** Predicts the graph of {@code trace} on a device with ceilings {@code hw}. */
  public static Graph predict(List<? extends TraceRecord> trace, HardwareSpec hw) {
    // correlation ids of the API calls that issue device work, of work records and of traffic records, gathered as
    // primitives and indexed once (densely when the ids are, as CUPTI's and the simulator's are)
    Longs callCorr = new Longs();
    Longs callStart = new Longs();
    Longs workCorr = new Longs();
    List<WorkRecord> works = new ArrayList<>();
    io.gitm.trace.DeclaredWork.ByOrder workByOrder = new io.gitm.trace.DeclaredWork.ByOrder();
    Longs trafficCorr = new Longs();
    List<TrafficRecord> traffic = new ArrayList<>();
    List<TraceRecord> ops = new ArrayList<>();
    List<SyncRecord> waits = new ArrayList<>();
    for (TraceRecord r : trace) {
      switch (r) {
        case KernelRecord k -> ops.add(k);
        case ApiCallRecord a -> {
          if (a.correlationId() != 0 && issuesWork(a)) {
            callCorr.add(a.correlationId());
            callStart.add(a.startNs());
          }
        }
        case WorkRecord w -> {
          if (w.correlationId() != 0) {
            workCorr.add(w.correlationId());
            works.add(w);
          } else {
            workByOrder.add(w);
          }
        }
        case TrafficRecord t -> {
          trafficCorr.add(t.correlationId());
          traffic.add(t);
        }
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
    CorrIndex launches = CorrIndex.of(callCorr, true);
    CorrIndex workByCorrelation = CorrIndex.of(workCorr, false);
    CorrIndex trafficByCorrelation = CorrIndex.of(trafficCorr, false);
    int[] order = Order.byKey(ops.size(), i -> ops.get(i).startNs());
    // work records without a correlation id are matched by order, which needs kernels in their stream's order
    Empirical empirical = null;
    List<Graph.Node> nodes = new ArrayList<>(ops.size());
    int model = 0;
    SharedCorrelation shared = null;
    for (int o : order) {
      TraceRecord r = ops.get(o);
      int i = nodes.size();
      Graph.Node n = switch (r) {
        case KernelRecord k -> {
          long corr = k.correlationId();
          int wi = corr != 0 ? workByCorrelation.get(corr) : -1;
          WorkRecord w = wi >= 0 ? works.get(wi) : null;
          if (w == null && !workByOrder.isEmpty()) {
            w = workByOrder.poll(k);
          }
          int ti = corr != 0 ? trafficByCorrelation.get(corr) : -1;
          if (w != null && !w.kernel().equals(k.name())) {
            // several kernels share one correlation id (a graph launch): each takes the next work record of its
            // name under that id, and the traffic record in the same place
            if (shared == null) {
              shared = new SharedCorrelation(works, traffic);
            }
            int at = shared.next(corr, k.name());
            w = at >= 0 ? works.get(shared.works.get(corr).get(at)) : null;
            List<Integer> ts = shared.traffic.get(corr);
            ti = at >= 0 && ts != null && at < ts.size() ? ts.get(at) : -1;
          }
          if (w == null && empirical == null) {
            empirical = Empirical.of(ops);
          }
          yield kernel(i, k, w, ti >= 0 ? traffic.get(ti) : null, hw, launch(launches, callStart, corr,
              k.startNs()), empirical);
        }
        case CopyRecord c -> copy(i, c, hw, launch(launches, callStart, c.correlationId(), c.startNs()));
        case MemsetRecord m -> {
          double lower = m.bytes() / hw.memoryBandwidth() * 1e9;
          yield new Graph.Node(i, Graph.Kind.MEMSET, "memset", m.device(), m.stream(), m.correlationId(),
              launch(launches, callStart, m.correlationId(), m.startNs()), m.startNs(), m.endNs(), lower,
              (lower + COPY_FIXED_NS) * SLACK, m.bytes(), -1, 0, Graph.Bound.MEMORY, Graph.Basis.COPY_MODEL);
        }
        default -> throw new AssertionError(r);
      };
      if (n.basis().modelBased()) {
        model++;
      }
      nodes.add(n);
    }
    return new Graph(nodes, model, concurrentPairs(nodes, waits), hw.source());
  }

  /** Whether an API call issues device work (a launch, copy or memset) whose record shares its correlation id. */
  private static boolean issuesWork(ApiCallRecord a) {
    return switch (a.kind()) {
      case LAUNCH, COPY, MEMSET -> true;
      default -> false;
    };
  }

  private static long launch(CorrIndex launches, Longs starts, long corr, long otherwise) {
    int i = corr == 0 ? -1 : launches.get(corr);
    return i < 0 ? otherwise : Math.min(starts.get(i), otherwise);
  }

  static Graph.Node kernel(int i, KernelRecord k, WorkRecord w, TrafficRecord t, HardwareSpec hw, long launchNs,
      Empirical empirical) {
    long measured = t == null ? -1 : t.bytes();
    if (w == null) {
      Empirical.Prediction e = empirical.of(k);
      return new Graph.Node(i, Graph.Kind.KERNEL, k.name(), k.device(), k.stream(), k.correlationId(), launchNs,
          k.startNs(), k.endNs(), e.fastestNs(), e.medianNs() * EMPIRICAL_SLACK, -1, measured, k.grid().volume(),
          Graph.Bound.UNKNOWN, e.basis(), e.peers());
    }
    double peak = hw.flopsFor(w.precision());
    double compute = peak > 0 ? w.flops() / peak * 1e9 : 0;
    long bytes = w.bytesRead() + w.bytesWritten();
    double memory = hw.memoryBandwidth() > 0 ? bytes / hw.memoryBandwidth() * 1e9 : 0;
    double chain = w.dependentAccesses() * OFF_CHIP_LATENCY_NS + w.dependentOnChipAccesses() * ON_CHIP_LATENCY_NS;
    double roof = Math.max(compute, memory);
    double lower = Math.max(roof, chain);
    Graph.Bound bound = chain > roof ? Graph.Bound.LATENCY : memory >= compute ? Graph.Bound.MEMORY
        : Graph.Bound.COMPUTE;
    long blocks = k.grid().volume();
    int sms = Math.max(1, hw.multiprocessors());
    // a partial last wave takes as long as a full one, and a grid of fewer blocks than multiprocessors draws only
    // their share of the device: the roofline over the filled share
    double waves = Math.max(1, Math.ceil((double) blocks / sms));
    double fill = Math.min(1.0, (double) blocks / sms / waves);
    double slowChain = w.dependentAccesses() * OFF_CHIP_MISS_NS + w.dependentOnChipAccesses() * ON_CHIP_SLOW_NS;
    double upper = (Math.max(roof / Math.max(0.05, fill), slowChain) + KERNEL_FIXED_NS) * SLACK;
    return new Graph.Node(i, Graph.Kind.KERNEL, k.name(), k.device(), k.stream(), k.correlationId(), launchNs,
        k.startNs(), k.endNs(), lower, upper, bytes, measured, blocks, bound, Graph.Basis.MODEL);
  }

  static Graph.Node copy(int i, CopyRecord c, HardwareSpec hw, long launchNs) {
    double expected = c.bytes() / copyRate(c, hw) * 1e9;
    // the device records only a pageable copy's DMA from or to the driver's pinned staging buffer, at up to the
    // pinned rate; the calibrated pageable rate includes the host-side staging, so it bounds the copy only from above
    double lower = pageable(c) ? c.bytes() / copyRate(c.kind(), false, hw) * 1e9 : expected;
    return new Graph.Node(i, Graph.Kind.COPY, copyName(c), c.device(), c.stream(), c.correlationId(), launchNs,
        c.startNs(), c.endNs(), lower, (expected + COPY_FIXED_NS) * SLACK, c.bytes(), -1, 0, Graph.Bound.MEMORY,
        Graph.Basis.COPY_MODEL);
  }

  /** The calibrated rate of a copy, bytes per second, for its direction and host memory kind. */
  public static double copyRate(CopyRecord c, HardwareSpec hw) {
    return copyRate(c.kind(), pageable(c), hw);
  }

  /** The calibrated rate of a copy of {@code kind}, bytes per second, from or to pageable or pinned host memory. */
  public static double copyRate(CopyKind kind, boolean pageable, HardwareSpec hw) {
    double r = switch (kind) {
      case HTOD -> pageable ? hw.hostToDevicePageable() : hw.hostToDevicePinned();
      case DTOH -> pageable ? hw.deviceToHostPageable() : hw.deviceToHostPinned();
      case DTOD -> hw.memoryBandwidth() / 2;
      default -> hw.hostToDevicePinned();
    };
    return r > 0 ? r : 1e9;
  }

  /** Whether the host side of a copy was pageable memory. */
  public static boolean pageable(CopyRecord c) {
    return c.srcKind() == MemoryKind.PAGEABLE || c.dstKind() == MemoryKind.PAGEABLE;
  }

  static String copyName(CopyRecord c) {
    return switch (c.kind()) {
      case HTOD -> pageable(c) ? "copy HTOD pageable" : "copy HTOD pinned";
      case DTOH -> pageable(c) ? "copy DTOH pageable" : "copy DTOH pinned";
      default -> "copy " + c.kind().name();
    };
  }

  /**
   * A kernel's name family: the name before any template or parameter list, lower case, with every run of digits
   * as {@code #} ({@code ampere_sgemm_128x64_nn} and {@code ampere_sgemm_64x32_nn} are one family).
   */
  static String family(String name) {
    int cut = name.length();
    for (char c : new char[] {'<', '('}) {
      int at = name.indexOf(c);
      if (at > 0) {
        cut = Math.min(cut, at);
      }
    }
    return name.substring(0, cut).strip().toLowerCase(java.util.Locale.ROOT).replaceAll("[0-9]+", "#");
  }

  /**
   * Fastest and median durations of the kernels without declared work: per name, and per peer group (name family
   * and grid shape, family, grid shape) for names with too little history of their own.
   */
  record Empirical(Map<String, long[]> byName, Map<String, long[]> byGroup, Map<String, Integer> namesInGroup,
      Map<GroupKey, String[]> groupNames) {
    /** A kernel's name and grid shape: what its peer groups are computed from. */
    record GroupKey(String name, io.gitm.trace.Dim3 grid) {}

    /** A prediction from history: its basis, the fastest and median durations, and for peers which ones. */
    record Prediction(Graph.Basis basis, double fastestNs, double medianNs, String peers) {}

    static Empirical of(List<TraceRecord> ops) {
      Map<String, Durations> names = new HashMap<>();
      Map<String, Durations> groups = new HashMap<>();
      Map<String, java.util.Set<String>> members = new HashMap<>();
      Map<GroupKey, String[]> groupNames = new HashMap<>();
      for (TraceRecord r : ops) {
        if (r instanceof KernelRecord k) {
          names.computeIfAbsent(k.name(), x -> new Durations()).add(k.durationNs());
          for (String g : groupNames.computeIfAbsent(new GroupKey(k.name(), k.grid()), Empirical::groups)) {
            groups.computeIfAbsent(g, x -> new Durations()).add(k.durationNs());
            members.computeIfAbsent(g, x -> new java.util.HashSet<>()).add(k.name());
          }
        }
      }
      Map<String, long[]> byName = new HashMap<>();
      names.forEach((n, d) -> byName.put(n, d.summary()));
      Map<String, long[]> byGroup = new HashMap<>();
      groups.forEach((g, d) -> byGroup.put(g, d.summary()));
      Map<String, Integer> count = new HashMap<>();
      members.forEach((g, m) -> count.put(g, m.size()));
      return new Empirical(byName, byGroup, count, groupNames);
    }

    /** The peer groups of a kernel, closest first. */
    private static String[] groups(GroupKey k) {
      String f = family(k.name());
      String grid = k.grid().x() + "x" + k.grid().y() + "x" + k.grid().z();
      return new String[] {"family '" + f + "' grid " + grid, "family '" + f + "'", "grid " + grid};
    }

    /** The prediction for {@code k}: its own history, else its closest peer group with enough history. */
    Prediction of(KernelRecord k) {
      long[] own = byName.get(k.name());
      if (own != null && own[2] >= MIN_HISTORY) {
        return new Prediction(Graph.Basis.EMPIRICAL, own[0], own[1], "");
      }
      for (String g : groupNames.getOrDefault(new GroupKey(k.name(), k.grid()), new String[0])) {
        long[] v = byGroup.get(g);
        if (v != null && v[2] >= MIN_HISTORY && namesInGroup.getOrDefault(g, 0) > 1) {
          return new Prediction(Graph.Basis.PEERS, v[0], v[1], g + ", " + v[2] + " executions of "
              + namesInGroup.get(g) + " kernels");
        }
      }
      return own != null ? new Prediction(Graph.Basis.EMPIRICAL, own[0], own[1], "")
          : new Prediction(Graph.Basis.EMPIRICAL, k.durationNs(), k.durationNs(), "");
    }
  }

  /** A growable list of durations. */
  private static final class Durations {
    private long[] v = new long[8];
    private int n;

    void add(long d) {
      if (n == v.length) {
        v = Arrays.copyOf(v, n * 2);
      }
      v[n++] = d;
    }

    /** {fastest, median, count}. */
    long[] summary() {
      long[] s = Arrays.copyOf(v, n);
      Arrays.sort(s);
      return new long[] {s[0], s[n / 2], n};
    }
  }

  /**
   * Pairs predicted to overlap: for each node, the latest node of every other stream of its device that was issued
   * before it and was still running (by a margin) when the node was ready (issued and its own stream free), unless a
   * stream wait on the node's stream (issued after that node) orders them.
   */
  static List<int[]> concurrentPairs(List<Graph.Node> nodes, List<SyncRecord> waits) {
    List<int[]> pairs = new ArrayList<>();
    Streams streams = new Streams();
    int[] last = new int[8];
    Arrays.fill(last, -1);
    long[][] waitTimes = new long[8][];
    int[] waitCount = new int[8];
    for (SyncRecord w : waits) {
      int s = streams.slot(w.device(), w.stream());
      if (s >= waitTimes.length) {
        waitTimes = Arrays.copyOf(waitTimes, s * 2);
        waitCount = Arrays.copyOf(waitCount, s * 2);
      }
      if (waitTimes[s] == null) {
        waitTimes[s] = new long[8];
      } else if (waitCount[s] == waitTimes[s].length) {
        waitTimes[s] = Arrays.copyOf(waitTimes[s], waitCount[s] * 2);
      }
      waitTimes[s][waitCount[s]++] = w.startNs();
    }
    for (int s = 0; s < waitTimes.length; s++) {
      if (waitTimes[s] != null) {
        waitTimes[s] = Arrays.copyOf(waitTimes[s], waitCount[s]);
        Arrays.sort(waitTimes[s]);
      }
    }
    // nodes by launch time, so "issued before" is a prefix
    int[] order = launchOrder(nodes);
    for (int idx : order) {
      Graph.Node n = nodes.get(idx);
      int key = streams.slot(n.device(), n.stream());
      if (key >= last.length) {
        int old = last.length;
        last = Arrays.copyOf(last, Math.max(key + 1, old * 2));
        Arrays.fill(last, old, last.length, -1);
      }
      long[] myWaits = key < waitTimes.length ? waitTimes[key] : null;
      int mine = last[key];
      // the earliest the node could start: issued, and its own stream's previous operation done
      long ready = Math.max(n.launchNs(), mine < 0 ? Long.MIN_VALUE : nodes.get(mine).endNs());
      for (int s = 0; s < streams.size(); s++) {
        if (s == key || last[s] < 0 || streams.device(s) != n.device()) {
          continue;
        }
        Graph.Node o = nodes.get(last[s]);
        // predicted to overlap only when the node could have started well before the other ended
        if (o.launchNs() > n.launchNs() || o.endNs() - OVERLAP_MARGIN_NS <= ready) {
          continue;
        }
        if (myWaits != null && waitBetween(myWaits, o.launchNs(), n.launchNs())) {
          continue;
        }
        pairs.add(new int[] {o.index(), n.index()});
      }
      last[key] = idx;
    }
    return pairs;
  }

  /** Indices of {@code nodes} in the order they were issued (launch time; start order among equal times). */
  static int[] launchOrder(List<Graph.Node> nodes) {
    return Order.byKey(nodes.size(), i -> nodes.get(i).launchNs());
  }

  private static boolean waitBetween(long[] sorted, long after, long before) {
    int i = Arrays.binarySearch(sorted, after);
    int from = i >= 0 ? i : -i - 1;
    return from < sorted.length && sorted[from] <= before;
  }

  /** Dense slots for (device, stream) pairs; a job has few streams, so a linear search is the fastest lookup. */
  static final class Streams {
    private long[] keys = new long[8];
    private int n;
    private long lastKey = Long.MIN_VALUE;
    private int lastSlot = -1;

    /** The slot of (device, stream), allocated on first use. */
    int slot(int device, int stream) {
      long key = ((long) device << 32) | (stream & 0xffffffffL);
      if (key == lastKey) {
        return lastSlot;
      }
      for (int i = 0; i < n; i++) {
        if (keys[i] == key) {
          lastKey = key;
          lastSlot = i;
          return i;
        }
      }
      if (n == keys.length) {
        keys = Arrays.copyOf(keys, n * 2);
      }
      keys[n] = key;
      lastKey = key;
      lastSlot = n;
      return n++;
    }

    int size() {
      return n;
    }

    int device(int slot) {
      return (int) (keys[slot] >> 32);
    }
  }

  /** Index orders over primitive keys, without boxing. */
  static final class Order {
    private Order() {}

    /** A key of element {@code i}. */
    @FunctionalInterface
    interface Key {
      long of(int i);
    }

    /**
     * The indices {@code 0..n-1} sorted by key (stable: equal keys keep index order). Keys already in order cost one
     * pass; otherwise key and index are packed into one long and sorted as primitives when the key range allows.
     */
    static int[] byKey(int n, Key key) {
      int[] out = new int[n];
      if (n == 0) {
        return out;
      }
      long min = Long.MAX_VALUE;
      long max = Long.MIN_VALUE;
      boolean sorted = true;
      long prev = Long.MIN_VALUE;
      for (int i = 0; i < n; i++) {
        long k = key.of(i);
        sorted &= k >= prev;
        prev = k;
        min = Math.min(min, k);
        max = Math.max(max, k);
        out[i] = i;
      }
      if (sorted) {
        return out;
      }
      int bits = 64 - Long.numberOfLeadingZeros(Math.max(1, n - 1));
      long range = max - min;
      if (range >= 0 && range < (1L << (63 - bits))) {
        long[] packed = new long[n];
        for (int i = 0; i < n; i++) {
          packed[i] = ((key.of(i) - min) << bits) | i;
        }
        Arrays.sort(packed);
        long mask = (1L << bits) - 1;
        for (int i = 0; i < n; i++) {
          out[i] = (int) (packed[i] & mask);
        }
        return out;
      }
      Integer[] boxed = new Integer[n];
      for (int i = 0; i < n; i++) {
        boxed[i] = i;
      }
      Arrays.sort(boxed, (a, b) -> Long.compare(key.of(a), key.of(b)));
      for (int i = 0; i < n; i++) {
        out[i] = boxed[i];
      }
      return out;
    }
  }

  /** A growable array of longs. */
  static final class Longs {
    private long[] v = new long[1024];
    private int n;

    void add(long x) {
      if (n == v.length) {
        v = Arrays.copyOf(v, n * 2);
      }
      v[n++] = x;
    }

    long get(int i) {
      return v[i];
    }

    int size() {
      return n;
    }
  }

  /**
   * Work and traffic records grouped by correlation id, for ids several kernels share (a graph launch gives all its
   * kernels the launch's id): the kernels of one id take its work records in order, by name.
   */
  static final class SharedCorrelation {
    final Map<Long, List<Integer>> works = new HashMap<>();
    final Map<Long, List<Integer>> traffic = new HashMap<>();
    private final Map<Long, Integer> cursor = new HashMap<>();
    private final List<WorkRecord> workRecords;

    SharedCorrelation(List<WorkRecord> ws, List<TrafficRecord> ts) {
      workRecords = ws;
      for (int i = 0; i < ws.size(); i++) {
        works.computeIfAbsent(ws.get(i).correlationId(), c -> new ArrayList<>()).add(i);
      }
      for (int i = 0; i < ts.size(); i++) {
        traffic.computeIfAbsent(ts.get(i).correlationId(), c -> new ArrayList<>()).add(i);
      }
    }

    /** The place, among {@code corr}'s work records, of the next one for {@code kernel}; -1 when there is none. */
    int next(long corr, String kernel) {
      List<Integer> ws = works.get(corr);
      if (ws == null) {
        return -1;
      }
      for (int j = cursor.getOrDefault(corr, 0); j < ws.size(); j++) {
        if (workRecords.get(ws.get(j)).kernel().equals(kernel)) {
          cursor.put(corr, j + 1);
          return j;
        }
      }
      return -1;
    }
  }

  /**
   * From a correlation id to the position of its record: a direct table when the ids are dense (they count up in
   * CUPTI and the simulator), an open-addressing hash otherwise. Absent ids give -1.
   */
  static final class CorrIndex {
    private final long min;
    private final int[] dense;
    private final long[] keys;
    private final int[] values;

    private CorrIndex(long min, int[] dense, long[] keys, int[] values) {
      this.min = min;
      this.dense = dense;
      this.keys = keys;
      this.values = values;
    }

    /**
     * Indexes {@code corr}'s positions; with {@code firstWins} a repeated id keeps its first position, else its last.
     */
    static CorrIndex of(Longs corr, boolean firstWins) {
      int n = corr.size();
      long min = Long.MAX_VALUE;
      long max = Long.MIN_VALUE;
      for (int i = 0; i < n; i++) {
        min = Math.min(min, corr.get(i));
        max = Math.max(max, corr.get(i));
      }
      if (n == 0) {
        return new CorrIndex(0, new int[0], null, null);
      }
      long range = max - min;
      if (range >= 0 && range < 8L * n + 1024 && range < Integer.MAX_VALUE - 8) {
        int[] d = new int[(int) range + 1];
        Arrays.fill(d, -1);
        for (int i = 0; i < n; i++) {
          int at = (int) (corr.get(i) - min);
          if (!firstWins || d[at] < 0) {
            d[at] = i;
          }
        }
        return new CorrIndex(min, d, null, null);
      }
      int c = Integer.highestOneBit(Math.max(16, n) * 2 - 1) * 2;
      long[] k = new long[c];
      int[] v = new int[c];
      Arrays.fill(v, -1);
      int mask = c - 1;
      for (int i = 0; i < n; i++) {
        long key = corr.get(i);
        int h = hash(key) & mask;
        while (v[h] >= 0 && k[h] != key) {
          h = (h + 1) & mask;
        }
        if (v[h] < 0 || !firstWins) {
          k[h] = key;
          v[h] = i;
        }
      }
      return new CorrIndex(0, null, k, v);
    }

    private static int hash(long k) {
      long h = k * 0x9E3779B97F4A7C15L;
      return (int) (h ^ (h >>> 32));
    }

    int get(long key) {
      if (dense != null) {
        long at = key - min;
        return at >= 0 && at < dense.length ? dense[(int) at] : -1;
      }
      int mask = keys.length - 1;
      for (int h = hash(key) & mask; ; h = (h + 1) & mask) {
        if (values[h] < 0) {
          return -1;
        }
        if (keys[h] == key) {
          return values[h];
        }
      }
    }
  }
}
