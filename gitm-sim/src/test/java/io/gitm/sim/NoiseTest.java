package io.gitm.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class NoiseTest {

  @Test
  void splitMixDrawsWhatSplittableRandomDraws() {
    for (long seed : new long[] {0, 1, -7, 20261130L, Long.MAX_VALUE}) {
      SplittableRandom ref = new SplittableRandom(seed);
      Noise.SplitMix mine = new Noise.SplitMix(seed);
      for (int i = 0; i < 20_000; i++) {
        switch (i % 4) {
          case 0 -> assertThat(mine.nextLong()).isEqualTo(ref.nextLong());
          case 1 -> assertThat(mine.nextInt()).isEqualTo(ref.nextInt());
          case 2 -> assertThat(mine.nextGaussian()).isEqualTo(ref.nextGaussian());
          default -> assertThat(mine.nextDouble()).isEqualTo(ref.nextDouble());
        }
      }
    }
  }

  @Test
  void factorsAreTheLognormalsOfTheSeedsGeneratorAndTheStateContinuesIt() {
    double jitter = 0.05;
    Noise n = Noise.of(99, jitter);
    SplittableRandom ref = new SplittableRandom(99);
    for (int i = 0; i < Noise.TABLE; i++) {
      assertThat(n.factors[2 * i]).isEqualTo(Math.exp(jitter * ref.nextGaussian() - jitter * jitter / 2));
    }
    double host = 2.5 * jitter;
    for (int i = 0; i < Noise.TABLE; i++) {
      assertThat(n.factors[2 * i + 1]).isEqualTo(Math.exp(host * ref.nextGaussian() - host * host / 2));
    }
    Noise.SplitMix after = new Noise.SplitMix(n.state);
    for (int i = 0; i < 1000; i++) {
      assertThat(after.nextInt()).isEqualTo(ref.nextInt());
    }
  }

  @Test
  void aSeedOpenedAgainReusesItsFactorsAndNoJitterHasNone() {
    assertThat(Noise.of(5, 0.02)).isSameAs(Noise.of(5, 0.02)).isNotSameAs(Noise.of(6, 0.02))
        .isNotSameAs(Noise.of(5, 0.03));
    assertThat(Noise.of(5, 0)).isNull();
  }
}
