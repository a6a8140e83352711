package io.gitm.analysis.attribution;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.analysis.Analysis;
import io.gitm.analysis.Differential;
import io.gitm.sim.SimSpec;
import io.gitm.trace.MarkerRecord;
import io.gitm.trace.TraceMeta;
import io.gitm.trace.TraceRecord;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The differential ranking on the simulated device ({@link SyntheticJob}): a run against a baseline run of the same
 * job, faults injected into one or both. The sim's ground truth is only the test's.
 */
class DifferentialOnSimulatedDeviceTest {
  /** A slower host link in both runs: a cause of the job's environment that stays. */
  static final String LINK = "pcie-downgrade:factor=0.5";

  static Differential.Change change(Differential.Result d, Cause c) {
    return d.changes().stream().filter(x -> x.cause() == c).findFirst().orElseThrow(
        () -> new AssertionError(c + " not in " + d.changes()));
  }

  @Test
  void aFaultThatDoublesAStandingCauseGrewAndRanksAboveTheStandingOne() {
    // boost 1980 MHz: 1780 MHz is a 10% deficit, 1580 MHz a 20% one
    Analysis.Result base = SyntheticJob.analyze(LINK + ",clock-drop:mhz=1780", 1, 200, 20e9);
    Analysis.Result run = SyntheticJob.analyze(LINK + ",clock-drop:mhz=1580", 1, 200, 20e9);
    Differential.Result d = Differential.compare(base, run);
    assertThat(d.unit()).isEqualTo(Differential.Unit.ITERATION);
    Differential.Change clock = change(d, Cause.CLOCK_DROP);
    Differential.Change link = change(d, Cause.HOST_LINK_DEGRADED);
    assertThat(clock.status()).as("%s", d.changes()).isEqualTo(Differential.Status.GREW);
    assertThat(clock.runLost() / clock.baselineLost()).as("%s", clock).isBetween(1.6, 2.4);
    assertThat(link.status()).as("%s", d.changes()).isEqualTo(Differential.Status.STANDING);
    assertThat(d.ranked().getFirst().cause()).isEqualTo(Cause.CLOCK_DROP);
    assertThat(d.changes().indexOf(clock)).isLessThan(d.changes().indexOf(link));
    assertThat(d.timeChange()).isPositive();
  }

  @Test
  void aCauseOnlyTheRunNamesIsNewAndRanksFirst() {
    Differential.Result d = Differential.compare(SyntheticJob.analyze(LINK, 2, 200, 20e9),
        SyntheticJob.analyze(LINK + ",clock-drop", 2, 200, 20e9));
    Differential.Change clock = change(d, Cause.CLOCK_DROP);
    assertThat(clock.status()).isEqualTo(Differential.Status.NEW);
    assertThat(clock.baselineLost()).isZero();
    assertThat(clock.addedLow()).isPositive();
    assertThat(d.ranked().getFirst()).isEqualTo(clock);
    assertThat(change(d, Cause.HOST_LINK_DEGRADED).status()).isEqualTo(Differential.Status.STANDING);
  }

  @Test
  void aCauseOnlyTheBaselineNamesIsGoneAndNotRanked() {
    Differential.Result d = Differential.compare(SyntheticJob.analyze(LINK, 2, 200, 20e9),
        SyntheticJob.analyze("", 2, 200, 20e9));
    Differential.Change link = change(d, Cause.HOST_LINK_DEGRADED);
    assertThat(link.status()).isEqualTo(Differential.Status.GONE);
    assertThat(link.added()).isNegative();
    assertThat(d.ranked()).doesNotContain(link);
    assertThat(d.changes().getLast()).isEqualTo(link);
  }

  @Test
  void identicalRunsChangeNothing() {
    Analysis.Result a = SyntheticJob.analyze(LINK, 3, 200, 20e9);
    Analysis.Result b = SyntheticJob.analyze(LINK, 3, 200, 20e9);
    Differential.Result d = Differential.compare(a, b);
    assertThat(d.ranked()).isEmpty();
    assertThat(d.changes()).isNotEmpty().allMatch(c -> c.status() == Differential.Status.STANDING && c.added() == 0);
    assertThat(d.timeChange()).isZero();
  }

  @Test
  void faultFreeRunsOfOtherSeedsAddNoDeviceCause() {
    for (long seed = 1; seed <= 3; seed++) {
      Differential.Result d = Differential.compare(SyntheticJob.analyze("", seed, 200, 20e9),
          SyntheticJob.analyze("", seed + 10, 200, 20e9));
      assertThat(d.ranked()).as("seed %d: %s", seed, d.changes())
          .noneMatch(c -> AttributionOnSimulatedDeviceTest.DEVICE_CAUSES.contains(c.cause()));
    }
  }

  @Test
  void aLongerRunOfTheSameJobComparesPerIteration() {
    Analysis.Result shorter = SyntheticJob.analyze(LINK, 4, 100, 20e9);
    Analysis.Result longer = SyntheticJob.analyze(LINK, 4, 300, 20e9);
    Differential.Result d = Differential.compare(shorter, longer);
    assertThat(d.unit()).isEqualTo(Differential.Unit.ITERATION);
    assertThat(d.baselineUnits()).isEqualTo(100);
    assertThat(d.runUnits()).isEqualTo(300);
    assertThat(longer.spanNs()).isGreaterThan(2 * shorter.spanNs());
    assertThat(Math.abs(d.timeChange())).isLessThan(0.05);
    Differential.Change link = change(d, Cause.HOST_LINK_DEGRADED);
    assertThat(link.status()).isEqualTo(Differential.Status.STANDING);
    assertThat(Math.abs(link.addedShare())).isLessThan(0.02);
    assertThat(d.ranked()).isEmpty();
  }

  @Test
  void withoutIterationMarkersTheSameJobComparesPerKernel() {
    Analysis.Result shorter = unmarked(LINK, 5, 100);
    Analysis.Result longer = unmarked(LINK + ",clock-drop", 5, 300);
    Differential.Result d = Differential.compare(shorter, longer);
    assertThat(d.unit()).isEqualTo(Differential.Unit.KERNEL);
    assertThat(d.baselineUnits()).isEqualTo(200);
    assertThat(d.runUnits()).isEqualTo(600);
    assertThat(d.notes().getFirst()).startsWith("lost time per kernel executed (baseline 200 kernels, run 600;"
        + " neither trace marks iterations)");
    assertThat(d.ranked().getFirst().cause()).isEqualTo(Cause.CLOCK_DROP);
    assertThat(change(d, Cause.HOST_LINK_DEGRADED).status()).isEqualTo(Differential.Status.STANDING);
  }

  /** The synthetic job's analysis with its iteration markers left out of the trace. */
  static Analysis.Result unmarked(String faults, long seed, int iterations) {
    TraceMeta[] meta = new TraceMeta[1];
    List<TraceRecord> rs = SyntheticJob.run(faults, seed, iterations, 20e9, meta);
    rs.removeIf(r -> r instanceof MarkerRecord);
    return Analysis.analyze(meta[0], rs, SimSpec.preset("h200").hardware());
  }
}
