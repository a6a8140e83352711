package io.gitm.levers;

import io.gitm.analysis.attribution.Cause;
import io.gitm.trace.TraceChange;
import io.gitm.trace.TraceChange.PoolAllocations;
import io.gitm.workload.ExecutionConfig.Allocation;
import io.gitm.workload.Knob;
import java.util.Optional;
import java.util.Set;

/**
 * Per-batch device memory no longer allocated with {@code cuMemAlloc}/{@code cuMemFree}, which synchronize the
 * device: taken stream-ordered from the memory pool ({@link Allocation#POOL}: {@code cuMemAllocAsync}/{@code
 * cuMemFreeAsync} at CUDA's default release threshold, 0, so memory goes back at each synchronization;
 * {@link PoolReleaseThreshold} raises it), or allocated once when the job starts and reused by every batch
 * ({@link Allocation#PREALLOCATED}).
 */
record AllocationLever(Allocation to) implements Lever {
  private static final Set<Cause> ADDRESSES = Set.of(Cause.ALLOCATOR_STALL, Cause.SYNCHRONOUS_HOST_CALLS);
  private static final LeverSpec POOL = new LeverSpec("pool-allocation",
      "allocate per-batch device memory stream-ordered from the memory pool instead of cuMemAlloc/cuMemFree",
      ADDRESSES, SafetyClass.A, Scope.MANAGED);
  private static final LeverSpec PREALLOCATE = new LeverSpec("preallocate",
      "allocate the per-batch device buffers once and reuse them for every batch", ADDRESSES, SafetyClass.A,
      Scope.MANAGED);

  AllocationLever {
    if (to != Allocation.POOL && to != Allocation.PREALLOCATED) {
      throw new IllegalArgumentException("an allocation lever moves per-batch memory to the pool or preallocates it,"
          + " got " + to);
    }
  }

  @Override
  public LeverSpec spec() {
    return to == Allocation.POOL ? POOL : PREALLOCATE;
  }

  @Override
  public Applicability check(LeverContext c) {
    Applicability no = Checks.honours(c, Knob.ALLOCATION);
    if (no != null) {
      return no;
    }
    Allocation now = c.setup().config().allocation();
    if (to == Allocation.POOL && now != Allocation.PER_BATCH) {
      return Applicability.no("per-batch memory is already " + now);
    }
    if (now == Allocation.PREALLOCATED) {
      return Applicability.no("buffers are already preallocated");
    }
    if (now == Allocation.PER_BATCH) {
      no = Checks.observed(c, LeverContext.FACT_PLAIN_ALLOCATIONS, "plain device allocations");
    }
    if (no != null) {
      return no;
    }
    return Applicability.yes(to == Allocation.POOL ? "every batch allocates with cuMemAlloc"
        : "every batch allocates its buffers (" + now + ")");
  }

  @Override
  public Setup apply(Setup s, LeverContext c) {
    return s.withConfig(s.config().withAllocation(to, 0));
  }

  /**
   * Replay's pool transform for both: each allocation costs a pool call, which for preallocated buffers is the closest
   * it models to none.
   */
  @Override
  public Optional<TraceChange> counterfactual() {
    return Optional.of(TraceChange.of(new PoolAllocations()));
  }
}
