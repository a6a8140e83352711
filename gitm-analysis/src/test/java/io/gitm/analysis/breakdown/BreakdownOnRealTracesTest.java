package io.gitm.analysis.breakdown;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.assertj.core.api.Assertions.within;

import io.gitm.analysis.breakdown.Breakdown.AnnotationTime;
import io.gitm.analysis.breakdown.Breakdown.QueueLength;
import io.gitm.analysis.breakdown.Breakdown.StreamIdle;
import io.gitm.analysis.breakdown.Breakdown.TypeTime;
import io.gitm.testkit.Fixtures;
import io.gitm.trace.TraceRecord;
import io.gitm.tracer.KinetoImporter;
import io.gitm.tracer.TraceReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The breakdowns of the PyTorch 2.11 profiler traces recorded on the H200 (gitm-trace's test resources
 * {@code tracer/real/kineto/}), pinned against {@code scripts/breakdown_oracle.py}: the same definitions computed
 * independently in Python from the JSON with exact decimal times. Each trace has six ProfilerStep annotations, so the
 * default window is steps 1 to 5.
 */
class BreakdownOnRealTracesTest {
  @TempDir
  Path tmp;

  private List<TraceRecord> trace(String job) throws Exception {
    Path json = Fixtures.file("/tracer/real/kineto/" + job + ".pt.trace.json.gz");
    Path gtrace = tmp.resolve(job + ".gtrace");
    KinetoImporter.importTrace(json, gtrace);
    List<TraceRecord> out = new ArrayList<>();
    try (TraceReader r = TraceReader.open(gtrace)) {
      r.read(out::add);
    }
    return out;
  }

  private Breakdown of(String job, String window) throws Exception {
    List<TraceRecord> t = trace(job);
    return Breakdown.of(Window.of(window, t), t);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({
      "single-stream-mlp, 215, 19581247, 17257296, 2197300, 126651",
      "two-streams, 65, 16332168, 2026944, 13702760, 602464",
      "cuda-graph, 240, 1931455, 986853, 888509, 56093",
      "memory-stack, 40, 3197954, 3088485, 102430, 7039",
      "nccl-one-rank, 40, 4203902, 3786427, 361441, 56034"})
  void theTemporalBreakdownOfTheStepsWindowIsExact(String job, int ops, long span, long idle, long compute,
      long nonCompute) throws Exception {
    Breakdown b = of(job, null);
    assertThat(b.window().spec()).isEqualTo("steps");
    assertThat(b.window().steps()).isEqualTo(5);
    assertThat(b.ops()).isEqualTo(ops);
    assertThat(b.temporal()).isEqualTo(new Breakdown.Temporal(span, idle, compute, nonCompute));
    assertThat(b.commCompOverlap()).isNaN();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({
      "single-stream-mlp, 17120108, 137188, 0, 214, 430, 0.5651162790697675, 0.5582121481108041, 0, 0, 1, 1, 2",
      "cuda-graph, 685216, 301637, 0, 239, 30, 0.7666666666666667, 0.6789105539243627, 0, 0, 1, 1, 2",
      "memory-stack, 3029861, 58624, 0, 39, 80, 0.55, 0.5488768739752204, 0, 0, 1, 1, 2",
      "nccl-one-rank, 3764155, 22272, 0, 39, 80, 0.5, 0.5031546054266276, 0, 0, 0.5, 1, 1"})
  void theIdleAndQueueLengthOfOneStreamAreExact(String job, long host, long kernel, long other, long gaps,
      long samples, double mean, double std, int min, double p25, double p50, double p75, int max) throws Exception {
    Breakdown b = of(job, "steps");
    assertThat(b.idle()).containsExactly(new StreamIdle(0, 7, host, kernel, other, gaps));
    assertThat(b.queues()).hasSize(1);
    QueueLength q = b.queues().getFirst();
    assertThat(q.samples()).isEqualTo(samples);
    assertThat(q.mean()).isCloseTo(mean, within(1e-12));
    assertThat(q.std()).isCloseTo(std, within(1e-12));
    assertThat(List.of(q.min(), q.max())).containsExactly(min, max);
    assertThat(List.of(q.p25(), q.p50(), q.p75())).containsExactly(p25, p50, p75);
  }

  @Test
  void theTwoStreamsJobBreaksDownPerStreamAndByOverlappingKernelTypes() throws Exception {
    Breakdown b = of("two-streams", null);
    assertThat(b.kernelTypes()).extracting(TypeTime::type, TypeTime::ns).containsExactly(
        tuple("COMPUTATION", 8103428L),
        tuple("COMPUTATION overlapping MEMORY", 5599332L),
        tuple("MEMORY", 602464L));
    assertThat(b.kernelTypes().getFirst().share()).isCloseTo(8103428.0 / 14305224, within(1e-15));
    assertThat(b.idle()).containsExactly(new StreamIdle(0, 7, 13329478, 43970, 0, 19),
        new StreamIdle(0, 14, 7975747, 31040, 0, 19), new StreamIdle(0, 18, 3004449, 60926, 0, 24));
    assertThat(b.queues()).extracting(QueueLength::stream, QueueLength::samples, QueueLength::mean)
        .containsExactly(tuple(7, 40L, 2.0),
            tuple(14, 40L, 1.25), tuple(18, 50L, 1.7));
  }

  @Test
  void theWholeTraceKeepsTheLastStepsWork() throws Exception {
    Breakdown b = of("two-streams", "all");
    assertThat(b.window().whole()).isTrue();
    assertThat(b.ops()).isEqualTo(66);
    assertThat(b.temporal()).isEqualTo(new Breakdown.Temporal(17046088, 2398496, 14045128, 602464));
    assertThat(b.idle().get(1)).isEqualTo(new StreamIdle(0, 14, 9866500, 31040, 0, 20));
    assertThat(b.queues().get(1).samples()).isEqualTo(42);
  }

  @Test
  void backwardKernelsLaunchedByAutogradsThreadBelongToTheMainThreadsAnnotation() throws Exception {
    Breakdown b = of("single-stream-mlp", null);
    assertThat(b.annotations()).extracting(AnnotationTime::name).startsWith("backward", "forward",
        "Optimizer.step#Adam.step", "data");
    assertThat(b.annotations().getFirst()).isEqualTo(new AnnotationTime("backward", 115, 110, 802045,
        802045.0 / (802045 + 711573 + 693056 + 107839 + 2015 + 1857 + 1856 + 1855 + 1855)));
    assertThat(b.annotations()).noneMatch(a -> a.name().equals(Breakdown.NO_ANNOTATION));
  }

  @Test
  void collectivesAnnotateTheirCopies() throws Exception {
    Breakdown b = of("nccl-one-rank", null);
    assertThat(b.annotations()).contains(new AnnotationTime("nccl:_all_gather_base", 5, 0, 40577,
        b.annotations().stream().filter(a -> a.name().equals("nccl:_all_gather_base")).findFirst().orElseThrow()
            .share()));
    assertThat(b.annotations().stream().mapToLong(AnnotationTime::ops).sum()).isEqualTo(40);
  }
}
