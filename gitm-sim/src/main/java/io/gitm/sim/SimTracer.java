package io.gitm.sim;

import io.gitm.device.DeviceProvider;
import io.gitm.device.EventTracer;
import io.gitm.trace.TraceMeta;
import io.gitm.trace.TraceRecord;
import io.gitm.trace.TraceSink;
import java.util.ArrayList;
import java.util.List;

/**
 * The simulated device's event tracer: the records CUPTI would deliver (kernels, copies, memsets, synchronizations,
 * API calls) on the simulated clock, buffered and handed to the sink on {@link #flush()} or when the buffer fills,
 * on the calling thread.
 */
final class SimTracer implements EventTracer {
  private static final int BUFFER = 8192;
  private final TraceMeta meta;
  private final Object lock;
  private final List<TraceRecord> buffer = new ArrayList<>();
  private TraceSink sink;

  SimTracer(TraceMeta meta, Object lock) {
    this.meta = meta;
    this.lock = lock;
  }

  @Override
  public DeviceProvider.Probe availability() {
    return DeviceProvider.Probe.ok("the simulated device traces every kernel, copy, memset, sync and API call", 1);
  }

  @Override
  public TraceMeta meta() {
    return meta;
  }

  @Override
  public void start(TraceSink sink) {
    if (sink == null) {
      throw new IllegalArgumentException("tracer needs a sink");
    }
    synchronized (lock) {
      if (this.sink != null) {
        throw new IllegalStateException("the simulated tracer is already started");
      }
      this.sink = sink;
    }
  }

  boolean on() {
    return sink != null;
  }

  void emit(TraceRecord r) {
    if (sink == null) {
      return;
    }
    buffer.add(r);
    if (buffer.size() >= BUFFER) {
      deliver();
    }
  }

  private void deliver() {
    for (TraceRecord r : buffer) {
      sink.accept(r);
    }
    buffer.clear();
  }

  @Override
  public void flush() {
    synchronized (lock) {
      if (sink != null) {
        deliver();
      }
    }
  }

  @Override
  public void stop() {
    synchronized (lock) {
      if (sink != null) {
        deliver();
        sink = null;
      }
    }
  }
}
