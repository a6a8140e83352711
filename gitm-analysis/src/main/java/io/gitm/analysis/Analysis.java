package io.gitm.analysis;

import io.gitm.analysis.attribution.Attribution;
import io.gitm.analysis.attribution.Hypothesis;
import io.gitm.analysis.monitor.Monitor;
import io.gitm.analysis.monitor.Violation;
import io.gitm.device.HardwareSpec;
import io.gitm.planner.Graph;
import io.gitm.planner.Planner;
import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.CopyRecord;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.MemsetRecord;
import io.gitm.trace.StateField;
import io.gitm.trace.StateSample;
import io.gitm.trace.SyncRecord;
import io.gitm.trace.TraceDevice;
import io.gitm.trace.TraceMeta;
import io.gitm.trace.TraceRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The explaining half of gitm in one call: planner, monitor, attribution over a captured trace. A pure function of
 * the trace and the device's ceilings, so it runs the same on a live capture, a recorded fixture, a simulated run or
 * an imported Kineto trace. Input problems become diagnostics, never exceptions.
 */
public final class Analysis {
  private Analysis() {}

  /**
   * The analysis of one trace.
   *
   * @param diagnostics what was wrong with the input or could not be judged, one sentence each
   * @param nodes device operations; {@code modelNodes} of them carry a model-based prediction (declared work, or the
   *     copy model), the rest an empirical one (own history or peers): {@link #byBasis()} counts each
   */
  public record Result(TraceMeta meta, String hardware, List<String> diagnostics, int nodes, int modelNodes,
      int concurrentPairs, long spanNs, long busyNs, Monitor.Idle idle, List<Violation> violations,
      List<Hypothesis> hypotheses, Map<String, Double> facts, Graph graph, Monitor.Result monitor) {
    public Result {
      diagnostics = List.copyOf(diagnostics);
      violations = List.copyOf(violations);
      hypotheses = List.copyOf(hypotheses);
      facts = Map.copyOf(facts);
    }

    /** Nodes by the basis of their prediction and by kind, only the pairs that occur. */
    public Map<Graph.Basis, Map<Graph.Kind, Integer>> byBasis() {
      Map<Graph.Basis, Map<Graph.Kind, Integer>> m = new java.util.EnumMap<>(Graph.Basis.class);
      int[][] c = graph.basisCounts();
      for (Graph.Kind k : Graph.Kind.values()) {
        for (Graph.Basis b : Graph.Basis.values()) {
          if (c[k.ordinal()][b.ordinal()] > 0) {
            m.computeIfAbsent(b, x -> new java.util.EnumMap<>(Graph.Kind.class)).put(k, c[k.ordinal()][b.ordinal()]);
          }
        }
      }
      return m;
    }
  }

  public static Result analyze(TraceMeta meta, List<TraceRecord> trace, HardwareSpec hw) {
    return analyze(meta, trace, hw, List.of());
  }

  /**
   * Analyzes {@code trace}; {@code inputNotes} (e.g. what an importer changed or left out) open the diagnostics.
   */
  public static Result analyze(TraceMeta meta, List<TraceRecord> trace, HardwareSpec hw, List<String> inputNotes) {
    List<String> diagnostics = new ArrayList<>(inputNotes);
    List<TraceRecord> clean = check(meta, trace, diagnostics);
    Graph g = Planner.predict(clean, hw);
    Monitor.Result m = Monitor.check(g, clean, hw.launchLatencyNs());
    List<Hypothesis> h = g.nodes().isEmpty() ? List.of() : Attribution.attribute(clean, g, m, hw);
    int[][] basis = g.basisCounts();
    int[] kernels = basis[Graph.Kind.KERNEL.ordinal()];
    if (kernels[Graph.Basis.MODEL.ordinal()] == 0 && java.util.Arrays.stream(kernels).sum() > 0) {
      diagnostics.add("no kernel declares its work (a black-box or imported trace): kernel bounds are empirical, from"
          + " each kernel's own history or its peers'; kernel time is judged only against them");
    }
    for (Monitor.Floor f : m.floors()) {
      diagnostics.add(String.format(java.util.Locale.ROOT, "'%s' ran faster than its lower bound (%s) in %d of %d"
          + " executions (median %.2f× the bound; first: %s): %s or the timestamps are wrong", f.subject(),
          f.basis().label(), f.count(), f.of(), f.ratio(), f.examples().getFirst(), f.basis() == Graph.Basis.MODEL
              ? "the declared work, the ceilings (" + hw.deviceName() + ")" : "the copy rate of the ceilings ("
              + hw.deviceName() + ")"));
    }
    if (m.overheadInExecutionsNs() > 0) {
      diagnostics.add(String.format(java.util.Locale.ROOT, "%.3f ms of the tracer's own overhead overlapped device"
          + " operations and was taken out of their durations before kernel time was judged",
          m.overheadInExecutionsNs() / 1e6));
    }
    return new Result(meta, hw.source(), diagnostics, g.nodes().size(), g.modelNodes(), g.concurrentPairs().size(),
        m.spanNs(), m.busyNs(), m.idle(), m.violations(), h, facts(clean), g, m);
  }

