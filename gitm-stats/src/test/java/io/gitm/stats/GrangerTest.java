package io.gitm.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.gitm.stats.Granger.Criterion;
import io.gitm.stats.Granger.Result;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.hipparchus.distribution.continuous.FDistribution;
import org.hipparchus.stat.regression.OLSMultipleLinearRegression;
import org.junit.jupiter.api.Test;

class GrangerTest {
  @Test
  void findsThatLaggedXDrivesY() {
    SplittableRandom random = new SplittableRandom(21);
    double[] x = Synthetic.ar1(2000, 0.5, random);
    double[] y = Synthetic.drivenBy(x, 1, 0.4, 0.3, random);
    Result r = Granger.test(x, y);
    assertThat(r.testable()).as(r.reason()).isTrue();
    assertThat(r.reason()).isEmpty();
    assertThat(r.pValue()).isLessThan(1e-6);
    assertThat(r.significant(0.05)).isTrue();
    assertThat(r.lag()).isBetween(1, Granger.DEFAULT_MAX_LAG);
    assertThat(r.df1()).isEqualTo(r.lag());
    assertThat(r.df2()).isEqualTo(r.n() - 2 * r.lag() - 1);
    assertThat(r.n()).isEqualTo(2000 - r.lag());
    assertThat(r.xDifferenced()).isFalse();
    assertThat(r.yDifferenced()).isFalse();
    assertThat(r.criterion()).isEqualTo(Criterion.BIC);
  }

  @Test
  void doesNotFindTheReverseDirection() {
    SplittableRandom random = new SplittableRandom(21);
    double[] x = Synthetic.ar1(2000, 0.5, random);
    double[] y = Synthetic.drivenBy(x, 1, 0.4, 0.3, random);
    Result r = Granger.test(y, x);
    assertThat(r.testable()).isTrue();
    assertThat(r.pValue()).isGreaterThan(0.01);
  }

  @Test
  void bicFindsTheTrueDelayAndAicAtLeastAsLongAnOrder() {
    SplittableRandom random = new SplittableRandom(22);
    double[] x = Synthetic.ar1(3000, 0, random);
    double[] y = Synthetic.drivenBy(x, 3, 0, 0.8, random);
    assertThat(Granger.test(x, y, 8, Criterion.BIC).lag()).isEqualTo(3);
    Result aic = Granger.test(x, y, 8, Criterion.AIC);
    assertThat(aic.lag()).isGreaterThanOrEqualTo(3);
    assertThat(aic.criterion()).isEqualTo(Criterion.AIC);
  }

  @Test
  void aRandomWalkIsDifferencedAndTheDriveThroughItsChangesIsFound() {
    SplittableRandom random = new SplittableRandom(23);
    double[] steps = Synthetic.ar1(1500, 0, random);
    double[] x = Synthetic.integrate(steps);
    double[] y = Synthetic.drivenBy(steps, 2, 0.3, 0.5, random);
    Result r = Granger.test(x, y);
    assertThat(r.testable()).as(r.reason()).isTrue();
    assertThat(r.xDifferences()).isEqualTo(1);
    assertThat(r.xDifferenced()).isTrue();
    assertThat(r.yDifferences()).isZero();
    assertThat(r.xStationarity().stationary()).isTrue();
    assertThat(r.pValue()).isLessThan(1e-6);
    assertThat(r.n()).isEqualTo(1500 - 1 - r.lag());
  }

  @Test
  void aSeriesIntegratedTwiceIsDifferencedTwice() {
    SplittableRandom random = new SplittableRandom(24);
    double[] x = Synthetic.integrate(Synthetic.integrate(Synthetic.ar1(1000, 0, random)));
    double[] y = Synthetic.ar1(1000, 0.3, random);
    Result r = Granger.test(x, y);
    assertThat(r.testable()).isTrue();
    assertThat(r.xDifferences()).isEqualTo(2);
    assertThat(r.yDifferences()).isZero();
  }

  @Test
  void rejectsIndependentNoiseAtAboutTheNominalRate() {
    int trials = 200;
    int rejected = 0;
    for (int seed = 0; seed < trials; seed++) {
      SplittableRandom random = new SplittableRandom(5000 + seed);
      double[] x = Synthetic.ar1(400, 0.5, random);
      double[] y = Synthetic.ar1(400, 0.3, random);
      Result r = Granger.test(x, y);
      assertThat(r.testable()).isTrue();
      rejected += r.significant(0.05) ? 1 : 0;
    }
    assertThat(rejected / (double) trials).isBetween(0.02, 0.09);
  }

