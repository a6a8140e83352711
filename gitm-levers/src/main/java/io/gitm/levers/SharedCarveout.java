package io.gitm.levers;

import io.gitm.analysis.attribution.Cause;
import io.gitm.sim.Replay;
import io.gitm.workload.Knob;
import java.util.Optional;
import java.util.Set;

/**
 * The workload's kernels prefer the smallest shared-memory carve-out (0%: the unified L1/shared array given to L1).
 * The preference changes only kernels that use shared memory (for the others the driver already gives L1 the array):
 * they trade shared memory, so resident blocks per multiprocessor, for a larger L1. It applies only where the trace
 * shows kernels with shared memory ({@link LeverContext#FACT_SHARED_MEMORY_KERNELS}); the simulated device models the
 * residency it costs, not the L1 it gives.
 */
record SharedCarveout() implements Lever {
  /** Carve-out set: all of the array to L1. */
  static final int MAX_L1 = 0;

  @Override
  public String id() {
    return "shared-carveout-max-l1";
  }

  @Override
  public String description() {
    return "prefer the largest L1 (shared-memory carve-out 0%) for the workload's kernels";
  }

  @Override
  public Set<Cause> addresses() {
    return Set.of(Cause.MEMORY_BOUND_BELOW_ROOFLINE);
  }

  @Override
  public SafetyClass safety() {
    return SafetyClass.A;
  }

  @Override
  public Scope scope() {
    return Scope.MANAGED;
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

  /** Empty: replay does not model L1. */
  @Override
  public Optional<Replay.Change> counterfactual(Replay.Change base) {
    return Optional.empty();
  }
}
