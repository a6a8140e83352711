package io.gitm.levers;

import io.gitm.analysis.attribution.Cause;
import io.gitm.sim.Replay;
import io.gitm.workload.ExecutionConfig.Allocation;
import io.gitm.workload.Knob;
import java.util.Optional;
import java.util.Set;

/**
 * The memory pool keeps what it reserved instead of releasing it at every synchronization (release threshold set to
 * the largest value, CUDA's {@code UINT64_MAX} idiom), so later stream-ordered allocations are served from the pool
 * instead of growing it again.
 */
record PoolReleaseThreshold() implements Lever {
  /** The threshold set: keep everything. */
  static final long KEEP_ALL = Long.MAX_VALUE;

  @Override
  public String id() {
    return "pool-release-threshold";
  }

  @Override
  public String description() {
    return "let the stream-ordered memory pool keep its reservation across synchronizations";
  }

  @Override
  public Set<Cause> addresses() {
    return Set.of(Cause.ALLOCATOR_STALL);
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

  /** Empty: replay serves every pooled allocation from the pool already (it does not model growth). */
  @Override
  public Optional<Replay.Change> counterfactual(Replay.Change base) {
    return Optional.empty();
  }
}
