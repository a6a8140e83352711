package io.gitm.analysis.attribution;

import static io.gitm.analysis.attribution.Thresholds.KERNEL_FIXED_NS;
import static io.gitm.analysis.attribution.Thresholds.PLANNER_SLACK;
import static io.gitm.analysis.attribution.Thresholds.TRAFFIC_TOLERANCE;

import io.gitm.analysis.monitor.Violation;
import io.gitm.planner.Graph;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Kernels slower than their model, with the clock at speed. Excess traffic: kernels whose measured bytes exceed the
 * declared ones (the memory-traffic invariant), the share of their time spent on the extra bytes. Degraded device
 * memory: when the device reports retired pages or remapped rows, the time bandwidth-bound kernels took beyond
 * their roofline. Memory-bound below roofline: bandwidth-bound kernels beyond their upper bound with nothing else to
 * explain it. Compute-bound kernels that fill the device beyond their upper bound are {@link ContentionDetector}'s.
 */
final class KernelDetector implements Detector {
  /** How a kernel's time is judged against its model ({@link #judge}). */
  enum Judged {
    /** Not judged: its time is not the model's, or the clock was lowered when it started. */
    UNJUDGED,
    /** Bandwidth-bound on a device that reports retired pages or remapped rows. */
    DEGRADED_MEMORY,
    /** Bandwidth-bound with excess bytes, which explain its time. */
    EXCESS_BYTES,
    /** Bound by memory in the model. */
    MEMORY_BOUND,
    /** Compute-bound with at least as many blocks as the device has multiprocessors. */
    FILLS_DEVICE,
    /** None of these. */
    OTHER
  }

  @Override
  public Set<Cause> causes() {
    return EnumSet.of(Cause.EXCESS_TRAFFIC, Cause.MEMORY_DEGRADED, Cause.MEMORY_BOUND_BELOW_ROOFLINE);
  }

  @Override
  public void detect(Input in, Ledger out) {
    Set<String> excessTraffic = new HashSet<>();
    for (Violation v : in.monitor().violations()) {
      if (v.invariant() == Violation.Invariant.MEMORY_TRAFFIC) {
        excessTraffic.add(v.subject());
        out.lost(Cause.EXCESS_TRAFFIC).evidence(new Evidence("invariant", String.format(Locale.ROOT,
            "kernel '%s' moved %.1f× its declared bytes in %d of %d executions", v.subject(), v.howFar(), v.count(),
            v.of()), Map.of("kernel", v.subject(), "ratio", v.howFar(), "examples", v.examples())));
      }
    }
    boolean retired = in.host().retiredPages > 0;
    int sms = Math.max(1, in.hw().multiprocessors());
    long slowMemory = 0;
    double belowRoofline = 0;
    long memoryKernels = 0;
    double degraded = 0;
    for (Graph.Node n : in.graph().nodes()) {
      if (n.kind() != Graph.Kind.KERNEL) {
        continue;
      }
      long dur = n.durationNs();
      if (excessBytes(n) && excessTraffic.contains(n.name())) {
        double r = (double) n.measuredBytes() / n.predictedBytes();
        out.lost(Cause.EXCESS_TRAFFIC).add(in, n.startNs(), dur * (1 - 1 / r) * (n.memoryBound() ? 1 : 0.3));
      }
      switch (judge(in, n, retired, sms)) {
        case DEGRADED_MEMORY -> {
          memoryKernels++;
          double beyond = dur - Math.max(n.lowerNs(), memoryNs(in, n)) - KERNEL_FIXED_NS;
          if (beyond > 0) {
            degraded += beyond;
            out.lost(Cause.MEMORY_DEGRADED).add(in, n.startNs(), beyond);
          }
        }
        case MEMORY_BOUND -> {
          memoryKernels++;
          if (dur > n.upperNs()) {
            slowMemory++;
            belowRoofline += dur - expectedNs(n);
            out.lost(Cause.MEMORY_BOUND_BELOW_ROOFLINE).add(in, n.startNs(), dur - expectedNs(n));
          }
        }
        default -> {
        }
      }
    }
    if (retired && degraded > 0) {
      out.lost(Cause.MEMORY_DEGRADED).evidence(new Evidence("telemetry", String.format(Locale.ROOT,
          "the device reports %.0f retired pages / remapped rows, and %d bandwidth-bound kernels took %.2f ms beyond"
              + " their roofline at the calibrated bandwidth", in.host().retiredPages, memoryKernels, degraded / 1e6),
          Map.of("pages", in.host().retiredPages, "kernels", memoryKernels, "beyondNs", degraded)));
    }
    if (out.has(Cause.MEMORY_BOUND_BELOW_ROOFLINE)) {
      Lost m = out.lost(Cause.MEMORY_BOUND_BELOW_ROOFLINE);
      m.certainty(Math.min(1, slowMemory / (double) Math.max(1, memoryKernels)) * 0.6);
      m.evidence(new Evidence("invariant", String.format(Locale.ROOT,
          "%d of %d bandwidth-bound kernels ran beyond their upper bound (%.2f ms beyond the model)", slowMemory,
          memoryKernels, belowRoofline / 1e6), Map.of("slow", slowMemory, "of", memoryKernels)));
    }
  }

  /**
   * How kernel {@code n} is judged: not when its time is not the model's or the clock was lowered when it started;
   * then by its bound, on the bytes it really moved where they were measured. {@code retired}: the device reports
   * retired pages or remapped rows; {@code sms}: its multiprocessors.
   */
  static Judged judge(Input in, Graph.Node n, boolean retired, int sms) {
    if (n.basis() != Graph.Basis.MODEL || in.clock().slowAt(n.startNs())) {
      return Judged.UNJUDGED;
    }
    boolean bandwidthBound = n.bound() == Graph.Bound.MEMORY || memoryNs(in, n) > n.lowerNs();
    if (retired && bandwidthBound) {
      return Judged.DEGRADED_MEMORY;
    }
    if (excessBytes(n) && bandwidthBound) {
      // its extra bytes explain its time; a kernel still compute-bound at its measured bytes is judged below
      return Judged.EXCESS_BYTES;
    }
    if (n.bound() == Graph.Bound.MEMORY) {
      return Judged.MEMORY_BOUND;
    }
    return n.bound() == Graph.Bound.COMPUTE && n.blocks() >= sms ? Judged.FILLS_DEVICE : Judged.OTHER;
  }

  /** The model's time without the slack: what the execution should have taken at worst. */
  static double expectedNs(Graph.Node n) {
    return n.upperNs() / PLANNER_SLACK;
  }

  /** Whether the kernel's measured bytes exceed its declared ones beyond the monitor's tolerance. */
  private static boolean excessBytes(Graph.Node n) {
    return n.measuredBytes() > 0 && n.predictedBytes() > 0
        && n.measuredBytes() > TRAFFIC_TOLERANCE * n.predictedBytes();
  }

  /** The time of the kernel's bytes (measured where they were, else declared) at the calibrated bandwidth. */
  private static double memoryNs(Input in, Graph.Node n) {
    double bandwidth = in.hw().memoryBandwidth();
    return bandwidth > 0 ? (n.measuredBytes() > 0 ? n.measuredBytes() : n.predictedBytes()) / bandwidth * 1e9 : 0;
  }
}
