package io.gitm.stats;

import io.gitm.stats.Logistic.Rows;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.hipparchus.distribution.continuous.NormalDistribution;
import org.jspecify.annotations.Nullable;

/**
 * The doubly robust (augmented inverse-propensity-weighted, AIPW) estimate of the average effect of a binary
 * per-kernel condition (preceded by an allocation, overlapping a copy, at a throttled clock, first launch of its
 * module …) on a per-kernel outcome (the kernel's residual), adjusting for covariates.
 *
 * <p>With e(x) the propensity {@code P(treated | x)} and μ₁(x), μ₀(x) the expected outcome of treated and control
 * rows, each row contributes
 * {@code ψ_i = μ₁(x_i) − μ₀(x_i) + t_i·(y_i − μ₁(x_i))/e(x_i) − (1 − t_i)·(y_i − μ₀(x_i))/(1 − e(x_i))}; the
 * estimate is the mean of ψ and its standard error {@code sd(ψ)/√n} (the influence function). It is consistent
 * when either the propensity model or the outcome models are right.
 *
 * <ul>
 *   <li>propensity: {@link Logistic} regression (IRLS, ridge-stabilized) on an intercept and the standardized
 *       covariates; propensities are clipped to [{@value #PROPENSITY_MIN}, {@value #PROPENSITY_MAX}];
 *   <li>outcome models: least squares on the same design, one per arm;
 *   <li>cross-fitting: rows are split into K folds at random (seeded; stratified by arm, so each fold holds its share
 *       of treated rows), and each row's ψ uses models fitted on the other K − 1 folds.
 * </ul>
 *
 * <p>Cost: the rows are copied once, standardized and grouped by (fold, arm); then about 3–5 Newton passes for the
 * propensity fit on all rows (started from a fit on a subsample of {@value #WARM_START_ROWS} rows when there are
 * many), one pass for each fold's sums at that fit, one or two score-only passes per fold for its own fit, one pass
 * for all the outcome models and one for ψ: each a dot-product kernel over blocks of primitive arrays (p ≤ 9
 * coefficients, never an n-row matrix), in parallel chunks whose sums are added in a fixed order, so the estimate
 * does not depend on the number of threads. A million rows with eight covariates take about 0.45 s of CPU once the
 * JIT has compiled the kernels.
 */
public final class Aipw {
  /** The number of cross-fitting folds the caller uses unless it has a reason not to. */
  public static final int DEFAULT_FOLDS = 5;
  /** Propensities are clipped to [PROPENSITY_MIN, PROPENSITY_MAX]. */
  public static final double PROPENSITY_MIN = 0.01;
  public static final double PROPENSITY_MAX = 0.99;
  /** Fewer rows than this are not testable. */
  public static final int MIN_ROWS = 30;
  /** The most folds accepted. */
  static final int MAX_FOLDS = 100;
  /** The outcome models' ridge, relative to their number of rows (a stabilizer against collinear covariates). */
  static final double OUTCOME_RIDGE = 1e-8;
  /** Rows of the subsample whose propensity fit starts the fit on all rows, when there are at least 8 times more. */
  static final int WARM_START_ROWS = 1 << 14;

  private static final NormalDistribution NORMAL = new NormalDistribution(0, 1);
  private static final double Z975 = NORMAL.inverseCumulativeProbability(0.975);

  private Aipw() {}

  /**
   * An average treatment effect estimate.
   *
   * @param ate the average effect of the condition on the outcome (treated minus control), in the outcome's unit
   * @param standardError its standard error, from the influence function
   * @param ciLow lower end of the 95% confidence interval {@code ate ± 1.96·se}
   * @param ciHigh upper end
   * @param pValue two-sided p-value of "no effect" (normal approximation)
   * @param n rows used
   * @param nTreated rows with the condition
   * @param testable false when the estimate could not be made; the figures are then NaN and {@code reason} says why
   * @param reason why the estimate could not be made; empty when it was
   * @param naiveDifference the unadjusted difference of the arms' mean outcomes, for comparison
   * @param clipped how many rows' propensities were clipped (many means the arms barely overlap in covariates)
   */
  public record Effect(double ate, double standardError, double ciLow, double ciHigh, double pValue, int n,
      int nTreated, boolean testable, String reason, double naiveDifference, int clipped) {
    public Effect {
      if (reason == null || (!testable && reason.isBlank())) {
        throw new IllegalArgumentException("an effect needs a reason when it is not testable (empty otherwise)");
      }
    }

    static Effect untestable(int n, int nTreated, String reason) {
      return new Effect(Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, n, nTreated, false, reason,
          Double.NaN, 0);
    }

    /** Whether the estimate was made and its p-value is below alpha. */
    public boolean significant(double alpha) {
      return testable && pValue < alpha;
    }
  }

