/** The statistics every stage uses, over Hipparchus (an automatic module, named after its jars). */
module gitm.stats {
  requires static transitive org.jspecify;
  requires hipparchus.core;
  requires hipparchus.stat;

  exports io.gitm.stats to gitm.trace, gitm.analysis, gitm.levers, gitm.engine, gitm.cli, gitm.bench;

  // a run's baseline, journalled as JSON, carries its latency Stats
  opens io.gitm.stats to tools.jackson.databind;
}
