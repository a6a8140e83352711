/**
 * Traces and the run store: the .gtrace format, Kineto, Nsight Systems (SQLite) and ncu import, Perfetto export,
 * telemetry sampling, the run store and its S3 sync, and the bindings to the host OS (process groups, CPU affinity).
 * The AWS SDK's jars are automatic modules, named in their manifests.
 */
module gitm.trace {
  requires static transitive org.jspecify;
  requires transitive gitm.api;
  requires gitm.stats;
  requires transitive tools.jackson.databind;
  requires tools.jackson.dataformat.csv;
  requires org.xerial.sqlitejdbc;
  requires software.amazon.awssdk.auth;
  requires software.amazon.awssdk.awscore;
  requires software.amazon.awssdk.core;
  requires software.amazon.awssdk.http;
  requires software.amazon.awssdk.http.urlconnection;
  requires software.amazon.awssdk.regions;
  requires software.amazon.awssdk.retries;
  requires software.amazon.awssdk.retries.api;
  requires software.amazon.awssdk.services.s3;

  exports io.gitm.os to gitm.levers, gitm.engine, gitm.cli;
  exports io.gitm.store to gitm.analysis, gitm.engine, gitm.cli, gitm.bench;
  exports io.gitm.store.s3 to gitm.cli;
  exports io.gitm.telemetry to gitm.engine, gitm.export, gitm.cli;
  exports io.gitm.tracer to gitm.analysis, gitm.levers, gitm.engine, gitm.cli, gitm.bench;

  // the run store's journal, run info and S3 manifests are Jackson-mapped records
  opens io.gitm.store to tools.jackson.databind;
  opens io.gitm.store.s3 to tools.jackson.databind;
}
