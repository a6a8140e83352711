package io.gitm.levers;

import io.gitm.analysis.attribution.Cause;
import io.gitm.sim.Replay;
import io.gitm.workload.Knob;
import java.util.Optional;
import java.util.Set;

/**
 * Modules loaded and one untimed iteration run on throwaway state when the job opens (eager loading and warm-up), so
 * that lazy initialization (module loading, first-launch setup, first allocations) is paid before the measured
 * iterations. Results are unchanged.
 */
record Warmup() implements Lever {
  @Override
  public String id() {
    return "warmup";
  }

  @Override
  public String description() {
    return "load modules eagerly and run one untimed iteration before measuring";
  }

  @Override
  public Set<Cause> addresses() {
    return Set.of(Cause.COLD_START);
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
    Applicability no = Checks.honours(c, Knob.WARMUP);
    if (no != null) {
      return no;
    }
    if (c.setup().config().warmup()) {
      return Applicability.no("the job already warms up");
    }
    return Applicability.yes("the first measured iteration pays the cold start");
  }

  @Override
  public Setup apply(Setup s, LeverContext c) {
    return s.withConfig(s.config().withWarmup(true));
  }

  /** Empty: replay has no cold start to remove (it re-times recorded calls on a fresh device). */
  @Override
  public Optional<Replay.Change> counterfactual(Replay.Change base) {
    return Optional.empty();
  }
}
