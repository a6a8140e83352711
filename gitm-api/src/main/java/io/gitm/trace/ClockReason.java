package io.gitm.trace;

import java.util.ArrayList;
import java.util.List;

/**
 * NVML's clock-event (throttle) reason bits, {@code nvmlClocksEventReason*} in nvml.h, and their names: the one
 * definition the NVML sampler, the simulated device and attribution share.
 */
public final class ClockReason {
  public static final long GPU_IDLE = 0x1L;
  public static final long APPLICATIONS_CLOCKS_SETTING = 0x2L;
  public static final long SW_POWER_CAP = 0x4L;
  public static final long HW_SLOWDOWN = 0x8L;
  public static final long SYNC_BOOST = 0x10L;
  public static final long SW_THERMAL_SLOWDOWN = 0x20L;
  public static final long HW_THERMAL_SLOWDOWN = 0x40L;
  public static final long HW_POWER_BRAKE_SLOWDOWN = 0x80L;
  public static final long DISPLAY_CLOCK_SETTING = 0x100L;

  private static final long[] BITS = {GPU_IDLE, APPLICATIONS_CLOCKS_SETTING, SW_POWER_CAP, HW_SLOWDOWN, SYNC_BOOST,
      SW_THERMAL_SLOWDOWN, HW_THERMAL_SLOWDOWN, HW_POWER_BRAKE_SLOWDOWN, DISPLAY_CLOCK_SETTING};
  private static final String[] NAMES = {"GpuIdle", "ApplicationsClocksSetting", "SwPowerCap", "HwSlowdown",
      "SyncBoost", "SwThermalSlowdown", "HwThermalSlowdown", "HwPowerBrakeSlowdown", "DisplayClockSetting"};

  private ClockReason() {
  }

  /** The names of the bits set in {@code bits}, lowest first; unknown bits as {@code Unknown(0x...)}; none: empty. */
  public static List<String> decode(long bits) {
    List<String> out = new ArrayList<>();
    long rest = bits;
    for (int i = 0; i < BITS.length; i++) {
      if ((bits & BITS[i]) != 0) {
        out.add(NAMES[i]);
        rest &= ~BITS[i];
      }
    }
    if (rest != 0) {
      out.add("Unknown(0x" + Long.toHexString(rest) + ")");
    }
    return out;
  }

  /** True when any bit other than idle, application clocks and display clock limits the clocks (a slowdown). */
  public static boolean throttled(long bits) {
    return (bits & (SW_POWER_CAP | HW_SLOWDOWN | SW_THERMAL_SLOWDOWN | HW_THERMAL_SLOWDOWN
        | HW_POWER_BRAKE_SLOWDOWN)) != 0;
  }
}
