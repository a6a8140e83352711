package io.gitm.analysis.breakdown;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.assertj.core.api.Assertions.within;

import io.gitm.analysis.attribution.Cause;
import io.gitm.analysis.attribution.Hypothesis;
import io.gitm.analysis.breakdown.Breakdown.AnnotationTime;
import io.gitm.analysis.breakdown.Breakdown.QueueLength;
import io.gitm.analysis.breakdown.Breakdown.StreamIdle;
import io.gitm.analysis.breakdown.Breakdown.TypeTime;
import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.ApiKind;
import io.gitm.trace.CopyKind;
import io.gitm.trace.CopyRecord;
import io.gitm.trace.Dim3;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.MarkerRecord;
import io.gitm.trace.MemoryKind;
import io.gitm.trace.TraceRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A hand-made trace of three profiler steps whose every figure was worked out by hand (docs/trace-analysis.md has
 * the definitions): on stream 7 a GEMM, a copy and three kernels of step 2; an NCCL kernel on stream 13 overlapping
 * the GEMM and the copy; a kernel of step 3 and one with no launch call after the steps window.
 */
class BreakdownTest {
  private static final long T = 1;

  static List<TraceRecord> trace(long lastKernelStart) {
    List<TraceRecord> r = new ArrayList<>();
    r.add(new MarkerRecord("ProfilerStep#1", T, 0, 100_000));
    r.add(new MarkerRecord("fwd", T, 10_000, 50_000));
    r.add(new MarkerRecord("ProfilerStep#2", T, 100_000, 200_000));
    r.add(new MarkerRecord("ProfilerStep#3", T, 200_000, 250_000));
    launch(r, 1, "cudaLaunchKernel", 10_000);
    r.add(kernel("ampere_sgemm_128x64_nn", 7, 1, 20_000, 60_000));
    launch(r, 2, "cudaLaunchKernel", 20_000);
    r.add(kernel("ncclKernel_AllReduce_RING_LL_Sum_float", 13, 2, 40_000, 80_000));
    launch(r, 3, "cudaMemcpyAsync", 30_000);
    r.add(new CopyRecord(CopyKind.HTOD, 1 << 20, MemoryKind.PINNED, MemoryKind.DEVICE, 0, 7, 3, 70_000, 75_000));
    launch(r, 4, "cudaLaunchKernel", 120_000);
    r.add(kernel("ampere_sgemm_128x64_nn", 7, 4, 120_010, 130_000));
    launch(r, 5, "cudaLaunchKernel", 121_000);
    r.add(kernel("ampere_sgemm_128x64_nn", 7, 5, 130_020, 140_000));
    launch(r, 6, "cudaLaunchKernel", 122_000);
    r.add(kernel("elementwise_kernel", 7, 6, lastKernelStart, lastKernelStart + 10_000));
    launch(r, 7, "cudaLaunchKernel", 210_000);
    r.add(kernel("ampere_sgemm_128x64_nn", 7, 7, 210_100, 220_000));
    r.add(kernel("ampere_sgemm_128x64_nn", 7, 0, 230_000, 231_000));
    return r;
  }

  private static void launch(List<TraceRecord> r, long corr, String name, long at) {
    r.add(new ApiCallRecord(ApiKind.LAUNCH, name, T, corr, at, at + 5_000));
  }

  private static KernelRecord kernel(String name, int stream, long corr, long start, long end) {
    return new KernelRecord(name, 0, stream, corr, start, end, Dim3.ONE, Dim3.ONE, -1, -1, -1);
  }

  @Test
  void theStepsWindowTakesTheWorkLaunchedBeforeTheLastStep() {
    List<TraceRecord> t = trace(180_000);
    Window w = Window.of(null, t);
    assertThat(w.spec()).isEqualTo("steps");
    assertThat(w.steps()).isEqualTo(2);
    assertThat(w.toNs()).isEqualTo(200_000);
    assertThat(w.description()).contains("ProfilerStep#1 to #2", "2 of 3 steps");
    assertThat(Breakdown.of(w, t).ops()).isEqualTo(6);
  }

  @Test
  void everyFigureOfTheHandMadeTraceIsTheOneWorkedOutByHand() {
    Breakdown b = Breakdown.of(Window.of("steps", trace(180_000)), trace(180_000));
    assertThat(b.temporal()).isEqualTo(new Breakdown.Temporal(170_000, 80_030, 69_970, 20_000));
    assertThat(b.kernelTypes()).extracting(TypeTime::type, TypeTime::ns).containsExactly(
        tuple("COMPUTATION", 49_970L), tuple("COMPUTATION overlapping COMMUNICATION", 20_000L),
        tuple("COMMUNICATION", 15_000L), tuple("COMMUNICATION overlapping MEMORY", 5_000L));
    assertThat(b.commCompOverlap()).isEqualTo(0.5);
    assertThat(b.idle()).containsExactly(new StreamIdle(0, 7, 45_010, 10_020, 40_000, 4),
        new StreamIdle(0, 13, 0, 0, 0, 0));
    QueueLength q7 = b.queues().getFirst();
    assertThat(q7).extracting(QueueLength::stream, QueueLength::samples, QueueLength::min, QueueLength::max,
        QueueLength::p25, QueueLength::p50, QueueLength::p75).containsExactly(7, 10L, 0, 2, 0.0, 1.0, 1.0);
    assertThat(q7.mean()).isCloseTo(0.7, within(1e-12));
    assertThat(q7.std()).isCloseTo(Math.sqrt(4.1 / 9), within(1e-12));
    assertThat(b.queues().get(1)).extracting(QueueLength::samples, QueueLength::p25, QueueLength::p50,
        QueueLength::p75).containsExactly(2L, 0.25, 0.5, 0.75);
    assertThat(b.annotations()).containsExactly(new AnnotationTime("fwd", 3, 2, 85_000, 85_000 / 114_970.0),
        new AnnotationTime("ProfilerStep#2", 3, 3, 29_970, 29_970 / 114_970.0));
  }

