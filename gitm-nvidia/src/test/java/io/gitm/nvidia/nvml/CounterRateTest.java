package io.gitm.nvidia.nvml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class CounterRateTest {
  @Test
  void firstReadingHasNoRate() {
    assertThat(new CounterRate(64).update(1000, 1_000_000, 1)).isNaN();
  }

  @Test
  void rateIsIncreaseOverElapsedTimeTimesScale() {
    CounterRate r = new CounterRate(64);
    r.update(1000, 1_000_000, 1024);
    assertThat(r.update(1500, 1_500_000, 1024)).isEqualTo(500 * 1024 / 0.5);
  }

  @Test
  void a32BitCounterThatWrapsStillGivesTheTrueIncrease() {
    CounterRate r = new CounterRate(32);
    r.update(0xFFFF_FF00L, 0, 1);
    assertThat(r.update(0x100L, 1_000_000, 1)).isEqualTo(0x200);
  }

  @Test
  void a64BitCounterThatWrapsStillGivesTheTrueIncrease() {
    CounterRate r = new CounterRate(64);
    r.update(-16L, 0, 1);  // 2^64 - 16
    assertThat(r.update(16L, 2_000_000, 1)).isEqualTo(16);
  }

  @Test
  void aReadingWhoseTimeDidNotAdvanceHasNoRateAndKeepsTheBaseline() {
    CounterRate r = new CounterRate(64);
    r.update(100, 1000, 1);
    assertThat(r.update(200, 1000, 1)).isNaN();
    assertThat(r.update(300, 1_001_000, 1)).isEqualTo(200.0);
  }

  @Test
  void aCounterThatWentBackwardsIsAResetNotAHugeRate() {
    CounterRate r = new CounterRate(64);
    r.update(1_000_000, 0, 1);
    assertThat(r.update(500, 1_000_000, 1)).isNaN();
    assertThat(r.update(1500, 2_000_000, 1)).isEqualTo(1000);
  }

  @Test
  void badWidthsAreRejected() {
    assertThatThrownBy(() -> new CounterRate(0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new CounterRate(65)).isInstanceOf(IllegalArgumentException.class);
  }
}
