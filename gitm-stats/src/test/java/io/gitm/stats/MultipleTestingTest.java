package io.gitm.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.gitm.stats.MultipleTesting.Adjusted;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class MultipleTestingTest {
  @Test
  void matchesRsPAdjustOnAHandCheckedExample() {
    // R: p.adjust(c(0.01, 0.04, 0.03, 0.005, 0.20), method = "BH") = 0.025 0.050 0.050 0.025 0.200
    // by hand, m = 5, sorted 0.005 0.01 0.03 0.04 0.20, m·p/rank = 0.025 0.025 0.05 0.05 0.20,
    // running minimum from the largest: 0.20, 0.05, 0.05, 0.025, 0.025
    Adjusted a = MultipleTesting.benjaminiHochberg(new double[] {0.01, 0.04, 0.03, 0.005, 0.20}, 0.04);
    assertThat(a.adjusted()).containsExactly(new double[] {0.025, 0.05, 0.05, 0.025, 0.20}, within(1e-12));
    // at q = 0.04 the step-up rule rejects the two smallest (0.01 <= 2·0.04/5, 0.03 > 3·0.04/5, 0.04 > 4·0.04/5)
    assertThat(a.rejected()).containsExactly(true, false, false, true, false);
    assertThat(a.rejections()).isEqualTo(2);
    assertThat(a.tested()).isEqualTo(5);
  }

  @Test
  void aLaterSmallRatioPullsEarlierAdjustedValuesDown() {
    // R: p.adjust(c(0.01, 0.011, 0.012, 0.5), "BH") = 0.016 0.016 0.016 0.500
    // m·p/rank = 0.04 0.022 0.016 0.5: the step-up rule rejects all three at q = 0.02 although 0.04 > 0.02
    Adjusted a = MultipleTesting.benjaminiHochberg(new double[] {0.01, 0.011, 0.012, 0.5}, 0.02);
    assertThat(a.adjusted()).containsExactly(new double[] {0.016, 0.016, 0.016, 0.5}, within(1e-12));
    assertThat(a.rejected()).containsExactly(true, true, true, false);
  }

  @Test
  void nanPValuesStayNanAreNeverRejectedAndDoNotCount() {
    // R: p.adjust(c(0.01, NA, 0.04), "BH") = 0.02 NA 0.04 (m = 2)
    Adjusted a = MultipleTesting.benjaminiHochberg(new double[] {0.01, Double.NaN, 0.04}, 0.05);
    assertThat(a.adjusted(0)).isCloseTo(0.02, within(1e-12));
    assertThat(a.adjusted(1)).isNaN();
    assertThat(a.adjusted(2)).isCloseTo(0.04, within(1e-12));
    assertThat(a.rejected()).containsExactly(true, false, true);
    assertThat(a.tested()).isEqualTo(2);
  }

  @Test
  void emptyInputGivesEmptyOutput() {
    Adjusted a = MultipleTesting.benjaminiHochberg(new double[0], 0.05);
    assertThat(a.size()).isZero();
    assertThat(a.rejections()).isZero();
    Adjusted allNan = MultipleTesting.benjaminiHochberg(new double[] {Double.NaN, Double.NaN}, 0.05);
    assertThat(allNan.adjusted()).containsOnly(Double.NaN);
    assertThat(allNan.tested()).isZero();
  }

  @Test
  void agreesWithTheDefinitionOnRandomInputsWithTies() {
    SplittableRandom random = new SplittableRandom(31);
    for (int trial = 0; trial < 200; trial++) {
      int m = 1 + random.nextInt(30);
      double[] p = new double[m];
      for (int i = 0; i < m; i++) {
        // rounded to two decimals so that ties are common
        p[i] = random.nextInt(4) == 0 ? random.nextDouble() * 0.01 : Math.round(random.nextDouble() * 100) / 100.0;
      }
      double q = 0.01 + random.nextDouble() * 0.2;
      Adjusted a = MultipleTesting.benjaminiHochberg(p, q);
      // step-up rule: reject every p-value <= p_(k), k the largest rank with p_(k) <= k·q/m
      double[] sorted = p.clone();
      java.util.Arrays.sort(sorted);
      double threshold = -1;
      for (int k = 1; k <= m; k++) {
        if (sorted[k - 1] <= k * q / m) {
          threshold = sorted[k - 1];
        }
      }
      for (int i = 0; i < m; i++) {
        // adjusted p of p_i: the smallest m·p_(j)/j over sorted positions j whose p-value is at least p_i
        double expected = 1;
        for (int j = 1; j <= m; j++) {
          if (sorted[j - 1] >= p[i]) {
            expected = Math.min(expected, m * sorted[j - 1] / j);
          }
        }
        assertThat(a.adjusted(i)).isCloseTo(expected, within(1e-12));
        assertThat(a.adjusted(i)).isGreaterThanOrEqualTo(p[i]).isLessThanOrEqualTo(1);
        if (Math.abs(a.adjusted(i) - q) > 1e-12) {
          assertThat(a.rejected(i)).as("trial %d, p = %f", trial, p[i]).isEqualTo(p[i] <= threshold);
        }
      }
    }
  }

  @Test
  void controlsTheFalseDiscoveryRateOnSimulatedTests() {
    // 40 true nulls (uniform p) and 10 real effects (p ~ Beta(0.1, 1), mostly tiny), q = 0.1
    SplittableRandom random = new SplittableRandom(32);
    double q = 0.1;
    double sumFdp = 0;
    int trials = 500;
    for (int t = 0; t < trials; t++) {
      double[] p = new double[50];
      for (int i = 0; i < 50; i++) {
        p[i] = i < 40 ? random.nextDouble() : Math.pow(random.nextDouble(), 10);
      }
      Adjusted a = MultipleTesting.benjaminiHochberg(p, q);
      int rejected = a.rejections();
      int falseRejections = 0;
      for (int i = 0; i < 40; i++) {
        falseRejections += a.rejected(i) ? 1 : 0;
      }
      sumFdp += rejected == 0 ? 0 : falseRejections / (double) rejected;
    }
    // BH's bound for independent tests is q·m0/m = 0.08
    assertThat(sumFdp / trials).isBetween(0.04, 0.1);
  }

  @Test
  void theResultIsACopyTheCallerCannotChange() {
    double[] p = {0.01, 0.2};
    Adjusted a = MultipleTesting.benjaminiHochberg(p, 0.05);
    a.adjusted()[0] = 42;
    a.rejected()[0] = false;
    assertThat(a.adjusted(0)).isCloseTo(0.02, within(1e-12));
    assertThat(a.rejected(0)).isTrue();
    assertThat(a).isEqualTo(MultipleTesting.benjaminiHochberg(p, 0.05));
  }

  @Test
  void callerMistakesAreIllegalArguments() {
    assertThatThrownBy(() -> MultipleTesting.benjaminiHochberg(null, 0.05))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("null");
    assertThatThrownBy(() -> MultipleTesting.benjaminiHochberg(new double[] {0.1, 1.5}, 0.05))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("p-value 1 is 1.5");
    assertThatThrownBy(() -> MultipleTesting.benjaminiHochberg(new double[] {-0.1}, 0.05))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("outside [0, 1]");
    assertThatThrownBy(() -> MultipleTesting.benjaminiHochberg(new double[] {0.1}, 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("q must be in (0, 1)");
    assertThatThrownBy(() -> MultipleTesting.benjaminiHochberg(new double[] {0.1}, Double.NaN))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("q must be in (0, 1)");
  }
}
