package io.gitm.levers;

import io.gitm.analysis.attribution.Cause;
import io.gitm.workload.Knob;
import java.util.Set;

/**
 * {@code factor} input batches merged into one device batch: one set of copies and launches serves them all, so
 * per-batch host costs are paid {@code factor} times less often (each input batch's latency grows). Only where the
 * workload declares coalescing allowed (it honours {@link Knob#BATCH_COALESCE}). Replay does not model it: it cannot
 * merge the recorded calls of several batches.
 */
record BatchCoalesce(int factor) implements Lever {
  BatchCoalesce {
    if (factor < 2) {
      throw new IllegalArgumentException("coalescing merges at least 2 batches, got " + factor);
    }
  }

  @Override
  public LeverSpec spec() {
    return new LeverSpec("batch-coalesce-" + factor, "merge " + factor + " input batches into one device batch",
        Set.of(Cause.LAUNCH_BOUND_HOST, Cause.SYNCHRONOUS_HOST_CALLS), SafetyClass.A, Scope.MANAGED);
  }

  @Override
  public Applicability check(LeverContext c) {
    Applicability no = Checks.honours(c, Knob.BATCH_COALESCE);
    if (no != null) {
      return no;
    }
    int now = c.setup().config().batchCoalesce();
    if (now >= factor) {
      return Applicability.no(now + " input batches are already merged per device batch");
    }
    return Applicability.yes((now == 1 ? "each input batch" : now + " input batches") + " make one device batch");
  }

  @Override
  public Setup apply(Setup s, LeverContext c) {
    return s.withConfig(s.config().withBatchCoalesce(factor));
  }
}
