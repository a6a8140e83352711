/** Metrics export: device state and run progress as Prometheus metrics and as OTLP metrics and spans. */
module gitm.export {
  requires transitive gitm.engine;
  requires jdk.httpserver;
  requires micrometer.core;
  requires micrometer.registry.prometheus;
  requires io.prometheus.metrics.model;
  requires io.opentelemetry.api;
  requires io.opentelemetry.context;
  requires io.opentelemetry.exporter.otlp;
  requires io.opentelemetry.sdk;
  requires io.opentelemetry.sdk.common;
  requires io.opentelemetry.sdk.metrics;
  requires io.opentelemetry.sdk.trace;

  exports io.gitm.export to gitm.cli;
}
