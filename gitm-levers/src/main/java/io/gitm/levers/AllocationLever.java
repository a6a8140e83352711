package io.gitm.levers;

import io.gitm.analysis.attribution.Cause;
import io.gitm.trace.TraceChange;
import io.gitm.trace.TraceChange.PoolAllocations;
import io.gitm.workload.ExecutionConfig.Allocation;
import io.gitm.workload.Knob;
import java.util.Optional;
import java.util.Set;

/**
 * A lever that stops per-batch device memory from being allocated with {@code cuMemAlloc}/{@code cuMemFree}, which
 * synchronize the device, and takes it another way ({@link #to()}): stream-ordered from the memory pool, or allocated
 * once and reused. What the two share is here: the knob, the precondition and the replay they are predicted by.
 */
sealed interface AllocationLever extends Lever permits PoolAllocation, Preallocate {
  /** The causes both address. */
  Set<Cause> ADDRESSES = Set.of(Cause.ALLOCATOR_STALL, Cause.SYNCHRONOUS_HOST_CALLS);

  /** How per-batch memory is allocated under this lever. */
  Allocation to();

  /** Why it does not apply to memory allocated as {@code now}, or null when it does. */
  String alreadyThere(Allocation now);

  /** Why it applies to memory allocated as {@code now}. */
  String applies(Allocation now);

  @Override
  default Applicability check(LeverContext c) {
    Applicability no = Checks.honours(c, Knob.ALLOCATION);
    if (no != null) {
      return no;
    }
    Allocation now = c.setup().config().allocation();
    String there = alreadyThere(now);
    if (there != null) {
      return Applicability.no(there);
    }
    if (now == Allocation.PER_BATCH) {
      no = Checks.observed(c, LeverContext.FACT_PLAIN_ALLOCATIONS, "plain device allocations");
    }
    return no != null ? no : Applicability.yes(applies(now));
  }

  @Override
  default Setup apply(Setup s, LeverContext c) {
    return s.withConfig(s.config().withAllocation(to(), 0));
  }

  /**
   * Replay's pool transform, for both: each allocation costs a pool call, which for preallocated buffers is the
   * closest it models to none.
   */
  @Override
  default Optional<TraceChange> counterfactual() {
    return Optional.of(TraceChange.of(new PoolAllocations()));
  }
}
