package io.gitm.device;

import java.util.Map;

/**
 * What to open: a device ordinal, the context scheduling mode (fixed when the context is created), and
 * backend-specific options (for {@code sim}: {@code preset}, {@code seed}, {@code faults}). Options named in
 * {@link #DEVICE_SETTINGS} change the device itself (class-C levers): only the simulated backend honours them; a real
 * backend refuses them.
 */
public record DeviceRequest(int ordinal, SchedulingMode scheduling, Map<String, String> options) {
  /** Option: the board power limit to set at open, in watts, or {@code default}. */
  public static final String POWER_LIMIT_W = "power-limit-w";
  /** Option: the SM clock to lock at open, in MHz, or {@code default} (unlocked). */
  public static final String SM_CLOCK_MHZ = "sm-clock-mhz";
  /** The options that change device settings. */
  public static final java.util.Set<String> DEVICE_SETTINGS = java.util.Set.of(POWER_LIMIT_W, SM_CLOCK_MHZ);

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
