package io.gitm.levers;

import io.gitm.analysis.attribution.Cause;
import io.gitm.device.HostMemoryKind;
import io.gitm.sim.Replay;
import io.gitm.workload.Knob;
import java.util.Optional;
import java.util.Set;

/**
 * Copies queued on the compute stream ({@code cuMemcpyAsync}) instead of synchronous with the host: the host goes on
 * queueing work while the copy runs. Needs pinned host memory (from pageable memory the driver still blocks).
 */
record AsyncCopies() implements Lever {
  @Override
  public String id() {
    return "async-copies";
  }

  @Override
  public String description() {
    return "queue host copies on the stream instead of waiting for each one";
  }

  @Override
  public Set<Cause> addresses() {
    return Set.of(Cause.SYNCHRONOUS_HOST_CALLS);
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
    Applicability no = Checks.honours(c, Knob.ASYNC_COPIES);
    if (no != null) {
      return no;
    }
    if (c.setup().config().asyncCopies()) {
      return Applicability.no("copies are already asynchronous");
    }
    if (c.setup().config().hostMemory() != HostMemoryKind.PINNED) {
      return Applicability.no("an asynchronous copy from pageable memory still blocks the host: apply "
          + "pinned-host-memory first");
    }
    return Applicability.yes("copies from pinned memory wait for the host");
  }

  @Override
  public Setup apply(Setup s, LeverContext c) {
    var cfg = s.config();
    return s.withConfig(cfg.withStreams(cfg.streams(), true, cfg.copyComputeOverlap()));
  }

  @Override
  public Optional<Replay.Change> counterfactual(Replay.Change base) {
    return Optional.empty();
  }
}