  @Test
  void fStatisticIsTheOneOfSeparateRestrictedAndUnrestrictedFits() {
    SplittableRandom random = new SplittableRandom(25);
    double[] x = Synthetic.ar1(300, 0.4, random);
    double[] y = Synthetic.drivenBy(x, 2, 0.5, 0.2, random);
    Result r = Granger.test(x, y, 6, Criterion.AIC);
    int p = r.lag();
    int rows = x.length - p;
    double[] target = new double[rows];
    double[][] restricted = new double[rows][p];
    double[][] unrestricted = new double[rows][2 * p];
    for (int row = 0; row < rows; row++) {
      int t = row + p;
      target[row] = y[t];
      for (int i = 1; i <= p; i++) {
        restricted[row][i - 1] = y[t - i];
        unrestricted[row][i - 1] = y[t - i];
        unrestricted[row][p + i - 1] = x[t - i];
      }
    }
    OLSMultipleLinearRegression r0 = new OLSMultipleLinearRegression();
    r0.newSampleData(target, restricted);
    OLSMultipleLinearRegression r1 = new OLSMultipleLinearRegression();
    r1.newSampleData(target, unrestricted);
    double rssR = r0.calculateResidualSumOfSquares();
    double rssU = r1.calculateResidualSumOfSquares();
    int df2 = rows - 2 * p - 1;
    double f = (rssR - rssU) / p / (rssU / df2);
    assertThat(r.n()).isEqualTo(rows);
    assertThat(r.df2()).isEqualTo(df2);
    assertThat(r.fStatistic()).isCloseTo(f, within(1e-8 * f));
    assertThat(r.pValue()).isCloseTo(1 - new FDistribution(p, df2).cumulativeProbability(f), within(1e-10));
  }

  @Test
  void upperTailKeepsItsPrecisionWhereOneMinusTheCdfRoundsToZero() {
    FDistribution f = new FDistribution(3, 500);
    for (double value : new double[] {0.2, 1, 2.6, 5}) {
      assertThat(Granger.fTail(value, 3, 500)).isCloseTo(1 - f.cumulativeProbability(value), within(1e-12));
    }
    assertThat(1 - f.cumulativeProbability(60)).isZero();
    assertThat(Granger.fTail(60, 3, 500)).isPositive().isLessThan(1e-20);
    assertThat(Granger.fTail(0, 3, 500)).isEqualTo(1.0);
  }

  @Test
  void anExactFunctionOfLaggedXHasAnInfiniteFAndSaysSo() {
    double[] x = Synthetic.ar1(500, 0.2, new SplittableRandom(26));
    double[] y = new double[x.length];
    for (int t = 1; t < x.length; t++) {
      y[t] = 2 * x[t - 1] + 1;
    }
    Result r = Granger.test(x, y);
    assertThat(r.testable()).isTrue();
    assertThat(r.fStatistic()).isInfinite();
    assertThat(r.pValue()).isZero();
    assertThat(r.reason()).contains("exact linear function");
  }

  @Test
  void dataProblemsAreUntestableWithAReasonAndNoPValue() {
    SplittableRandom random = new SplittableRandom(27);
    double[] ok = Synthetic.ar1(300, 0.3, random);
    double[] nan = ok.clone();
    nan[5] = Double.NaN;
    assertUntestable(Granger.test(nan, ok), "x has a NaN at index 5");
    double[] inf = ok.clone();
    inf[299] = Double.POSITIVE_INFINITY;
    assertUntestable(Granger.test(ok, inf), "y has an infinite value at index 299");
    double[] constant = new double[300];
    Arrays.fill(constant, 1980.0);
    assertUntestable(Granger.test(constant, ok), "x is constant");
    assertUntestable(Granger.test(ok, constant), "y is constant");
    assertUntestable(Granger.test(Arrays.copyOf(ok, 10), Arrays.copyOf(ok, 10)), "too short");
    double[] line = new double[300];
    for (int t = 0; t < line.length; t++) {
      line[t] = 0.25 * t;
    }
    assertUntestable(Granger.test(line, ok), "x is a straight line");
    assertUntestable(Granger.test(ok, ok.clone()), "collinear");
  }

  @Test
  void seriesLongEnoughForTheStationarityTestButNotForOneLagAreUntestable() {
    double[] x = Synthetic.ar1(13, 0, new SplittableRandom(28));
    double[] y = Synthetic.ar1(13, 0, new SplittableRandom(29));
    Result r = Granger.test(x, y);
    assertThat(r.testable()).isFalse();
    assertThat(r.reason()).satisfiesAnyOf(s -> assertThat(s).contains("too short"),
        s -> assertThat(s).contains("not stationary"));
  }

  @Test
  void callerMistakesAreIllegalArguments() {
    double[] a = new double[50];
    assertThatThrownBy(() -> Granger.test(null, a)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("null");
    assertThatThrownBy(() -> Granger.test(a, new double[49])).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("50 points and y 49");
    assertThatThrownBy(() -> Granger.test(a, a, 0, Criterion.BIC)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxLag");
    assertThatThrownBy(() -> Granger.test(a, a, 3, null)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("criterion");
  }

  private static void assertUntestable(Result r, String reason) {
    assertThat(r.testable()).isFalse();
    assertThat(r.reason()).contains(reason);
    assertThat(r.pValue()).isNaN();
    assertThat(r.significant(0.05)).isFalse();
  }
}
