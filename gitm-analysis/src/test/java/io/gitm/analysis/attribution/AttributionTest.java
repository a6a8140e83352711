package io.gitm.analysis.attribution;

import static io.gitm.analysis.Records.HW;
import static io.gitm.analysis.Records.META;
import static io.gitm.analysis.Records.api;
import static io.gitm.analysis.Records.kernel;
import static io.gitm.analysis.Records.sample;
import static io.gitm.analysis.Records.sync;
import static io.gitm.analysis.Records.work;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.withinPercentage;

import io.gitm.analysis.Analysis;
import io.gitm.analysis.Records;
import io.gitm.stats.Granger;
import io.gitm.trace.ApiKind;
import io.gitm.trace.CopyKind;
import io.gitm.trace.MarkerRecord;
import io.gitm.trace.Precision;
import io.gitm.trace.SyncKind;
import io.gitm.trace.TraceRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The detectors on hand-made traces, one signature at a time. */
class AttributionTest {
  @Test
  void clockReasonBitsNameTheirCausesAndTheSharedSlowdownBitOnlyAlone() {
    assertThat(Input.Clock.causes(0x20)).containsExactly(Cause.THERMAL_THROTTLING);
    assertThat(Input.Clock.causes(0x40 | 0x8)).containsExactly(Cause.THERMAL_THROTTLING);
    assertThat(Input.Clock.causes(0x80 | 0x8)).containsExactly(Cause.POWER_BRAKE);
    assertThat(Input.Clock.causes(0x8)).containsExactly(Cause.POWER_BRAKE);
    assertThat(Input.Clock.causes(0x4)).containsExactly(Cause.POWER_THROTTLING);
    assertThat(Input.Clock.causes(0x2)).containsExactly(Cause.CLOCK_DROP);
    assertThat(Input.Clock.causes(0x80 | 0x8 | 0x20)).containsExactly(Cause.POWER_BRAKE,
        Cause.THERMAL_THROTTLING);
    assertThat(Input.Clock.causes(0x1)).isEmpty();
    assertThat(Input.Clock.causes(0x10 | 0x100)).isEmpty();
  }

