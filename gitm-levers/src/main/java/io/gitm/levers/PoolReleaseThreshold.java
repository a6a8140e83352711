package io.gitm.levers;

import io.gitm.analysis.attribution.Cause;
import io.gitm.workload.ExecutionConfig.Allocation;
import io.gitm.workload.Knob;
import java.util.Set;

/**
 * The memory pool keeps what it reserved instead of releasing it at every synchronization (release threshold set to
 * the largest value, CUDA's {@code UINT64_MAX} idiom), so later stream-ordered allocations are served from the pool
 * instead of growing it again. Replay does not model it: it serves every pooled allocation from the pool already.
 */
record PoolReleaseThreshold() implements Lever {
  /** The threshold set: keep everything. */
  static final long KEEP_ALL = Long.MAX_VALUE;

  private static final LeverSpec SPEC = new LeverSpec("pool-release-threshold",
      "let the stream-ordered memory pool keep its reservation across synchronizations", Set.of(Cause.ALLOCATOR_STALL),
      SafetyClass.A, Scope.MANAGED);

  @Override
  public LeverSpec spec() {
    return SPEC;
  }

  @Override
  public Applicability check(LeverContext c) {
    Applicability no = Checks.honours(c, Knob.ALLOCATION);
    if (no != null) {
      return no;
    }
    if (c.setup().config().allocation() != Allocation.POOL) {
      return Applicability.no("per-batch memory does not come from the pool (" + c.setup().config().allocation()
          + "): apply pool-allocation first");
    }
    if (c.setup().config().poolReleaseThresholdBytes() == KEEP_ALL) {
      return Applicability.no("the pool already keeps its whole reservation");
    }
    return Applicability.yes("the pool releases memory above " + c.setup().config().poolReleaseThresholdBytes()
        + " bytes at every synchronization and must grow again");
  }

  @Override
  public Setup apply(Setup s, LeverContext c) {
    return s.withConfig(s.config().withAllocation(Allocation.POOL, KEEP_ALL));
  }
}
