package io.gitm.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.gitm.stats.Stationarity.Adf;
import java.util.SplittableRandom;
import org.hipparchus.stat.regression.OLSMultipleLinearRegression;
import org.junit.jupiter.api.Test;

class StationarityTest {
  @Test
  void whiteNoiseRejectsAUnitRoot() {
    Adf adf = Stationarity.adf(Synthetic.ar1(500, 0, new SplittableRandom(1)));
    assertThat(adf.testable()).isTrue();
    assertThat(adf.pValue()).isLessThan(0.01);
    assertThat(adf.statistic()).isLessThan(adf.critical1());
    assertThat(adf.stationary()).isTrue();
  }

  @Test
  void aRandomWalkKeepsItsUnitRoot() {
    Adf adf = Stationarity.adf(Synthetic.integrate(Synthetic.ar1(500, 0, new SplittableRandom(2))));
    assertThat(adf.testable()).isTrue();
    assertThat(adf.pValue()).isGreaterThan(Stationarity.ALPHA);
    assertThat(adf.stationary()).isFalse();
  }

  @Test
  void statisticIsTheTRatioOfTheLaggedLevelInTheDickeyFullerRegression() {
    double[] y = Synthetic.integrate(Synthetic.ar1(400, 0.5, new SplittableRandom(3)));
    int lags = 2;
    Adf adf = Stationarity.adfAtLag(y, lags);
    // Δy_t on y_{t−1}, Δy_{t−1}, Δy_{t−2} (and Hipparchus' intercept), rows t = 3..n−1
    int rows = y.length - lags - 1;
    double[] dy = new double[rows];
    double[][] x = new double[rows][3];
    for (int r = 0; r < rows; r++) {
      int t = r + lags + 1;
      dy[r] = y[t] - y[t - 1];
      x[r][0] = y[t - 1];
      x[r][1] = y[t - 1] - y[t - 2];
      x[r][2] = y[t - 2] - y[t - 3];
    }
    OLSMultipleLinearRegression ols = new OLSMultipleLinearRegression();
    ols.newSampleData(dy, x);
    double t = ols.estimateRegressionParameters()[1] / ols.estimateRegressionParametersStandardErrors()[1];
    assertThat(adf.n()).isEqualTo(rows);
    assertThat(adf.lags()).isEqualTo(lags);
    assertThat(adf.statistic()).isCloseTo(t, within(1e-8));
  }

  @Test
  void mackinnonPValueAtMackinnonCriticalValuesIsTheirLevel() {
    int large = 1_000_000;
    assertThat(Stationarity.mackinnonP(Stationarity.mackinnonCritical(0, large))).isCloseTo(0.01, within(0.001));
    assertThat(Stationarity.mackinnonP(Stationarity.mackinnonCritical(1, large))).isCloseTo(0.05, within(0.002));
    assertThat(Stationarity.mackinnonP(Stationarity.mackinnonCritical(2, large))).isCloseTo(0.10, within(0.003));
  }

  @Test
  void mackinnonPValueIsMonotoneAndNearlyContinuousWhereItsTwoPolynomialsMeet() {
    double previous = 0;
    for (double tau = -20; tau <= 3; tau += 0.01) {
      double p = Stationarity.mackinnonP(tau);
      assertThat(p).as("p(%f)", tau).isBetween(previous - 0.002, 1.0);
      previous = p;
    }
    assertThat(Stationarity.mackinnonP(-1.61 - 1e-9)).isCloseTo(Stationarity.mackinnonP(-1.61 + 1e-9), within(0.002));
    assertThat(Stationarity.mackinnonP(-19)).isZero();
    assertThat(Stationarity.mackinnonP(3)).isEqualTo(1.0);
  }

  @Test
  void rejectsAUnitRootInAboutFivePercentOfRandomWalks() {
    int trials = 200;
    int rejected = 0;
    for (int seed = 0; seed < trials; seed++) {
      Adf adf = Stationarity.adf(Synthetic.integrate(Synthetic.ar1(300, 0.3, new SplittableRandom(1000 + seed))));
      assertThat(adf.testable()).isTrue();
      rejected += adf.stationary() ? 1 : 0;
    }
    assertThat(rejected / (double) trials).isBetween(0.02, 0.09);
  }

  @Test
  void aicKeepsTheLagsAnAutoregressiveDifferenceNeeds() {
    // Δy is AR(2) with large coefficients: dropping its lags leaves autocorrelated errors
    SplittableRandom random = new SplittableRandom(4);
    double[] d = new double[1000];
    for (int t = 2; t < d.length; t++) {
      d[t] = 0.6 * d[t - 1] - 0.4 * d[t - 2] + random.nextGaussian();
    }
    Adf adf = Stationarity.adf(Synthetic.integrate(d));
    assertThat(adf.lags()).isGreaterThanOrEqualTo(2);
    assertThat(adf.stationary()).isFalse();
  }

  @Test
  void differencingStopsAtTheFirstStationaryForm() {
    double[] noise = Synthetic.ar1(600, 0.2, new SplittableRandom(6));
    assertThat(Stationarity.makeStationary(noise, "x").differences()).isZero();
    Stationarity.Prepared once = Stationarity.makeStationary(Synthetic.integrate(noise), "x");
    assertThat(once.differences()).isEqualTo(1);
    assertThat(once.series()).hasSize(599);
    assertThat(once.adf().stationary()).isTrue();
    assertThat(once.caveat()).isEmpty();
    assertThat(Stationarity.makeStationary(Synthetic.integrate(Synthetic.integrate(noise)), "x").differences())
        .isEqualTo(2);
  }

  @Test
  void dataProblemsAreUntestableWithAReason() {
    double[] nan = Synthetic.ar1(100, 0.1, new SplittableRandom(7));
    nan[40] = Double.NaN;
    assertUntestable(Stationarity.adf(nan), "has a NaN at index 40");
    double[] inf = Synthetic.ar1(100, 0.1, new SplittableRandom(7));
    inf[3] = Double.NEGATIVE_INFINITY;
    assertUntestable(Stationarity.adf(inf), "has an infinite value at index 3");
    double[] constant = new double[100];
    java.util.Arrays.fill(constant, 0.1);
    assertUntestable(Stationarity.adf(constant), "is constant");
    assertUntestable(Stationarity.adf(new double[] {1, 2, 1, 3, 2}), "too short");
    double[] line = new double[100];
    for (int t = 0; t < line.length; t++) {
      line[t] = 3 + 0.5 * t;
    }
    assertUntestable(Stationarity.adf(line), "straight line");
    // a step in the first points: the regression's rows, after its lagged differences, hold no change
    double[] step = new double[200];
    java.util.Arrays.fill(step, 2, 200, 1.0);
    assertUntestable(Stationarity.adf(step), "does not change over the rows the test uses");
    double[] periodic = new double[200];
    for (int t = 0; t < periodic.length; t++) {
      periodic[t] = Math.sin(2 * Math.PI * t / 8);
    }
    assertUntestable(Stationarity.adf(periodic), "deterministic");
  }

  @Test
  void callerMistakesAreIllegalArguments() {
    assertThatThrownBy(() -> Stationarity.adf(null)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("null");
    assertThatThrownBy(() -> Stationarity.adf(new double[50], -1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxLag");
  }

  private static void assertUntestable(Adf adf, String reason) {
    assertThat(adf.testable()).isFalse();
    assertThat(adf.reason()).contains(reason);
    assertThat(adf.pValue()).isNaN();
    assertThat(adf.stationary()).isFalse();
  }
}
