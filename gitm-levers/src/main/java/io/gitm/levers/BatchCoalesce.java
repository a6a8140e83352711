package io.gitm.levers;

import io.gitm.analysis.attribution.Cause;
import io.gitm.sim.Replay;
import io.gitm.workload.Knob;
import java.util.Optional;
import java.util.Set;

/**
 * {@code factor} input batches merged into one device batch: one set of copies and launches serves them all, so
 * per-batch host costs are paid {@code factor} times less often (each input batch's latency grows). Only where the
 * workload declares coalescing allowed (it honours {@link Knob#BATCH_COALESCE}).
 */
record BatchCoalesce(int factor) implements Lever {
  BatchCoalesce {
    if (factor < 2) {
      throw new IllegalArgumentException("coalescing merges at least 2 batches, got " + factor);
    }
  }

  @Override
  public String id() {
    return "batch-coalesce-" + factor;
  }

  @Override
  public String description() {
    return "merge " + factor + " input batches into one device batch";
  }

  @Override
  public Set<Cause> addresses() {
    return Set.of(Cause.LAUNCH_BOUND_HOST, Cause.SYNCHRONOUS_HOST_CALLS);
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

  /** Empty: replay cannot merge the recorded calls of several batches. */
  @Override
  public Optional<Replay.Change> counterfactual(Replay.Change base) {
    return Optional.empty();
  }
}
