package io.gitm.stats;

import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import org.hipparchus.exception.MathIllegalArgumentException;
import org.hipparchus.linear.ArrayRealVector;
import org.hipparchus.linear.CholeskyDecomposition;
import org.hipparchus.linear.MatrixUtils;
import org.hipparchus.linear.RealMatrix;
import org.jspecify.annotations.Nullable;

/**
 * Least squares on small normal-equation systems: the data are reduced to a Gram matrix (k × k, k the number of
 * regressors plus one) in one pass, and everything else works on that matrix.
 *
 * <p>For time-series regressions whose columns are lags of a few series, {@link #laggedGram} builds the Gram matrix in
 * O(n·k) instead of O(n·k²) by sliding sums along its diagonals. {@link #nested} then factors the Gram matrix of
 * {@code [X | y]} once and gives the residual sum of squares of y on every prefix of X's columns, which is all a lag
 * search, an F-test between nested models or a t-test of the last column needs.
 *
 * <p>Why not Hipparchus' {@code OLSMultipleLinearRegression} (hipparchus-stat), which the tests use as the reference
 * these results must equal ({@code OlsTest}, {@code GrangerTest}, {@code StationarityTest}): it factors the n × k
 * design matrix by QR, one model at a time. The AIPW outcome models are fitted on up to a million kernels per
 * cross-fitting fold and arm (an n × 9 matrix is 72 MB, ten fits per estimate, in the analysis' 1 GiB heap), where
 * their Gram matrices, summed once per (fold, arm) group, serve every fold; and a Granger lag search needs the
 * residual sums of squares of every nested model, which one factorization of the Gram matrix gives where QR would
 * refit each. Hipparchus does the linear algebra that is not a pass over the rows: the p-square solves
 * ({@link #solveRidge}, its {@code CholeskyDecomposition}). {@link #nested} keeps its own Cholesky loop because it must
 * stop at the first collinear column and report the rank, where Hipparchus' decomposition throws on the whole matrix.
 */
final class Ols {
  /**
   * A regressor column's share of its variance not explained by the columns before it, below which it counts as
   * collinear with them (the data are standardized, so this is 1 − R² of that column on the earlier ones).
   */
  static final double COLLINEAR = 1e-9;

  private Ols() {}

  /** A column of a lagged design: its value at row t is {@code series[t - lag]}. */
  record Lagged(int series, int lag) {
    Lagged {
      if (series < 0 || lag < 0) {
        throw new IllegalArgumentException("a lagged column needs a series index and a lag >= 0, got " + series + ", "
            + lag);
      }
    }
  }

  /**
   * The Gram matrix {@code G[a][b] = Σ_{t=start}^{end-1} s_a[t - l_a] · s_b[t - l_b]} of lagged columns over rows
   * {@code [start, end)}. Entries that differ by one in both lags share a window but for one row at each end, so each
   * diagonal of each pair of series is summed in full once and then slid.
   */
  static double[][] laggedGram(double[][] series, Lagged[] cols, int start, int end) {
    int k = cols.length;
    if (end <= start) {
      throw new IllegalArgumentException("empty row range [" + start + ", " + end + ")");
    }
    for (Lagged c : cols) {
      if (c.series() >= series.length || start - c.lag() < 0 || end - c.lag() > series[c.series()].length) {
        throw new IllegalArgumentException("column " + c + " reaches outside its series for rows [" + start + ", "
            + end + ")");
      }
    }
    record Entry(int a, int b, int s1, int l1, int s2, int l2) {
      int min() {
        return Math.min(l1, l2);
      }
    }
    Entry[] entries = new Entry[k * (k + 1) / 2];
    int e = 0;
    for (int a = 0; a < k; a++) {
      for (int b = a; b < k; b++) {
        Lagged ca = cols[a];
        Lagged cb = cols[b];
        boolean swap = ca.series() > cb.series() || (ca.series() == cb.series() && ca.lag() < cb.lag());
        entries[e++] = swap
            ? new Entry(a, b, cb.series(), cb.lag(), ca.series(), ca.lag())
            : new Entry(a, b, ca.series(), ca.lag(), cb.series(), cb.lag());
      }
    }
    Arrays.sort(entries, Comparator.comparingInt(Entry::min));
    // per diagonal (series pair, lag difference): the smaller lag reached so far and the sum there
    record Diagonal(int s1, int s2, int lagDifference) {}
    Map<Diagonal, double[]> diagonals = new HashMap<>();
    double[][] g = new double[k][k];
    for (Entry en : entries) {
      double[] u = series[en.s1()];
      double[] v = series[en.s2()];
      Diagonal key = new Diagonal(en.s1(), en.s2(), en.l1() - en.l2());
      double[] at = diagonals.get(key);
      if (at == null) {
        int l1 = en.l1() - en.min();
        int l2 = en.l2() - en.min();
        double s = 0;
        for (int t = start; t < end; t++) {
          s += u[t - l1] * v[t - l2];
        }
        at = new double[] {0, s};
        diagonals.put(key, at);
      }
      int m = (int) at[0];
      double s = at[1];
      for (; m < en.min(); m++) {
        // from lags (l1, l2) = base + m to base + m + 1: the window moves one row back
        int l1 = en.l1() - en.min() + m;
        int l2 = en.l2() - en.min() + m;
        s += u[start - 1 - l1] * v[start - 1 - l2] - u[end - 1 - l1] * v[end - 1 - l2];
      }
      at[0] = m;
      at[1] = s;
      g[en.a()][en.b()] = s;
      g[en.b()][en.a()] = s;
    }
    return g;
  }

