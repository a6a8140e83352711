package io.gitm.levers;

import io.gitm.analysis.attribution.Cause;
import io.gitm.device.HostMemoryKind;
import io.gitm.sim.Replay;
import io.gitm.workload.Knob;
import java.util.Optional;
import java.util.Set;

/**
 * Host staging buffers in pinned (page-locked) memory: copies run at the link's pinned rate by DMA instead of being
 * staged by the driver through a bounce buffer while the host waits.
 */
record PinnedHostMemory() implements Lever {
  @Override
  public String id() {
    return "pinned-host-memory";
  }

  @Override
  public String description() {
    return "allocate the host staging buffers pinned, so copies run by DMA at the pinned rate";
  }

  @Override
  public Set<Cause> addresses() {
    return Set.of(Cause.PAGEABLE_COPIES, Cause.HOST_LINK_DEGRADED, Cause.SYNCHRONOUS_HOST_CALLS);
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
  public Optional<Replay.Change> counterfactual(Replay.Change base) {
    return Optional.of(base.withPinnedCopies());
  }
}
