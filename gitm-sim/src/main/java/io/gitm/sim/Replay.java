package io.gitm.sim;

import io.gitm.device.LaunchConfig;
import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.ApiKind;
import io.gitm.trace.CopyKind;
import io.gitm.trace.CopyRecord;
import io.gitm.trace.KernelNames;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.MemoryKind;
import io.gitm.trace.MemsetRecord;
import io.gitm.trace.Precision;
import io.gitm.trace.SyncKind;
import io.gitm.trace.SyncRecord;
import io.gitm.trace.TraceChange;
import io.gitm.trace.TraceChange.CopiesOnSideStream;
import io.gitm.trace.TraceChange.DeviceFaults;
import io.gitm.trace.TraceChange.GraphLaunches;
import io.gitm.trace.TraceChange.HostGapScale;
import io.gitm.trace.TraceChange.KernelPrecision;
import io.gitm.trace.TraceChange.PinnedCopies;
import io.gitm.trace.TraceChange.PoolAllocations;
import io.gitm.trace.TraceChange.Transform;
import io.gitm.trace.TraceRecord;
import io.gitm.trace.Work;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Trace-driven simulation: re-times a recorded trace under a {@link TraceChange}. The trace's host program is
 * rebuilt from its API calls in start order (one host thread): the time between one call's end and the next call's
 * start is the job's own host work and is kept (scaled by {@link HostGapScale}); each call is re-issued on a
 * fresh simulated device with its device work (matched by correlation id). A kernel is timed from its declared
 * {@link Work} when {@code work} knows it, else it keeps its observed duration. The prediction is the records the
 * simulated device emits and the span they cover.
 */
public final class Replay {
  private final List<Call> calls;
  private final int records;
  private final long observedNs;

  private Replay(List<Call> calls, int records, long observedNs) {
    this.calls = calls;
    this.records = records;
    this.observedNs = observedNs;
  }

  /**
   * One host call of the trace with what it did on the device, resolved once for every prediction: its kernels (with
   * their launch configurations and declared work, null where unknown), its first copy, memset and sync record, and
   * for an allocator call its own recorded cost ({@link #ownCosts}; 0 for other calls).
   */
  private record Call(ApiCallRecord api, List<KernelRecord> kernels, List<LaunchConfig> configs, List<Work> work,
      CopyRecord copy, MemsetRecord memset, SyncRecord sync, long ownNs) {
  }

  /**
   * A replay of {@code trace}; {@code work} gives a kernel record's declared work, or null to keep its observed
   * duration.
   */
  public static Replay of(Iterable<? extends TraceRecord> trace, Function<KernelRecord, Work> work) {
    List<ApiCallRecord> calls = new ArrayList<>();
    Map<Long, List<TraceRecord>> by = new HashMap<>();
    for (TraceRecord r : trace) {
      long corr = switch (r) {
        case ApiCallRecord a -> {
          calls.add(a);
          yield -1;
        }
        case KernelRecord k -> k.correlationId();
        case CopyRecord c -> c.correlationId();
        case MemsetRecord m -> m.correlationId();
        case SyncRecord s -> s.correlationId();
        default -> -1;
      };
      if (corr > 0) {
        by.computeIfAbsent(corr, c -> new ArrayList<>()).add(r);
      }
    }
    if (calls.isEmpty()) {
      throw new IllegalArgumentException("trace has no API call records: a replay needs the host's calls");
    }
    calls.sort(Comparator.comparingLong(ApiCallRecord::startNs).thenComparingLong(ApiCallRecord::correlationId));
    Map<ApiCallRecord, Long> own = ownCosts(trace, calls);
    Function<KernelRecord, Work> declared = work == null ? k -> null : work;
    List<Call> resolved = new ArrayList<>(calls.size());
    int records = 0;
    for (ApiCallRecord a : calls) {
      List<TraceRecord> dev = by.getOrDefault(a.correlationId(), List.of());
      records += 1 + dev.size();
      List<KernelRecord> kernels = new ArrayList<>();
      List<LaunchConfig> configs = new ArrayList<>();
      List<Work> works = new ArrayList<>();
      for (TraceRecord r : dev) {
        if (r instanceof KernelRecord k) {
          kernels.add(k);
          configs.add(config(k));
          works.add(declared.apply(k));
        }
      }
      resolved.add(new Call(a, List.copyOf(kernels), List.copyOf(configs),
          Collections.unmodifiableList(works), first(dev, CopyRecord.class), first(dev, MemsetRecord.class),
          first(dev, SyncRecord.class), own.getOrDefault(a, 0L)));
    }
    return new Replay(List.copyOf(resolved), records, span(trace));
  }