  /**
   * Estimates the average effect of {@code treated} on {@code outcome}.
   *
   * @param covariateColumns the covariates, column-major: {@code covariateColumns[j][i]} is covariate j of row i; may
   *     have no columns; constant columns are ignored
   * @param treated whether row i has the condition
   * @param outcome row i's outcome
   * @param folds the number of cross-fitting folds, 2..100 ({@link #DEFAULT_FOLDS} is a fair choice)
   * @param seed the seed of the fold assignment; the same inputs and seed give the same estimate
   * @throws IllegalArgumentException for null arrays, columns or outcomes not as long as {@code treated}, or folds
   *     outside 2..100 (mistakes of the caller); problems with the data give an untestable effect instead
   */
  public static Effect estimate(double[][] covariateColumns, boolean[] treated, double[] outcome, int folds,
      long seed) {
    requireShapes(covariateColumns, treated, outcome, folds);
    int n = treated.length;
    int nTreated = 0;
    for (boolean t : treated) {
      nTreated += t ? 1 : 0;
    }
    String untestable = untestable(covariateColumns, outcome, n, nTreated);
    if (untestable != null) {
      return Effect.untestable(n, nTreated, untestable);
    }
    byte[] fold = assignFolds(treated, nTreated, folds, seed);
    Layout rows = Layout.of(covariateColumns, treated, outcome, fold, folds);
    int p = rows.x().length + 1;
    int smaller = Math.min(nTreated, n - nTreated);
    int fitted = smaller - (smaller + folds - 1) / folds;
    if (fitted < p + 1) {
      return Effect.untestable(n, nTreated, "only " + smaller + (smaller == nTreated ? " treated" : " control")
          + " rows: with " + folds + " folds an outcome model is fitted on " + fitted + " of them, fewer than the "
          + (p + 1) + " its " + p + " coefficients need");
    }
    Models models = new Models(new double[folds][], new double[folds][], new double[folds][]);
    try {
      fitPropensities(rows, nTreated, folds, models.propensity());
      fitOutcomes(rows, folds, models.treated(), models.control());
    } catch (IllegalStateException singular) {
      return Effect.untestable(n, nTreated, "the models could not be fitted: " + singular.getMessage());
    }
    double[] psi = new double[n];
    double[] tallies = influence(rows, models, psi);
    return effect(psi, tallies, nTreated);
  }

  /** The caller's mistakes: null arrays, columns or outcomes not as long as {@code treated}, folds out of range. */
  private static void requireShapes(double[][] covariateColumns, boolean[] treated, double[] outcome, int folds) {
    if (covariateColumns == null || treated == null || outcome == null) {
      throw new IllegalArgumentException("AIPW: covariates, treatment and outcome must not be null");
    }
    int n = treated.length;
    if (outcome.length != n) {
      throw new IllegalArgumentException("AIPW: " + outcome.length + " outcomes for " + n + " rows");
    }
    for (int j = 0; j < covariateColumns.length; j++) {
      if (covariateColumns[j] == null || covariateColumns[j].length != n) {
        throw new IllegalArgumentException("AIPW: covariate column " + j + " has "
            + (covariateColumns[j] == null ? "no values" : covariateColumns[j].length + " values") + " for " + n
            + " rows (the covariates are column-major)");
      }
    }
    if (folds < 2 || folds > MAX_FOLDS) {
      throw new IllegalArgumentException("AIPW: folds must be in 2.." + MAX_FOLDS + ", got " + folds);
    }
  }

