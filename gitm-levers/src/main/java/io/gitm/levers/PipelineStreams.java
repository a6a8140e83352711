package io.gitm.levers;

import io.gitm.analysis.attribution.Cause;
import io.gitm.workload.Knob;
import java.util.Set;

/**
 * Independent batches pipelined round-robin over {@code streams} streams, so that one batch's copies and kernels
 * overlap another's and the host queues ahead (the workload orders what depends on earlier batches by events). Replay
 * does not model it: it re-issues the trace's streams as recorded (one host thread, no re-mapping of batches).
 */
record PipelineStreams(int streams) implements Lever {
  PipelineStreams {
    if (streams < 2 || streams > 64) {
      throw new IllegalArgumentException("pipelining needs 2..64 streams, got " + streams);
    }
  }

  @Override
  public LeverSpec spec() {
    return new LeverSpec("streams-" + streams, "pipeline independent batches over " + streams + " streams",
        Set.of(Cause.FALSE_SERIALIZATION, Cause.LAUNCH_BOUND_HOST, Cause.SYNCHRONOUS_HOST_CALLS), SafetyClass.A,
        Scope.MANAGED);
  }

  @Override
  public Applicability check(LeverContext c) {
    Applicability no = Checks.honours(c, Knob.STREAMS);
    if (no != null) {
      return no;
    }
    int now = c.setup().config().streams();
    if (now >= streams) {
      return Applicability.no("batches already run over " + now + " stream" + (now == 1 ? "" : "s"));
    }
    return Applicability.yes("batches run over " + now + " stream" + (now == 1 ? "" : "s"));
  }

  @Override
  public Setup apply(Setup s, LeverContext c) {
    var cfg = s.config();
    return s.withConfig(cfg.withStreams(streams, cfg.asyncCopies(), cfg.copyComputeOverlap()));
  }
}
