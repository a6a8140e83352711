package io.gitm.stats;

import io.gitm.stats.Ols.Lagged;
import io.gitm.stats.Stationarity.Adf;
import io.gitm.stats.Stationarity.Prepared;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.hipparchus.special.Beta;

/**
 * The Granger causality test of x → y for two equally long series (e.g. the SM clock and the kernel residual per
 * 10 ms bin): whether x's past improves the prediction of y beyond y's own past.
 *
 * <ol>
 *   <li>Each series is made stationary: an augmented Dickey–Fuller test ({@link Stationarity}); while it does not
 *       reject a unit root at 5%, the series is differenced, at most twice. The two series are then cut to the points
 *       both have.
 *   <li>The lag order p is chosen over 1..maxLag (default {@value #DEFAULT_MAX_LAG}, lowered for short series) by an
 *       information criterion, BIC by default ({@code n·ln(RSS/n) + k·ln n}; AIC, {@code n·ln(RSS/n) + 2k}, on
 *       request), on the unrestricted model {@code y_t ~ 1 + y_{t−1..t−p} + x_{t−1..t−p}}, all orders fitted on the
 *       same rows (those the largest order can use).
 *   <li>The restricted model {@code y_t ~ 1 + y_{t−1..t−p}} and the unrestricted one are fitted on all the rows lag p
 *       can use, and {@code F = ((RSS_r − RSS_u)/p) / (RSS_u/(n − 2p − 1))} is referred to F(p, n − 2p − 1).
 * </ol>
 *
 * <p>Data problems (NaN or infinite values, a constant or deterministic series, too few points) give a result with
 * {@code testable} false and a reason, never an exception. Cost: O(n·maxLag) per series for the Gram matrices (each
 * regression is reduced to a (2p + 2)-square matrix) plus O(maxLag³); about a millisecond for 10⁴ points.
 */
public final class Granger {
  /** The largest lag order searched by default (10 bins of 10 ms: 100 ms). */
  public static final int DEFAULT_MAX_LAG = 10;
  /** The information criterion used by default. */
  public static final Criterion DEFAULT_CRITERION = Criterion.BIC;

  /** The series of the regressions' data, by index: the intercept's column of ones, y, x. */
  private static final int ONES = 0;
  private static final int Y_SERIES = 1;
  private static final int X_SERIES = 2;

  private Granger() {}

  /** How the lag order is chosen: the order minimizing {@code n·ln(RSS/n)} plus the criterion's penalty. */
  public enum Criterion {
    /** Akaike: penalty 2 per coefficient; tends to keep more lags. */
    AIC,
    /** Schwarz/Bayesian: penalty ln n per coefficient; consistent for the true order, fewer lags. */
    BIC;

    double penalty(int rows) {
      return this == AIC ? 2.0 : Math.log(rows);
    }
  }

  /**
   * The outcome of a Granger test of x → y.
   *
   * @param testable false when the test could not run; then the figures are NaN (or 0) and {@code reason} says why
   * @param reason why the test could not run, or a caveat about a result that did run; empty when there is neither
   * @param lag the chosen lag order p
   * @param fStatistic the F statistic (+∞ when y is an exact function of the lags)
   * @param df1 numerator degrees of freedom (p)
   * @param df2 denominator degrees of freedom (n − 2p − 1)
   * @param pValue the upper-tail probability of F under F(df1, df2); small means x's past helps predict y
   * @param n the number of rows of the F-test's regressions
   * @param xDifferences how many times x was differenced to make it stationary (0..2)
   * @param yDifferences the same for y
   * @param criterion the criterion that chose the lag
   * @param xStationarity the ADF test of x as used (after its differences); untestable with reason "not run" when the
   *     test stopped before it
   * @param yStationarity the same for y
   */
  public record Result(boolean testable, String reason, int lag, double fStatistic, int df1, int df2, double pValue,
      int n, int xDifferences, int yDifferences, Criterion criterion, Adf xStationarity, Adf yStationarity) {
    public Result {
      if (reason == null || criterion == null || xStationarity == null || yStationarity == null) {
        throw new IllegalArgumentException(
            "a Granger result needs a reason (empty when none), a criterion and both ADF results");
      }
      if (!testable && reason.isBlank()) {
        throw new IllegalArgumentException("an untestable Granger result needs a reason");
      }
    }

    public boolean xDifferenced() {
      return xDifferences > 0;
    }

    public boolean yDifferenced() {
      return yDifferences > 0;
    }

    /** Whether the test ran and its p-value is below alpha. */
    public boolean significant(double alpha) {
      return testable && pValue < alpha;
    }
  }

