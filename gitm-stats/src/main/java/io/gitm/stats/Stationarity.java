package io.gitm.stats;

import io.gitm.stats.Ols.Lagged;
import org.hipparchus.distribution.continuous.NormalDistribution;
import org.jspecify.annotations.Nullable;

/**
 * Whether a series is stationary: the augmented Dickey–Fuller test with a constant,
 * {@code Δy_t = α + γ·y_{t−1} + Σ_{i=1..L} δ_i·Δy_{t−i} + ε_t}, null hypothesis γ = 0 (a unit root).
 *
 * <p>The number of lagged differences L is chosen by AIC over 0..maxLag on a common sample (the rows every candidate
 * can use), then the chosen model is fitted again on all the rows it can use, as statsmodels' {@code adfuller} does.
 * The default maxLag is Schwert's {@code ⌈12·(n/100)^¼⌉}, lowered so that the search keeps at least
 * {@value #MIN_RESIDUAL_DF} residual degrees of freedom. The statistic is the t-ratio of γ; its p-value is MacKinnon's
 * (1994) response-surface approximation and its 1/5/10% critical values are MacKinnon's (2010) finite-sample ones for
 * the regression's number of rows.
 *
 * <p>Cost: one pass over the series per fitted model to build a small Gram matrix (O(n·L)), then O(L³).
 */
public final class Stationarity {
  /** The ADF p-value below which a series counts as stationary. */
  public static final double ALPHA = 0.05;
  /** How many times {@link #makeStationary} differences a series at most. */
  public static final int MAX_DIFFERENCES = 2;
  /** Residual degrees of freedom every regression keeps at least; shorter series are not testable. */
  static final int MIN_RESIDUAL_DF = 10;

  private static final NormalDistribution NORMAL = new NormalDistribution(0, 1);

  private Stationarity() {}

  /**
   * An augmented Dickey–Fuller test's outcome.
   *
   * @param testable false when the test could not run; {@code reason} says why and the figures are NaN
   * @param reason why the test could not run; empty when it ran
   * @param statistic the t-ratio of γ (more negative: stronger evidence against a unit root)
   * @param pValue MacKinnon's approximate p-value of the statistic
   * @param lags the number of lagged differences in the fitted model
   * @param n the number of rows of the fitted regression
   * @param critical1 the 1% critical value for n rows (reject a unit root below it)
   * @param critical5 the 5% critical value
   * @param critical10 the 10% critical value
   */
  public record Adf(boolean testable, String reason, double statistic, double pValue, int lags, int n,
      double critical1, double critical5, double critical10) {
    public Adf {
      if (reason == null) {
        throw new IllegalArgumentException("an ADF result needs a reason, empty when there is none");
      }
    }

    static Adf untestable(String reason) {
      return new Adf(false, reason, Double.NaN, Double.NaN, 0, 0, Double.NaN, Double.NaN, Double.NaN);
    }

    /** Whether the test ran and rejected a unit root at {@link #ALPHA}. */
    public boolean stationary() {
      return testable && pValue < ALPHA;
    }
  }

  /** The ADF test with the default maxLag (Schwert's rule, see the class comment). */
  public static Adf adf(double[] series) {
    requireSeries(series);
    return adf(series, schwertMaxLag(series.length));
  }

  /**
   * The ADF test with the number of lagged differences chosen by AIC over 0..maxLag (lowered when the series is too
   * short for it).
   *
   * @throws IllegalArgumentException when series is null or maxLag is negative
   */
  public static Adf adf(double[] series, int maxLag) {
    requireSeries(series);
    if (maxLag < 0) {
      throw new IllegalArgumentException("maxLag must be >= 0, got " + maxLag);
    }
    return adf(series, maxLag, -1, "the series");
  }

  /** The ADF test with exactly {@code lags} lagged differences (no search). */
  static Adf adfAtLag(double[] series, int lags) {
    requireSeries(series);
    if (lags < 0) {
      throw new IllegalArgumentException("lags must be >= 0, got " + lags);
    }
    return adf(series, lags, lags, "the series");
  }

