/** The benchmarks (JMH) and the {@code gitm bench} command: gitm's cost and its search against baselines. */
module gitm.bench {
  requires gitm.cli;
  requires gitm.engine;
  requires gitm.sim;
  requires gitm.workloads;
  requires java.management;
  requires java.net.http;
  requires jdk.httpserver;
  requires jdk.management;
  requires info.picocli;
  requires jmh.core;
  requires org.xerial.sqlitejdbc;

  // picocli fills in the bench command's options, JMH runs the benchmarks' generated code, both by reflection
  opens io.gitm.bench to info.picocli, jmh.core;

  provides io.gitm.cli.ExtraCommand with io.gitm.bench.BenchCommand;

  uses io.gitm.workload.Workload;
}