  /**
   * Least squares of the last column (y) on every prefix of the others, from the Cholesky factor L of the Gram matrix
   * of {@code [X | y]}: the residual sum of squares of y on the first j columns is {@code y'y − Σ_{m<j} L[y][m]²}.
   *
   * @param rank how many leading columns of X are linearly independent; the factorization stops at the first column
   *     that is collinear with those before it, so only prefixes up to {@code rank} have a residual sum of squares
   * @param rss {@code rss[j]} for j = 0..rank
   * @param yRow L's last row, the components of y along each orthogonalized column
   */
  record Nested(int columns, int rank, double[] rss, double[] yRow) {
    /** The residual sum of squares of y on the first j columns of X. */
    double rss(int j) {
      if (j < 0 || j > rank) {
        throw new IllegalArgumentException("prefix " + j + " beyond the design's rank " + rank);
      }
      return rss[j];
    }

    /**
     * The t-statistic of column j's coefficient in the regression on the first j + 1 columns (the column is the last
     * one of that model): its coefficient over its standard error, with {@code nobs} rows.
     */
    double tOfLast(int j, int nobs) {
      double s2 = rss(j + 1) / (nobs - (j + 1));
      return yRow[j] / Math.sqrt(s2);
    }
  }

  /** Factors the Gram matrix of {@code [X | y]} (y the last row and column); see {@link Nested}. */
  static Nested nested(double[][] gram) {
    int kk = gram.length;
    int k = kk - 1;
    int y = k;
    double[][] l = new double[kk][kk];
    double[] rss = new double[kk];
    rss[0] = gram[y][y];
    int rank = 0;
    for (int j = 0; j < k; j++) {
      double d = gram[j][j];
      for (int m = 0; m < j; m++) {
        d -= l[j][m] * l[j][m];
      }
      if (!(gram[j][j] > 0) || d <= COLLINEAR * gram[j][j]) {
        break;
      }
      double ljj = Math.sqrt(d);
      l[j][j] = ljj;
      for (int i = j + 1; i < kk; i++) {
        double s = gram[i][j];
        for (int m = 0; m < j; m++) {
          s -= l[i][m] * l[j][m];
        }
        l[i][j] = s / ljj;
      }
      rss[j + 1] = Math.max(0, rss[j] - l[y][j] * l[y][j]);
      rank = j + 1;
    }
    return new Nested(k, rank, Arrays.copyOf(rss, rank + 1), Arrays.copyOf(l[y], k));
  }

  /**
   * Solves {@code (A + ridge·D) b = r} for a small symmetric positive (semi)definite A, where D is the identity but for
   * a zero in row 0 (the intercept is not shrunk), by Hipparchus' Cholesky decomposition.
   *
   * @throws IllegalStateException when the system is singular even with the ridge
   */
  static double[] solveRidge(double[][] a, double[] r, double ridge) {
    int p = a.length;
    double[][] m = new double[p][];
    for (int i = 0; i < p; i++) {
      m[i] = a[i].clone();
      if (i > 0) {
        m[i][i] += ridge;
      }
    }
    RealMatrix matrix = MatrixUtils.createRealMatrix(m);
    try {
      return new CholeskyDecomposition(matrix, 1e-9, 0).getSolver().solve(new ArrayRealVector(r, false)).toArray();
    } catch (MathIllegalArgumentException singular) {
      throw new IllegalStateException("the normal equations are singular: " + singular.getMessage(), singular);
    }
  }

  /** Expands a packed upper triangle (row by row, {@code p(p+1)/2} values) into a full symmetric matrix. */
  static double[][] unpack(double[] packed, int p) {
    double[][] m = new double[p][p];
    int e = 0;
    for (int i = 0; i < p; i++) {
      for (int j = i; j < p; j++) {
        m[i][j] = packed[e];
        m[j][i] = packed[e];
        e++;
      }
    }
    return m;
  }

