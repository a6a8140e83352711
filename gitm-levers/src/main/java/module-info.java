/**
 * The intervention library and its search: levers, ranking by counterfactual replay, the jobs a lever is tried on
 * (managed, process), the rollback gate and the agent.
 */
module gitm.levers {
  requires transitive gitm.analysis;
  requires hipparchus.core;
  requires hipparchus.stat;
  requires tools.jackson.dataformat.csv;

  exports io.gitm.job to gitm.engine, gitm.cli, gitm.bench;
  exports io.gitm.job.output to gitm.engine, gitm.cli;
  exports io.gitm.levers to gitm.engine, gitm.export, gitm.cli, gitm.bench;
  exports io.gitm.rank to gitm.engine, gitm.bench;
  exports io.gitm.search to gitm.engine, gitm.export, gitm.cli, gitm.bench;

  // trials, rankings and setups are journalled as JSON, and the command line writes results as JSON
  opens io.gitm.job to tools.jackson.databind;
  opens io.gitm.levers to tools.jackson.databind;
  opens io.gitm.rank to tools.jackson.databind;
  opens io.gitm.search to tools.jackson.databind;
}
