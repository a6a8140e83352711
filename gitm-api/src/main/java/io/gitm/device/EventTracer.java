package io.gitm.device;

import io.gitm.trace.TraceMeta;
import io.gitm.trace.TraceSink;

/** Per-kernel event capture (CUPTI, rocprofiler, or the simulator's own records). */
public interface EventTracer {
  /** Whether tracing can run here; when not, the reason (e.g. profiling not permitted) says why. */
  DeviceProvider.Probe availability();

  /** The meta data of traces this tracer produces. */
  TraceMeta meta();

  /** Starts delivering records to {@code sink}; records may arrive on another thread. */
  void start(TraceSink sink);

  /** Delivers every record buffered so far. */
  void flush();

  /** Flushes and stops. */
  void stop();
}
