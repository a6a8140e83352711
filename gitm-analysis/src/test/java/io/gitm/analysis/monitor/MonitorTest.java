package io.gitm.analysis.monitor;

import static io.gitm.analysis.Records.HW;
import static io.gitm.analysis.Records.api;
import static io.gitm.analysis.Records.kernel;
import static io.gitm.analysis.Records.sync;
import static io.gitm.analysis.Records.traffic;
import static io.gitm.analysis.Records.work;
import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.planner.Graph;
import io.gitm.planner.Planner;
import io.gitm.trace.ApiKind;
import io.gitm.trace.OverheadKind;
import io.gitm.trace.OverheadRecord;
import io.gitm.trace.Precision;
import io.gitm.trace.SyncKind;
import io.gitm.trace.TraceRecord;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The three invariants, the idle breakdown and the tracer-overhead subtraction on hand-made traces. */
class MonitorTest {
  /** {@code n} executions of a 1 MB memory-bound kernel (1 ms at the test bandwidth), every 2 ms, {@code slow} slow. */
  private static List<TraceRecord> streamKernels(int n, int slow, long slowNs) {
    List<TraceRecord> t = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      long at = i * 5_000_000L;
      long dur = i < slow ? slowNs : 1_050_000;
      t.add(kernel("stream", 7, i + 1, at, at + dur, 1000));
      t.add(work("stream", 7, i + 1, at, 0, Precision.FP32, 1_000_000));
    }
    return t;
  }

  private static Monitor.Result check(List<TraceRecord> t) {
    return Monitor.check(Planner.predict(t, HW), t, HW.launchLatencyNs());
  }

  @Test
  void aKernelBeyondItsUpperBoundInEnoughExecutionsBreaksTheKernelTimeInvariantWithItsEvidence() {
    Monitor.Result r = check(streamKernels(20, 4, 3_000_000));
    assertThat(r.violations()).hasSize(1);
    Violation v = r.violations().getFirst();
    assertThat(v.invariant()).isEqualTo(Violation.Invariant.KERNEL_TIME);
    assertThat(v.subject()).isEqualTo("stream");
    assertThat(v.count()).isEqualTo(4);
    assertThat(v.of()).isEqualTo(20);
    // upper bound: (1 ms + 2.5 µs fixed) x 1.5; the slow ones ran 3 ms
    assertThat(v.howFar()).isBetween(1.9, 2.1);
    assertThat(v.excessNs()).isBetween(4 * 1.4e6, 4 * 1.6e6);
    assertThat(v.examples()).hasSize(4).allMatch(e -> e.contains("kernel 'stream'") && e.contains("corr"));
    assertThat(r.residualNs()).hasSize(20);
    assertThat(r.residualNs()[0]).isPositive();
    assertThat(r.residualNs()[10]).isNegative();
  }

  @Test
  void oneSlowExecutionInAHundredIsNotAViolation() {
    assertThat(check(streamKernels(100, 1, 3_000_000)).violations()).isEmpty();
  }

  @Test
  void moreBytesMeasuredThanDeclaredBreakTheMemoryTrafficInvariant() {
    List<TraceRecord> t = new ArrayList<>(streamKernels(10, 0, 0));
    for (int i = 0; i < 10; i++) {
      t.add(traffic(i + 1, i * 5_000_000L, i < 5 ? 4_000_000 : 1_000_000));
    }
    Monitor.Result r = check(t);
    assertThat(r.violations()).extracting(Violation::invariant).containsExactly(Violation.Invariant.MEMORY_TRAFFIC);
    Violation v = r.violations().getFirst();
    assertThat(v.count()).isEqualTo(5);
    assertThat(v.of()).isEqualTo(10);
    assertThat(v.howFar()).isEqualTo(4.0);
    assertThat(v.excessNs()).isPositive();
  }

  @Test
  void predictedConcurrentWorkThatRanOneAfterTheOtherBreaksTheConcurrencyInvariant() {
    List<TraceRecord> t = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      long at = i * 10_000_000L;
      t.add(api(ApiKind.LAUNCH, "cuLaunchKernel", 2 * i + 1, at, at + 5_000));
      t.add(kernel("a", 7, 2 * i + 1, at + 5_000, at + 1_005_000, 10));
      t.add(api(ApiKind.LAUNCH, "cuLaunchKernel", 2 * i + 2, at + 5_000, at + 10_000));
      // issued while "a" runs, on another stream, no wait between them: yet it starts when "a" ends
      t.add(kernel("b", 8, 2 * i + 2, at + 1_005_000, at + 1_505_000, 10));
    }
    Monitor.Result r = check(t);
    assertThat(r.judgedPairs()).isEqualTo(5);
    Violation v = r.violations().stream().filter(x -> x.invariant() == Violation.Invariant.STREAM_CONCURRENCY)
        .findFirst().orElseThrow();
    assertThat(v.count()).isEqualTo(5);
    assertThat(v.excessNs()).isEqualTo(5 * 500_000.0);
    assertThat(v.examples().getFirst()).contains("kernel 'a'").contains("kernel 'b'");
  }

  @Test
  void idleTimeSplitsAsHolisticTraceAnalysisDoesPerStreamAndPerDevice() {
    // threshold: max(5 µs, 4 launch latencies) = 20 µs
    List<TraceRecord> t = List.of(api(ApiKind.LAUNCH, "cuLaunchKernel", 1, 0, 0), kernel("k", 7, 1, 0, 100_000, 1),
        // issued long before the 10 µs gap: kernel wait
        api(ApiKind.LAUNCH, "cuLaunchKernel", 2, 50_000, 52_000), kernel("k", 7, 2, 110_000, 200_000, 1),
        // a 300 µs gap; the next kernel is issued only at 450 µs, after 200 µs in a stream synchronization:
        // host wait
        sync(SyncKind.STREAM, 7, 3, 200_000, 400_000), api(ApiKind.SYNC, "cuStreamSynchronize", 3, 200_000, 400_000),
        api(ApiKind.LAUNCH, "cuLaunchKernel", 4, 450_000, 455_000), kernel("k", 7, 4, 500_000, 600_000, 1),
        // a 50 µs gap although the next kernel was issued before it began: other
        api(ApiKind.LAUNCH, "cuLaunchKernel", 6, 560_000, 565_000), kernel("k", 7, 6, 650_000, 700_000, 1),
        // another stream idles 1 ms between its two kernels while stream 7 runs: idle for the stream, not the device
        api(ApiKind.LAUNCH, "cuLaunchKernel", 7, 10_000, 12_000), kernel("j", 8, 7, 20_000, 30_000, 1),
        api(ApiKind.LAUNCH, "cuLaunchKernel", 8, 500_000, 505_000), kernel("j", 8, 8, 510_000, 520_000, 1));
    Monitor.Idle idle = check(t).idle();
    assertThat(idle.thresholdNs()).isEqualTo(20_000);
    assertThat(idle.kernelWaitNs()).isEqualTo(10_000);
    assertThat(idle.hostWaitNs()).isEqualTo(300_000);
    assertThat(idle.hostSyncNs()).isEqualTo(200_000);
    assertThat(idle.hostAllocNs()).isZero();
    assertThat(idle.otherNs()).isEqualTo(50_000);
    assertThat(idle.totalNs()).isEqualTo(360_000);
    assertThat(idle.devices()).containsExactly(new Monitor.Part(0, -1, 10_000, 300_000, 50_000));
    assertThat(idle.streams()).containsExactly(new Monitor.Part(0, 7, 10_000, 300_000, 50_000),
        // issued at 500 µs, after its stream went idle at 30 µs
        new Monitor.Part(0, 8, 0, 480_000, 0));
  }

  @Test
  void aGapBeforeWorkWhoseIssueTimeIsUnknownIsNeverHostWait() {
    Monitor.Idle idle = check(List.of(kernel("k", 7, 1, 0, 100_000, 1), kernel("k", 7, 2, 400_000, 500_000, 1)))
        .idle();
    assertThat(idle.hostWaitNs()).isZero();
    assertThat(idle.otherNs()).isEqualTo(300_000);
  }

  @Test
  void aKernelFasterThanItsModelFloorIsReportedNotJudgedAViolation() {
    // 1 MB at the test bandwidth takes 1 ms at least; three executions took 0.4 ms
    List<TraceRecord> t = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      long at = i * 5_000_000L;
      t.add(kernel("stream", 7, i + 1, at, at + (i < 3 ? 400_000 : 1_050_000), 1000));
      t.add(work("stream", 7, i + 1, at, 0, Precision.FP32, 1_000_000));
    }
    Monitor.Result r = check(t);
    assertThat(r.violations()).isEmpty();
    assertThat(r.floors()).hasSize(1);
    Monitor.Floor f = r.floors().getFirst();
    assertThat(f.subject()).isEqualTo("stream");
    assertThat(f.basis()).isEqualTo(Graph.Basis.MODEL);
    assertThat(f.count()).isEqualTo(3);
    assertThat(f.of()).isEqualTo(10);
    assertThat(f.ratio()).isBetween(0.39, 0.41);
    assertThat(f.examples()).hasSize(3);
  }

  @Test
  void aKernelTimeViolationCarriesTheBasisOfItsBound() {
    Violation v = check(streamKernels(20, 4, 3_000_000)).violations().getFirst();
    assertThat(v.basis()).isEqualTo(Graph.Basis.MODEL.label());
  }

  @Test
  void tracerOverheadWithinAKernelIsTakenOutBeforeKernelTimeIsJudged() {
    List<TraceRecord> t = new ArrayList<>(streamKernels(20, 4, 3_000_000));
    // the tracer's own time covers 2 ms of each slow execution: what is left is within the bound
    for (int i = 0; i < 4; i++) {
      t.add(new OverheadRecord(OverheadKind.INSTRUMENTATION, 1, i * 5_000_000L + 500_000, i * 5_000_000L + 2_500_000));
    }
    Monitor.Result r = check(t);
    assertThat(r.violations()).isEmpty();
    assertThat(r.overheadInExecutionsNs()).isEqualTo(4 * 2_000_000);
  }

  @Test
  void tracerOverheadBetweenAPredictedConcurrentPairExplainsItsLostOverlap() {
    List<TraceRecord> t = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      long at = i * 10_000_000L;
      t.add(api(ApiKind.LAUNCH, "cuLaunchKernel", 2 * i + 1, at, at + 5_000));
      t.add(kernel("a", 7, 2 * i + 1, at + 5_000, at + 1_005_000, 10));
      t.add(api(ApiKind.LAUNCH, "cuLaunchKernel", 2 * i + 2, at + 5_000, at + 10_000));
      t.add(kernel("b", 8, 2 * i + 2, at + 1_005_000, at + 1_505_000, 10));
      t.add(new OverheadRecord(OverheadKind.BUFFER_FLUSH, 1, at + 400_000, at + 1_000_000));
    }
    assertThat(check(t).violations()).noneMatch(v -> v.invariant() == Violation.Invariant.STREAM_CONCURRENCY);
  }

  @Test
  void iterationMarkersGiveAResidualSeries() {
    List<TraceRecord> t = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      long at = i * 5_000_000L;
      // the third iteration's kernel runs 3 ms, 1.42 ms beyond its upper bound
      t.add(api(ApiKind.LAUNCH, "cuLaunchKernel", i + 1, at, at + 5_000));
      t.add(kernel("stream", 7, i + 1, at + 10_000, at + 10_000 + (i == 2 ? 3_000_000 : 1_050_000), 1000));
      t.add(work("stream", 7, i + 1, at, 0, Precision.FP32, 1_000_000));
      t.add(new io.gitm.trace.MarkerRecord("iteration " + i, 1, at, at + 4_000_000));
    }
    t.add(new io.gitm.trace.MarkerRecord("data loading", 1, 0, 20_000_000));
    List<Monitor.Iteration> its = check(t).iterations();
    assertThat(its).extracting(Monitor.Iteration::name).containsExactly("iteration 0", "iteration 1", "iteration 2",
        "iteration 3");
    assertThat(its).extracting(Monitor.Iteration::ops).containsExactly(1, 1, 1, 1);
    assertThat(its).extracting(Monitor.Iteration::beyond).containsExactly(0, 0, 1, 0);
    // upper bound (1 ms + 2.5 µs) x 1.5 = 1.50375 ms
    assertThat(its.get(2).excessNs()).isCloseTo(3_000_000 - 1_503_750, org.assertj.core.data.Offset.offset(1.0));
    assertThat(its.get(0).excessNs()).isZero();
    assertThat(its.get(0).lowerNs()).isCloseTo(1_000_000, org.assertj.core.data.Offset.offset(1.0));
  }

  @Test
  void theTracersOwnTimeIsTakenOutOfIdleGapsBeforeTheyAreJudged() {
    List<TraceRecord> t = List.of(kernel("k", 7, 1, 0, 100_000, 1), kernel("k", 7, 2, 200_000, 300_000, 1),
        new OverheadRecord(OverheadKind.BUFFER_FLUSH, 1, 110_000, 195_000));
    Monitor.Result r = check(t);
    assertThat(r.idle().overheadNs()).isEqualTo(85_000);
    // 100 µs gap - 85 µs of tracer time = 15 µs: below the threshold, a kernel wait
    assertThat(r.idle().kernelWaitNs()).isEqualTo(15_000);
    assertThat(r.idle().otherNs()).isZero();
    assertThat(r.busyNs()).isEqualTo(200_000);
    assertThat(r.spanNs()).isEqualTo(300_000);
  }

  @Test
  void anEmptyGraphHasNothingToJudge() {
    Monitor.Result r = Monitor.check(new Graph(List.of(), 0, List.of(), "test"), List.of(), 5_000);
    assertThat(r.violations()).isEmpty();
    assertThat(r.spanNs()).isZero();
    assertThat(r.idle().totalNs()).isZero();
  }
}
