package io.gitm.job.output;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.workload.OutputDigest;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class OutputDigestTest {
  private static final double ATOL = 1e-8;
  private static final double RTOL = 1e-5;

  private static double difference(double a, double b, double floor) {
    return new OutputDigest("x", new double[] {a}, null, floor)
        .maxRelativeDifference(new OutputDigest("y", new double[] {b}, null, floor));
  }

  @Test
  void belowTheFloorADifferenceIsAbsolute() {
    double floor = ATOL / RTOL;

    assertThat(difference(0, 1e-8, floor)).as("|a-b| = atol: within").isLessThanOrEqualTo(RTOL);
    assertThat(difference(0, 2e-8, floor)).as("|a-b| = 2 atol: beyond").isGreaterThan(RTOL);
    assertThat(difference(1e-4, 1e-4 + 9e-9, floor)).as("near zero atol rules").isLessThanOrEqualTo(RTOL);
  }

  @Test
  void aboveTheFloorADifferenceIsRelative() {
    double floor = ATOL / RTOL;

    assertThat(difference(1000, 1000.009, floor)).isLessThanOrEqualTo(RTOL);
    assertThat(difference(1000, 1000.011, floor)).isGreaterThan(RTOL);
    assertThat(difference(-1000, -1000.011, floor)).isGreaterThan(RTOL);
  }

  @Test
  void withFloorAtolOverRtolTheToleranceIsAllcloseStyle() {
    SplittableRandom random = new SplittableRandom(42);
    int checked = 0;
    for (int i = 0; i < 20_000; i++) {
      double a = Math.scalb(random.nextDouble(-1, 1), random.nextInt(-40, 20));
      double b = a + Math.scalb(random.nextDouble(-1, 1), random.nextInt(-40, 20));
      double bound = Math.max(ATOL, RTOL * Math.max(Math.abs(a), Math.abs(b)));
      if (Math.abs(Math.abs(a - b) - bound) < 1e-9 * bound) {
        continue;
      }
      checked++;
      assertThat(difference(a, b, ATOL / RTOL) <= RTOL).as("a=%s b=%s", a, b).isEqualTo(Math.abs(a - b) <= bound);
    }
    assertThat(checked).isGreaterThan(19_000);
  }

  @Test
  void theTwoArgumentDigestKeepsTheOldFloorAndFixesNothing() {
    OutputDigest d = new OutputDigest("abc", new double[] {1});

    assertThat(d.fixedSha256()).isNull();
    assertThat(d.floor()).isEqualTo(1e-12).isEqualTo(OutputDigest.DEFAULT_FLOOR);
    assertThat(difference(0, 1e-13, 1e-12)).isEqualTo(0.1, org.assertj.core.api.Assertions.within(1e-12));
  }

  @Test
  void theFloorOfTheDigestAskedIsUsed() {
    OutputDigest wide = new OutputDigest("a", new double[] {0}, null, 1);
    OutputDigest narrow = new OutputDigest("b", new double[] {0.5}, null, 1e-12);

    assertThat(wide.maxRelativeDifference(narrow)).isEqualTo(0.5);
    assertThat(narrow.maxRelativeDifference(wide)).isEqualTo(1);
  }

  @Test
  void nonFiniteValuesMatchOnlyThemselves() {
    OutputDigest nan = new OutputDigest("a", new double[] {Double.NaN, Double.POSITIVE_INFINITY});

    assertThat(nan.maxRelativeDifference(new OutputDigest("b", new double[] {Double.NaN, Double.POSITIVE_INFINITY})))
        .isZero();
    assertThat(nan.maxRelativeDifference(new OutputDigest("b", new double[] {Double.NaN, Double.NEGATIVE_INFINITY})))
        .isInfinite();
    assertThat(nan.maxRelativeDifference(new OutputDigest("b", new double[] {0, Double.POSITIVE_INFINITY})))
        .isInfinite();
    assertThat(nan.maxRelativeDifference(new OutputDigest("b", new double[] {Double.NaN}))).isInfinite();
  }

  @Test
  void equalityCoversTheFixedHashAndTheFloor() {
    double[] v = {1, 2};
    OutputDigest d = new OutputDigest("s", v, "f", 1e-3);

    assertThat(new OutputDigest("s", v, "f", 1e-3)).isEqualTo(d).hasSameHashCodeAs(d);
    assertThat(new OutputDigest("s", v, "g", 1e-3)).isNotEqualTo(d);
    assertThat(new OutputDigest("s", v, null, 1e-3)).isNotEqualTo(d);
    assertThat(new OutputDigest("s", v, "f", 1e-4)).isNotEqualTo(d);
    assertThat(new OutputDigest("s", new double[] {1, 3}, "f", 1e-3)).isNotEqualTo(d);
    assertThat(new OutputDigest("s", v)).isEqualTo(new OutputDigest("s", v, null, 1e-12));
  }

  @Test
  void theValuesAreCopiedInAndOut() {
    double[] v = {1, 2};
    OutputDigest d = new OutputDigest("s", v, null, 1);
    v[0] = 9;
    d.values()[1] = 9;

    assertThat(d.values()).containsExactly(1, 2);
  }

  @Test
  void aFloorThatIsNotAFinitePositiveNumberIsRefused() {
    for (double floor : new double[] {0, -1e-9, Double.NaN, Double.POSITIVE_INFINITY}) {
      assertThatThrownBy(() -> new OutputDigest("s", null, null, floor))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("floor").hasMessageNotContaining("\n");
    }
    assertThatThrownBy(() -> new OutputDigest(null, null)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("sha256");
  }
}