  /** The test with the default maxLag and criterion. */
  public static Result test(double[] x, double[] y) {
    return test(x, y, DEFAULT_MAX_LAG, DEFAULT_CRITERION);
  }

  /**
   * Tests whether x Granger-causes y.
   *
   * @param x the candidate cause, one value per time bin
   * @param y the effect, aligned with x
   * @param maxLag the largest lag order to consider (lowered when the series are too short)
   * @param criterion how the lag order is chosen
   * @throws IllegalArgumentException for a null series, series of different lengths, maxLag &lt; 1 or a null criterion
   *     (mistakes of the caller); problems with the data give an untestable result instead
   */
  public static Result test(double[] x, double[] y, int maxLag, Criterion criterion) {
    requireArguments(x, y, maxLag, criterion);
    Adf notRun = Adf.untestable("not run");
    String bad = Ols.nonFinite(x, "x");
    if (bad == null) {
      bad = Ols.nonFinite(y, "y");
    }
    if (bad != null) {
      return untestable(bad, criterion, 0, 0, notRun, notRun);
    }
    Prepared px = Stationarity.makeStationary(x, "x");
    if (!px.adf().testable()) {
      return untestable(px.adf().reason(), criterion, px.differences(), 0, px.adf(), notRun);
    }
    Prepared py = Stationarity.makeStationary(y, "y");
    if (!py.adf().testable()) {
      return untestable(py.adf().reason(), criterion, px.differences(), py.differences(), px.adf(), py.adf());
    }
    Stationary s = new Stationary(px, py, criterion);
    int dropped = Math.max(s.dx(), s.dy());
    int len = x.length - dropped;
    double[] xs = Ols.standardized(tail(px.series(), len));
    double[] ys = Ols.standardized(tail(py.series(), len));
    if (xs == null || ys == null) {
      return s.untestable((xs == null ? "x" : "y") + " is constant over the points both series have");
    }
    int minDf = Stationarity.MIN_RESIDUAL_DF;
    // the search's rows t in [top, len) and 2·top + 1 coefficients leave len − 3·top − 1 degrees of freedom
    int top = Math.min(maxLag, (len - 1 - minDf) / 3);
    if (top < 1) {
      return s.untestable("the series are too short for a Granger test: " + len + " points"
          + (dropped > 0 ? " after differencing" : "") + ", lag 1 needs at least " + (4 + minDf));
    }
    double[][] data = {Ols.ones(len), ys, xs};
    // lag search: columns 1, y1, x1, y2, x2, …, so that order p is the prefix of 1 + 2p columns
    Lagged[] cols = new Lagged[2 * top + 2];
    cols[0] = new Lagged(ONES, 0);
    for (int i = 1; i <= top; i++) {
      cols[2 * i - 1] = new Lagged(Y_SERIES, i);
      cols[2 * i] = new Lagged(X_SERIES, i);
    }
    cols[2 * top + 1] = new Lagged(Y_SERIES, 0);
    Ols.Nested search = Ols.nested(Ols.laggedGram(data, cols, top, len));
    if (search.rank() < 3) {
      return s.untestable(search.rank() < 2
          ? "y is constant over the rows the test uses"
          : "x and y are collinear at lag 1 (x is a linear function of y)");
    }
    return fTest(data, chooseLag(search, top, len - top, criterion), len, s);
  }

  /** The caller's mistakes: a null series, series of different lengths, maxLag &lt; 1, a null criterion. */
  private static void requireArguments(double[] x, double[] y, int maxLag, Criterion criterion) {
    if (x == null || y == null) {
      throw new IllegalArgumentException("Granger test: x and y must not be null");
    }
    if (x.length != y.length) {
      throw new IllegalArgumentException("Granger test: x has " + x.length + " points and y " + y.length
          + "; they must be aligned");
    }
    if (maxLag < 1) {
      throw new IllegalArgumentException("Granger test: maxLag must be >= 1, got " + maxLag);
    }
    if (criterion == null) {
      throw new IllegalArgumentException("Granger test: the criterion must not be null");
    }
  }