  /** Schwert's rule for the largest lag to search, {@code ⌈12·(n/100)^¼⌉}. */
  static int schwertMaxLag(int n) {
    return (int) Math.ceil(12.0 * Math.pow(n / 100.0, 0.25));
  }

  /**
   * A series made stationary: the series as tested, how many times it was differenced, the ADF test of that form, and
   * a caveat when it is still not stationary after {@link #MAX_DIFFERENCES} differences (empty otherwise). When the
   * test could not run, {@code adf().testable()} is false and {@code adf().reason()} says why.
   */
  record Prepared(double[] series, int differences, Adf adf, String caveat) {}

  /**
   * Tests {@code series}; while the test does not reject a unit root at {@link #ALPHA}, differences it and tests again,
   * at most {@link #MAX_DIFFERENCES} times.
   *
   * @param name how reasons name the series, e.g. {@code x}
   */
  static Prepared makeStationary(double[] series, String name) {
    requireSeries(series);
    double[] current = series;
    for (int d = 0; ; d++) {
      String label = switch (d) {
        case 0 -> name;
        case 1 -> name + " (differenced once)";
        default -> name + " (differenced " + d + " times)";
      };
      Adf adf = adf(current, schwertMaxLag(current.length), -1, label);
      if (!adf.testable() || adf.stationary()) {
        return new Prepared(current, d, adf, "");
      }
      if (d == MAX_DIFFERENCES) {
        return new Prepared(current, d, adf, String.format(
            "%s is still not stationary after differencing %d times (ADF p = %.3g); the F-test may over-reject",
            name, d, adf.pValue()));
      }
      current = difference(current);
    }
  }

  /** First differences: {@code out[t] = s[t + 1] − s[t]}, one shorter than s. */
  static double[] difference(double[] s) {
    double[] out = new double[Math.max(0, s.length - 1)];
    for (int t = 0; t < out.length; t++) {
      out[t] = s[t + 1] - s[t];
    }
    return out;
  }

  /**
   * MacKinnon's (1994) approximate p-value of an ADF statistic (constant, one variable): Φ of a polynomial in the
   * statistic, 0 below −18.83 and 1 above 2.74.
   */
  static double mackinnonP(double tau) {
    if (Double.isNaN(tau)) {
      throw new IllegalArgumentException("the ADF statistic is NaN");
    }
    if (tau > 2.74) {
      return 1.0;
    }
    if (tau < -18.83) {
      return 0.0;
    }
    double z = tau <= -1.61
        ? 2.1659 + tau * (1.4412 + tau * 0.038269)
        : 1.7339 + tau * (0.93202 + tau * (-0.12745 + tau * -0.010368));
    return NORMAL.cumulativeProbability(z);
  }

  private static final double[][] CRITICAL = {
      {-3.43035, -6.5393, -16.786, -79.433},
      {-2.86154, -2.8903, -4.234, -40.040},
      {-2.56677, -1.5384, -2.809, 0}};

  /** MacKinnon's (2010) critical value (constant, one variable) at level 0 = 1%, 1 = 5%, 2 = 10% for n rows. */
  static double mackinnonCritical(int level, int n) {
    double[] b = CRITICAL[level];
    double u = 1.0 / n;
    return b[0] + u * (b[1] + u * (b[2] + u * b[3]));
  }

