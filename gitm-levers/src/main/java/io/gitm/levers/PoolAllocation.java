package io.gitm.levers;

import io.gitm.analysis.attribution.Cause;
import io.gitm.sim.Replay;
import io.gitm.workload.ExecutionConfig.Allocation;
import io.gitm.workload.Knob;
import java.util.Optional;
import java.util.Set;

/**
 * Per-batch device memory from the stream-ordered pool ({@code cuMemAllocAsync}/{@code cuMemFreeAsync}) instead of
 * {@code cuMemAlloc}/{@code cuMemFree}, which synchronize the device. The pool keeps the CUDA default release
 * threshold (0: memory goes back at each synchronization); {@link PoolReleaseThreshold} raises it.
 */
record PoolAllocation() implements Lever {
  @Override
  public String id() {
    return "pool-allocation";
  }

  @Override
  public String description() {
    return "allocate per-batch device memory stream-ordered from the memory pool instead of cuMemAlloc/cuMemFree";
  }

  @Override
  public Set<Cause> addresses() {
    return Set.of(Cause.ALLOCATOR_STALL, Cause.SYNCHRONOUS_HOST_CALLS);
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
    Applicability no = Checks.honours(c, Knob.ALLOCATION);
    if (no != null) {
      return no;
    }
    if (c.setup().config().allocation() != Allocation.PER_BATCH) {
      return Applicability.no("per-batch memory is already " + c.setup().config().allocation());
    }
    no = Checks.observed(c, LeverContext.FACT_PLAIN_ALLOCATIONS, "plain device allocations");
    return no != null ? no : Applicability.yes("every batch allocates with cuMemAlloc");
  }

  @Override
  public Setup apply(Setup s, LeverContext c) {
    return s.withConfig(s.config().withAllocation(Allocation.POOL, 0));
  }

  @Override
  public Optional<Replay.Change> counterfactual(Replay.Change base) {
    return Optional.of(base.withPoolAllocations());
  }
}
