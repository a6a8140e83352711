package io.gitm.device;

import io.gitm.trace.Precision;
import java.util.EnumMap;
import java.util.Map;

/**
 * The measured (or, for presets, documented) ceilings of one device, which the planner's roofline and the simulated
 * device both use. Written by {@code gitm calibrate}, keyed by device name, UUID and driver.
 *
 * @param memoryBandwidth device-memory bandwidth, bytes per second
 * @param flops peak rate per precision, operations per second
 * @param hostToDevicePinned host-to-device bandwidth from pinned memory, bytes per second
 * @param launchLatencyNs host time of one kernel launch call
 * @param eventResolutionNs the smallest measurable difference between two events
 * @param source how the figures were obtained (e.g. {@code calibrate 2026-11-29 on NVIDIA H200}, {@code preset})
 */
public record HardwareSpec(String deviceName, String uuid, String driver, int multiprocessors, double smClockMHz,
    long memoryBytes, long l2Bytes, double memoryBandwidth, Map<Precision, Double> flops, double hostToDevicePinned,
    double deviceToHostPinned, double hostToDevicePageable, double deviceToHostPageable, double launchLatencyNs,
    double eventResolutionNs, String source) {
  public HardwareSpec {
    Map<Precision, Double> m = new EnumMap<>(Precision.class);
    if (flops != null) {
      m.putAll(flops);
    }
    flops = Map.copyOf(m);
  }

  /** The peak rate for {@code p}; falls back to FP32 when the precision was not measured. */
  public double flopsFor(Precision p) {
    Double v = flops.get(p);
    return v != null ? v : flops.getOrDefault(Precision.FP32, 0.0);
  }
}
