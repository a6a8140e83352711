package io.gitm.optimizer;

import io.gitm.device.HardwareSpec;
import io.gitm.optimizer.attribution.Attribution;
import io.gitm.optimizer.attribution.Hypothesis;
import io.gitm.optimizer.monitor.Monitor;
import io.gitm.optimizer.monitor.Violation;
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
   * @param nodes device operations; {@code modelNodes} of them predicted from declared work, the rest empirically
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
  }

  public static Result analyze(TraceMeta meta, List<TraceRecord> trace, HardwareSpec hw) {
    List<String> diagnostics = new ArrayList<>();
    List<TraceRecord> clean = check(meta, trace, diagnostics);
    Graph g = Planner.predict(clean, hw);
    Monitor.Result m = Monitor.check(g, clean, hw.launchLatencyNs());
    List<Hypothesis> h = g.nodes().isEmpty() ? List.of() : Attribution.attribute(clean, g, m, hw);
    if (g.nodes().size() > 0 && g.modelNodes() == 0) {
      diagnostics.add("no kernel declares its work (a black-box or imported trace): kernel bounds are empirical, from"
          + " each kernel's own history");
    }
    return new Result(meta, hw.source(), diagnostics, g.nodes().size(), g.modelNodes(), g.concurrentPairs().size(),
        m.spanNs(), m.busyNs(), m.idle(), m.violations(), h, facts(clean), g, m);
  }

  /** Facts read off the trace that levers' preconditions look at. */
  static Map<String, Double> facts(List<TraceRecord> trace) {
    Set<Long> streams = new HashSet<>();
    double pageable = 0;
    double plainAllocs = 0;
    double launches = 0;
    double syncs = 0;
    double kernels = 0;
    double copies = 0;
    double gemms = 0;
    for (TraceRecord r : trace) {
      switch (r) {
        case KernelRecord k -> {
          kernels++;
          streams.add(((long) k.device() << 32) | (k.stream() & 0xffffffffL));
          String n = k.name().toLowerCase(java.util.Locale.ROOT);
          if (n.contains("gemm") || n.contains("cutlass") || n.contains("sm90_xmma")) {
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
    return f;
  }

  /**
   * Checks the input and returns the records to analyze: device operations on devices the meta does not list are
   * kept (and said), state samples whose clock went backwards are dropped (and said), and missing fields are
   * counted.
   */
  static List<TraceRecord> check(TraceMeta meta, List<TraceRecord> trace, List<String> out) {
    Set<Integer> known = new HashSet<>();
    for (TraceDevice d : meta.devices()) {
      known.add(d.index());
    }
    Set<Integer> unknown = new java.util.TreeSet<>();
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
}
