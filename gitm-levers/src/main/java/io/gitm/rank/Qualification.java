package io.gitm.rank;

import io.gitm.analysis.Analysis;
import io.gitm.analysis.attribution.Cause;
import io.gitm.planner.Graph;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The qualification gate: a fingerprint of the workload, the headroom it implies, and whether the target is
 * reachable — or which floor stops it.
 *
 * <p>The fingerprint: size and rate (kernels, launches per second, mean kernel time), where the span goes (kernel,
 * copy and idle shares), the kernel mix (the share of kernel time in the largest kernel and the three largest, and in
 * kernels bound by compute, memory bandwidth, memory latency, or of unknown bound where no work is declared),
 * concurrency (streams, predicted-concurrent pairs), how far the kernels run from their roofline, and the device
 * memory in use at its peak and the headroom left (from the state samples, where they report memory).
 *
 * <p>The floor: most levers change how the job runs, not its kernels' code, so the job cannot go faster than its
 * kernels each at their fastest observed execution, back to back ({@code kernelFloorNs}). A lever that replaces
 * kernels ({@link io.gitm.levers.Lever#changesKernels}: a math mode, a kernel variant, the TF32 variables) lowers that
 * floor: for kernels whose work is declared, to their roofline bound at the calibrated ceilings (no kernel runs
 * faster than that); for the others, by the best such lever's prediction. The headroom is the lesser of what the floor
 * allows and what the ranked levers predict (the best prediction per cause they address, compounded).
 *
 * @param fingerprint name → value, with units in the name's suffix ({@code _pct}, {@code _us}, {@code _per_s},
 *     {@code _x})
 * @param floorHeadroom the improvement the floor allows (0.4 = 40%)
 * @param predictedHeadroom the improvement the ranked levers predict together
 * @param predictedUncertainty one standard deviation of {@code predictedHeadroom} (the best levers' uncertainties
 *     combined)
 * @param reachable whether {@code min(floor, predicted)} reaches the target
 * @param diagnosis one paragraph: why the target is or is not reachable, naming the floor
 */
public record Qualification(Map<String, Double> fingerprint, double floorHeadroom, double predictedHeadroom,
    double predictedUncertainty, double target, boolean reachable, String diagnosis) {
  public Qualification {
    fingerprint = Collections.unmodifiableMap(new LinkedHashMap<>(fingerprint));
  }

  public double headroom() {
    return Math.min(floorHeadroom, predictedHeadroom);
  }

  public String summary() {
    if (fingerprint.getOrDefault("kernels", 1.0) == 0) {
      return String.format(Locale.ROOT, "no kernel traced: no floor; levers estimate %.0f%%: target not ruled out",
          predictedHeadroom * 100);
    }
    return String.format(Locale.ROOT, "headroom %.0f%% (floor %.0f%%, levers %.0f%%): target %s", headroom() * 100,
        floorHeadroom * 100, predictedHeadroom * 100, reachable ? "reachable" : "not reachable");
  }

  public static Qualification of(Analysis.Result a, List<Candidate> candidates, double target) {
    Tally k = Tally.of(a);
    Map<String, Double> f = fingerprint(a, k);
    double kernelFloorHeadroom = k.floor() <= 0 ? 0 : k.span() / k.floor() - 1;
    Floor floor = Floor.of(a, k, candidates, kernelFloorHeadroom);
    Combined levers = Combined.of(candidates);
    double predicted = levers.predicted();
    if (k.kernels() == 0) {
      // no kernel in the trace (an untraced black-box job, or one without GPU work): no floor can be drawn, and the
      // levers' own estimates are all there is
      return new Qualification(f, predicted, predicted, Math.sqrt(levers.variance()), target, true,
          String.format(Locale.ROOT, "The trace holds no kernel (the job was not traced, or did no GPU work): no"
              + " floor can be drawn, so the target of %.0f%% is not ruled out; the ranked levers estimate %.0f%%"
              + " together, and the gates decide.", target * 100, predicted * 100));
    }
    double head = Math.min(floor.headroom(), predicted);
    boolean reachable = head >= target;
    return new Qualification(f, floor.headroom(), predicted, Math.sqrt(levers.variance()), target, reachable,
        diagnosis(k, target, reachable, floor, kernelFloorHeadroom, predicted));
  }

  /**
   * The trace's kernels and copies, summed once.
   *
   * @param span the analysed span (at least 1 ns)
   * @param fastest each kernel's fastest execution, by name
   * @param count each kernel's executions, by name
   * @param byName kernel time by name
   * @param byBound kernel time by what bounds it ({@code UNKNOWN} where no work is declared)
   * @param roofline the roofline bounds of the kernels that declare their work, summed
   * @param modelKernelNs the time of the kernels that declare their work
   * @param floor every kernel at its fastest observed execution, back to back
   */
  private record Tally(double span, double kernelNs, double copyNs, long kernels, long memoryBound,
      Map<String, Long> fastest, Map<String, Long> count, Map<String, Double> byName, Map<Graph.Bound, Double> byBound,
      double roofline, double modelKernelNs, double floor) {
    static Tally of(Analysis.Result a) {
      double kernelNs = 0;
      double copyNs = 0;
      long kernels = 0;
      long memoryBound = 0;
      Map<String, Long> fastest = new HashMap<>();
      Map<String, Long> count = new HashMap<>();
      Map<String, Double> byName = new HashMap<>();
      Map<Graph.Bound, Double> byBound = new EnumMap<>(Graph.Bound.class);
      double roofline = 0;
      double modelKernelNs = 0;
      for (Graph.Node n : a.graph().nodes()) {
        if (n.kind() == Graph.Kind.KERNEL) {
          kernels++;
          kernelNs += n.durationNs();
          byName.merge(n.name(), (double) n.durationNs(), Double::sum);
          byBound.merge(n.basis() == Graph.Basis.MODEL ? n.bound() : Graph.Bound.UNKNOWN, (double) n.durationNs(),
              Double::sum);
          if (n.basis() == Graph.Basis.MODEL) {
            roofline += n.lowerNs();
            modelKernelNs += n.durationNs();
          }
          if (n.memoryBound()) {
            memoryBound++;
          }
          fastest.merge(n.name(), n.durationNs(), Math::min);
          count.merge(n.name(), 1L, Long::sum);
        } else {
          copyNs += n.durationNs();
        }
      }
      double floor = 0;
      for (Map.Entry<String, Long> e : fastest.entrySet()) {
        floor += e.getValue() * (double) count.get(e.getKey());
      }
      return new Tally(Math.max(1, a.spanNs()), kernelNs, copyNs, kernels, memoryBound, fastest, count, byName,
          byBound, roofline, modelKernelNs, floor);
    }

    /** Kernel time, at least 1 ns: the denominator of the kernel-mix shares. */
    double kernelTime() {
      return Math.max(1, kernelNs);
    }
  }

  /** The fingerprint of the class javadoc, in a fixed order. */
  private static Map<String, Double> fingerprint(Analysis.Result a, Tally k) {
    Map<String, Double> f = new LinkedHashMap<>();
    double span = k.span();
    long kernels = k.kernels();
    double kernelNs = k.kernelNs();
    List<Double> shares = k.byName().values().stream().sorted(Comparator.reverseOrder()).toList();
    double kernelTime = k.kernelTime();
    f.put("kernels", (double) kernels);
    f.put("distinct_kernels", (double) k.fastest().size());
    if (a.spanNs() <= 0) {
      // no device work in the trace (none traced, or none done): there is no span to take shares of, and an idle
      // share of 100% would be a claim about a span nothing was measured in
      facts(f, a);
      return f;
    }
    f.put("launch_rate_per_s", kernels / (span / 1e9));
    f.put("mean_kernel_us", kernels == 0 ? 0 : kernelNs / kernels / 1e3);
    f.put("kernel_time_pct", 100 * kernelNs / span);
    f.put("copy_time_pct", 100 * k.copyNs() / span);
    f.put("idle_pct", 100 * (1 - a.busyNs() / span));
    f.put("top_kernel_of_kernel_time_pct", shares.isEmpty() ? 0 : 100 * shares.get(0) / kernelTime);
    f.put("top3_kernels_of_kernel_time_pct",
        100 * shares.stream().limit(3).mapToDouble(Double::doubleValue).sum() / kernelTime);
    Map<Graph.Bound, Double> byBound = k.byBound();
    f.put("compute_bound_kernel_time_pct", 100 * byBound.getOrDefault(Graph.Bound.COMPUTE, 0.0) / kernelTime);
    f.put("memory_bound_kernel_time_pct", 100 * byBound.getOrDefault(Graph.Bound.MEMORY, 0.0) / kernelTime);
    f.put("latency_bound_kernel_time_pct", 100 * byBound.getOrDefault(Graph.Bound.LATENCY, 0.0) / kernelTime);
    f.put("unknown_bound_kernel_time_pct", 100 * byBound.getOrDefault(Graph.Bound.UNKNOWN, 0.0) / kernelTime);
    f.put("memory_bound_kernels_pct", kernels == 0 ? 0 : 100.0 * k.memoryBound() / kernels);
    f.put("kernels_vs_roofline_x", k.roofline() > 0 ? k.modelKernelNs() / k.roofline() : Double.NaN);
    facts(f, a);
    f.put("concurrent_pairs", (double) a.concurrentPairs());
    return f;
  }

  /** The fingerprint's entries from the profile's facts rather than the trace's span: memory use, streams. */
  private static void facts(Map<String, Double> f, Analysis.Result a) {
    double used = a.facts().getOrDefault("memoryUsedPeakBytes", Double.NaN);
    double total = a.facts().getOrDefault("memoryTotalBytes", Double.NaN);
    if (used >= 0 && total > 0) {
      f.put("memory_used_peak_pct", 100 * used / total);
      f.put("memory_headroom_pct", 100 * Math.max(0, total - used) / total);
    }
    f.put("streams", a.facts().getOrDefault("streams", 0.0));
  }

  /**
   * The floor's headroom once the best lever that replaces kernels is counted, and the words for how it moved the
   * floor ({@code ""} when none does).
   */
  private record Floor(double headroom, String moved) {
    static Floor of(Analysis.Result a, Tally k, List<Candidate> candidates, double kernelFloorHeadroom) {
      Candidate replacing = null;
      for (Candidate c : candidates) {
        if (c.lever().changesKernels() && (replacing == null || c.predictedGain() > replacing.predictedGain())) {
          replacing = c;
        }
      }
      if (replacing == null) {
        return new Floor(kernelFloorHeadroom, "");
      }
      // the floor once kernels may be replaced (an upper bound on what replacing allows, since a lever replaces some
      // kernels only): kernels that declare their work at their roofline bound, the others at their fastest divided
      // by the best replacing lever's prediction
      double gain = Math.max(1, replacing.predictedGain());
      double declaredFastest = 0;
      for (Graph.Node n : a.graph().nodes()) {
        if (n.kind() == Graph.Kind.KERNEL && n.basis() == Graph.Basis.MODEL) {
          declaredFastest += k.fastest().get(n.name());
        }
      }
      double floor = k.floor();
      double replacedFloor = (floor - declaredFastest) / gain + Math.min(k.roofline(), declaredFastest);
      double replacedHeadroom = replacedFloor <= 0 ? kernelFloorHeadroom : k.span() / replacedFloor - 1;
      if (!(replacedHeadroom > kernelFloorHeadroom + 1e-9)) {
        return new Floor(kernelFloorHeadroom, "");
      }
      String how = declaredFastest <= 0
          ? String.format(Locale.ROOT, "by its predicted %.0f%%", (gain - 1) * 100)
          : declaredFastest < floor
              ? String.format(Locale.ROOT, "to the roofline bound of the kernels that declare their work and by its"
                  + " predicted %.0f%% for the others", (gain - 1) * 100)
              : "to the kernels' roofline bound at the calibrated ceilings";
      return new Floor(replacedHeadroom, String.format(Locale.ROOT, "; %s, which replaces kernels, lowers that floor"
          + " %s (%.0f%% allowed)", replacing.lever().id(), how, replacedHeadroom * 100));
    }
  }

  /** What the ranked levers predict together: the best prediction per addressed cause, compounded. */
  private record Combined(double predicted, double variance) {
    static Combined of(List<Candidate> candidates) {
      Map<Cause, Candidate> best = new HashMap<>();
      Candidate unattributed = null;
      for (Candidate c : candidates) {
        if (c.lever().addresses().isEmpty()) {
          if (unattributed == null || c.predictedGain() > unattributed.predictedGain()) {
            unattributed = c;
          }
        }
        for (Cause cause : c.lever().addresses()) {
          best.merge(cause, c, (x, y) -> x.predictedGain() >= y.predictedGain() ? x : y);
        }
      }
      Set<Candidate> chosen = new LinkedHashSet<>(best.values());
      if (unattributed != null) {
        chosen.add(unattributed);
      }
      double predicted = 1;
      double variance = 0;
      for (Candidate c : chosen) {
        predicted *= Math.max(1, c.predictedGain());
        variance += c.uncertainty() * c.uncertainty();
      }
      return new Combined(predicted - 1, variance);
    }
  }

  /** Why the target is or is not reachable, for a trace with kernels. */
  private static String diagnosis(Tally k, double target, boolean reachable, Floor floor, double kernelFloorHeadroom,
      double predicted) {
    double nonKernel = 100 * (1 - k.kernelNs() / k.span());
    if (reachable) {
      return String.format(Locale.ROOT, "The target of %.0f%% looks reachable: non-kernel time is %.0f%% of the"
          + " span and the ranked levers predict %.0f%% together (the kernels' floor allows %.0f%%%s).", target * 100,
          nonKernel, predicted * 100, kernelFloorHeadroom * 100, floor.moved());
    }
    if (floor.headroom() < target) {
      double nearFastest = k.kernelNs() <= 0 ? 0 : 100 * (k.kernelNs() / k.floor() - 1);
      String vsRoofline = k.roofline() > 0 ? String.format(Locale.ROOT, "; the %.0f%% of kernel time that declares"
          + " its work runs at %.2f× its roofline bound", 100 * k.modelKernelNs() / k.kernelTime(),
          k.modelKernelNs() / k.roofline()) : "";
      return String.format(Locale.ROOT, "The target of %.0f%% is not reachable: kernels take %.0f%% of the span"
          + " and are already within %.0f%% of their fastest executions%s; non-kernel time is %.0f%%; at most %.0f%%"
          + " is reachable without changing the kernels%s.", target * 100, 100 - nonKernel, nearFastest, vsRoofline,
          nonKernel, kernelFloorHeadroom * 100, floor.moved());
    }
    return String.format(Locale.ROOT, "The target of %.0f%% is not predicted: the kernels' floor would allow"
        + " %.0f%% (non-kernel time is %.0f%%%s), but the applicable levers predict only %.0f%% together; the run"
        + " still applies whatever passes the gates.", target * 100, kernelFloorHeadroom * 100, nonKernel,
        floor.moved(), predicted * 100);
  }
}
