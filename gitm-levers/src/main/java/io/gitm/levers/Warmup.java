package io.gitm.levers;

import io.gitm.analysis.attribution.Cause;
import io.gitm.workload.Knob;
import java.util.Set;

/**
 * Modules loaded and one untimed iteration run on throwaway state when the job opens (eager loading and warm-up), so
 * that lazy initialization (module loading, first-launch setup, first allocations) is paid before the measured
 * iterations. Results are unchanged. Replay does not model it: it has no cold start to remove (it re-times recorded
 * calls on a fresh device).
 */
record Warmup() implements Lever {
  private static final LeverSpec SPEC = new LeverSpec("warmup",
      "load modules eagerly and run one untimed iteration before measuring", Set.of(Cause.COLD_START), SafetyClass.A,
      Scope.MANAGED);

  @Override
  public LeverSpec spec() {
    return SPEC;
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
}