  /**
   * The own cost of each plain allocator call ({@code cuMemAlloc}, {@code cuMemFree}): its recorded duration less
   * the part it spent waiting for the device, which these calls synchronize with — the time from its start until the
   * last device record that ended within it. The replaying device waits for its own device work and then charges
   * this cost where it is well above its model's (a real driver's size-dependent page mapping, which API records do
   * not size).
   */
  static Map<ApiCallRecord, Long> ownCosts(Iterable<? extends TraceRecord> trace, List<ApiCallRecord> calls) {
    List<Long> ends = new ArrayList<>();
    for (TraceRecord r : trace) {
      if (r instanceof KernelRecord || r instanceof CopyRecord || r instanceof MemsetRecord) {
        ends.add(r.endNs());
      }
    }
    long[] sorted = ends.stream().mapToLong(Long::longValue).sorted().toArray();
    Map<ApiCallRecord, Long> own = new HashMap<>();
    for (ApiCallRecord a : calls) {
      if ((a.kind() != ApiKind.ALLOC && a.kind() != ApiKind.FREE) || a.name().contains("Async")
          || a.name().contains("Host")) {
        continue;
      }
      int i = Arrays.binarySearch(sorted, a.endNs());
      int at = i >= 0 ? i : -i - 2; // the last device end at or before the call's end
      while (i >= 0 && at + 1 < sorted.length && sorted[at + 1] == a.endNs()) {
        at++;
      }
      long busyUntil = at >= 0 ? sorted[at] : Long.MIN_VALUE;
      own.put(a, a.endNs() - Math.max(a.startNs(), busyUntil));
    }
    return own;
  }

  /** A replay whose kernels' work is looked up by kernel name. */
  public static Replay of(Iterable<? extends TraceRecord> trace, Map<String, Work> workByKernel) {
    Map<String, Work> m = Map.copyOf(workByKernel);
    return of(trace, k -> m.get(k.name()));
  }

  /** The span of a trace: from its first API call's start to the last end of any record. */
  public static long span(Iterable<? extends TraceRecord> trace) {
    long first = Long.MAX_VALUE;
    long last = Long.MIN_VALUE;
    for (TraceRecord r : trace) {
      if (r instanceof ApiCallRecord a) {
        first = Math.min(first, a.startNs());
      }
      last = Math.max(last, r.endNs());
    }
    return first == Long.MAX_VALUE ? 0 : last - first;
  }

  /** The recorded trace's span. */
  public long observedNs() {
    return observedNs;
  }

  /**
   * A {@link TraceChange} as this engine applies it.
   *
   * @param pinnedCopies pageable host copies become pinned (asynchronous, at the pinned rate)
   * @param poolAllocations plain allocations and frees become stream-ordered pool calls (no synchronization)
   * @param graphLaunches each run of consecutive launches becomes one graph launch: one launch's host cost, and
   *     the host gaps inside the run vanish
   * @param copiesOnSideStream host-to-device copies run on a stream of their own; their stream waits for them
   * @param precision kernels declared in one precision run in another (e.g. FP32 to TF32: a math-mode change)
   * @param hostGapScale factor on the host time between calls (1 = unchanged; 0 = host-bound gaps removed)
   * @param faults the fault spec of the replaying device ({@code ""} = none: faults removed)
   */
  private record Plan(boolean pinnedCopies, boolean poolAllocations, boolean graphLaunches,
      boolean copiesOnSideStream, Map<Precision, Precision> precision, double hostGapScale, String faults) {
    static Plan of(TraceChange change) {
      boolean pinned = false;
      boolean pool = false;
      boolean graphs = false;
      boolean sideStream = false;
      Map<Precision, Precision> precision = new EnumMap<>(Precision.class);
      double gaps = 1.0;
      String faults = "";
      for (Transform t : change.transforms()) {
        switch (t) {
          case PinnedCopies _ -> pinned = true;
          case PoolAllocations _ -> pool = true;
          case GraphLaunches _ -> graphs = true;
          case CopiesOnSideStream _ -> sideStream = true;
          case KernelPrecision k -> precision.put(k.from(), k.to());
          case HostGapScale h -> gaps = h.factor();
          case DeviceFaults f -> faults = f.spec();
        }
      }
      return new Plan(pinned, pool, graphs, sideStream, precision, gaps, faults);
    }
  }

  /** A predicted run: the simulated device's records, and the span they cover ({@link #span}). */
  public record Prediction(List<TraceRecord> records, long totalNs) {
    public Prediction {
      records = List.copyOf(records);
    }

    /** Relative change against {@code baselineNs}: negative is faster. */
    public double changeAgainst(long baselineNs) {
      return (double) (totalNs - baselineNs) / baselineNs;
    }
  }

  private static final int SIDE_STREAM_OFFSET = 1 << 20;