  @Test
  void aStepRangeRunsFromItsFirstStepsStartToTheNextStepsStart() {
    List<TraceRecord> t = trace(180_000);
    Window two = Window.of("2:2", t);
    assertThat(List.of(two.fromNs(), two.toNs())).containsExactly(100_000L, 200_000L);
    assertThat(Breakdown.of(two, t).ops()).isEqualTo(3);
    Window toLast = Window.of("1:3", t);
    assertThat(toLast.toNs()).isEqualTo(250_001);
    assertThat(Breakdown.of(toLast, t).ops()).isEqualTo(8);
    assertThat(Window.of("2:", t).toNs()).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void aTimeRangeCountsFromTheTracesFirstRecord() {
    List<TraceRecord> t = trace(180_000);
    Window w = Window.of("0ms:0.1ms", t);
    assertThat(List.of(w.fromNs(), w.toNs())).containsExactly(0L, 100_000L);
    assertThat(Breakdown.of(w, t).ops()).isEqualTo(3);
    assertThat(Window.of(":120us", t).toNs()).isEqualTo(120_000);
  }

  @Test
  void aTraceWithoutStepsDefaultsToAllAndRefusesSteps() {
    List<TraceRecord> t = trace(180_000);
    t.removeIf(r -> r instanceof MarkerRecord m && m.name().startsWith("ProfilerStep"));
    Window w = Window.of(null, t);
    assertThat(w.whole()).isTrue();
    assertThat(w.description()).contains("no ProfilerStep annotations");
    assertThatThrownBy(() -> Window.of("steps", t)).hasMessageContaining("no ProfilerStep annotations");
    assertThatThrownBy(() -> Window.of("1:2", t)).hasMessageContaining("no ProfilerStep annotations to number");
  }

  @Test
  void aBadWindowIsRefusedWithWhatIsWrong() {
    List<TraceRecord> t = trace(180_000);
    assertThatThrownBy(() -> Window.of("5:6", t)).hasMessage("--window 5:6: the trace has no ProfilerStep#5 (its"
        + " steps are #1 to #3)");
    assertThatThrownBy(() -> Window.of("3:1", t)).hasMessageContaining("step 1 comes before step 3");
    assertThatThrownBy(() -> Window.of("x:y", t)).hasMessageContaining("'x' is neither a step number nor a time");
    assertThatThrownBy(() -> Window.of("some", t)).hasMessageContaining("expected steps, all or FROM:TO");
    assertThatThrownBy(() -> Window.of("2ms:1ms", t)).hasMessageContaining("ends before it starts");
  }

  @Test
  void kernelWaitIsTiedToTheLaunchBoundHostAndTheLeversThatAddressIt() {
    Breakdown b = Breakdown.of(Window.of(null, trace(180_000)), trace(180_000));
    List<Hypothesis> ranked = List.of(new Hypothesis(Cause.FALSE_SERIALIZATION, 0.2, 0.1, 0.3, 0.01, 0.9, List.of()),
        new Hypothesis(Cause.LAUNCH_BOUND_HOST, 0.08, 0.05, 0.1, 0.01, 0.8, List.of()));
    Map<Cause, List<String>> levers = Map.of(Cause.LAUNCH_BOUND_HOST, List.of("graph-capture"));
    List<Ties.Tie> ties = Ties.of(b, ranked, c -> levers.getOrDefault(c, List.of()));
    Ties.Tie kernelWait = ties.stream().filter(x -> x.figure().equals("kernel wait")).findFirst().orElseThrow();
    assertThat(kernelWait.ns()).isEqualTo(10_020);
    assertThat(kernelWait.found()).containsExactly(new Ties.Found(2, Cause.LAUNCH_BOUND_HOST, 0.08));
    assertThat(kernelWait.summary()).isEqualTo("kernel wait is 2.9% of the streams' time (span × 2 streams)"
        + " (0.010 ms): launch-bound host (cause #2, 8.0% of the span); lever graph-capture addresses it");
    Ties.Tie exposed = ties.stream().filter(x -> x.figure().equals("exposed communication")).findFirst()
        .orElseThrow();
    assertThat(exposed.ns()).isEqualTo(20_000);
    assertThat(exposed.summary()).contains("false serialization (cause #1");
    Ties.Tie compute = ties.stream().filter(x -> x.figure().equals("compute")).findFirst().orElseThrow();
    assertThat(compute.summary()).contains("no ranked cause explains it");
  }

  @Test
  void theBaselineComparisonRanksTheLostTimeThatGrewPerStep() {
    List<TraceRecord> base = trace(180_000);
    List<TraceRecord> run = trace(190_000);
    BreakdownDiff d = BreakdownDiff.compare(Breakdown.of(Window.of(null, base), base),
        Breakdown.of(Window.of(null, run), run));
    assertThat(d.unit()).isEqualTo("step");
    assertThat(d.lost()).extracting(BreakdownDiff.Delta::figure, BreakdownDiff.Delta::change).containsExactly(
        tuple("device 0 stream 7 other idle", 5_000.0), tuple("idle", 5_000.0));
    assertThat(d.figures()).filteredOn(x -> x.figure().equals("span")).singleElement()
        .extracting(BreakdownDiff.Delta::baseline, BreakdownDiff.Delta::run).containsExactly(85_000.0, 90_000.0);
  }
}