  /**
   * Where a series first holds a value that is not finite, as a reason ({@code "x has a NaN at index 17"}), or null
   * when every value is finite.
   */
  static @Nullable String nonFinite(double[] s, String name) {
    for (int i = 0; i < s.length; i++) {
      if (!Double.isFinite(s[i])) {
        return name + " has " + (Double.isNaN(s[i]) ? "a NaN" : "an infinite value") + " at index " + i;
      }
    }
    return null;
  }

  /** The series centered on its mean and divided by its standard deviation, or null when it is constant. */
  static double @Nullable [] standardized(double[] s) {
    int n = s.length;
    boolean constant = true;
    for (int i = 1; i < n && constant; i++) {
      constant = s[i] == s[0];
    }
    if (constant) {
      return null;
    }
    double mean = 0;
    for (double v : s) {
      mean += v;
    }
    mean /= n;
    double ss = 0;
    for (double v : s) {
      ss += (v - mean) * (v - mean);
    }
    double sd = Math.sqrt(ss / n);
    if (!(sd > 0) || !Double.isFinite(sd)) {
      return null;
    }
    double[] z = new double[n];
    for (int i = 0; i < n; i++) {
      z[i] = (s[i] - mean) / sd;
    }
    return z;
  }

  /** A column of n ones (the constant of a lagged design). */
  static double[] ones(int n) {
    double[] o = new double[n];
    Arrays.fill(o, 1.0);
    return o;
  }

  /** Rows per block of {@link #accumulateBlock}: its scratch (p rows of this length) stays in the L1 cache. */
  static final int BLOCK = 256;

  /**
   * Adds one block of rows {@code [i0, i0 + len)} to weighted normal equations: {@code Σ w·x·x'} (packed upper
   * triangle, row by row) at {@code acc[0..h)} and {@code Σ r·x} at {@code acc[h..h + p)}, where x is a row of the
   * design {@code (1, columns[0][i], …, columns[k−1][i])}, h = p(p + 1)/2 and p = k + 1. Each entry is a dot product
   * over the block with four partial sums, so the loop is not held up by one chain of additions.
   *
   * @param w the rows' weights, {@code w[0..len)}
   * @param r the rows' responses, {@code r[0..len)}
   * @param scratch p arrays of at least len values
   */
  static void accumulateBlock(double[][] columns, int i0, int len, double[] w, double[] r, double[][] scratch,
      double[] acc) {
    int k = columns.length;
    int p = k + 1;
    int h = p * (p + 1) / 2;
    // scratch[a] = w·x_a
    System.arraycopy(w, 0, scratch[0], 0, len);
    for (int j = 0; j < k; j++) {
      double[] c = columns[j];
      double[] s = scratch[j + 1];
      for (int q = 0; q < len; q++) {
        s[q] = w[q] * c[i0 + q];
      }
    }
    int e = 0;
    for (int a = 0; a < p; a++) {
      double[] wa = scratch[a];
      if (a == 0) {
        acc[e++] += sum(wa, len);
      }
      for (int b = Math.max(a, 1); b < p; b++) {
        acc[e++] += dot(wa, 0, columns[b - 1], i0, len);
      }
    }
    acc[h] += sum(r, len);
    for (int j = 0; j < k; j++) {
      acc[h + j + 1] += dot(r, 0, columns[j], i0, len);
    }
  }

  /** {@code Σ_{q<len} a[ao + q]·b[bo + q]}, with four partial sums. */
  static double dot(double[] a, int ao, double[] b, int bo, int len) {
    double s0 = 0;
    double s1 = 0;
    double s2 = 0;
    double s3 = 0;
    int q = 0;
    for (; q + 3 < len; q += 4) {
      s0 += a[ao + q] * b[bo + q];
      s1 += a[ao + q + 1] * b[bo + q + 1];
      s2 += a[ao + q + 2] * b[bo + q + 2];
      s3 += a[ao + q + 3] * b[bo + q + 3];
    }
    for (; q < len; q++) {
      s0 += a[ao + q] * b[bo + q];
    }
    return (s0 + s1) + (s2 + s3);
  }

  private static double sum(double[] a, int len) {
    double s0 = 0;
    double s1 = 0;
    double s2 = 0;
    double s3 = 0;
    int q = 0;
    for (; q + 3 < len; q += 4) {
      s0 += a[q];
      s1 += a[q + 1];
      s2 += a[q + 2];
      s3 += a[q + 3];
    }
    for (; q < len; q++) {
      s0 += a[q];
    }
    return (s0 + s1) + (s2 + s3);
  }
}
