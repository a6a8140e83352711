package io.gitm.run;

import io.gitm.analysis.Analysis;

/** Phase 2, attribute: the analysis of the profile's trace against the device's ceilings. */
final class AttributeStep {
  private AttributeStep() {}

  static Analysis.Result run(Profiled p, PhaseLog log) {
    RunClock clock = log.clock();
    long t = clock.wall().nanos();
    log.started(Phase.ATTRIBUTE, clock.remaining(Phase.ATTRIBUTE));
    Analysis.Result analysis = Analysis.analyze(p.meta(), p.records(), p.ceilings().spec());
    log.ended(Phase.ATTRIBUTE, clock.since(t), analysis.violations().size() + " violations, "
        + analysis.hypotheses().size() + " hypotheses" + (analysis.hypotheses().isEmpty() ? ""
            : "; top: " + analysis.hypotheses().getFirst().cause().label()));
    return analysis;
  }
}