  /** The two series made stationary, with what a result reports about them, and the criterion asked for. */
  private record Stationary(Prepared px, Prepared py, Criterion criterion) {
    int dx() {
      return px.differences();
    }

    int dy() {
      return py.differences();
    }

    Result untestable(String reason) {
      return Granger.untestable(reason, criterion, dx(), dy(), px.adf(), py.adf());
    }

    /** The stationarity tests' caveats, in order x, y. */
    List<String> caveats() {
      List<String> caveats = new ArrayList<>();
      if (!px.caveat().isEmpty()) {
        caveats.add(px.caveat());
      }
      if (!py.caveat().isEmpty()) {
        caveats.add(py.caveat());
      }
      return caveats;
    }
  }

  /**
   * The lag order minimizing the criterion over the nested fits of the search, {@code rows} rows each; an order whose
   * fit is exact ends the search at it.
   */
  private static int chooseLag(Ols.Nested search, int top, int rows, Criterion criterion) {
    int lag = 0;
    double best = Double.POSITIVE_INFINITY;
    for (int p = 1; 1 + 2 * p <= search.rank() && p <= top; p++) {
      int k = 1 + 2 * p;
      double rss = search.rss(k);
      if (rss <= Ols.COLLINEAR * search.rss(1)) {
        lag = p;
        break;
      }
      double ic = rows * Math.log(rss / rows) + criterion.penalty(rows) * k;
      if (ic < best) {
        best = ic;
        lag = p;
      }
    }
    return lag;
  }

  /** The F-test at the chosen order: columns 1, y1..yp, x1..xp, so that the restricted model is a prefix too. */
  private static Result fTest(double[][] data, int lag, int len, Stationary s) {
    Lagged[] f = new Lagged[2 * lag + 2];
    f[0] = new Lagged(ONES, 0);
    for (int i = 1; i <= lag; i++) {
      f[i] = new Lagged(Y_SERIES, i);
      f[lag + i] = new Lagged(X_SERIES, i);
    }
    f[2 * lag + 1] = new Lagged(Y_SERIES, 0);
    Ols.Nested fit = Ols.nested(Ols.laggedGram(data, f, lag, len));
    if (fit.rank() < 1 + 2 * lag) {
      return s.untestable("the lags of x and y are collinear at lag " + lag + " over the rows the test uses");
    }
    List<String> caveats = s.caveats();
    int nobs = len - lag;
    int df1 = lag;
    int df2 = nobs - 1 - 2 * lag;
    double rssR = fit.rss(1 + lag);
    double rssU = fit.rss(1 + 2 * lag);
    double scale = fit.rss(1);
    double fStat;
    double pValue;
    if (rssU <= Ols.COLLINEAR * scale) {
      if (rssR <= Ols.COLLINEAR * scale) {
        return s.untestable("y is an exact linear function of its own past");
      }
      caveats.add("y is an exact linear function of the lags of x and y: F is infinite");
      fStat = Double.POSITIVE_INFINITY;
      pValue = 0.0;
    } else {
      fStat = Math.max(0, rssR - rssU) / df1 / (rssU / df2);
      pValue = fTail(fStat, df1, df2);
    }
    return new Result(true, String.join("; ", caveats), lag, fStat, df1, df2, pValue, nobs, s.dx(), s.dy(),
        s.criterion(), s.px().adf(), s.py().adf());
  }

  /**
   * The upper tail {@code P(F(df1, df2) > f)}, computed as the regularized incomplete beta function
   * {@code I_{df2/(df2 + df1·f)}(df2/2, df1/2)} so that small p-values keep their precision (Hipparchus'
   * {@code FDistribution} gives the same value as {@code 1 − cdf}, which rounds to 0 below about 1e-16).
   */
  static double fTail(double f, int df1, int df2) {
    if (f <= 0) {
      return 1.0;
    }
    return Beta.regularizedBeta(df2 / (df2 + df1 * f), df2 / 2.0, df1 / 2.0);
  }

  private static double[] tail(double[] s, int len) {
    return Arrays.copyOfRange(s, s.length - len, s.length);
  }

  private static Result untestable(String reason, Criterion criterion, int dx, int dy, Adf xAdf, Adf yAdf) {
    return new Result(false, reason, 0, Double.NaN, 0, 0, Double.NaN, 0, dx, dy, criterion, xAdf, yAdf);
  }
}