  /** Why the data cannot give an estimate before any model is fitted; null when they may. */
  private static @Nullable String untestable(double[][] covariateColumns, double[] outcome, int n, int nTreated) {
    if (n < MIN_ROWS) {
      return "only " + n + " rows; the estimate needs at least " + MIN_ROWS;
    }
    String bad = Ols.nonFinite(outcome, "the outcome");
    for (int j = 0; bad == null && j < covariateColumns.length; j++) {
      bad = Ols.nonFinite(covariateColumns[j], "covariate " + j);
    }
    if (bad != null) {
      return bad.replace(" at index ", " at row ");
    }
    if (nTreated == 0) {
      return "no row has the condition (no treated rows)";
    }
    if (nTreated == n) {
      return "every row has the condition (no control rows)";
    }
    if (constant(outcome)) {
      return "the outcome is constant (every value is " + outcome[0] + ")";
    }
    return null;
  }

  /** Each fold's fitted coefficients: the propensity model and the two arms' outcome models, fold by fold. */
  private record Models(double[][] propensity, double[][] treated, double[][] control) {}

  /**
   * Each row's ψ (in layout order) from the models fitted without its fold, written into {@code psi}; returns the
   * tallies {clipped propensities, sum of treated outcomes, sum of control outcomes, sum of ψ}.
   */
  private static double[] influence(Layout rows, Models models, double[] psi) {
    int folds = rows.folds();
    double[][] x = rows.x();
    double[] ys = rows.y();
    boolean[] ts = rows.t();
    int[][] foldRanges = new int[folds][];
    for (int f = 0; f < folds; f++) {
      foldRanges[f] = rows.fold(f);
    }
    return Rows.sum(foldRanges, 4, (from, to, acc) -> {
      int f = rows.foldOf(from);
      double[] e = models.propensity()[f];
      double[] m1 = models.treated()[f];
      double[] m0 = models.control()[f];
      int clipped = 0;
      double sumTreated = 0;
      double sumControl = 0;
      double sumPsi = 0;
      for (int i = from; i < to; i++) {
        double eta = e[0];
        double mu1 = m1[0];
        double mu0 = m0[0];
        for (int j = 0; j < x.length; j++) {
          double v = x[j][i];
          eta += e[j + 1] * v;
          mu1 += m1[j + 1] * v;
          mu0 += m0[j + 1] * v;
        }
        double pi = Logistic.sigmoid(eta);
        if (pi < PROPENSITY_MIN || pi > PROPENSITY_MAX) {
          clipped++;
          pi = Math.min(PROPENSITY_MAX, Math.max(PROPENSITY_MIN, pi));
        }
        double y = ys[i];
        double v = ts[i] ? mu1 - mu0 + (y - mu1) / pi : mu1 - mu0 - (y - mu0) / (1 - pi);
        psi[i] = v;
        sumPsi += v;
        if (ts[i]) {
          sumTreated += y;
        } else {
          sumControl += y;
        }
      }
      acc[0] += clipped;
      acc[1] += sumTreated;
      acc[2] += sumControl;
      acc[3] += sumPsi;
    });
  }

  /** The estimate from the rows' ψ and the tallies of {@link #influence}: mean of ψ, its standard error, the test. */
  private static Effect effect(double[] psi, double[] tallies, int nTreated) {
    int n = psi.length;
    double ate = tallies[3] / n;
    double ss = Rows.sum(new int[][] {{0, n}}, 1, (from, to, acc) -> {
      double s = 0;
      for (int i = from; i < to; i++) {
        s += (psi[i] - ate) * (psi[i] - ate);
      }
      acc[0] += s;
    })[0];
    double se = Math.sqrt(ss / (n - 1) / n);
    double naive = tallies[1] / nTreated - tallies[2] / (n - nTreated);
    if (!(se > 0) || !Double.isFinite(ate)) {
      return Effect.untestable(n, nTreated, "the estimate has no spread (standard error " + se + ")");
    }
    double pValue = 2 * NORMAL.cumulativeProbability(-Math.abs(ate / se));
    return new Effect(ate, se, ate - Z975 * se, ate + Z975 * se, pValue, n, nTreated, true, "", naive,
        (int) tallies[0]);
  }

