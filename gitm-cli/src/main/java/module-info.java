/**
 * The gitm command line (picocli). Commands found by {@code ServiceLoader} ({@link io.gitm.cli.ExtraCommand}) join
 * the built-in ones.
 */
module gitm.cli {
  requires gitm.engine;
  requires gitm.export;
  requires gitm.nvidia;
  requires gitm.sim;
  requires info.picocli;
  requires jdk.unsupported;

  exports io.gitm.cli to gitm.bench;

  // picocli reads the commands' options and fills them in by reflection
  opens io.gitm.cli to info.picocli;

  uses io.gitm.cli.ExtraCommand;
  uses io.gitm.workload.Workload;
}
