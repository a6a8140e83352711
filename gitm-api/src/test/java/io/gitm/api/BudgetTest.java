package io.gitm.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class BudgetTest {

  @ParameterizedTest
  @CsvSource({"24h,86400", "90m,5400", "2m30s,150", "1d,86400", "45s,45", "1d2h,93600", "1.5h,5400", "2M,120"})
  void parsesEveryDocumentedForm(String text, long seconds) {
    assertThat(Budget.parse(text).duration()).isEqualTo(Duration.ofSeconds(seconds));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", " ", "0", "0s", "0h0m", "-5m", "abc", "24x", "5", "m", "2m30", "30s2m", "2m2m", "h1"})
  void rejectsMalformedOrNonPositiveBudgetsWithOneLineMessage(String text) {
    assertThatThrownBy(() -> Budget.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n").isNotBlank());
  }

  @Test
  void unknownUnitIsNamedInTheMessage() {
    assertThatThrownBy(() -> Budget.parse("24x")).hasMessageContaining("unknown unit 'x'");
  }

  @Test
  void budgetShorterThanFivePhasesIsRejectedWithTheMinimum() {
    assertThatThrownBy(() -> Budget.parse("10s").requireRunnable()).hasMessageContaining("minimum is 30s");
    assertThat(Budget.parse("30s").requireRunnable().duration()).isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void printsCanonicalForm() {
    assertThat(Budget.parse("150s")).hasToString("2m30s");
    assertThat(Budget.parse("1d")).hasToString("1d");
  }
}
