package io.gitm.export;

import io.gitm.device.DeviceInfo;
import io.gitm.trace.DeviceKind;
import java.util.List;
import java.util.Objects;

/**
 * The labels that name one device on every state series, as dcgm-exporter writes them ({@code gpu}, {@code UUID},
 * {@code device}, {@code modelName}, {@code Hostname}), plus {@code gitm_device_kind} ({@code real} or
 * {@code simulated}), since every output that names a device says which it is.
 *
 * @param gpu the device's index (NVML's order; 0 for the simulated device)
 * @param device {@code nvidia<gpu>} for a real GPU, {@code sim<gpu>} for the simulated one
 */
public record DeviceLabels(int gpu, String uuid, String device, String modelName, String hostname, DeviceKind kind) {
  static final List<String> NAMES = List.of("gpu", "UUID", "device", "modelName", "Hostname", "gitm_device_kind");

  public DeviceLabels {
    if (gpu < 0) {
      throw new IllegalArgumentException("a device index is 0 or more, got " + gpu);
    }
    Objects.requireNonNull(kind, "kind");
    uuid = uuid == null ? "" : uuid;
    device = device == null ? "" : device;
    modelName = modelName == null ? "" : modelName;
    hostname = hostname == null ? "" : hostname;
  }

  /** The labels of a real GPU at NVML index {@code gpu}. */
  public static DeviceLabels nvidia(int gpu, String uuid, String modelName, String hostname) {
    return new DeviceLabels(gpu, uuid, "nvidia" + gpu, modelName, hostname, DeviceKind.REAL);
  }

  /** The labels of an opened device, by what it says of itself. */
  public static DeviceLabels of(DeviceInfo info, String hostname) {
    int gpu = Math.max(0, info.ordinal());
    String prefix = info.kind() == DeviceKind.SIMULATED ? "sim" : "nvidia";
    return new DeviceLabels(gpu, info.uuid(), prefix + gpu, info.name(), hostname, info.kind());
  }

  List<String> values() {
    return List.of(Integer.toString(gpu), uuid, device, modelName, hostname, kind.label());
  }
}
