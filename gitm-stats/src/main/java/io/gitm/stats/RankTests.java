package io.gitm.stats;

import org.hipparchus.stat.inference.MannWhitneyUTest;
import org.hipparchus.stat.inference.WilcoxonSignedRankTest;

/**
 * Two-sided rank tests of whether two samples differ, with no assumption on their distribution (Hipparchus' tests,
 * ties ranked by their average rank).
 *
 * <ul>
 *   <li>{@link #signedRankP}, the Wilcoxon signed-rank test, for paired samples (value i of both measured under the
 *       same conditions): its statistic is the larger of the rank sums of the positive and of the negative
 *       differences. Its p-value is exact for up to {@value #EXACT_PAIRS} pairs (every assignment of signs to the
 *       ranks counted) and from the normal approximation with a continuity correction beyond;
 *   <li>{@link #mannWhitneyP}, the Mann–Whitney U test, for independent samples: exact when the two hold at most 50
 *       values together and no ties, else the normal approximation with a continuity and a tie correction.
 * </ul>
 */
public final class RankTests {
  /** The most pairs whose signed-rank p-value is exact. */
  static final int EXACT_PAIRS = 30;

  private RankTests() {}

  /**
   * The two-sided p-value of the Wilcoxon signed-rank test of the pairs {@code (a[i], b[i])}; 1 when every pair is
   * tied. The exact two-sided p doubles a one-sided tail and can pass 1 when the statistic sits at the centre: it is
   * capped at 1.
   */
  public static double signedRankP(double[] a, double[] b) {
    if (a.length != b.length) {
      throw new IllegalArgumentException("a signed-rank test needs pairs, got " + a.length + " and " + b.length
          + " values");
    }
    boolean differs = false;
    for (int i = 0; i < a.length; i++) {
      differs |= a[i] != b[i];
    }
    if (!differs) {
      return 1;
    }
    return Math.min(1, new WilcoxonSignedRankTest().wilcoxonSignedRankTest(a, b, a.length <= EXACT_PAIRS));
  }

  /** The two-sided p-value of the Mann–Whitney U test of {@code a} against {@code b}. */
  public static double mannWhitneyP(double[] a, double[] b) {
    return new MannWhitneyUTest().mannWhitneyUTest(a, b);
  }
}
