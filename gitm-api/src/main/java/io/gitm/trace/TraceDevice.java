package io.gitm.trace;

/** A device that records of a trace refer to by {@code index}. */
public record TraceDevice(int index, String name, String uuid, DeviceKind kind) {
  public TraceDevice {
    name = name == null ? "" : name;
    uuid = uuid == null ? "" : uuid;
    if (kind == null) {
      throw new IllegalArgumentException("device kind is required");
    }
  }
}
