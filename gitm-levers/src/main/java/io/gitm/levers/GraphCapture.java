package io.gitm.levers;

import io.gitm.analysis.attribution.Cause;
import io.gitm.device.HostMemoryKind;
import io.gitm.trace.TraceChange;
import io.gitm.trace.TraceChange.GraphLaunches;
import io.gitm.workload.ExecutionConfig;
import io.gitm.workload.ExecutionConfig.Allocation;
import io.gitm.workload.Knob;
import java.util.Optional;
import java.util.Set;

/**
 * One iteration's copies, memsets and launches captured once as a CUDA graph and replayed with one launch: the host
 * pays one launch instead of one per kernel, and the device runs the nodes back to back. A graph replays fixed
 * buffers and asynchronous copies from pinned memory on one stream, so those must already be in effect.
 */
record GraphCapture() implements Lever {
  private static final LeverSpec SPEC = new LeverSpec("graph-capture",
      "capture one iteration's work as a CUDA graph and replay it with a single launch",
      Set.of(Cause.LAUNCH_BOUND_HOST), SafetyClass.A, Scope.MANAGED);

  @Override
  public LeverSpec spec() {
    return SPEC;
  }

  @Override
  public Applicability check(LeverContext c) {
    Applicability no = Checks.honours(c, Knob.GRAPH_CAPTURE);
    if (no != null) {
      return no;
    }
    ExecutionConfig cfg = c.setup().config();
    if (cfg.graphCapture()) {
      return Applicability.no("iterations are already captured as graphs");
    }
    if (cfg.hostMemory() != HostMemoryKind.PINNED || !cfg.asyncCopies()
        || cfg.allocation() != Allocation.PREALLOCATED) {
      return Applicability.no("a graph replays asynchronous copies from pinned memory into fixed buffers: apply "
          + "pinned-host-memory, async-copies and preallocate first");
    }
    if (cfg.copyComputeOverlap()) {
      return Applicability.no("a graph holds one stream's work, and copies run on their own streams "
          + "(copy-compute-overlap)");
    }
    no = Checks.observed(c, LeverContext.FACT_LAUNCHES, "kernel launches");
    return no != null ? no : Applicability.yes("every kernel of an iteration is launched on its own");
  }

  @Override
  public Setup apply(Setup s, LeverContext c) {
    return s.withConfig(s.config().withGraphCapture(true));
  }

  @Override
  public Optional<TraceChange> counterfactual() {
    return Optional.of(TraceChange.of(new GraphLaunches()));
  }
}
