package io.gitm.stats;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;

/**
 * Ridge-stabilized logistic regression by iteratively reweighted least squares (Newton's method), for propensity
 * scores.
 *
 * <p>It maximizes {@code Σ_i [t_i·η_i − ln(1 + e^{η_i})] − (λ/2)·Σ_{j≥1} β_j²} over the rows in the given ranges, with
 * {@code η_i = β_0 + Σ_j β_j·x_j[i]}, the columns x already standardized and λ = {@value #RIDGE}: a stabilizer, not a
 * regularizer of substance, which keeps the coefficients finite when the arms are separable and is negligible beside
 * thousands of rows. Each Newton step sums {@code X'WX}, the score and the log-likelihood in one pass over the rows
 * (blocks of primitive arrays, never an n-row matrix) and solves the p-square system with Hipparchus; a step that
 * lowers the penalized likelihood is halved. It stops when a step moves no coefficient by more than
 * {@value #TOLERANCE} (that step is taken: Newton's error after it is of the order of its square).
 *
 * <p>A fit that starts close to its optimum (a cross-fitting fold's model, started from the fit on all rows) may keep
 * the Hessian of its start for every step (the chord method): its passes then need only the score and the
 * likelihood, about a third of the work, and each step still shrinks the error by a factor of the order of the
 * Hessian's relative change, which is small for such a start.
 *
 * <p>Why it is written here: Hipparchus has no generalized linear model (no logistic regression), and its optimizers
 * (hipparchus-optim, not among the project's dependencies) fit least squares or general functions through an n-row
 * Jacobian or many more passes than Newton's three to five. So the model is ours, built on Hipparchus for its linear
 * algebra: each Newton system is solved by Hipparchus' {@code CholeskyDecomposition} ({@link Ols#solveRidge}).
 */
final class Logistic {
  /** The ridge penalty on the standardized (non-intercept) coefficients. */
  static final double RIDGE = 1.0;
  /**
   * Convergence: the largest change of a coefficient (on the standardized scale) in the last step. The error left
   * after that step is about its square for Newton's method and about a thousandth of it for the chord method from a
   * cross-fitting start, far below the coefficients' standard errors.
   */
  static final double TOLERANCE = 1e-5;
  static final int MAX_ITERATIONS = 100;

  private static final double[] ONES = ones(Ols.BLOCK);

  private Logistic() {}

  private static double[] ones(int n) {
    double[] o = new double[n];
    Arrays.fill(o, 1.0);
    return o;
  }

  /** A fitted model: its coefficients, the Newton steps taken and whether they converged. */
  record Fit(double[] beta, int iterations, boolean converged) {}

  /**
   * Fits the model on the rows in {@code ranges} (each {@code {from, to}}), starting from {@code start}.
   *
   * @param startSums the sums of {@link #sums} at {@code start} over the same rows when the caller has them, else null
   * @param keepHessian whether every step uses the Hessian at {@code start} (the chord method) rather than the
   *     Hessian at the current coefficients
   * @throws IllegalStateException when the Newton system is singular
   */
  static Fit fit(double[][] x, boolean[] treated, int[][] ranges, double[] start, double @Nullable [] startSums,
      boolean keepHessian) {
    int p = x.length + 1;
    int h = p * (p + 1) / 2;
    double[] beta = start.clone();
    double[] acc = startSums != null ? startSums : sums(x, treated, ranges, beta, true);
    double[][] hessian = Ols.unpack(acc, p);
    double ll = penalized(acc, beta);
    for (int it = 1; it <= MAX_ITERATIONS; it++) {
      double[] score = new double[p];
      for (int j = 0; j < p; j++) {
        score[j] = acc[h + j] - (j > 0 ? RIDGE * beta[j] : 0);
      }
      if (!keepHessian) {
        hessian = Ols.unpack(acc, p);
      }
      double[] step = Ols.solveRidge(hessian, score, RIDGE);
      double move = 0;
      for (double s : step) {
        move = Math.max(move, Math.abs(s));
      }
      if (move < TOLERANCE) {
        // within the region of quadratic convergence: the step is exact to far below the tolerance
        for (int j = 0; j < p; j++) {
          beta[j] += step[j];
        }
        return new Fit(beta, it, true);
      }
      double[] next = new double[p];
      for (double f = 1; ; f /= 2) {
        for (int j = 0; j < p; j++) {
          next[j] = beta[j] + f * step[j];
        }
        double[] nextAcc = sums(x, treated, ranges, next, !keepHessian);
        double nextLl = penalized(nextAcc, next);
        if (nextLl >= ll - 1e-12 * Math.abs(ll) || f < 1e-6) {
          acc = nextAcc;
          ll = nextLl;
          break;
        }
      }
      System.arraycopy(next, 0, beta, 0, p);
    }
    return new Fit(beta, MAX_ITERATIONS, false);
  }

