package io.gitm.levers;

import io.gitm.analysis.attribution.Cause;
import io.gitm.sim.Replay;
import io.gitm.workload.ExecutionConfig.Allocation;
import io.gitm.workload.Knob;
import java.util.Optional;
import java.util.Set;

/** Per-batch device buffers allocated once, when the job starts, and reused by every batch. */
record Preallocate() implements Lever {
  @Override
  public String id() {
    return "preallocate";
  }

  @Override
  public String description() {
    return "allocate the per-batch device buffers once and reuse them for every batch";
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
    Allocation a = c.setup().config().allocation();
    if (a == Allocation.PREALLOCATED) {
      return Applicability.no("buffers are already preallocated");
    }
    if (a == Allocation.PER_BATCH) {
      no = Checks.observed(c, LeverContext.FACT_PLAIN_ALLOCATIONS, "plain device allocations");
    }
    return no != null ? no : Applicability.yes("every batch allocates its buffers (" + a + ")");
  }

  @Override
  public Setup apply(Setup s, LeverContext c) {
    return s.withConfig(s.config().withAllocation(Allocation.PREALLOCATED, 0));
  }

  /** Replay's pool transform: each allocation costs a pool call, the closest it models to none. */
  @Override
  public Optional<Replay.Change> counterfactual(Replay.Change base) {
    return Optional.of(base.withPoolAllocations());
  }
}
