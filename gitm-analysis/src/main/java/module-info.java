/**
 * Prediction and analysis: calibration and the roofline planner, the three invariants (monitor), attribution of lost
 * time to causes, the differential between two runs, and a trace window's breakdowns (breakdown).
 */
module gitm.analysis {
  requires transitive gitm.trace;
  requires transitive gitm.stats;
  requires transitive gitm.sim;
  requires hipparchus.core;
  requires hipparchus.stat;

  exports io.gitm.analysis to gitm.levers, gitm.engine, gitm.cli, gitm.bench;
  exports io.gitm.analysis.attribution to gitm.levers, gitm.engine, gitm.cli, gitm.bench;
  exports io.gitm.analysis.breakdown to gitm.engine, gitm.cli, gitm.bench;
  exports io.gitm.analysis.critical to gitm.engine, gitm.cli, gitm.bench;
  exports io.gitm.analysis.monitor to gitm.engine, gitm.cli, gitm.bench;
  exports io.gitm.planner to gitm.levers, gitm.engine, gitm.cli, gitm.bench;

  // calibrations, hypotheses and invariant results are written as JSON (run store, the command line's --json)
  opens io.gitm.analysis to tools.jackson.databind;
  opens io.gitm.analysis.attribution to tools.jackson.databind;
  opens io.gitm.analysis.breakdown to tools.jackson.databind;
  opens io.gitm.analysis.critical to tools.jackson.databind;
  opens io.gitm.analysis.monitor to tools.jackson.databind;
  opens io.gitm.planner to tools.jackson.databind;
}
