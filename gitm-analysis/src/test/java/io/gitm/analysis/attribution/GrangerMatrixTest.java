package io.gitm.analysis.attribution;

import static io.gitm.analysis.Records.HW;
import static io.gitm.analysis.Records.META;
import static io.gitm.analysis.Records.api;
import static io.gitm.analysis.Records.kernel;
import static io.gitm.analysis.Records.sample;
import static io.gitm.analysis.Records.work;
import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.analysis.Analysis;
import io.gitm.stats.Granger;
import io.gitm.trace.ApiKind;
import io.gitm.trace.Precision;
import io.gitm.trace.TraceRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The Granger matrix of telemetry × residual series on hand-made traces, as evidence on the hypotheses. */
class GrangerMatrixTest {
  /**
   * 400 intervals of 1 ms, a sample at each start and a kernel of about 0.9 ms in each; in about a third of them a
   * plain allocation at the interval's end holds the host, and the next kernel starts {@code delayNs} late: allocator
   * time in interval i leads device idle in interval i + 1.
   */
  private static List<TraceRecord> allocationsBeforeLateKernels(long delayNs) {
    List<TraceRecord> t = new ArrayList<>();
    SplittableRandom rnd = new SplittableRandom(11);
    boolean late = false;
    long corr = 1;
    for (int i = 0; i < 400; i++) {
      long at = i * 1_000_000L;
      t.add(sample(0, at, 1000, 0));
      long start = at + 10_000 + (late ? delayNs : 0);
      long dur = 850_000 + rnd.nextInt(40_000);
      t.add(kernel("gemm", 7, corr, start, start + dur, 1000));
      t.add(work("gemm", 7, corr, start, 0.85e10, Precision.FP32, 1000));
      corr++;
      late = rnd.nextInt(3) == 0;
      if (late) {
        t.add(api(ApiKind.ALLOC, "cudaMalloc", corr++, at + 940_000, at + 990_000));
      }
    }
    return t;
  }

  @Test
  void allocatorCallsThatLeadTheDeviceIdleAreASignificantPairOnTheAllocatorHypothesis() {
    Hypothesis h = Analysis.analyze(META, allocationsBeforeLateKernels(400_000), HW).hypotheses().stream()
        .filter(x -> x.cause() == Cause.ALLOCATOR_STALL).findFirst().orElseThrow();
    assertThat(h.evidence()).filteredOn(e -> e.kind().equals("granger")
            && "allocator calls".equals(e.data().get("x")) && "device idle".equals(e.data().get("y"))).singleElement()
        .satisfies(e -> {
          assertThat(e.data()).containsEntry("testable", true).containsEntry("significant", true);
          double p = (Double) e.data().get("p");
          double adjusted = (Double) e.data().get("pAdjusted");
          assertThat(adjusted).isGreaterThanOrEqualTo(p).isLessThanOrEqualTo(GrangerMatrix.Q);
          assertThat(e.summary()).contains("BH-adjusted");
        });
    // the kernels' slowness never changes with the allocations: that pair is tested and not significant, or says why
    assertThat(h.evidence()).filteredOn(e -> e.kind().equals("granger")
            && "allocator calls".equals(e.data().get("x")) && "kernel slowness".equals(e.data().get("y")))
        .singleElement().satisfies(e -> assertThat(e.data()).doesNotContainEntry("significant", true));
    // memory in use is the allocator's other series; the samples here do not hold it
    assertThat(h.evidence()).filteredOn(e -> e.summary().startsWith("Granger matrix")).singleElement()
        .satisfies(e -> assertThat(e.summary()).contains("over 399 sample intervals").contains("memory in use"));
  }

  @Test
  void theClockPairsOfTheMatrixGoOnlyToClockCausesAndTheAllocatorPairsOnlyToTheAllocator() {
    Hypothesis h = Analysis.analyze(META, allocationsBeforeLateKernels(400_000), HW).hypotheses().stream()
        .filter(x -> x.cause() == Cause.ALLOCATOR_STALL).findFirst().orElseThrow();
    assertThat(h.evidence()).filteredOn(e -> e.kind().equals("granger") && e.data().containsKey("x"))
        .extracting(e -> e.data().get("x")).containsOnly("allocator calls");
  }
}
