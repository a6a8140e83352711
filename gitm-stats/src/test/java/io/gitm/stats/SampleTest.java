package io.gitm.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class SampleTest {
  @Test
  void theMedianOfAnOddCountIsTheMiddleValue() {
    assertThat(Sample.median(new double[] {3, 1, 2})).isEqualTo(2);
    assertThat(Sample.median(new double[] {7})).isEqualTo(7);
  }

  @Test
  void theMedianOfAnEvenCountIsTheMeanOfTheTwoMiddleValues() {
    // sorted 1 2 3 4: (2 + 3) / 2
    assertThat(Sample.median(new double[] {4, 1, 3, 2})).isEqualTo(2.5);
    // (0.1 + 0.7) / 2 in double arithmetic, not 0.1 + 0.5 · (0.7 − 0.1)
    assertThat(Sample.median(new double[] {0.7, 0.1})).isEqualTo((0.1 + 0.7) / 2);
  }

  @Test
  void theUpperMedianOfAnEvenCountIsTheUpperMiddleValue() {
    assertThat(Sample.upperMedian(new double[] {4, 1, 3, 2})).isEqualTo(3);
    assertThat(Sample.upperMedian(new double[] {5, 1, 3})).isEqualTo(3);
    assertThat(Sample.upperMedian(new double[] {9})).isEqualTo(9);
  }

  @Test
  void anEmptySampleHasNoMedianMeanOrSpread() {
    assertThat(Sample.median(new double[0])).isNaN();
    assertThat(Sample.upperMedian(new double[0])).isNaN();
    assertThat(Sample.mean(new double[0])).isNaN();
    assertThat(Sample.sd(new double[0])).isNaN();
  }

  @Test
  void noMethodChangesItsInput() {
    double[] v = {4, 1, 3, 2};
    Sample.median(v);
    Sample.upperMedian(v);
    Sample.sd(v);
    assertThat(v).containsExactly(4, 1, 3, 2);
  }

  @Test
  void quantilesInterpolateLinearlyAsRsDefaultDoes() {
    // R: quantile(c(1, 2, 3, 4), c(0, 0.25, 0.5, 0.9, 1)) = 1.00 1.75 2.50 3.70 4.00 (type 7)
    double[] sorted = {1, 2, 3, 4};
    assertThat(Sample.quantile(sorted, 0)).isEqualTo(1);
    assertThat(Sample.quantile(sorted, 0.25)).isEqualTo(1.75);
    assertThat(Sample.quantile(sorted, 0.5)).isEqualTo(2.5);
    assertThat(Sample.quantile(sorted, 0.9)).isCloseTo(3.7, within(1e-12));
    assertThat(Sample.quantile(sorted, 1)).isEqualTo(4);
    assertThat(Sample.quantile(new double[] {5}, 0.3)).isEqualTo(5);
  }

  @Test
  void nearestRankTakesTheValueOfRankCeilingQTimesN() {
    // n = 5: q 0.5 → rank ⌈2.5⌉ = 3, q 0.4 → rank 2, q 0.99 → rank ⌈4.95⌉ = 5, q 0 → rank 0, clamped to 1
    double[] sorted = {10, 20, 30, 40, 50};
    assertThat(Sample.nearestRank(sorted, 0.5)).isEqualTo(30);
    assertThat(Sample.nearestRank(sorted, 0.4)).isEqualTo(20);
    assertThat(Sample.nearestRank(sorted, 0.99)).isEqualTo(50);
    assertThat(Sample.nearestRank(sorted, 0)).isEqualTo(10);
    // an even count: the lower of the two middle values
    assertThat(Sample.nearestRank(new double[] {1, 2, 3, 4}, 0.5)).isEqualTo(2);
  }

  @Test
  void meanAndSampleStandardDeviationOfATextbookSample() {
    // 2 4 4 4 5 5 7 9: mean 5, squared deviations 9 1 1 1 0 0 4 16 = 32, sample variance 32/7
    double[] v = {2, 4, 4, 4, 5, 5, 7, 9};
    assertThat(Sample.mean(v)).isEqualTo(5);
    assertThat(Sample.sd(v)).isCloseTo(2.1380899352993950, within(1e-15));
  }

  @Test
  void aSingleValueHasNoSpread() {
    assertThat(Sample.mean(new double[] {3.5})).isEqualTo(3.5);
    assertThat(Sample.sd(new double[] {3.5})).isZero();
  }
}
