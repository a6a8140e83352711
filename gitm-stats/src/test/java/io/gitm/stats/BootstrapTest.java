package io.gitm.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.stats.Bootstrap.PairedStatistic;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class BootstrapTest {
  private static final PairedStatistic MEAN_DIFFERENCE = (a, b) -> {
    double s = 0;
    for (int i = 0; i < a.length; i++) {
      s += b[i] - a[i];
    }
    return s / a.length;
  };

  @Test
  void pairsAreResampledTogether() {
    // b is a doubled pair by pair: every resample's ratio of medians is exactly 2, whatever pairs it draws
    double[] a = {1, 5, 2, 8, 3, 9, 4};
    double[] b = Arrays.stream(a).map(x -> 2 * x).toArray();
    Interval i = Bootstrap.paired(a, b, (x, y) -> Sample.median(y) / Sample.median(x), 500, 0.95, 7, "×");
    assertThat(i.estimate()).isEqualTo(2);
    assertThat(i.low()).isEqualTo(2);
    assertThat(i.high()).isEqualTo(2);
    assertThat(i.confidence()).isEqualTo(0.95);
    assertThat(i.unit()).isEqualTo("×");
  }

  @Test
  void twoPairsGiveTheirOwnDifferencesAsTheNinetyPercentInterval() {
    // two pairs with differences 1 and 3: a resample draws both indices (1/4 each way round) or one twice, so the
    // resampled mean differences are 1 (1/4), 2 (1/2), 3 (1/4); the 5% and 95% quantiles fall in the outer quarters
    Interval i = Bootstrap.paired(new double[] {0, 0}, new double[] {1, 3}, MEAN_DIFFERENCE, 2000, 0.90, 11, "ms");
    assertThat(i.estimate()).isEqualTo(2);
    assertThat(i.low()).isEqualTo(1);
    assertThat(i.high()).isEqualTo(3);
  }

  @Test
  void resamplesDrawPairIndicesInOrderFromTheSeedMixedWithTheSamples() {
    SplittableRandom data = new SplittableRandom(3);
    double[] a = data.doubles(9, 1, 2).toArray();
    double[] b = data.doubles(9, 1, 2).toArray();
    long seed = 0x5eed;
    int resamples = 200;
    // the procedure as documented, written out: n draws per resample, the percentile interval of the sorted stats
    SplittableRandom random = new SplittableRandom(seed ^ (31L * Arrays.hashCode(a) + Arrays.hashCode(b)));
    double[] stats = new double[resamples];
    for (int r = 0; r < resamples; r++) {
      double s = 0;
      for (int k = 0; k < a.length; k++) {
        int j = random.nextInt(a.length);
        s += b[j] - a[j];
      }
      stats[r] = s / a.length;
    }
    Arrays.sort(stats);
    // (1 − 0.8)/2 = 0.1: position 0.1 · 199 = 19.9; 0.9: position 179.1
    double low = stats[19] + (0.1 * 199 - 19) * (stats[20] - stats[19]);
    double high = stats[179] + (0.9 * 199 - 179) * (stats[180] - stats[179]);

    Interval i = Bootstrap.paired(a, b, MEAN_DIFFERENCE, resamples, 0.8, seed, "s");
    assertThat(i.low()).isEqualTo(low);
    assertThat(i.high()).isEqualTo(high);
    assertThat(Bootstrap.paired(a, b, MEAN_DIFFERENCE, resamples, 0.8, seed, "s")).isEqualTo(i);
    assertThat(Bootstrap.paired(a, b, MEAN_DIFFERENCE, resamples, 0.8, seed + 1, "s")).isNotEqualTo(i);
  }

  @Test
  void theIntervalOfAShiftCoversTheShift() {
    SplittableRandom random = new SplittableRandom(5);
    double[] a = random.doubles(40, 10, 11).toArray();
    double[] b = Arrays.stream(a).map(x -> x + 0.5 + 0.05 * random.nextGaussian()).toArray();
    Interval i = Bootstrap.paired(a, b, MEAN_DIFFERENCE, 2000, 0.95, 1, "ms");
    assertThat(i.contains(0.5)).as("%s", i).isTrue();
    assertThat(i.above(0.45)).isTrue();
    assertThat(i.below(0.55)).isTrue();
  }

  @Test
  void samplesMustBePairedAndTheSettingsSound() {
    assertThatThrownBy(() -> Bootstrap.paired(new double[] {1, 2}, new double[] {1}, MEAN_DIFFERENCE, 10, 0.9, 1, ""))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Bootstrap.paired(new double[0], new double[0], MEAN_DIFFERENCE, 10, 0.9, 1, ""))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Bootstrap.paired(new double[] {1}, new double[] {1}, MEAN_DIFFERENCE, 0, 0.9, 1, ""))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Bootstrap.paired(new double[] {1}, new double[] {1}, MEAN_DIFFERENCE, 10, 1, 1, ""))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
