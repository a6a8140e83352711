package io.gitm.trace;

import java.util.List;
import java.util.Map;

/**
 * What a trace is of: its source (e.g. {@code cupti}, {@code sim}, {@code kineto}), the devices its records name,
 * its clock domain, and free-form attributes.
 */
public record TraceMeta(String source, ClockDomain clock, List<TraceDevice> devices, Map<String, String> attributes) {
  public TraceMeta {
    source = source == null ? "" : source;
    if (clock == null) {
      throw new IllegalArgumentException("clock domain is required");
    }
    devices = List.copyOf(devices == null ? List.of() : devices);
    attributes = Map.copyOf(attributes == null ? Map.of() : attributes);
  }

  /** SIMULATED if any device is simulated, else REAL. */
  public DeviceKind kind() {
    return devices.stream().anyMatch(d -> d.kind() == DeviceKind.SIMULATED) ? DeviceKind.SIMULATED : DeviceKind.REAL;
  }
}