  /**
   * The rows copied once in the order of their (fold, arm) group, fold by fold and within a fold the control rows
   * first, with the non-constant covariate columns standardized by their mean and standard deviation: every pass then
   * reads contiguous ranges and never skips a row.
   *
   * @param x the standardized covariate columns (constant columns left out)
   * @param bounds group g = 2·fold + arm (arm 1 = treated) holds rows {@code [bounds[g], bounds[g + 1])}
   */
  record Layout(double[][] x, boolean[] t, double[] y, int[] bounds) {
    static Layout of(double[][] columns, boolean[] treated, double[] outcome, byte[] fold, int folds) {
      int n = treated.length;
      int[] bounds = new int[2 * folds + 1];
      for (int i = 0; i < n; i++) {
        bounds[2 * fold[i] + (treated[i] ? 1 : 0) + 1]++;
      }
      for (int g = 0; g < 2 * folds; g++) {
        bounds[g + 1] += bounds[g];
      }
      int[] cursor = Arrays.copyOf(bounds, 2 * folds);
      int[] position = new int[n];
      boolean[] t = new boolean[n];
      double[] y = new double[n];
      for (int i = 0; i < n; i++) {
        int at = cursor[2 * fold[i] + (treated[i] ? 1 : 0)]++;
        position[i] = at;
        t[at] = treated[i];
        y[at] = outcome[i];
      }
      List<double[]> x = new ArrayList<>();
      for (double[] c : columns) {
        if (constant(c)) {
          continue;
        }
        double mean = 0;
        for (double v : c) {
          mean += v;
        }
        mean /= n;
        double ss = 0;
        for (double v : c) {
          ss += (v - mean) * (v - mean);
        }
        double sd = Math.sqrt(ss / n);
        double inverse = sd > 0 ? 1 / sd : 1;
        double[] z = new double[n];
        for (int i = 0; i < n; i++) {
          z[position[i]] = (c[i] - mean) * inverse;
        }
        x.add(z);
      }
      return new Layout(x.toArray(double[][]::new), t, y, bounds);
    }

    int folds() {
      return (bounds.length - 1) / 2;
    }

    /** Fold f's rows, {@code {from, to}}. */
    int[] fold(int f) {
      return new int[] {bounds[2 * f], bounds[2 * f + 2]};
    }

    /** The rows of one arm (1 = treated) of fold f. */
    int[] group(int f, int arm) {
      return new int[] {bounds[2 * f + arm], bounds[2 * f + arm + 1]};
    }

    /** Every fold's rows but fold f's. */
    int[][] allBut(int f) {
      return new int[][] {{0, bounds[2 * f]}, {bounds[2 * f + 2], bounds[bounds.length - 1]}};
    }

    /** The fold that row i (in layout order) belongs to. */
    int foldOf(int i) {
      for (int f = 0; f < folds(); f++) {
        if (i < bounds[2 * f + 2]) {
          return f;
        }
      }
      throw new IllegalArgumentException("row " + i + " is beyond the layout");
    }
  }

  private static boolean constant(double[] c) {
    for (int i = 1; i < c.length; i++) {
      if (c[i] != c[0]) {
        return false;
      }
    }
    return true;
  }

