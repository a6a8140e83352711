package io.gitm.search;

import io.gitm.search.Verdict.Outcome;
import io.gitm.stats.Interval;
import io.gitm.stats.Sequential;
import io.gitm.stats.Sequential.Look;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The looks of one sequential gate trial ({@link Gate.Sequence}): at each, the t-test of the pairs so far
 * ({@link Sequential#look}) against the share of alpha the look may spend, and the futility bound.
 *
 * <p>Look k, after {@code n_k} of the {@code N} planned pairs, spends {@code w_k = f(n_k / N) - f(n_{k-1} / N)} of
 * alpha, with {@code f(t) = t^rho}; the last look spends all that is left. It stops the trial:
 *
 * <ul>
 *   <li>for a gain when the two-sided p-value is below {@code alpha w_k}, the estimate is above 0 and the gain's
 *       bootstrap interval lies above 1: the candidate is {@link Outcome#KEPT}, or {@link Outcome#BELOW_MIN_GAIN}
 *       when its gain is short of the minimum;
 *   <li>for a loss when the p-value is below {@code alpha w_k}, the estimate is below 0 and the interval lies below
 *       1: {@link Outcome#SLOWER};
 *   <li>for futility, at a look after the first and before the last (the first look's few pairs would stop a loss
 *       for futility before they could show it), when the one-sided upper confidence bound of the log-gain at level
 *       {@code 1 - beta v_k} is below the log of 1 + the minimum gain ({@code v_k = n_k / N - n_{k-1} / N}): the data
 *       rule out a worthwhile gain, {@link Outcome#NOT_SIGNIFICANT}. By Boole's inequality a candidate whose true
 *       gain is at least the minimum is stopped for futility with a chance of at most {@code beta}. The futility
 *       bound does not bind: it only ever stops a trial that could not have been kept, so the error rate of a keep
 *       is bounded without it;
 *   <li>at the last look in any case: {@link Outcome#NOT_SIGNIFICANT} when neither a gain nor a loss was shown.
 * </ul>
 *
 * <p>The trial's p-value is the weighted Bonferroni p-value of its looks ({@link Sequential#adjustedP}): below alpha
 * exactly when a look crossed its boundary, and at most alpha under no difference whatever the looks' dependence.
 */
final class Interim {
  private final Gate.Options options;
  private final int planned;
  private final boolean higherIsBetter;
  private final List<Double> pValues = new ArrayList<>();
  private final List<Double> shares = new ArrayList<>();
  private double spentFraction;
  private double lastFraction;
  private Look last;
  private String why = "";

  Interim(Gate.Options options, int planned, boolean higherIsBetter) {
    this.options = options;
    this.planned = planned;
    this.higherIsBetter = higherIsBetter;
  }

  /** Whether the side-by-side trial looks after {@code pairs} pairs. */
  boolean looksAt(int pairs) {
    return pairs == planned || (pairs >= 2 && pairs % options.sequence().lookEvery() == 0);
  }

  /**
   * The look after the pairs so far ({@code anchor[i]} and {@code candidate[i]} form pair i).
   *
   * @param gain the bootstrap interval of the gain over the same pairs
   * @param minGainMet whether the gain's estimate is at least 1 + the minimum gain
   * @return the outcome the trial stops with, or null to go on; never null at the last planned pair
   */
  Outcome look(double[] anchor, double[] candidate, Interval gain, boolean minGainMet) {
    int k = anchor.length;
    boolean atEnd = k >= planned;
    double fraction = Math.min(1, (double) k / planned);
    double rho = options.sequence().spendingPower();
    double share = atEnd ? 1 - spentFraction : Sequential.spent(fraction, rho) - spentFraction;
    if (k < 2) {
      return atEnd ? Outcome.NOT_SIGNIFICANT : null;
    }
    Look l = Sequential.look(anchor, candidate, k, higherIsBetter);
    last = l;
    spentFraction += share;
    pValues.add(l.p());
    shares.add(share);
    double level = options.alpha() * share;
    int lookNo = pValues.size();
    String crossing = String.format(Locale.ROOT, "look %d at %d of %d pairs: t %.3g on %d df, p %.3g %s %.3g",
        lookNo, k, planned, l.t(), l.df(), l.p(), l.p() < level ? "<" : ">=", level);
    if (l.p() < level && l.estimate() > 0 && gain.above(1)) {
      why = crossing + ", a gain";
      return minGainMet ? Outcome.KEPT : Outcome.BELOW_MIN_GAIN;
    }
    if (l.p() < level && l.estimate() < 0 && gain.below(1)) {
      why = crossing + ", a loss";
      return Outcome.SLOWER;
    }
    double futility = options.sequence().futility() * (fraction - lastFraction);
    lastFraction = fraction;
    if (atEnd) {
      why = crossing + ", the last";
      return Outcome.NOT_SIGNIFICANT;
    }
    if (futility > 0 && lookNo > 1) {
      double bound = l.upperBound(futility);
      if (bound < Math.log1p(options.minGain())) {
        why = crossing + String.format(Locale.ROOT, "; futile: the %.3g upper bound of the gain, %.4f, is below 1"
            + " + the minimum gain", 1 - futility, Math.exp(bound));
        return Outcome.NOT_SIGNIFICANT;
      }
    }
    return null;
  }

  /** The trial's p-value so far: the weighted Bonferroni p-value of its looks (NaN before the first). */
  double adjustedP() {
    if (pValues.isEmpty()) {
      return Double.NaN;
    }
    return Sequential.adjustedP(pValues.stream().mapToDouble(Double::doubleValue).toArray(),
        shares.stream().mapToDouble(Double::doubleValue).toArray());
  }

  /** Looks taken so far. */
  int looks() {
    return pValues.size();
  }

  /** Why the last look stopped the trial (empty while none did). */
  String why() {
    return why;
  }

  /**
   * The smallest gain the planned pairs detect with 80% power at the noise the last look measured, {@code exp((z_(1
   * - alpha / 2) + z_0.8) s / sqrt(pairs))}, with {@code s} the standard deviation of one pair's log-ratio; NaN
   * before a look or when the pairs showed no noise.
   */
  double detectable(int pairs) {
    if (last == null || !(last.standardError() > 0)) {
      return Double.NaN;
    }
    double s = last.standardError() * Math.sqrt(last.pairs());
    double z = Sequential.normalQuantile(1 - options.alpha() / 2) + Sequential.normalQuantile(0.8);
    return Math.exp(z * s / Math.sqrt(pairs));
  }
}
