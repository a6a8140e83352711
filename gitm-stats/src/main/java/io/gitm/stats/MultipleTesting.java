package io.gitm.stats;

import java.util.Arrays;
import java.util.stream.IntStream;

/**
 * Corrections for running many tests at once (one Granger test per pair of series, one effect estimate per condition).
 *
 * <p>Benjamini–Hochberg controls the false discovery rate, the expected share of false claims among those made, at
 * level q (for independent or positively dependent tests). With the m non-NaN p-values sorted,
 * {@code p_(1) ≤ … ≤ p_(m)}, the adjusted p-value of {@code p_(i)} is {@code min(1, min_{j ≥ i} m·p_(j)/j)}, as R's
 * {@code p.adjust(p, "BH")} computes it; a test is rejected when its adjusted p-value is at most q, which is the
 * step-up rule "reject the i smallest, i the largest with {@code p_(i) ≤ i·q/m}". NaN p-values (tests that could not
 * run) stay NaN, are never rejected and do not count in m. Cost: a sort, O(m log m).
 */
public final class MultipleTesting {
  private MultipleTesting() {}

  /**
   * Adjusted p-values and rejections, in the order of the input.
   *
   * @param q the false discovery rate the rejections are made at
   * @param tested how many p-values were not NaN (the m of the adjustment)
   */
  public record Adjusted(double[] adjusted, boolean[] rejected, double q, int tested) {
    public Adjusted {
      if (adjusted == null || rejected == null || adjusted.length != rejected.length) {
        throw new IllegalArgumentException("adjusted p-values and rejections must be given and equally long");
      }
      adjusted = adjusted.clone();
      rejected = rejected.clone();
    }

    /** A copy of the adjusted p-values. */
    @Override
    public double[] adjusted() {
      return adjusted.clone();
    }

    /** A copy of the reject mask. */
    @Override
    public boolean[] rejected() {
      return rejected.clone();
    }

    public int size() {
      return adjusted.length;
    }

    public double adjusted(int i) {
      return adjusted[i];
    }

    public boolean rejected(int i) {
      return rejected[i];
    }

    /** How many tests were rejected. */
    public int rejections() {
      int r = 0;
      for (boolean b : rejected) {
        r += b ? 1 : 0;
      }
      return r;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Adjusted a && Arrays.equals(adjusted, a.adjusted) && Arrays.equals(rejected, a.rejected)
          && Double.compare(q, a.q) == 0 && tested == a.tested;
    }

    @Override
    public int hashCode() {
      return 31 * Arrays.hashCode(adjusted) + Arrays.hashCode(rejected);
    }

    @Override
    public String toString() {
      return "Adjusted[adjusted=" + Arrays.toString(adjusted) + ", rejected=" + Arrays.toString(rejected) + ", q=" + q
          + ", tested=" + tested + "]";
    }
  }

  /**
   * Benjamini–Hochberg adjusted p-values and the reject mask at false discovery rate q.
   *
   * @param pValues p-values in [0, 1] or NaN (a test that did not run); may be empty
   * @param q the false discovery rate, in (0, 1)
   * @throws IllegalArgumentException for a null array, a p-value outside [0, 1] or q outside (0, 1)
   */
  public static Adjusted benjaminiHochberg(double[] pValues, double q) {
    if (pValues == null) {
      throw new IllegalArgumentException("Benjamini-Hochberg: the p-values are null");
    }
    if (!(q > 0 && q < 1)) {
      throw new IllegalArgumentException("Benjamini-Hochberg: q must be in (0, 1), got " + q);
    }
    for (int i = 0; i < pValues.length; i++) {
      double p = pValues[i];
      if (!Double.isNaN(p) && !(p >= 0 && p <= 1)) {
        throw new IllegalArgumentException("Benjamini-Hochberg: p-value " + i + " is " + p + ", outside [0, 1]");
      }
    }
    int n = pValues.length;
    double[] adjusted = new double[n];
    Arrays.fill(adjusted, Double.NaN);
    boolean[] rejected = new boolean[n];
    int[] order = IntStream.range(0, n).filter(i -> !Double.isNaN(pValues[i])).boxed()
        .sorted((a, b) -> Double.compare(pValues[a], pValues[b])).mapToInt(Integer::intValue).toArray();
    int m = order.length;
    double running = 1.0;
    for (int r = m - 1; r >= 0; r--) {
      int i = order[r];
      // as R: (m / rank) · p, which is never below p (m / rank >= 1 rounds to >= 1)
      running = Math.min(running, (double) m / (r + 1) * pValues[i]);
      adjusted[i] = running;
      rejected[i] = running <= q;
    }
    return new Adjusted(adjusted, rejected, q, m);
  }
}