  /**
   * Each fold's propensity model, fitted on the other folds: one fit on all rows, whose sums at its coefficients are
   * then taken per fold, so that each fold's fit starts from those coefficients with the sums of the other folds,
   * keeps that Hessian (the chord method) and needs a step or two of score-only passes.
   */
  private static void fitPropensities(Layout rows, int nTreated, int folds, double[][] propensity) {
    int n = rows.t().length;
    double[][] x = rows.x();
    double[] start = new double[x.length + 1];
    start[0] = Math.log((double) nTreated / (n - nTreated));
    if (n >= 8 * WARM_START_ROWS) {
      // Newton's first steps from zero are long: take them on an evenly spaced subsample (every fold and arm, since
      // the layout holds them in turn), so that the fit on all rows starts close and needs two or three passes
      int m = WARM_START_ROWS;
      double[][] xs = new double[x.length][m];
      boolean[] ts = new boolean[m];
      for (int r = 0; r < m; r++) {
        int i = (int) ((long) r * n / m);
        for (int j = 0; j < x.length; j++) {
          xs[j][r] = x[j][i];
        }
        ts[r] = rows.t()[i];
      }
      boolean both = false;
      for (int r = 1; r < m && !both; r++) {
        both = ts[r] != ts[0];
      }
      if (both) {
        start = Logistic.fit(xs, ts, new int[][] {{0, m}}, start, null, false).beta();
      }
    }
    double[] all = Logistic.fit(rows.x(), rows.t(), new int[][] {{0, n}}, start, null, false).beta();
    double[][] partial = new double[folds][];
    for (int f = 0; f < folds; f++) {
      partial[f] = Logistic.sums(rows.x(), rows.t(), new int[][] {rows.fold(f)}, all, true);
    }
    for (int f = 0; f < folds; f++) {
      double[] others = new double[partial[f].length];
      for (int g = 0; g < folds; g++) {
        if (g != f) {
          for (int j = 0; j < others.length; j++) {
            others[j] += partial[g][j];
          }
        }
      }
      propensity[f] = Logistic.fit(rows.x(), rows.t(), rows.allBut(f), all, others, true).beta();
    }
  }

  /**
   * Least squares of the outcome on the design, per arm and per fold's training rows: {@code X'X} and {@code X'y} are
   * summed once per (fold, arm) group; each fold's model adds the sums of the other folds and solves the p-square
   * system.
   */
  private static void fitOutcomes(Layout rows, int folds, double[][] treatedModel, double[][] controlModel) {
    double[][] x = rows.x();
    double[] y = rows.y();
    int p = x.length + 1;
    int h = p * (p + 1) / 2;
    int width = h + p;
    double[][][] group = new double[folds][2][];
    for (int f = 0; f < folds; f++) {
      for (int arm = 0; arm <= 1; arm++) {
        group[f][arm] = Rows.sum(new int[][] {rows.group(f, arm)}, width, (from, to, acc) -> {
          int b = Ols.BLOCK;
          double[] ones = new double[b];
          Arrays.fill(ones, 1.0);
          double[] r = new double[b];
          double[][] scratch = new double[p][b];
          for (int i0 = from; i0 < to; i0 += b) {
            int len = Math.min(b, to - i0);
            System.arraycopy(y, i0, r, 0, len);
            Ols.accumulateBlock(x, i0, len, ones, r, scratch, acc);
          }
        });
      }
    }
    for (int f = 0; f < folds; f++) {
      for (int arm = 0; arm <= 1; arm++) {
        double[] train = new double[width];
        for (int g = 0; g < folds; g++) {
          if (g != f) {
            for (int j = 0; j < width; j++) {
              train[j] += group[g][arm][j];
            }
          }
        }
        double[] xty = Arrays.copyOfRange(train, h, h + p);
        // train[0] is the sum of the intercept column's squares: the number of rows
        double[] b = Ols.solveRidge(Ols.unpack(train, p), xty, OUTCOME_RIDGE * train[0]);
        if (arm == 1) {
          treatedModel[f] = b;
        } else {
          controlModel[f] = b;
        }
      }
    }
  }

  /**
   * Fold of each row: within each arm, the labels 0, 1, …, K − 1, 0, 1, … shuffled (Fisher–Yates, seeded), so folds
   * differ in size by at most one row per arm.
   */
  static byte[] assignFolds(boolean[] treated, int nTreated, int folds, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    byte[] treatedLabels = shuffledLabels(nTreated, folds, random);
    byte[] controlLabels = shuffledLabels(treated.length - nTreated, folds, random);
    byte[] fold = new byte[treated.length];
    int a = 0;
    int b = 0;
    for (int i = 0; i < treated.length; i++) {
      fold[i] = treated[i] ? treatedLabels[a++] : controlLabels[b++];
    }
    return fold;
  }

  private static byte[] shuffledLabels(int count, int folds, SplittableRandom random) {
    byte[] labels = new byte[count];
    for (int i = 0; i < count; i++) {
      labels[i] = (byte) (i % folds);
    }
    for (int i = count - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      byte t = labels[i];
      labels[i] = labels[j];
      labels[j] = t;
    }
    return labels;
  }
}
