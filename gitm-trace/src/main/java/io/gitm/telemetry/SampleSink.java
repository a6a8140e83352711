package io.gitm.telemetry;

import io.gitm.trace.StateSample;

/**
 * Where device state samples go as the telemetry loop takes them (the run store's {@code telemetry/} writer, a
 * Prometheus gauge, a test list). Called on the loop's thread, one sample at a time; a sink that throws is counted and
 * skipped for that sample, never stops the loop.
 */
@FunctionalInterface
public interface SampleSink {
  void accept(StateSample sample);

  /** Called once when the loop stops, after the last sample. */
  default void close() {
  }
}
