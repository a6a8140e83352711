package io.gitm.nvidia.nvml;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ClockEventReasonsTest {
  @Test
  void idleCardDecodesToGpuIdle() {
    assertThat(ClockEventReasons.decode(0x1)).containsExactly("GpuIdle");
    assertThat(ClockEventReasons.throttled(0x1)).isFalse();
  }

  @Test
  void powerCapAndThermalBitsDecodeInBitOrderAndCountAsThrottling() {
    long bits = ClockEventReasons.SW_POWER_CAP | ClockEventReasons.HW_THERMAL_SLOWDOWN
        | ClockEventReasons.SW_THERMAL_SLOWDOWN;
    assertThat(ClockEventReasons.decode(bits))
        .containsExactly("SwPowerCap", "SwThermalSlowdown", "HwThermalSlowdown");
    assertThat(ClockEventReasons.throttled(bits)).isTrue();
  }

  @Test
  void everyKnownBitHasAName() {
    assertThat(ClockEventReasons.decode(0x1FF)).containsExactly("GpuIdle", "ApplicationsClocksSetting",
        "SwPowerCap", "HwSlowdown", "SyncBoost", "SwThermalSlowdown", "HwThermalSlowdown", "HwPowerBrakeSlowdown",
        "DisplayClockSetting");
  }

  @Test
  void noBitsIsNoReasonAndUnknownBitsAreKeptVisible() {
    assertThat(ClockEventReasons.decode(0)).isEmpty();
    assertThat(ClockEventReasons.decode(0x10 | 0x8000)).containsExactly("SyncBoost", "Unknown(0x8000)");
  }
}
