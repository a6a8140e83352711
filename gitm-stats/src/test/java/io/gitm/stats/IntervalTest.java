package io.gitm.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class IntervalTest {
  @Test
  void anIntervalAboveOneReadsAsLargerAndOneBelowAsSmaller() {
    Interval up = new Interval(1.10, 1.05, 1.15, 0.95, "×");
    assertThat(up.above(1)).isTrue();
    assertThat(up.below(1)).isFalse();
    assertThat(up.contains(1)).isFalse();
    assertThat(up.contains(1.15)).as("ends included").isTrue();

    Interval down = new Interval(0.9, 0.85, 0.95, 0.95, "×");
    assertThat(down.below(1)).isTrue();
    assertThat(down.above(1)).isFalse();

    Interval across = new Interval(1.01, 0.98, 1.04, 0.95, "×");
    assertThat(across.above(1)).isFalse();
    assertThat(across.below(1)).isFalse();
    assertThat(across.contains(1)).isTrue();
  }

  @Test
  void noEstimateIsNeitherAboveNorBelowAnything() {
    Interval none = Interval.none("ms");
    assertThat(none.estimate()).isNaN();
    assertThat(none.above(0)).isFalse();
    assertThat(none.below(0)).isFalse();
    assertThat(none.contains(0)).isFalse();
    assertThat(none.unit()).isEqualTo("ms");
  }

  @Test
  void anIntervalNeedsOrderedEndsAUnitAndAConfidenceBelowOne() {
    assertThatThrownBy(() -> new Interval(1, 2, 1, 0.95, "×")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Interval(1, 1, 2, 0.95, null)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Interval(1, 1, 2, 1, "×")).isInstanceOf(IllegalArgumentException.class);
  }
}
