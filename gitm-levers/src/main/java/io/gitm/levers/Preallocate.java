package io.gitm.levers;

import io.gitm.workload.ExecutionConfig.Allocation;

/** Per-batch device buffers allocated once, when the job starts, and reused by every batch. */
record Preallocate() implements AllocationLever {
  private static final LeverSpec SPEC = new LeverSpec("preallocate",
      "allocate the per-batch device buffers once and reuse them for every batch", ADDRESSES, SafetyClass.A,
      Scope.MANAGED);

  @Override
  public LeverSpec spec() {
    return SPEC;
  }

  @Override
  public Allocation to() {
    return Allocation.PREALLOCATED;
  }

  @Override
  public String alreadyThere(Allocation now) {
    return now == Allocation.PREALLOCATED ? "buffers are already preallocated" : null;
  }

  @Override
  public String applies(Allocation now) {
    return "every batch allocates its buffers (" + now + ")";
  }
}