  /** Facts read off the trace that levers' preconditions look at. */
  /** Whether a kernel name is a GEMM's (cuBLAS, CUTLASS, Hopper's xmma kernels). */
  private static boolean isGemm(String name) {
    String n = name.toLowerCase(java.util.Locale.ROOT);
    return n.contains("gemm") || n.contains("cutlass") || n.contains("sm90_xmma");
  }

  static Map<String, Double> facts(List<TraceRecord> trace) {
    Set<Long> streams = new HashSet<>();
    double pageable = 0;
    double plainAllocs = 0;
    double launches = 0;
    double syncs = 0;
    double kernels = 0;
    double copies = 0;
    double gemms = 0;
    double memoryUsed = Double.NaN;
    double memoryTotal = Double.NaN;
    // a trace repeats a few kernel names many times: each is classified once
    Map<String, Boolean> gemmNames = new HashMap<>();
    for (TraceRecord r : trace) {
      switch (r) {
        case io.gitm.trace.StateSample s -> {
          double used = s.get(io.gitm.trace.StateField.MEMORY_USED);
          double total = s.get(io.gitm.trace.StateField.MEMORY_TOTAL);
          if (Double.isFinite(used) && used >= 0) {
            memoryUsed = Double.isNaN(memoryUsed) ? used : Math.max(memoryUsed, used);
          }
          if (Double.isFinite(total) && total > 0) {
            memoryTotal = total;
          }
        }
        case KernelRecord k -> {
          kernels++;
          streams.add(((long) k.device() << 32) | (k.stream() & 0xffffffffL));
          if (gemmNames.computeIfAbsent(k.name(), Analysis::isGemm)) {
            gemms++;
          }
        }
        case CopyRecord c -> {
          copies++;
          if (c.srcKind() == io.gitm.trace.MemoryKind.PAGEABLE || c.dstKind() == io.gitm.trace.MemoryKind.PAGEABLE) {
            pageable++;
          }
        }
        case ApiCallRecord a -> {
          switch (a.kind()) {
            case LAUNCH -> launches++;
            case ALLOC, FREE -> {
              if (!a.name().contains("Async") && !a.name().contains("Host")) {
                plainAllocs++;
              }
            }
            case SYNC -> syncs++;
            default -> {
            }
          }
        }
        default -> {
        }
      }
    }
    Map<String, Double> f = new HashMap<>();
    f.put("streams", (double) streams.size());
    f.put("kernels", kernels);
    f.put("copies", copies);
    f.put("pageableCopies", pageable);
    f.put("plainAllocations", plainAllocs);
    f.put("launches", launches);
    f.put("syncs", syncs);
    f.put("gemms", gemms);
    if (!Double.isNaN(memoryUsed) && !Double.isNaN(memoryTotal)) {
      // the device's memory at its fullest in the state samples (every process's use, as NVML counts it)
      f.put("memoryUsedPeakBytes", memoryUsed);
      f.put("memoryTotalBytes", memoryTotal);
    }
    return f;
  }

