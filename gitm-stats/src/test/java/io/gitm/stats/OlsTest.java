package io.gitm.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.gitm.stats.Ols.Lagged;
import java.util.SplittableRandom;
import org.hipparchus.stat.regression.OLSMultipleLinearRegression;
import org.junit.jupiter.api.Test;

class OlsTest {
  @Test
  void laggedGramEqualsTheSumsItSlidesInsteadOfRecomputing() {
    SplittableRandom random = new SplittableRandom(11);
    int n = 500;
    double[][] series = {Ols.ones(n), Synthetic.ar1(n, 0.7, random), Synthetic.ar1(n, -0.3, random)};
    Lagged[] cols = {new Lagged(0, 0), new Lagged(1, 1), new Lagged(2, 1), new Lagged(1, 2), new Lagged(2, 2),
        new Lagged(1, 3), new Lagged(2, 5), new Lagged(1, 0), new Lagged(2, 0)};
    int start = 5;
    double[][] g = Ols.laggedGram(series, cols, start, n);
    for (int a = 0; a < cols.length; a++) {
      for (int b = 0; b < cols.length; b++) {
        double direct = 0;
        for (int t = start; t < n; t++) {
          direct += series[cols[a].series()][t - cols[a].lag()] * series[cols[b].series()][t - cols[b].lag()];
        }
        assertThat(g[a][b]).as("G[%d][%d]", a, b).isCloseTo(direct, within(1e-9 * (1 + Math.abs(direct))));
      }
    }
  }

  @Test
  void aColumnReachingBeforeTheSeriesStartIsRefused() {
    double[][] series = {Ols.ones(10)};
    assertThatThrownBy(() -> Ols.laggedGram(series, new Lagged[] {new Lagged(0, 3)}, 2, 10))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("outside its series");
  }

  @Test
  void nestedResidualSumsOfSquaresMatchSeparateLeastSquaresFits() {
    SplittableRandom random = new SplittableRandom(5);
    int n = 300;
    int k = 4;
    double[][] x = new double[n][k];
    double[] y = new double[n];
    for (int i = 0; i < n; i++) {
      x[i][0] = 1;
      for (int j = 1; j < k; j++) {
        x[i][j] = random.nextGaussian();
      }
      y[i] = 0.5 + 0.8 * x[i][1] - 0.4 * x[i][2] + 0.1 * x[i][3] + random.nextGaussian();
    }
    double[][] gram = new double[k + 1][k + 1];
    for (int i = 0; i < n; i++) {
      double[] row = new double[k + 1];
      System.arraycopy(x[i], 0, row, 0, k);
      row[k] = y[i];
      for (int a = 0; a <= k; a++) {
        for (int b = 0; b <= k; b++) {
          gram[a][b] += row[a] * row[b];
        }
      }
    }
    Ols.Nested fit = Ols.nested(gram);
    assertThat(fit.rank()).isEqualTo(k);
    for (int j = 2; j <= k; j++) {
      // Hipparchus adds its own intercept: pass the columns after the constant
      double[][] design = new double[n][j - 1];
      for (int i = 0; i < n; i++) {
        System.arraycopy(x[i], 1, design[i], 0, j - 1);
      }
      OLSMultipleLinearRegression ols = new OLSMultipleLinearRegression();
      ols.newSampleData(y, design);
      assertThat(fit.rss(j)).as("prefix %d", j).isCloseTo(ols.calculateResidualSumOfSquares(), within(1e-8));
      double[] beta = ols.estimateRegressionParameters();
      double[] se = ols.estimateRegressionParametersStandardErrors();
      assertThat(fit.tOfLast(j - 1, n)).isCloseTo(beta[j - 1] / se[j - 1], within(1e-8));
    }
  }

  @Test
  void aCollinearColumnEndsTheRank() {
    double[][] gram = {
        {4, 2, 4, 1},
        {2, 5, 2, 1},
        {4, 2, 4, 1},
        {1, 1, 1, 3}};
    Ols.Nested fit = Ols.nested(gram);
    assertThat(fit.rank()).isEqualTo(2);
    assertThatThrownBy(() -> fit.rss(3)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("rank");
  }

  @Test
  void ridgeSolveMatchesTheSystemItSolves() {
    double[][] a = {{10, 2, 1}, {2, 8, 3}, {1, 3, 6}};
    double[] r = {1, -2, 3};
    double ridge = 0.5;
    double[] b = Ols.solveRidge(a, r, ridge);
    for (int i = 0; i < 3; i++) {
      double s = (i > 0 ? ridge : 0) * b[i];
      for (int j = 0; j < 3; j++) {
        s += a[i][j] * b[j];
      }
      assertThat(s).isCloseTo(r[i], within(1e-12));
    }
  }

  @Test
  void aSingularSystemIsAnIllegalState() {
    double[][] a = {{1, 1}, {1, 1}};
    assertThatThrownBy(() -> Ols.solveRidge(a, new double[] {1, 1}, 0)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("singular");
  }

  @Test
  void blockKernelEqualsRowByRowWeightedNormalEquations() {
    SplittableRandom random = new SplittableRandom(12);
    int k = 3;
    int p = k + 1;
    int len = 203;
    int i0 = 17;
    double[][] x = new double[k][i0 + len];
    for (double[] c : x) {
      for (int i = 0; i < c.length; i++) {
        c[i] = random.nextGaussian();
      }
    }
    double[] w = new double[len];
    double[] r = new double[len];
    for (int q = 0; q < len; q++) {
      w[q] = random.nextDouble();
      r[q] = random.nextGaussian();
    }
    double[] acc = new double[p * (p + 1) / 2 + p];
    Ols.accumulateBlock(x, i0, len, w, r, new double[p][len], acc);
    double[] expected = new double[acc.length];
    for (int q = 0; q < len; q++) {
      double[] v = {1, x[0][i0 + q], x[1][i0 + q], x[2][i0 + q]};
      int e = 0;
      for (int a = 0; a < p; a++) {
        for (int b = a; b < p; b++) {
          expected[e++] += w[q] * v[a] * v[b];
        }
      }
      for (int a = 0; a < p; a++) {
        expected[p * (p + 1) / 2 + a] += r[q] * v[a];
      }
    }
    for (int j = 0; j < acc.length; j++) {
      assertThat(acc[j]).as("entry %d", j).isCloseTo(expected[j], within(1e-10));
    }
  }
}