  /** Twenty 1 ms compute-bound kernels back to back, a sample before each at {@code clock} MHz and reason bits. */
  private static List<TraceRecord> throttled(double clock, int bits) {
    List<TraceRecord> t = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      long at = i * 1_001_000L;
      t.add(sample(0, at, clock, bits));
      t.add(kernel("gemm", 7, i + 1, at, at + 1_000_000, 1000));
      t.add(work("gemm", 7, i + 1, at, 1e10, Precision.FP32, 1000));
    }
    return t;
  }

  @Test
  void aClockHeldAtHalfItsBoostByAClockSettingCostsHalfTheKernelTime() {
    Analysis.Result a = Analysis.analyze(META, throttled(500, 0x2), HW);
    assertThat(a.hypotheses()).hasSize(1);
    Hypothesis h = a.hypotheses().getFirst();
    assertThat(h.cause()).isEqualTo(Cause.CLOCK_DROP);
    // 19 sampled intervals, each with 1 ms of kernel at half clock: 9.5 ms lost of a 20.02 ms span
    assertThat(h.effect()).isBetween(0.47, 0.48);
    assertThat(h.evidence()).anyMatch(e -> e.kind().equals("telemetry") && e.summary().contains("50% below 1000 MHz"));
    // the clock never changes in this trace: each of its Granger pairs says why it cannot run instead of a silent
    // p-value, and the matrix names the series the trace does not hold
    assertThat(h.evidence()).filteredOn(e -> e.kind().equals("granger") && "SM clock".equals(e.data().get("x")))
        .hasSize(2).allSatisfy(e -> assertThat(e.summary()).contains("not testable (x is constant"));
    assertThat(h.evidence()).filteredOn(e -> e.kind().equals("granger") && e.summary().startsWith("Granger matrix"))
        .singleElement().satisfies(e -> assertThat(e.summary()).contains("over 19 sample intervals")
            .contains("not in the trace: memory in use, host API gaps, allocator calls, copy activity"));
  }

  @Test
  void aClockThatDropsMidRunGetsATestableGrangerEvidence() {
    List<TraceRecord> t = new ArrayList<>();
    SplittableRandom rnd = new SplittableRandom(3);
    for (int i = 0; i < 120; i++) {
      long at = i * 1_001_000L;
      double clock = i < 40 || i >= 80 ? 1000 : 500 + rnd.nextInt(100);
      t.add(sample(0, at, clock, clock < 1000 ? 0x2 : 0));
      long dur = (long) (1_000_000 * (1000 / clock) * (0.98 + 0.04 * rnd.nextDouble()));
      t.add(kernel("gemm", 7, i + 1, at, at + Math.min(dur, 1_000_000), 1000));
      t.add(work("gemm", 7, i + 1, at, 1e10 * Math.min(1, clock / 1000), Precision.FP32, 1000));
    }
    Hypothesis h = Analysis.analyze(META, t, HW).hypotheses().getFirst();
    assertThat(h.cause()).isEqualTo(Cause.CLOCK_DROP);
    assertThat(h.evidence()).filteredOn(e -> e.kind().equals("granger") && "SM clock".equals(e.data().get("x"))
            && "kernel slowness".equals(e.data().get("y"))).singleElement()
        .satisfies(e -> assertThat(e.data()).containsEntry("testable", true).containsEntry("significant", true)
            .containsKeys("f", "p", "lag", "pAdjusted"));
  }

  @Test
  void kernelsUnderASampleTakenAtTheIdleClockAreNoReferenceAtSpeed() {
    // the first sample finds the device idle (345 MHz, the idle reason); the clock is held at half its boost before
    // the first kernel, so every kernel, those of the first interval too, takes twice its time
    List<TraceRecord> t = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      long at = i * 2_001_000L;
      t.add(i == 0 ? sample(0, at, 345, 0x1) : sample(0, at, 500, 0x2));
      t.add(kernel("gemm", 7, i + 1, at, at + 2_000_000, 1000));
      t.add(work("gemm", 7, i + 1, at, 1e10, Precision.FP32, 1000));
    }
    assertThat(Analysis.analyze(META, t, HW).hypotheses()).extracting(Hypothesis::cause).contains(Cause.CLOCK_DROP);
  }

  @Test
  void aClockLoweredBetweenTwoSamplesLeavesNoReferenceAtSpeedInBetween() {
    // the first sample is at the boost clock, but the clock halves after the first kernel: the second kernel, in the
    // same sample interval, already takes 2 ms; every later interval is sampled at half the clock and holds one 2 ms
    // kernel that took 1 ms at speed
    List<TraceRecord> t = new ArrayList<>();
    t.add(sample(0, 0, 1000, 0));
    t.add(kernel("gemm", 7, 1, 0, 1_000_000, 1000));
    t.add(work("gemm", 7, 1, 0, 1e10, Precision.FP32, 1000));
    long at = 1_001_000;
    for (int i = 1; i < 20; i++) {
      if (i > 1) {
        t.add(sample(0, at, 500, 0x2));
      }
      t.add(kernel("gemm", 7, i + 1, at, at + 2_000_000, 1000));
      t.add(work("gemm", 7, i + 1, at, 1e10, Precision.FP32, 1000));
      at += 2_001_000;
    }
    t.add(sample(0, at, 500, 0x2));
    Analysis.Result a = Analysis.analyze(META, t, HW);
    Hypothesis h = a.hypotheses().stream().filter(x -> x.cause() == Cause.CLOCK_DROP).findFirst().orElseThrow();
    // the 18 sampled throttled intervals lost 1 ms each
    assertThat(h.effect()).isCloseTo(18e6 / a.spanNs(), withinPercentage(5));
  }

  @Test
  void aClockAtItsBoostNamesNoClockCauseWhateverTheBits() {
    assertThat(Analysis.analyze(META, throttled(1000, 0x4), HW).hypotheses()).isEmpty();
  }

  /** An iteration loop: a kernel, then the host blocked in {@code blocker} (or free for {@code gapNs}), then again. */
  private static List<TraceRecord> gaps(ApiKind kind, String blocker, long gapNs) {
    List<TraceRecord> t = new ArrayList<>();
    long at = 0;
    long corr = 1;
    for (int i = 0; i < 30; i++) {
      long start = at;
      t.add(api(ApiKind.LAUNCH, "cuLaunchKernel", corr, at, at + 5_000));
      t.add(kernel("k", 7, corr, at + 5_000, at + 105_000, 100));
      t.add(work("k", 7, corr++, at, 0, Precision.FP32, 100_000));
      at += 105_000;
      if (blocker != null) {
        t.add(api(kind, blocker, corr++, at, at + gapNs));
      }
      at += gapNs;
      t.add(new MarkerRecord("iteration " + i, 1, start, at));
    }
    return t;
  }

  @Test
  void aGapTheHostSpentInASlowAllocationIsAnAllocatorStallNotALaunchBoundHost() {
    Analysis.Result a = Analysis.analyze(META, gaps(ApiKind.ALLOC, "cuMemAllocAsync", 40_000), HW);
    assertThat(a.hypotheses()).extracting(Hypothesis::cause).containsExactly(Cause.ALLOCATOR_STALL);
    // 29 gaps of 45 µs (the alloc and the next launch) over about 4.5 ms
    assertThat(a.hypotheses().getFirst().effect()).isBetween(0.25, 0.32);
  }

  @Test
  void aGapTheHostSpentOutsideAnyDriverCallIsALaunchBoundHost() {
    Analysis.Result a = Analysis.analyze(META, gaps(ApiKind.OTHER, null, 40_000), HW);
    assertThat(a.hypotheses()).extracting(Hypothesis::cause).containsExactly(Cause.LAUNCH_BOUND_HOST);
    assertThat(a.hypotheses().getFirst().evidence()).anyMatch(e -> e.summary().contains("29 gaps"));
  }

  @Test
  void aPoolServedAllocationIsNoStall() {
    Analysis.Result a = Analysis.analyze(META, gaps(ApiKind.ALLOC, "cuMemAllocAsync", 1_000), HW);
    assertThat(a.hypotheses()).isEmpty();
  }

  @Test
  void extraWaitsThatDrainTheDeviceInAThirdOfTheIterationsAreSynchronousHostCalls() {
    // one-stream loop: every iteration waits once at its end; every third also right after its launch
    List<TraceRecord> t = new ArrayList<>();
    long at = 0;
    long corr = 1;
    for (int i = 0; i < 30; i++) {
      long start = at;
      t.add(api(ApiKind.LAUNCH, "cuLaunchKernel", corr, at, at + 5_000));
      t.add(kernel("a", 7, corr, at + 5_000, at + 105_000, 100));
      t.add(work("a", 7, corr++, at, 0, Precision.FP32, 100_000));
      at += 5_000;
      if (i % 3 == 0) {
        t.add(api(ApiKind.SYNC, "cuCtxSynchronize", corr, at, at + 100_000));
        t.add(sync(SyncKind.CONTEXT, -1, corr++, at, at + 100_000));
        at += 100_000;
      }
      t.add(api(ApiKind.LAUNCH, "cuLaunchKernel", corr, at, at + 5_000));
      long b = Math.max(at + 5_000, i % 3 == 0 ? at + 5_000 : at + 100_000);
      t.add(kernel("b", 7, corr, b, b + 20_000, 100));
      t.add(work("b", 7, corr++, at, 0, Precision.FP32, 20_000));
      at += 5_000;
      t.add(api(ApiKind.SYNC, "cuStreamSynchronize", corr, at, b + 20_000));
      t.add(sync(SyncKind.STREAM, 7, corr++, at, b + 20_000));
      at = b + 20_000 + 2_000;
      t.add(new MarkerRecord("iteration " + i, 1, start, at));
    }
    Analysis.Result a = Analysis.analyze(META, t, HW);
    assertThat(a.hypotheses()).extracting(Hypothesis::cause).contains(Cause.SYNCHRONOUS_HOST_CALLS);
    Hypothesis h = a.hypotheses().stream().filter(x -> x.cause() == Cause.SYNCHRONOUS_HOST_CALLS).findFirst()
        .orElseThrow();
    assertThat(h.evidence()).anyMatch(e -> e.summary().startsWith("40 host synchronizations")
        && e.summary().contains("30 of them, 1 per iteration") && e.summary().contains("10 excess"));
  }

  @Test
  void stallsEveryFewLaunchesAreExcessEvenWhenEveryIterationHasThemAndSomeFindTheDeviceIdle() {
    // a launch-bound loop over two streams (no wait leaves the device busy): 20 launches an iteration, a context
    // synchronization after every 7th launch (the count runs across iterations, so their places drift), and the job's
    // own stream synchronization at each iteration's end; after half the launches the kernel (0.5 µs) has ended
    // before the synchronization can find it running
    List<TraceRecord> t = new ArrayList<>();
    long at = 0;
    long corr = 1;
    int launches = 0;
    int stalls = 0;
    int stallsAtTheEnd = 0;
    for (int i = 0; i < 30; i++) {
      long start = at;
      long lastEnd = at;
      for (int j = 0; j < 20; j++) {
        int stream = 7 + j % 2;
        long dur = j % 2 == 0 ? 3_000 : 500;
        t.add(api(ApiKind.LAUNCH, "cuLaunchKernel", corr, at, at + 5_000));
        at += 5_000;
        t.add(kernel("k" + j, stream, corr, at, at + dur, 100));
        t.add(work("k" + j, stream, corr++, at - 5_000, 0, Precision.FP32, dur));
        lastEnd = at + dur;
        if (++launches % 7 == 0) {
          stalls++;
          stallsAtTheEnd += j == 19 ? 1 : 0;
          long end = Math.max(at + 1_000, lastEnd);
          t.add(api(ApiKind.SYNC, "cuCtxSynchronize", corr, at, end));
          t.add(sync(SyncKind.CONTEXT, -1, corr++, at, end));
          at = end;
        }
      }
      long end = Math.max(at + 1_000, lastEnd);
      t.add(api(ApiKind.SYNC, "cuStreamSynchronize", corr, at, end));
      t.add(sync(SyncKind.STREAM, 7, corr++, at, end));
      at = end + 1_000;
      t.add(new MarkerRecord("iteration " + i, 1, start, at));
    }
    Hypothesis h = Analysis.analyze(META, t, HW).hypotheses().stream()
        .filter(x -> x.cause() == Cause.SYNCHRONOUS_HOST_CALLS).findFirst().orElseThrow();
    // a stall that falls on the iteration's last launch sits where the job's own synchronization does: not excess
    String all = (stalls + 30) + " host synchronizations";
    String excess = (stalls - stallsAtTheEnd) + " excess";
    assertThat(h.evidence()).anyMatch(e -> e.summary().startsWith(all) && e.summary().contains("same place")
        && e.summary().contains(excess));
  }

  /**
   * Per iteration (30 of them) a 40 µs kernel on stream 8, a wait on stream 7 (for an event of any stream: the
   * planner cannot pair them), then a 40 µs kernel on stream 7 issued while the first runs: one chance to overlap an
   * iteration, which the second kernel takes, or, with {@code serialized}, not (it starts when the first ends).
   */
  private static List<TraceRecord> oneChancePerIteration(boolean serialized) {
    return oneChancePerIteration(serialized ? 1 : 0, false);
  }

  /**
   * As above, the second operation serialized in every {@code serialEvery}-th iteration (0: none); with
   * {@code pageable}, it is a copy from pageable memory (whose API call holds the host until it ends) instead of a
   * kernel.
   */
  private static List<TraceRecord> oneChancePerIteration(int serialEvery, boolean pageable) {
    List<TraceRecord> t = new ArrayList<>();
    long at = 0;
    long corr = 1;
    for (int i = 0; i < 30; i++) {
      long start = at;
      t.add(api(ApiKind.LAUNCH, "cuLaunchKernel", corr, at, at + 5_000));
      t.add(kernel("load", 8, corr, at + 5_000, at + 45_000, 10));
      t.add(work("load", 8, corr++, at, 0, Precision.FP32, 40_000));
      t.add(api(ApiKind.SYNC, "cuStreamWaitEvent", corr, at + 5_000, at + 7_000));
      t.add(sync(SyncKind.STREAM_WAIT_EVENT, 7, corr++, at + 5_000, at + 7_000));
      long k = serialEvery > 0 && i % serialEvery == 0 ? at + 45_000 : at + 12_000;
      if (pageable) {
        t.add(api(ApiKind.COPY, "cuMemcpyHtoDAsync", corr, at + 7_000, k + 40_000));
        t.add(Records.copy(CopyKind.HTOD, 100_000, true, 7, corr++, k, k + 40_000));
      } else {
        t.add(api(ApiKind.LAUNCH, "cuLaunchKernel", corr, at + 7_000, at + 12_000));
        t.add(kernel("compute", 7, corr, k, k + 40_000, 10));
        t.add(work("compute", 7, corr++, at + 7_000, 0, Precision.FP32, 40_000));
      }
      long waitFrom = pageable ? k + 40_000 : at + 12_000;
      t.add(api(ApiKind.SYNC, "cuStreamSynchronize", corr, waitFrom, k + 41_000));
      t.add(sync(SyncKind.STREAM, 7, corr++, waitFrom, k + 41_000));
      at = k + 42_000;
      t.add(new MarkerRecord("iteration " + i, 1, start, at));
    }
    return t;
  }

  @Test
  void streamsThatNeverOverlapAtTheirOneChanceAnIterationAreFalselySerialized() {
    assertThat(Analysis.analyze(META, oneChancePerIteration(true), HW).hypotheses()).extracting(Hypothesis::cause)
        .contains(Cause.FALSE_SERIALIZATION);
    assertThat(Analysis.analyze(META, oneChancePerIteration(false), HW).hypotheses()).extracting(Hypothesis::cause)
        .doesNotContain(Cause.FALSE_SERIALIZATION);
  }

  @Test
  void aMissedOverlapInAThirdOfTheIterationsIsNoSerialization() {
    assertThat(Analysis.analyze(META, oneChancePerIteration(3, false), HW).hypotheses())
        .extracting(Hypothesis::cause).doesNotContain(Cause.FALSE_SERIALIZATION);
  }

  @Test
  void aCopyStagedThroughPageableMemoryThatMissesItsOverlapIsNoStreamSerialization() {
    assertThat(Analysis.analyze(META, oneChancePerIteration(1, true), HW).hypotheses())
        .extracting(Hypothesis::cause).doesNotContain(Cause.FALSE_SERIALIZATION);
  }

  /**
   * Thirty kernels of 1 GFLOP (100 µs at the test device's peak) over 200 blocks, declaring 10 kB, that moved
   * {@code measured} bytes and took {@code durNs} each, the clock at speed.
   */
  private static List<TraceRecord> fullDeviceKernels(long measured, long durNs) {
    List<TraceRecord> t = new ArrayList<>();
    long at = 0;
    for (long corr = 1; corr <= 30; corr++) {
      t.add(sample(0, at, 1000, 0));
      t.add(api(ApiKind.LAUNCH, "cuLaunchKernel", corr, at, at + 5_000));
      t.add(kernel("gemm", 7, corr, at + 5_000, at + 5_000 + durNs, 200));
      t.add(work("gemm", 7, corr, at, 1e9, Precision.FP32, 10_000));
      t.add(Records.traffic(corr, at + 5_000 + durNs, measured));
      at += 5_000 + durNs + 1_000;
    }
    return t;
  }

  @Test
  void excessBytesThatLeaveAKernelComputeBoundDoNotHideAnotherTenant() {
    // 4x the declared bytes is 40 µs of memory time, under the 100 µs of compute: taking twice the compute time is
    // not the traffic's doing
    assertThat(Analysis.analyze(META, fullDeviceKernels(40_000, 200_000), HW).hypotheses())
        .extracting(Hypothesis::cause).contains(Cause.EXCESS_TRAFFIC, Cause.CONTENTION);
    // 40x is 400 µs of memory time: the traffic explains the kernel's 420 µs
    assertThat(Analysis.analyze(META, fullDeviceKernels(400_000, 420_000), HW).hypotheses())
        .extracting(Hypothesis::cause).contains(Cause.EXCESS_TRAFFIC).doesNotContain(Cause.CONTENTION);
  }

  @Test
  void fewerThanThreeEventsNeverMakeAHypothesis() {
    List<TraceRecord> t = new ArrayList<>(gaps(ApiKind.OTHER, null, 1_000));
    // two long host gaps only
    t.add(api(ApiKind.LAUNCH, "cuLaunchKernel", 900, 10_000_000, 10_005_000));
    t.add(kernel("k", 7, 900, 10_005_000, 10_105_000, 100));
    t.add(work("k", 7, 900, 10_000_000, 0, Precision.FP32, 100_000));
    assertThat(Analysis.analyze(META, t, HW).hypotheses()).isEmpty();
  }
}