  /** The logistic function {@code 1/(1 + e^{−η})}, without overflow. */
  static double sigmoid(double eta) {
    double e = Math.exp(-Math.abs(eta));
    return eta >= 0 ? 1 / (1 + e) : e / (1 + e);
  }

  private static double penalized(double[] acc, double[] beta) {
    double pen = 0;
    for (int j = 1; j < beta.length; j++) {
      pen += beta[j] * beta[j];
    }
    return acc[acc.length - 1] - 0.5 * RIDGE * pen;
  }

  /**
   * The sums a Newton step needs at β over the rows in {@code ranges}: {@code X'WX} (packed upper triangle; zeros
   * unless {@code hessian}), the score {@code X'(t − π)} and the log-likelihood, in that order in one array of
   * {@code p(p+1)/2 + p + 1} values.
   */
  static double[] sums(double[][] x, boolean[] treated, int[][] ranges, double[] beta, boolean hessian) {
    int k = x.length;
    int p = k + 1;
    int h = p * (p + 1) / 2;
    return Rows.sum(ranges, h + p + 1, (from, to, acc) -> {
      int b = Ols.BLOCK;
      double[] eta = new double[b];
      double[] w = new double[b];
      double[] r = new double[b];
      double[][] scratch = new double[p][b];
      double ll = 0;
      for (int i0 = from; i0 < to; i0 += b) {
        int len = Math.min(b, to - i0);
        Arrays.fill(eta, 0, len, beta[0]);
        for (int j = 0; j < k; j++) {
          double bj = beta[j + 1];
          double[] c = x[j];
          for (int q = 0; q < len; q++) {
            eta[q] += bj * c[i0 + q];
          }
        }
        for (int q = 0; q < len; q++) {
          double e = eta[q];
          double z = Math.exp(-Math.abs(e));
          double prob = e >= 0 ? 1 / (1 + z) : z / (1 + z);
          boolean t = treated[i0 + q];
          w[q] = prob * (1 - prob);
          r[q] = (t ? 1 : 0) - prob;
          // t·η − ln(1 + e^η), with ln(1 + e^η) = max(η, 0) + ln(1 + e^−|η|)
          ll += (t ? e : 0) - Math.max(e, 0) - Math.log(1 + z);
        }
        if (hessian) {
          Ols.accumulateBlock(x, i0, len, w, r, scratch, acc);
        } else {
          acc[h] += Ols.dot(r, 0, ONES, 0, len);
          for (int j = 0; j < k; j++) {
            acc[h + j + 1] += Ols.dot(r, 0, x[j], i0, len);
          }
        }
      }
      acc[h + p] += ll;
    });
  }

  /**
   * Sums over row ranges cut into fixed chunks, the chunks in parallel when there are several, and their partial sums
   * added in chunk order: the result does not depend on how many threads ran.
   */
  static final class Rows {
    /** Rows per chunk. */
    static final int CHUNK = 1 << 15;

    private Rows() {}

    /** Accumulates rows {@code [from, to)} into {@code acc}. */
    interface Body {
      void accumulate(int from, int to, double[] acc);
    }

    static double[] sum(int[][] ranges, int width, Body body) {
      List<int[]> chunks = new ArrayList<>();
      for (int[] range : ranges) {
        for (int from = range[0]; from < range[1]; from += CHUNK) {
          chunks.add(new int[] {from, Math.min(range[1], from + CHUNK)});
        }
      }
      IntStream ids = IntStream.range(0, chunks.size());
      if (chunks.size() > 1) {
        ids = ids.parallel();
      }
      double[][] partial = ids.mapToObj(c -> {
        double[] acc = new double[width];
        body.accumulate(chunks.get(c)[0], chunks.get(c)[1], acc);
        return acc;
      }).toArray(double[][]::new);
      double[] total = new double[width];
      for (double[] part : partial) {
        for (int j = 0; j < width; j++) {
          total[j] += part[j];
        }
      }
      return total;
    }
  }
}