  /** Re-times the trace on a device of {@code spec} under {@code change}, with noise from {@code seed}. */
  public Prediction predict(SimSpec spec, TraceChange change, long seed) {
    Plan plan = Plan.of(change);
    SimDevice d = new SimDevice(spec, seed, plan.faults(), 0.02);
    List<TraceRecord> out = new ArrayList<>(records + records / 8);
    d.tracer().start(out::add);
    program(d, plan);
    d.tracer().flush();
    long total = d.makespanEnd();
    d.close();
    return new Prediction(out, total);
  }

  /**
   * What {@link #loop} did.
   *
   * @param simulatedNs the device time covered, from its start to the end of its last work
   * @param repetitions how many times the trace's host program ran
   * @param records the records the device emitted
   */
  public record Loop(long simulatedNs, int repetitions, long records) {}

  /**
   * Runs the trace's host program again and again on one device of {@code spec} until its clock passes
   * {@code simulatedNs}: the job iterating that long, with the device's thermal state, power and faults evolving
   * across the repetitions (unlike {@link #predict}, which starts each replay on a fresh device). Each record goes to
   * {@code sink} as it is emitted.
   */
  public Loop loop(SimSpec spec, TraceChange change, long seed, long simulatedNs, Consumer<TraceRecord> sink) {
    if (simulatedNs <= 0) {
      throw new IllegalArgumentException("simulated time must be positive, got " + simulatedNs + " ns");
    }
    Plan plan = Plan.of(change);
    SimDevice d = new SimDevice(spec, seed, plan.faults(), 0.02);
    long[] count = new long[1];
    d.tracer().start(r -> {
      count[0]++;
      sink.accept(r);
    });
    int reps = 0;
    do {
      program(d, plan);
      reps++;
    } while (d.makespanEnd() < simulatedNs);
    d.tracer().flush();
    long total = d.makespanEnd();
    d.close();
    return new Loop(total, reps, count[0]);
  }

  /** Issues the trace's host calls once on {@code d}, with their host gaps, under {@code plan}. */
  private void program(SimDevice d, Plan plan) {
    long prevEnd = calls.getFirst().api().startNs();
    List<Runnable> batch = new ArrayList<>();
    for (Call call : calls) {
      ApiCallRecord a = call.api();
      long gap = Math.max(0, a.startNs() - prevEnd);
      prevEnd = Math.max(prevEnd, a.endNs());
      List<KernelRecord> kernels = call.kernels();
      boolean launch = a.kind() == ApiKind.LAUNCH && !kernels.isEmpty();
      if (plan.graphLaunches() && launch) {
        if (batch.isEmpty()) {
          d.hostWork(Math.round(gap * plan.hostGapScale()));
        }
        for (int i = 0; i < kernels.size(); i++) {
          KernelRecord k = kernels.get(i);
          LaunchConfig config = call.configs().get(i);
          Work w = work(k, call.work().get(i), plan);
          long observed = observed(k, call.work().get(i), plan);
          batch.add(() -> d.replayGraphNode(k.name(), config, w, observed, k.stream()));
        }
        continue;
      }
      if (!batch.isEmpty()) {
        d.replayGraphLaunch(List.copyOf(batch));
        batch.clear();
      }
      d.hostWork(Math.round(gap * plan.hostGapScale()));
      issue(d, call, plan);
    }
    if (!batch.isEmpty()) {
      d.replayGraphLaunch(List.copyOf(batch));
    }
  }

  /** Re-issues one host call on {@code d} with its device work, as {@code c} changes it. */
  private static void issue(SimDevice d, Call call, Plan c) {
    ApiCallRecord a = call.api();
    switch (a.kind()) {
      case LAUNCH -> launch(d, call, c);
      case COPY -> copy(d, call, c);
      case MEMSET -> {
        MemsetRecord m = call.memset();
        if (m == null) {
          d.replayOther(a.name(), a.durationNs());
        } else {
          d.replayMemset(m.bytes(), m.value(), m.stream());
        }
      }
      case ALLOC, FREE -> allocator(d, call, c);
      case SYNC -> {
        SyncRecord s = call.sync();
        if (s == null) {
          d.replaySync(SyncKind.CONTEXT, -1);
        } else if (s.kind() == SyncKind.STREAM_WAIT_EVENT) {
          d.replayJoin(s.stream());
        } else {
          d.replaySync(s.kind(), s.stream());
        }
      }
      default -> d.replayOther(a.name(), a.durationNs());
    }
  }

