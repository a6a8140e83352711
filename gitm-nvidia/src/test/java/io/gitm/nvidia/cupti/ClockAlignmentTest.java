package io.gitm.nvidia.cupti;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.api.Ticker;
import org.junit.jupiter.api.Test;

/** The offset to the host clock comes from the tightest bracket, and says how uncertain it is. */
class ClockAlignmentTest {
  /** A host clock that advances by the given steps in turn; the other clock reads host time plus an offset. */
  static final class Scripted implements Ticker {
    long now = 1_000_000;
    final long[] steps;
    int i;

    Scripted(long... steps) {
      this.steps = steps;
    }

    @Override
    public long nanos() {
      long t = now;
      now += steps[i++ % steps.length];
      return t;
    }
  }

  @Test
  void theTightestBracketGivesTheOffsetWithinHalfItsWidth() {
    // reads alternate: h0, (other), h1 ; widths per sample are the step after h0.
    long trueOffset = 1_700_000_000_000_000_000L;
    Scripted host = new Scripted(500, 500, 40, 40, 9000, 9000);
    ClockAlignment a = ClockAlignment.measure(host, () -> host.now + trueOffset, 3);
    assertThat(a.uncertaintyNs()).isLessThanOrEqualTo(40);
    assertThat(Math.abs(a.offsetNs() - trueOffset)).isLessThanOrEqualTo(a.uncertaintyNs());
    assertThat(a.toHost(trueOffset + 5_000)).isBetween(5_000 - a.uncertaintyNs(), 5_000 + a.uncertaintyNs());
  }

  @Test
  void aBackwardsHostClockIsAnError() {
    Scripted host = new Scripted(-10);
    assertThatThrownBy(() -> ClockAlignment.measure(host, () -> 0, 1)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("backwards");
  }

  @Test
  void zeroSamplesIsRefused() {
    assertThatThrownBy(() -> ClockAlignment.measure(Ticker.system(), () -> 0, 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least one");
  }
}
