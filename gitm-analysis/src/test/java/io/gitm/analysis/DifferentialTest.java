package io.gitm.analysis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.analysis.attribution.Cause;
import io.gitm.analysis.attribution.Hypothesis;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The differential comparison's arithmetic, statuses and refusals on hand-made runs. */
class DifferentialTest {
  static Hypothesis h(Cause c, double effect, double half, double confidence) {
    return new Hypothesis(c, effect, Math.max(0, effect - half), effect + half, 0.001, confidence, List.of());
  }

  static Differential.Side side(long spanNs, int iterations, Set<String> kernels, Hypothesis... hs) {
    return new Differential.Side("H200", spanNs, iterations, 100, kernels, List.of(hs));
  }

  static final Set<String> JOB = Set.of("gemm", "softmax");

  @Test
  void addedLostTimeIsPerIterationWithTheRunsIntervalsCombined() {
    // baseline: 10 iterations of 1 ms, 10% lost (100 µs per iteration ± 10 µs);
    // run: 20 iterations of 1.1 ms, 20% lost (220 µs per iteration ± 22 µs)
    Differential.Result d = Differential.compare(side(10_000_000, 10, JOB, h(Cause.LAUNCH_BOUND_HOST, 0.1, 0.01, 0.9)),
        side(22_000_000, 20, JOB, h(Cause.LAUNCH_BOUND_HOST, 0.2, 0.02, 0.8)));
    Differential.Change c = d.changes().getFirst();
    assertThat(d.unit()).isEqualTo(Differential.Unit.ITERATION);
    assertThat(d.baselineTimePerUnit()).isEqualTo(1_000_000.0);
    assertThat(d.runTimePerUnit()).isEqualTo(1_100_000.0);
    assertThat(d.timeChange()).isCloseTo(0.1, org.assertj.core.data.Offset.offset(1e-12));
    assertThat(c.baselineLost()).isCloseTo(100_000, org.assertj.core.data.Offset.offset(1e-6));
    assertThat(c.runLost()).isCloseTo(220_000, org.assertj.core.data.Offset.offset(1e-6));
    double half = Math.hypot(10_000, 22_000);
    assertThat(c.addedLow()).isCloseTo(120_000 - half, org.assertj.core.data.Offset.offset(1e-6));
    assertThat(c.addedHigh()).isCloseTo(120_000 + half, org.assertj.core.data.Offset.offset(1e-6));
    assertThat(c.addedShare()).isCloseTo(0.12, org.assertj.core.data.Offset.offset(1e-12));
    assertThat(c.status()).isEqualTo(Differential.Status.GREW);
    assertThat(c.score()).isCloseTo(0.12 * 0.8, org.assertj.core.data.Offset.offset(1e-12));
  }

  @Test
  void growthWhoseIntervalReachesZeroIsStanding() {
    Differential.Result d = Differential.compare(side(10_000_000, 10, JOB, h(Cause.LAUNCH_BOUND_HOST, 0.10, 0.03, 0.9)),
        side(10_000_000, 10, JOB, h(Cause.LAUNCH_BOUND_HOST, 0.13, 0.03, 0.9)));
    assertThat(d.changes().getFirst().status()).isEqualTo(Differential.Status.STANDING);
    assertThat(d.changes().getFirst().addedLow()).isNegative();
    assertThat(d.ranked()).isEmpty();
  }

  @Test
  void newAndGrownRankByAddedTimesConfidenceThenStandingThenGone() {
    Differential.Result d = Differential.compare(
        side(10_000_000, 10, JOB, h(Cause.SYNCHRONOUS_HOST_CALLS, 0.10, 0.001, 0.99),
            h(Cause.LAUNCH_BOUND_HOST, 0.05, 0.001, 0.9), h(Cause.ALLOCATOR_STALL, 0.02, 0.001, 0.9)),
        side(10_000_000, 10, JOB, h(Cause.SYNCHRONOUS_HOST_CALLS, 0.10, 0.001, 0.99),
            h(Cause.LAUNCH_BOUND_HOST, 0.15, 0.001, 0.9), h(Cause.CLOCK_DROP, 0.09, 0.001, 0.95)));
    assertThat(d.changes()).extracting(Differential.Change::cause).containsExactly(Cause.LAUNCH_BOUND_HOST,
        Cause.CLOCK_DROP, Cause.SYNCHRONOUS_HOST_CALLS, Cause.ALLOCATOR_STALL);
    assertThat(d.changes()).extracting(Differential.Change::status).containsExactly(Differential.Status.GREW,
        Differential.Status.NEW, Differential.Status.STANDING, Differential.Status.GONE);
    // what the new and grown causes add: 10% and 9% of the baseline's time per iteration, the others nothing
    assertThat(d.addedByChanges()).isCloseTo(0.19, org.assertj.core.data.Offset.offset(1e-9));
  }

  @Test
  void differentKernelMixesWithoutMarkersCompareAsShareOfTheSpanAndSaySo() {
    Differential.Result d = Differential.compare(side(10_000_000, 0, JOB, h(Cause.CLOCK_DROP, 0.05, 0.01, 0.9)),
        side(20_000_000, 0, Set.of("gemm", "layernorm"), h(Cause.CLOCK_DROP, 0.05, 0.01, 0.9)));
    assertThat(d.unit()).isEqualTo(Differential.Unit.SPAN);
    assertThat(d.changes().getFirst().added()).isZero();
    assertThat(d.timeChange()).isEqualTo(1.0);
    assertThat(d.notes()).contains("kernel names: 1 in both, 1 only in the baseline ('softmax'), 1 only in the run"
        + " ('layernorm'): the runs do not do the same work");
  }

  @Test
  void otherDevicesAreComparedButSaid() {
    Differential.Result d = Differential.compare(new Differential.Side("A100", 1_000, 1, 5, JOB, List.of()),
        new Differential.Side("H200", 1_000, 1, 5, JOB, List.of()));
    assertThat(d.notes()).anyMatch(n -> n.startsWith("the runs ran on different devices (baseline: A100; run: H200)"));
  }

  @Test
  void runsWithNoKernelInCommonAreRefused() {
    assertThatThrownBy(() -> Differential.compare(side(1_000, 1, JOB), side(1_000, 1, Set.of("lob_book"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the runs share no kernel name (baseline: 'gemm', 'softmax'; run: 'lob_book'): not the same job,"
            + " nothing to compare");
  }

  @Test
  void badSidesAreRefusedWithOneLine() {
    assertThatThrownBy(() -> Differential.compare(new Differential.Side("", 1_000, 0, 0, Set.of(), List.of()),
        side(1_000, 1, JOB))).hasMessage("the baseline has no kernels: nothing to compare");
    assertThatThrownBy(() -> side(0, 1, JOB)).hasMessageStartingWith("a compared run needs a span above 0 ns");
    assertThatThrownBy(() -> Differential.compare((Differential.Side) null, side(1_000, 1, JOB)))
        .hasMessage("a comparison needs a baseline and a run");
  }
}
