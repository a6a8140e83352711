package io.gitm.levers;

import io.gitm.analysis.attribution.Cause;
import io.gitm.device.HostMemoryKind;
import io.gitm.trace.TraceChange;
import io.gitm.trace.TraceChange.CopiesOnSideStream;
import io.gitm.workload.ExecutionConfig;
import io.gitm.workload.Knob;
import java.util.Optional;
import java.util.Set;

/**
 * Input and output copies on streams of their own, asynchronous, ordered with compute by events: the next batch's
 * upload runs on a copy engine while this batch's kernels run.
 */
record CopyComputeOverlap() implements Lever {
  private static final LeverSpec SPEC = new LeverSpec("copy-compute-overlap",
      "run copies asynchronously on their own streams, ordered with compute by events",
      Set.of(Cause.FALSE_SERIALIZATION, Cause.SYNCHRONOUS_HOST_CALLS), SafetyClass.A, Scope.MANAGED);

  @Override
  public LeverSpec spec() {
    return SPEC;
  }

  @Override
  public Applicability check(LeverContext c) {
    Applicability no = Checks.honours(c, Knob.COPY_COMPUTE_OVERLAP);
    if (no == null && !c.workload().knobs().contains(Knob.ASYNC_COPIES)) {
      no = Applicability.no(c.workload().name() + " does not honour the ASYNC_COPIES knob the overlap needs");
    }
    if (no != null) {
      return no;
    }
    ExecutionConfig cfg = c.setup().config();
    if (cfg.copyComputeOverlap()) {
      return Applicability.no("copies already run on their own streams");
    }
    if (cfg.hostMemory() != HostMemoryKind.PINNED) {
      return Applicability.no("copies from pageable memory block the host on any stream: apply pinned-host-memory "
          + "first");
    }
    if (cfg.graphCapture()) {
      return Applicability.no("a captured graph holds one stream's work (graph-capture is in effect)");
    }
    return Applicability.yes("copies run on the compute stream");
  }

  @Override
  public Setup apply(Setup s, LeverContext c) {
    var cfg = s.config();
    return s.withConfig(cfg.withStreams(cfg.streams(), true, true));
  }

  @Override
  public Optional<TraceChange> counterfactual() {
    return Optional.of(TraceChange.of(new CopiesOnSideStream()));
  }
}
