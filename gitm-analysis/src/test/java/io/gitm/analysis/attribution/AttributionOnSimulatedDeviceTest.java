package io.gitm.analysis.attribution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.withinPercentage;

import io.gitm.analysis.Analysis;
import io.gitm.sim.SimSpec;
import io.gitm.trace.MarkerRecord;
import io.gitm.trace.TraceMeta;
import io.gitm.trace.TraceRecord;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The detectors on a job where each device fault bites ({@link SyntheticJob}): the injected fault's cause ranks
 * first, and a fault-free run names no device cause. The sim's ground truth is only the test's, never the analysis's.
 */
class AttributionOnSimulatedDeviceTest {
  static final Set<Cause> DEVICE_CAUSES = EnumSet.of(Cause.THERMAL_THROTTLING, Cause.POWER_THROTTLING,
      Cause.POWER_BRAKE, Cause.CLOCK_DROP, Cause.CONTENTION, Cause.HOST_LINK_DEGRADED, Cause.MEMORY_DEGRADED);

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
      "power-cap, POWER_THROTTLING",
      "clock-drop, CLOCK_DROP",
      "power-brake, POWER_BRAKE",
      "noisy-neighbour, CONTENTION",
      "pcie-downgrade, HOST_LINK_DEGRADED",
      "ecc-retirement, MEMORY_DEGRADED",
      "uncoalesced, EXCESS_TRAFFIC"})
  void injectedDeviceFaultRanksFirst(String fault, Cause cause) {
    for (long seed = 1; seed <= 3; seed++) {
      Analysis.Result a = SyntheticJob.analyze(fault, seed, 200, 20e9);
      assertThat(a.hypotheses()).as("%s seed %d: %s", fault, seed, a.hypotheses()).isNotEmpty();
      assertThat(a.hypotheses().getFirst().cause()).as("%s seed %d: %s", fault, seed, a.hypotheses()).isEqualTo(cause);
    }
  }

  @Test
  void aClockDropMidRunCostsWhatTheRunLostNotTheKernelTimeTimesTheDeficit() {
    // a 5 GFLOP compute-bound kernel beside the bandwidth-bound one, whose bytes do not slow with the SM clock: the
    // kernel time times the deficit overstates the loss
    TraceMeta[] meta = new TraceMeta[1];
    List<TraceRecord> free = SyntheticJob.run("", 1, 200, 5e9, meta);
    long mid = free.stream().filter(r -> r instanceof MarkerRecord m && m.name().equals("iteration 100"))
        .findFirst().orElseThrow().startNs();
    long freeSpan = Analysis.analyze(meta[0], free, SimSpec.preset("h200").hardware()).spanNs();
    Analysis.Result a = SyntheticJob.analyze("clock-drop@" + mid + "ns", 1, 200, 5e9);
    double lost = 1 - (double) freeSpan / a.spanNs();
    Hypothesis h = a.hypotheses().getFirst();
    assertThat(h.cause()).as("%s", a.hypotheses()).isEqualTo(Cause.CLOCK_DROP);
    assertThat(h.effect()).as("effect against the lost share %.4f", lost).isCloseTo(lost, withinPercentage(10));
  }

  @Test
  void hotInletThrottlesTheClockAfterSecondsAndIsNamedThermal() {
    // 5 s of simulated time under full compute load: the die passes the slowdown threshold after about 4 s
    Analysis.Result a = SyntheticJob.analyze("thermal:severity=1", 1, 1200, 200e9);
    assertThat(a.hypotheses()).isNotEmpty();
    assertThat(a.hypotheses().getFirst().cause()).as("%s", a.hypotheses()).isEqualTo(Cause.THERMAL_THROTTLING);
  }

  @Test
  void faultFreeRunNamesNoDeviceCause() {
    for (long seed = 1; seed <= 3; seed++) {
      Analysis.Result a = SyntheticJob.analyze("", seed, 200, 20e9);
      assertThat(a.hypotheses()).as("seed %d", seed).noneMatch(h -> DEVICE_CAUSES.contains(h.cause()));
    }
  }
}
