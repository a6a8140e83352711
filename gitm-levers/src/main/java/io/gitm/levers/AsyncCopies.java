package io.gitm.levers;

import io.gitm.analysis.attribution.Cause;
import io.gitm.device.HostMemoryKind;
import io.gitm.workload.Knob;
import java.util.Set;

/**
 * Copies queued on the compute stream ({@code cuMemcpyAsync}) instead of synchronous with the host: the host goes on
 * queueing work while the copy runs. Needs pinned host memory (from pageable memory the driver still blocks). Replay
 * does not model it.
 */
record AsyncCopies() implements Lever {
  private static final LeverSpec SPEC = new LeverSpec("async-copies",
      "queue host copies on the stream instead of waiting for each one", Set.of(Cause.SYNCHRONOUS_HOST_CALLS),
      SafetyClass.A, Scope.MANAGED);

  @Override
  public LeverSpec spec() {
    return SPEC;
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
}