  /** The test with lags searched over 0..maxLag (fixedLag &lt; 0) or fixed at fixedLag. */
  private static Adf adf(double[] series, int maxLag, int fixedLag, String name) {
    int n = series.length;
    String bad = Ols.nonFinite(series, name);
    if (bad != null) {
      return Adf.untestable(bad);
    }
    // rows t in [L + 1, n) and L + 2 coefficients leave n − 2L − 3 residual degrees of freedom
    int fits = (n - 3 - MIN_RESIDUAL_DF) / 2;
    if (n < 3 + MIN_RESIDUAL_DF) {
      return Adf.untestable(name + " is too short for the stationarity test: " + n + " points, it needs at least "
          + (3 + MIN_RESIDUAL_DF));
    }
    if (fixedLag > fits) {
      return Adf.untestable(name + " is too short for the stationarity test with " + fixedLag + " lags: " + n
          + " points, it needs at least " + (2 * fixedLag + 3 + MIN_RESIDUAL_DF));
    }
    double[] z = Ols.standardized(series);
    if (z == null) {
      return Adf.untestable(name + " is constant (every value is " + series[0] + ")");
    }
    double[] d = new double[n];
    for (int t = 1; t < n; t++) {
      d[t] = z[t] - z[t - 1];
    }
    double[][] data = {Ols.ones(n), z, d};
    int ones = 0;
    int level = 1;
    int diff = 2;

    int lags;
    if (fixedLag >= 0) {
      lags = fixedLag;
    } else {
      int top = Math.min(maxLag, fits);
      Lagged[] cols = new Lagged[top + 3];
      cols[0] = new Lagged(ones, 0);
      cols[1] = new Lagged(level, 1);
      for (int i = 1; i <= top; i++) {
        cols[1 + i] = new Lagged(diff, i);
      }
      cols[top + 2] = new Lagged(diff, 0);
      int rows = n - top - 1;
      Ols.Nested fit = Ols.nested(Ols.laggedGram(data, cols, top + 1, n));
      String degenerate = degenerate(fit, name);
      if (degenerate != null) {
        return Adf.untestable(degenerate);
      }
      lags = 0;
      double best = Double.POSITIVE_INFINITY;
      for (int l = 0; l <= Math.min(top, fit.rank() - 2); l++) {
        int k = l + 2;
        double rss = fit.rss(k);
        if (rss <= Ols.COLLINEAR * fit.rss(1)) {
          return Adf.untestable(name + " is deterministic: its changes are an exact linear function of its last " + l
              + " changes and level");
        }
        double aic = rows * Math.log(rss / rows) + 2.0 * k;
        if (aic < best) {
          best = aic;
          lags = l;
        }
      }
    }

    // the chosen model on all the rows it can use, the level last so that its t-ratio comes from the last pivot
    Lagged[] cols = new Lagged[lags + 3];
    cols[0] = new Lagged(ones, 0);
    for (int i = 1; i <= lags; i++) {
      cols[i] = new Lagged(diff, i);
    }
    cols[lags + 1] = new Lagged(level, 1);
    cols[lags + 2] = new Lagged(diff, 0);
    int rows = n - lags - 1;
    Ols.Nested fit = Ols.nested(Ols.laggedGram(data, cols, lags + 1, n));
    String degenerate = degenerate(fit, name);
    if (degenerate != null) {
      return Adf.untestable(degenerate);
    }
    int k = lags + 2;
    if (fit.rank() < k) {
      return Adf.untestable(name + " is deterministic: its lagged changes are collinear at " + lags + " lags");
    }
    if (fit.rss(k) <= Ols.COLLINEAR * fit.rss(1)) {
      return Adf.untestable(name + " is deterministic: its changes are an exact linear function of its last " + lags
          + " changes and level");
    }
    double tau = fit.tOfLast(k - 1, rows);
    return new Adf(true, "", tau, mackinnonP(tau), lags, rows,
        mackinnonCritical(0, rows), mackinnonCritical(1, rows), mackinnonCritical(2, rows));
  }

  /** Why a fitted ADF regression says nothing, or null when it does. */
  private static @Nullable String degenerate(Ols.Nested fit, String name) {
    if (fit.rank() < 1 || fit.rss(1) <= Ols.COLLINEAR * fit.rss(0)) {
      // no change at all in the rows used: a series that changed only before them (a step early on)
      return fit.rss(0) == 0
          ? name + " does not change over the rows the test uses (any change comes before its lagged differences)"
          : name + " is a straight line: its changes are all equal";
    }
    if (fit.rank() < 2) {
      return name + " is constant over the rows the test uses";
    }
    return null;
  }

  private static void requireSeries(double[] series) {
    if (series == null) {
      throw new IllegalArgumentException("the series is null");
    }
  }
}
