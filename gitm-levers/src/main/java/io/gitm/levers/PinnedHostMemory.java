package io.gitm.levers;

import io.gitm.analysis.attribution.Cause;
import io.gitm.device.HostMemoryKind;
import io.gitm.trace.TraceChange;
import io.gitm.trace.TraceChange.PinnedCopies;
import io.gitm.workload.Knob;
import java.util.Optional;
import java.util.Set;

/**
 * Host staging buffers in pinned (page-locked) memory: copies run at the link's pinned rate by DMA instead of being
 * staged by the driver through a bounce buffer while the host waits.
 */
record PinnedHostMemory() implements Lever {
  private static final LeverSpec SPEC = new LeverSpec("pinned-host-memory",
      "allocate the host staging buffers pinned, so copies run by DMA at the pinned rate",
      Set.of(Cause.PAGEABLE_COPIES, Cause.HOST_LINK_DEGRADED, Cause.SYNCHRONOUS_HOST_CALLS), SafetyClass.A,
      Scope.MANAGED);

  @Override
  public LeverSpec spec() {
    return SPEC;
  }

  @Override
  public Applicability check(LeverContext c) {
    Applicability no = Checks.honours(c, Knob.HOST_MEMORY);
    if (no == null && c.setup().config().hostMemory() == HostMemoryKind.PINNED) {
      no = Applicability.no("host memory is already pinned");
    }
    if (no == null) {
      no = Checks.observed(c, LeverContext.FACT_PAGEABLE_COPIES, "pageable copies");
    }
    return no != null ? no : Applicability.yes("the staging buffers are pageable");
  }

  @Override
  public Setup apply(Setup s, LeverContext c) {
    return s.withConfig(s.config().withHostMemory(HostMemoryKind.PINNED));
  }

  @Override
  public Optional<TraceChange> counterfactual() {
    return Optional.of(TraceChange.of(new PinnedCopies()));
  }
}
