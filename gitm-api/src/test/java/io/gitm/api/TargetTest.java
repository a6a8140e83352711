package io.gitm.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class TargetTest {

  @ParameterizedTest
  @CsvSource({"15%,0.15", "0.15,0.15", "99.5%,0.995", "1%,0.01", "0.5,0.5", " 20 % ,0.2"})
  void parsesPercentAndFraction(String text, double fraction) {
    assertThat(Target.parse(text).fraction()).isCloseTo(fraction, org.assertj.core.data.Offset.offset(1e-12));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "0", "0%", "-5%", "1001%", "10.5", "abc", "NaN", "Infinity", "15x", "%", "1e400"})
  void rejectsOutOfRangeOrNonNumericTargets(String text) {
    assertThatThrownBy(() -> Target.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n").isNotBlank());
  }
}
