package io.gitm.levers;

import io.gitm.workload.ExecutionConfig.Allocation;

/**
 * Per-batch device memory from the stream-ordered pool ({@code cuMemAllocAsync}/{@code cuMemFreeAsync}) instead of
 * {@code cuMemAlloc}/{@code cuMemFree}, which synchronize the device. The pool keeps the CUDA default release
 * threshold (0: memory goes back at each synchronization); {@link PoolReleaseThreshold} raises it.
 */
record PoolAllocation() implements AllocationLever {
  private static final LeverSpec SPEC = new LeverSpec("pool-allocation",
      "allocate per-batch device memory stream-ordered from the memory pool instead of cuMemAlloc/cuMemFree",
      ADDRESSES, SafetyClass.A, Scope.MANAGED);

  @Override
  public LeverSpec spec() {
    return SPEC;
  }

  @Override
  public Allocation to() {
    return Allocation.POOL;
  }

  @Override
  public String alreadyThere(Allocation now) {
    return now != Allocation.PER_BATCH ? "per-batch memory is already " + now : null;
  }

  @Override
  public String applies(Allocation now) {
    return "every batch allocates with cuMemAlloc";
  }
}
