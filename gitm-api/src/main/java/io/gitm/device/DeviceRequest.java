package io.gitm.device;

import java.util.Map;

/**
 * What to open: a device ordinal, the context scheduling mode (fixed when the context is created), and
 * backend-specific options (for {@code sim}: {@code preset}, {@code seed}, {@code faults}).
 */
public record DeviceRequest(int ordinal, SchedulingMode scheduling, Map<String, String> options) {
  public DeviceRequest {
    if (ordinal < 0) {
      throw new IllegalArgumentException("negative device ordinal " + ordinal);
    }
    scheduling = scheduling == null ? SchedulingMode.AUTO : scheduling;
    options = Map.copyOf(options == null ? Map.of() : options);
  }

  public static DeviceRequest first() {
    return new DeviceRequest(0, SchedulingMode.AUTO, Map.of());
  }

  public String option(String key, String fallback) {
    return options.getOrDefault(key, fallback);
  }
}
