package io.gitm.trace;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ClockReasonTest {
  @Test
  void idleCardDecodesToGpuIdle() {
    assertThat(ClockReason.decode(0x1)).containsExactly("GpuIdle");
    assertThat(ClockReason.throttled(0x1)).isFalse();
  }

  @Test
  void powerCapAndThermalBitsDecodeInBitOrderAndCountAsThrottling() {
    long bits = ClockReason.SW_POWER_CAP | ClockReason.HW_THERMAL_SLOWDOWN
        | ClockReason.SW_THERMAL_SLOWDOWN;
    assertThat(ClockReason.decode(bits))
        .containsExactly("SwPowerCap", "SwThermalSlowdown", "HwThermalSlowdown");
    assertThat(ClockReason.throttled(bits)).isTrue();
  }

  @Test
  void everyKnownBitHasAName() {
    assertThat(ClockReason.decode(0x1FF)).containsExactly("GpuIdle", "ApplicationsClocksSetting",
        "SwPowerCap", "HwSlowdown", "SyncBoost", "SwThermalSlowdown", "HwThermalSlowdown", "HwPowerBrakeSlowdown",
        "DisplayClockSetting");
  }

  @Test
  void noBitsIsNoReasonAndUnknownBitsAreKeptVisible() {
    assertThat(ClockReason.decode(0)).isEmpty();
    assertThat(ClockReason.decode(0x10 | 0x8000)).containsExactly("SyncBoost", "Unknown(0x8000)");
  }
}
