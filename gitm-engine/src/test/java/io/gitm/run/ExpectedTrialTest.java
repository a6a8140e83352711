package io.gitm.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.search.Gate;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ExpectedTrialTest {
  static Profiler.Baseline baseline(int iterations, double wallSeconds) {
    return new Profiler.Baseline("af2", "residues/s", iterations, 384, 81.6, null, 4700, 0, 0, "on", null,
        wallSeconds);
  }

  @Test
  void aGateIsExpectedToTakeItsBlocksOfIterationsAtTheBaselinesWallTimePerIteration() {
    // 8 pairs and 1 warm-up block per arm: 18 blocks of 4 iterations at 4.7 s (af2 at its defaults on the H200)
    Duration d = Tuning.expectedTrial(baseline(2, 9.4), Gate.Options.defaults(), 4);
    assertThat(d.toMillis()).isEqualTo(18 * 4 * 4700);
  }

  @Test
  void aBaselineWithoutWallTimeExpectsNothing() {
    assertThat(Tuning.expectedTrial(baseline(0, 0), Gate.Options.defaults(), 4)).isEqualTo(Duration.ZERO);
    assertThat(Tuning.expectedTrial(baseline(3, Double.NaN), Gate.Options.defaults(), 4)).isEqualTo(Duration.ZERO);
  }
}
