package io.gitm.nvidia.cuda;

import io.gitm.device.DeviceInfo;
import io.gitm.device.DeviceProvider;
import io.gitm.device.EventTracer;
import io.gitm.device.UnsupportedFeatureException;
import io.gitm.trace.ClockDomain;
import io.gitm.trace.TraceDevice;
import io.gitm.trace.TraceMeta;
import io.gitm.trace.TraceSink;
import java.util.List;
import java.util.Map;

/** The tracer slot of the nvidia device until the CUPTI tracer is wired in: never available, says why. */
final class UnwiredTracer implements EventTracer {
  private final TraceMeta meta;

  UnwiredTracer(DeviceInfo info) {
    this.meta = new TraceMeta("cupti", ClockDomain.HOST_MONOTONIC,
        List.of(new TraceDevice(info.ordinal(), info.name(), info.uuid(), info.kind())), Map.of());
  }

  @Override
  public DeviceProvider.Probe availability() {
    return DeviceProvider.Probe.no("CUPTI tracer not wired", "build with the CUPTI tracer (io.gitm.nvidia.cupti)");
  }

  @Override
  public TraceMeta meta() {
    return meta;
  }

  @Override
  public void start(TraceSink sink) {
    throw new UnsupportedFeatureException("EventTracer.start", "CUPTI tracer not wired");
  }

  @Override
  public void flush() {
  }

  @Override
  public void stop() {
  }
}
