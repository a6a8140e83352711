package io.gitm.levers;

import io.gitm.analysis.attribution.Cause;
import io.gitm.workload.Knob;
import java.util.Set;

/**
 * The workload's kernels prefer the smallest shared-memory carve-out (0%: the unified L1/shared array given to L1).
 * The preference changes only kernels that use shared memory (for the others the driver already gives L1 the array):
 * they trade shared memory, so resident blocks per multiprocessor, for a larger L1. It applies only where the trace
 * shows kernels with shared memory ({@link LeverContext#FACT_SHARED_MEMORY_KERNELS}); the simulated device models the
 * residency it costs, not the L1 it gives. Replay does not model L1.
 */
record SharedCarveout() implements Lever {
  /** Carve-out set: all of the array to L1. */
  static final int MAX_L1 = 0;

  private static final LeverSpec SPEC = new LeverSpec("shared-carveout-max-l1",
      "prefer the largest L1 (shared-memory carve-out 0%) for the workload's kernels",
      Set.of(Cause.MEMORY_BOUND_BELOW_ROOFLINE), SafetyClass.A, Scope.MANAGED);

  @Override
  public LeverSpec spec() {
    return SPEC;
  }

  @Override
  public Applicability check(LeverContext c) {
    Applicability no = Checks.honours(c, Knob.SHARED_CARVEOUT);
    if (no == null) {
      no = Checks.capability(c, 7.0, "a preferred shared-memory carve-out");
    }
    if (no != null) {
      return no;
    }
    if (c.setup().config().sharedCarveoutPercent() == MAX_L1) {
      return Applicability.no("the kernels already prefer the largest L1");
    }
    double shared = c.fact(LeverContext.FACT_SHARED_MEMORY_KERNELS, Double.NaN);
    if (Double.isNaN(shared)) {
      return Applicability.no("a carve-out changes only kernels that use shared memory, and whether any does is "
          + "unknown (no trace)");
    }
    if (shared <= 0) {
      return Applicability.no("the trace shows no kernel with shared memory, and a carve-out changes no other kernel");
    }
    return Applicability.yes((long) shared + " kernel execution(s) used shared memory; the carve-out is "
        + (c.setup().config().sharedCarveoutPercent() < 0 ? "the driver's"
            : c.setup().config().sharedCarveoutPercent() + "%"));
  }

  @Override
  public Setup apply(Setup s, LeverContext c) {
    return s.withConfig(s.config().withSharedCarveout(MAX_L1));
  }
}