  /** A launch: one kernel launched on its own, or several (a graph launch) as one graph. */
  private static void launch(SimDevice d, Call call, Plan c) {
    ApiCallRecord a = call.api();
    List<KernelRecord> kernels = call.kernels();
    if (kernels.isEmpty()) {
      d.replayOther(a.name(), a.durationNs());
    } else if (kernels.size() == 1 && !a.name().contains("Graph")) {
      KernelRecord k = kernels.getFirst();
      d.replayLaunch(k.name(), call.configs().getFirst(), work(kernels.getFirst(), call.work().getFirst(), c),
          observed(k, call.work().getFirst(), c), k.stream(), a.name(), true);
    } else {
      List<Runnable> nodes = new ArrayList<>();
      for (int i = 0; i < kernels.size(); i++) {
        KernelRecord k = kernels.get(i);
        LaunchConfig config = call.configs().get(i);
        Work w = work(k, call.work().get(i), c);
        long observed = observed(k, call.work().get(i), c);
        nodes.add(() -> d.replayGraphNode(k.name(), config, w, observed, k.stream()));
      }
      d.replayGraphLaunch(nodes);
    }
  }

  /** A copy, from pinned memory under pinned copies, and on a side stream of its own where the change moves it. */
  private static void copy(SimDevice d, Call call, Plan c) {
    ApiCallRecord a = call.api();
    CopyRecord cr = call.copy();
    if (cr == null) {
      d.replayOther(a.name(), a.durationNs());
      return;
    }
    MemoryKind src = pin(cr.srcKind(), c);
    MemoryKind dst = pin(cr.dstKind(), c);
    boolean sync = !a.name().contains("Async");
    if (c.copiesOnSideStream() && cr.kind() == CopyKind.HTOD && !sync) {
      d.replayCopy(cr.kind(), cr.bytes(), src, dst, SIDE_STREAM_OFFSET + cr.stream(), false, cr.stream());
    } else {
      d.replayCopy(cr.kind(), cr.bytes(), src, dst, cr.stream(), sync, -1);
    }
  }

  /** A device allocation or free: a stream-ordered pool call under pool allocations, else as recorded. */
  private static void allocator(SimDevice d, Call call, Plan c) {
    ApiCallRecord a = call.api();
    boolean alloc = a.kind() == ApiKind.ALLOC;
    String n = a.name();
    if (n.contains("Host")) {
      d.replayOther(n, a.durationNs());
      return;
    }
    boolean plain = !n.contains("Async");
    if (plain && c.poolAllocations()) {
      d.replayAllocator(alloc, false, alloc ? "cuMemAllocAsync" : "cuMemFreeAsync", 0);
    } else {
      d.replayAllocator(alloc, plain, n, plain ? call.ownNs() : 0);
    }
  }

  private static MemoryKind pin(MemoryKind k, Plan c) {
    return c.pinnedCopies() && k == MemoryKind.PAGEABLE ? MemoryKind.PINNED : k;
  }

  private static <T> T first(List<TraceRecord> dev, Class<T> type) {
    for (TraceRecord r : dev) {
      if (type.isInstance(r)) {
        return type.cast(r);
      }
    }
    return null;
  }

  private static LaunchConfig config(KernelRecord k) {
    return new LaunchConfig(k.grid(), k.block(), Math.max(0, k.dynamicSharedBytes()));
  }

  /**
   * How much faster a library FP32 GEMM (one that declared no work) runs when a precision change moves FP32 to TF32 or
   * BF16 on tensor cores: measured on the H200 with cuBLAS 13, 5.3× for PyTorch's 8192×4096×4096 GEMMs and about 3.3×
   * for af2's mixed shapes (docs/evidence/2026-11-30-h200-s3.tar.xz and -s4.tar.xz); 4× is the figure the process
   * levers assume too.
   */
  static final double LIBRARY_GEMM_TENSOR_CORE_SPEEDUP = 4;

  /**
   * The duration a kernel keeps when it has no declared work: its observed one, divided by
   * {@link #LIBRARY_GEMM_TENSOR_CORE_SPEEDUP} for an FP32 GEMM under a change that moves FP32 onto tensor cores.
   */
  private static long observed(KernelRecord k, Work declared, Plan c) {
    Precision to = c.precision().get(Precision.FP32);
    boolean tensorCores = to == Precision.TF32 || to == Precision.BF16 || to == Precision.FP16;
    if (declared != null || !tensorCores || !KernelNames.fp32Gemm(k.name())) {
      return k.durationNs();
    }
    return Math.max(1, Math.round(k.durationNs() / LIBRARY_GEMM_TENSOR_CORE_SPEEDUP));
  }

  /**
   * The declared work under {@code c}'s precision map. Moving FP32 onto tensor cores (TF32, BF16, FP16: a cuBLAS math
   * mode) changes GEMMs only ({@link KernelNames#gemm}); a workload's own FP32 kernels keep theirs.
   */
  private static Work work(KernelRecord k, Work w, Plan c) {
    if (w == null) {
      return null;
    }
    Precision p = c.precision().get(w.precision());
    if (p == null) {
      return w;
    }
    boolean mathMode = w.precision() == Precision.FP32
        && (p == Precision.TF32 || p == Precision.BF16 || p == Precision.FP16);
    return mathMode && !KernelNames.gemm(k.name()) ? w : w.withPrecision(p);
  }
}
