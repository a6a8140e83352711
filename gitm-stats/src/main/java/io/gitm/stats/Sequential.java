package io.gitm.stats;

import org.hipparchus.distribution.continuous.NormalDistribution;
import org.hipparchus.distribution.continuous.TDistribution;

/**
 * A group-sequential comparison of two paired samples, looked at after every few pairs, on the logarithm of the
 * ratio of each pair (candidate over anchor, oriented so that above 0 is better).
 *
 * <ul>
 *   <li>{@link #look}: the test at one look. With 3 or more pairs it is the paired t-test of the log-ratios ({@code
 *       n - 1} degrees of freedom). With 2 pairs the paired test has a single degree of freedom, too few to decide
 *       anything; the look is then the pooled two-sample t-test of the logarithms ({@code 2n - 2} degrees of
 *       freedom), whose variance also holds what the pairing would have taken out, so it is conservative where
 *       block i of both arms shares a cause of variation;
 *   <li>{@link #spent}: the power-family spending function {@code t^rho}, the share of the error rate spent by
 *       information fraction {@code t} (pairs so far over pairs planned); each look may spend the increment of the
 *       function since the previous look;
 *   <li>{@link #adjustedP}: the weighted Bonferroni p-value of a sequence of looks, {@code min_k p_k / w_k} with
 *       {@code w_k} the share of look k. A level-{@code alpha} test rejects at the first look whose {@code p_k} is
 *       below {@code alpha w_k}, which is when this p-value falls below {@code alpha}; by Boole's inequality its
 *       chance of a rejection under no difference is at most {@code alpha} whatever the dependence between the
 *       looks.
 * </ul>
 */
public final class Sequential {
  private Sequential() {}

  /**
   * One look's t-test.
   *
   * @param pairs pairs so far
   * @param estimate mean log-ratio (above 0: the candidate is better)
   * @param standardError its standard error (0 when every pair measured alike)
   * @param df the degrees of freedom of the t statistic
   * @param p the two-sided p-value of "no difference"
   */
  public record Look(int pairs, double estimate, double standardError, int df, double p) {
    /** The t statistic; infinite (with the estimate's sign) when the standard error is 0. */
    public double t() {
      if (standardError == 0) {
        return estimate == 0 ? 0 : Math.copySign(Double.POSITIVE_INFINITY, estimate);
      }
      return estimate / standardError;
    }

    /** The one-sided upper confidence bound of the mean log-ratio at confidence {@code 1 - level}. */
    public double upperBound(double level) {
      return estimate + quantile(1 - level, df) * standardError;
    }
  }

  /**
   * The test of the first {@code pairs} pairs of {@code anchor} and {@code candidate} (positive values).
   *
   * @param higherIsBetter whether a larger value is better (else the ratios are inverted)
   */
  public static Look look(double[] anchor, double[] candidate, int pairs, boolean higherIsBetter) {
    if (pairs < 2 || pairs > anchor.length || pairs > candidate.length) {
      throw new IllegalArgumentException("a look needs 2 or more pairs, within both samples; got " + pairs
          + " of " + anchor.length + " and " + candidate.length);
    }
    double sign = higherIsBetter ? 1 : -1;
    double[] la = new double[pairs];
    double[] lc = new double[pairs];
    double[] d = new double[pairs];
    for (int i = 0; i < pairs; i++) {
      if (!(anchor[i] > 0) || !(candidate[i] > 0)) {
        throw new IllegalArgumentException("a look needs positive values, got " + anchor[i] + " and "
            + candidate[i] + " in pair " + (i + 1));
      }
      la[i] = Math.log(anchor[i]);
      lc[i] = Math.log(candidate[i]);
      d[i] = sign * (lc[i] - la[i]);
    }
    double estimate = Sample.mean(d);
    double se;
    int df;
    if (pairs == 2) {
      double pooled = (Sample.variance(la) + Sample.variance(lc)) / 2;
      se = Math.sqrt(pooled * 2 / pairs);
      df = 2 * pairs - 2;
    } else {
      se = Math.sqrt(Sample.variance(d) / pairs);
      df = pairs - 1;
    }
    double t = se == 0 ? (estimate == 0 ? 0 : Double.POSITIVE_INFINITY) : Math.abs(estimate) / se;
    double p = Double.isInfinite(t) ? 0 : Math.min(1, 2 * (1 - new TDistribution(df).cumulativeProbability(t)));
    return new Look(pairs, estimate, se, df, p);
  }

  /** The share of the error rate spent by information fraction {@code fraction} (in [0, 1]): its power {@code rho}. */
  public static double spent(double fraction, double rho) {
    if (!(fraction >= 0 && fraction <= 1) || !(rho > 0) || Double.isInfinite(rho)) {
      throw new IllegalArgumentException("spending needs a fraction in [0, 1] and a power > 0, got " + fraction
          + " and " + rho);
    }
    return Math.pow(fraction, rho);
  }

  /**
   * The weighted Bonferroni p-value of looks with p-values {@code p} and shares {@code shares} (positive, summing to
   * at most 1), capped at 1.
   */
  public static double adjustedP(double[] p, double[] shares) {
    if (p.length != shares.length || p.length == 0) {
      throw new IllegalArgumentException("an adjusted p needs one share per look, got " + p.length + " p-values and "
          + shares.length + " shares");
    }
    double min = 1;
    for (int k = 0; k < p.length; k++) {
      if (!(shares[k] > 0)) {
        throw new IllegalArgumentException("look " + (k + 1) + " has a share of " + shares[k]);
      }
      min = Math.min(min, p[k] / shares[k]);
    }
    return min;
  }

  /** The {@code probability} quantile of Student's t distribution with {@code df} degrees of freedom. */
  public static double quantile(double probability, int df) {
    return new TDistribution(df).inverseCumulativeProbability(probability);
  }

  /** The standard normal {@code probability} quantile. */
  public static double normalQuantile(double probability) {
    return new NormalDistribution().inverseCumulativeProbability(probability);
  }
}