  /**
   * Checks the input and returns the records to analyze: device operations on devices the meta does not list are
   * kept (and said), devices the meta lists that no record names are said, state samples whose clock went backwards
   * are dropped (and said), kernels overlapping in time on their stream or of zero duration are kept (and said, see
   * {@link #streamOrder}), and missing fields are counted.
   */
  static List<TraceRecord> check(TraceMeta meta, List<TraceRecord> trace, List<String> out) {
    Set<Integer> known = new HashSet<>();
    for (TraceDevice d : meta.devices()) {
      known.add(d.index());
    }
    Set<Integer> unknown = new java.util.TreeSet<>();
    Set<Integer> seen = new HashSet<>();
    long kernels = 0;
    long samples = 0;
    long backwards = 0;
    long firstBackwardsAt = -1;
    Map<StateField, Long> missing = new HashMap<>();
    List<TraceRecord> kept = new ArrayList<>(trace.size());
    Map<Integer, Long> lastSample = new HashMap<>();
    for (TraceRecord r : trace) {
      int device = switch (r) {
        case KernelRecord k -> {
          kernels++;
          yield k.device();
        }
        case CopyRecord c -> c.device();
        case MemsetRecord m -> m.device();
        case SyncRecord s -> s.device();
        case StateSample s -> s.device();
        default -> Integer.MIN_VALUE;
      };
      if (device != Integer.MIN_VALUE && device >= 0 && !known.contains(device)) {
        unknown.add(device);
      }
      if (device != Integer.MIN_VALUE && !(r instanceof StateSample)) {
        seen.add(device);
      }
      if (r instanceof StateSample s) {
        samples++;
        Long last = lastSample.get(s.device());
        if (last != null && s.timeNs() < last) {
          backwards++;
          if (firstBackwardsAt < 0) {
            firstBackwardsAt = s.timeNs();
          }
          continue;
        }
        lastSample.put(s.device(), s.timeNs());
        for (StateField f : new StateField[] {StateField.SM_CLOCK, StateField.CLOCK_EVENT_REASONS,
            StateField.POWER, StateField.TEMPERATURE}) {
          if (!s.has(f) || !Double.isFinite(s.get(f))) {
            missing.merge(f, 1L, Long::sum);
          }
        }
      }
      kept.add(r);
    }
    if (kernels == 0) {
      out.add("the trace has no kernel records: kernel time and concurrency cannot be judged"
          + (trace.isEmpty() ? " (the trace is empty)" : ""));
    }
    Set<Integer> silent = new java.util.TreeSet<>(known);
    silent.removeAll(seen);
    if (!silent.isEmpty() && !trace.isEmpty()) {
      out.add("the trace's meta lists device(s) " + silent + " that no record names: nothing on them was traced"
          + " (another process's device, or the tracer missed it)");
    }
    streamOrder(trace, out);
    if (!unknown.isEmpty()) {
      out.add("records name device(s) " + unknown + " that the trace's meta does not list (it lists "
          + meta.devices().stream().map(d -> Integer.toString(d.index())).toList() + "); they are analyzed anyway");
    }
    if (backwards > 0) {
      out.add(backwards + " state sample(s) go back in time (first at " + firstBackwardsAt
          + " ns): left out of the telemetry series");
    }
    if (samples == 0) {
      out.add("the trace has no state samples: clock, power and thermal causes cannot be judged");
    } else {
      for (Map.Entry<StateField, Long> e : missing.entrySet()) {
        out.add(e.getKey().name() + " is missing (not read, or NaN) in " + e.getValue() + " of " + samples
            + " state samples" + (e.getValue() == samples ? ": causes that need it cannot be judged" : ""));
      }
    }
    return kept;
  }

  /** How many references to offending records a diagnostic names. */
  static final int EXAMPLES = 3;

  /**
   * Kernel timestamps per stream, judged by time alone (the order of the records in the file says nothing: real
   * traces list events out of order): a stream runs one operation at a time, so a kernel that starts before an
   * earlier-starting one on its stream ended means clocks went backwards (or a CUDA graph ran branches concurrently
   * on one stream); kernels of zero duration had a negative or missing duration in their source. Each is said with
   * how many and the first few; the records are kept.
   */
  static void streamOrder(List<TraceRecord> trace, List<String> out) {
    Map<Long, List<KernelRecord>> byStream = new java.util.TreeMap<>();
    long zero = 0;
    List<String> zeroAt = new ArrayList<>();
    for (TraceRecord r : trace) {
      if (r instanceof KernelRecord k) {
        byStream.computeIfAbsent(((long) k.device() << 32) | (k.stream() & 0xffffffffL), x -> new ArrayList<>()).add(k);
        if (k.endNs() == k.startNs()) {
          zero++;
          if (zeroAt.size() < EXAMPLES) {
            zeroAt.add(ref(k));
          }
        }
      }
    }
    if (zero > 0) {
      out.add(zero + " kernel(s) last 0 ns (first: " + String.join("; ", zeroAt) + "): a negative or missing"
          + " duration in the source; their kernel time is not meaningful");
    }
    for (List<KernelRecord> ks : byStream.values()) {
      overlaps(ks, out);
    }
  }

  /** The kernels of one stream that start before an earlier-starting one ended, said in one diagnostic. */
  private static void overlaps(List<KernelRecord> ks, List<String> out) {
    List<KernelRecord> sorted = new ArrayList<>(ks);
    sorted.sort(java.util.Comparator.comparingLong(KernelRecord::startNs).thenComparingLong(KernelRecord::endNs));
    long overlapping = 0;
    long worstNs = 0;
    List<String> at = new ArrayList<>();
    long end = Long.MIN_VALUE;
    KernelRecord last = null;
    for (KernelRecord k : sorted) {
      if (last != null && k.startNs() < end) {
        overlapping++;
        worstNs = Math.max(worstNs, end - k.startNs());
        if (at.size() < EXAMPLES) {
          at.add(ref(k) + " overlaps " + ref(last));
        }
      }
      if (k.endNs() > end) {
        end = k.endNs();
        last = k;
      }
    }
    if (overlapping > 0) {
      KernelRecord k = ks.getFirst();
      out.add("kernel timestamps on device " + k.device() + " stream " + k.stream() + " go backwards: " + overlapping
          + " kernel(s) start before the previous one on the stream ended (by up to " + worstNs + " ns; first: "
          + String.join("; ", at) + "): the clock went backwards or the stream ran work concurrently; kept, but"
          + " their times are suspect");
    }
  }

  private static String ref(KernelRecord k) {
    return "'" + k.name() + "' corr " + k.correlationId() + " at " + k.startNs() + " ns";
  }
}
