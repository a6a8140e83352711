package io.gitm.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.SplittableRandom;
import org.hipparchus.distribution.continuous.NormalDistribution;
import org.junit.jupiter.api.Test;

class RankTestsTest {
  private static final NormalDistribution NORMAL = new NormalDistribution(0, 1);

  private static double[] zeros(int n) {
    return new double[n];
  }

  @Test
  void fivePairsAllBetterGiveTheSmallestExactSignedRankP() {
    // W+ = 1 + 2 + 3 + 4 + 5 = 15, reached by 1 of the 2^5 sign assignments: two-sided p = 2 · 1/32
    assertThat(RankTests.signedRankP(zeros(5), new double[] {1, 2, 3, 4, 5})).isCloseTo(0.0625, within(1e-15));
    // eight pairs: 2 / 256
    assertThat(RankTests.signedRankP(zeros(8), new double[] {1, 2, 3, 4, 5, 6, 7, 8}))
        .isCloseTo(0.0078125, within(1e-15));
  }

  @Test
  void exactSignedRankPCountsTheSignAssignmentsAsExtreme() {
    // differences 1 −2 3 4 5: W− = 2, W+ = 13; rank subsets summing to at most 2: {}, {1}, {2}: p = 2 · 3/32
    assertThat(RankTests.signedRankP(zeros(5), new double[] {1, -2, 3, 4, 5})).isCloseTo(0.1875, within(1e-15));
    // differences 1 −2 3 −4 5: W− = 6, W+ = 9; 13 of the 32 subsets sum to at most 6: p = 2 · 13/32
    assertThat(RankTests.signedRankP(zeros(5), new double[] {1, -2, 3, -4, 5})).isCloseTo(0.8125, within(1e-15));
  }

  @Test
  void exactSignedRankPMatchesAnEnumerationOfEverySignAssignment() {
    SplittableRandom random = new SplittableRandom(17);
    int n = 12;
    double[] a = random.doubles(n, 0, 1).toArray();
    double[] b = new double[n];
    for (int i = 0; i < n; i++) {
      b[i] = a[i] + (i + 1) * 0.01 * (random.nextInt(3) == 0 ? -1 : 1);
    }
    // |b − a| = 0.01·(i + 1): rank i + 1; the statistic is the larger of W+ and W−
    int observed = 0;
    int total = n * (n + 1) / 2;
    for (int i = 0; i < n; i++) {
      observed += b[i] > a[i] ? i + 1 : 0;
    }
    int wMax = Math.max(observed, total - observed);
    int atLeast = 0;
    for (int signs = 0; signs < 1 << n; signs++) {
      int w = 0;
      for (int i = 0; i < n; i++) {
        w += (signs >> i & 1) == 1 ? i + 1 : 0;
      }
      atLeast += w >= wMax ? 1 : 0;
    }
    double expected = Math.min(1, 2.0 * atLeast / (1 << n));
    assertThat(RankTests.signedRankP(a, b)).isCloseTo(expected, within(1e-15));
  }

  @Test
  void aSignedRankStatisticAtTheCentreGivesOne() {
    // differences 1 −2 −3 4: W+ = W− = 5; 9 of 16 subsets sum to at least 5, and 2 · 9/16 > 1
    assertThat(RankTests.signedRankP(zeros(4), new double[] {1, -2, -3, 4})).isEqualTo(1);
  }

  @Test
  void pairsThatAreAllTiedGiveOne() {
    assertThat(RankTests.signedRankP(new double[] {1, 2, 3}, new double[] {1, 2, 3})).isEqualTo(1);
  }

  @Test
  void beyondThirtyPairsTheSignedRankPIsTheNormalApproximationWithContinuityCorrection() {
    // differences ±1..±40, the 12 smallest negative: W− = 78, W+ = 742; z = (742 − 410 − 0.5) / √(40·41·81/24)
    int n = 40;
    double[] b = new double[n];
    for (int i = 0; i < n; i++) {
      b[i] = (i < 12 ? -1 : 1) * (i + 1);
    }
    double z = (742 - n * (n + 1) / 4.0 - 0.5) / Math.sqrt(n * (n + 1) * (2 * n + 1) / 24.0);
    assertThat(RankTests.signedRankP(zeros(n), b)).isCloseTo(2 * NORMAL.cumulativeProbability(-z), within(1e-15));
  }

  @Test
  void signedRankNeedsPairs() {
    assertThatThrownBy(() -> RankTests.signedRankP(new double[2], new double[3]))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void mannWhitneyIsExactForSmallSamplesWithoutTies() {
    // 1 2 3 against 4 5 6: U = 0, 1 of the C(6, 3) = 20 orderings is as extreme each way: p = 2/20
    assertThat(RankTests.mannWhitneyP(new double[] {1, 2, 3}, new double[] {4, 5, 6})).isCloseTo(0.1, within(1e-15));
    // 4 against 4, fully separated: 2 / C(8, 4) = 2/70
    assertThat(RankTests.mannWhitneyP(new double[] {1, 2, 3, 4}, new double[] {5, 6, 7, 8}))
        .isCloseTo(2.0 / 70, within(1e-15));
    // 1 3 5 against 2 4 6: U = 3; 7 of the 20 orderings have U <= 3: p = 2 · 7/20
    assertThat(RankTests.mannWhitneyP(new double[] {1, 3, 5}, new double[] {2, 4, 6})).isCloseTo(0.7, within(1e-12));
  }

  @Test
  void mannWhitneyOfLargeSamplesIsTheNormalApproximationWithContinuityCorrection() {
    // 0 2 … 58 against 7 9 … 65: U = 351 of 900; mean 450, variance 30·30·61/12
    double[] a = new double[30];
    double[] b = new double[30];
    for (int i = 0; i < 30; i++) {
      a[i] = 2 * i;
      b[i] = 2 * i + 7;
    }
    double z = (450 - 351 - 0.5) / Math.sqrt(30 * 30 * 61 / 12.0);
    assertThat(RankTests.mannWhitneyP(a, b)).isCloseTo(2 * NORMAL.cumulativeProbability(-z), within(1e-12));
  }
}
