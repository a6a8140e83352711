package io.gitm.analysis.attribution;

import static io.gitm.analysis.Records.HW;
import static io.gitm.analysis.Records.META;
import static io.gitm.analysis.Records.kernel;
import static io.gitm.analysis.Records.sample;
import static io.gitm.analysis.Records.work;
import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.analysis.Analysis;
import io.gitm.analysis.monitor.Monitor;
import io.gitm.planner.Graph;
import io.gitm.planner.Planner;
import io.gitm.trace.Precision;
import io.gitm.trace.TraceRecord;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The doubly robust estimates of per-kernel conditions on the kernel's residual, on hand-made traces. */
class ConditionsTest {
  /**
   * 600 compute-bound kernels of 1 ms of work, one per 2 ms sample interval; in about a third of the intervals the
   * clock is held at 600 MHz by a clock setting and the kernel takes 1000/600 as long.
   */
  private static List<TraceRecord> throttledAtRandom() {
    List<TraceRecord> t = new ArrayList<>();
    SplittableRandom rnd = new SplittableRandom(5);
    for (int i = 0; i < 600; i++) {
      long at = i * 2_000_000L;
      boolean slow = rnd.nextInt(3) == 0;
      double clock = slow ? 600 : 1000;
      t.add(sample(0, at, clock, slow ? 0x2 : 0));
      long dur = (long) (1_000_000 * (1000 / clock) * (0.97 + 0.06 * rnd.nextDouble()));
      t.add(kernel("gemm", 7, i + 1, at + 1_000, at + 1_000 + dur, 1000));
      t.add(work("gemm", 7, i + 1, at + 1_000, 1e10, Precision.FP32, 1000));
    }
    return t;
  }

  private static Optional<Evidence> aipw(Hypothesis h, String condition) {
    return h.evidence().stream().filter(e -> e.kind().equals("aipw") && condition.equals(e.data().get("condition")))
        .findFirst();
  }

  @Test
  void kernelsAtAThrottledClockTakeLongerOverTheirBoundAndTheClockHypothesisCarriesTheFactor() {
    Hypothesis h = Analysis.analyze(META, throttledAtRandom(), HW).hypotheses().stream()
        .filter(x -> x.cause() == Cause.CLOCK_DROP).findFirst().orElseThrow();
    Evidence e = aipw(h, Conditions.Condition.THROTTLED.label).orElseThrow();
    assertThat(e.data()).containsEntry("outcome", "residual").containsEntry("significant", true);
    // the kernels take 1000/600 = 1.67 times as long at the lowered clock
    assertThat((Double) e.data().get("factor")).isBetween(1.6, 1.73);
    assertThat((Double) e.data().get("ciLow")).isGreaterThan(1.0);
    assertThat((Double) e.data().get("pAdjusted")).isGreaterThanOrEqualTo((Double) e.data().get("p"));
  }

  @Test
  void aLongTraceIsEstimatedOnASeededSampleOfItsKernelsThatTheEvidenceNames() {
    List<TraceRecord> t = throttledAtRandom();
    Graph g = Planner.predict(t, HW);
    Monitor.Result m = Monitor.check(g, t, HW.launchLatencyNs());
    Input in = Input.of(t, g, m, HW);
    Conditions.Estimate e = Conditions.estimates(in, EnumSet.of(Cause.CLOCK_DROP), 300).stream()
        .filter(x -> x.condition() == Conditions.Condition.THROTTLED).findFirst().orElseThrow();
    assertThat(e.sampledFrom()).isEqualTo(600);
    // a random sample of about 300 of the 600 kernels, not every other one
    assertThat(e.effect().n()).isBetween(250, 350).isNotEqualTo(300);
    assertThat(Math.exp(e.effect().ate())).isBetween(1.6, 1.73);
    assertThat(Conditions.evidence(e, 1).summary()).contains("(a seeded sample of the trace's 600)");
    // the same call again takes the same sample
    assertThat(Conditions.estimates(in, EnumSet.of(Cause.CLOCK_DROP), 300).stream()
        .filter(x -> x.condition() == Conditions.Condition.THROTTLED).findFirst().orElseThrow().effect())
        .isEqualTo(e.effect());
  }

  @Test
  void aTraceWithoutNeighbourRecordsSaysSoOnTheContentionHypothesisInsteadOfAnEstimate() {
    // 300 kernels filling the device, each twice its 1 ms of work, with the clock at speed: contention
    List<TraceRecord> t = new ArrayList<>();
    SplittableRandom rnd = new SplittableRandom(2);
    long at = 0;
    for (int i = 0; i < 300; i++) {
      t.add(sample(0, at, 1000, 0));
      long dur = (long) (2_000_000 * (0.97 + 0.06 * rnd.nextDouble()));
      t.add(kernel("gemm", 7, i + 1, at, at + dur, 1000));
      t.add(work("gemm", 7, i + 1, at, 1e10, Precision.FP32, 1000));
      at += dur + 1_000;
    }
    Hypothesis h = Analysis.analyze(META, t, HW).hypotheses().stream().filter(x -> x.cause() == Cause.CONTENTION)
        .findFirst().orElseThrow();
    assertThat(aipw(h, Conditions.Condition.NEIGHBOUR.label)).hasValueSatisfying(e -> assertThat(e.summary())
        .contains("could not be estimated: no state sample of the trace holds the other-process fields"));
    // no copy in the trace: the copy-overlap condition has no treated kernel, and says so
    assertThat(aipw(h, Conditions.Condition.OVERLAPS_COPY.label)).hasValueSatisfying(e -> assertThat(e.summary())
        .contains("0 of 300 kernels with an upper bound have the condition"));
  }

  /**
   * 60 kernel names launched 10 times each in a random order, back to back, 1 ms of work each; when {@code cold} the
   * first launch of each name takes three times as long.
   */
  private static List<TraceRecord> launches(boolean cold) {
    List<TraceRecord> t = new ArrayList<>();
    SplittableRandom rnd = new SplittableRandom(9);
    int[] left = new int[60];
    Arrays.fill(left, 10);
    boolean[] launched = new boolean[60];
    long at = 0;
    for (int i = 0; i < 600; i++) {
      int k;
      do {
        k = rnd.nextInt(60);
      } while (left[k] == 0);
      left[k]--;
      long dur = (long) (1_000_000 * (0.97 + 0.06 * rnd.nextDouble()) * (cold && !launched[k] ? 3 : 1));
      launched[k] = true;
      String name = "kernel" + k;
      t.add(kernel(name, 7, i + 1, at, at + dur, 1000));
      t.add(work(name, 7, i + 1, at, 1e10, Precision.FP32, 1000));
      at += dur + 1_000;
    }
    return t;
  }

  @Test
  void firstLaunchesThatTakeLongerAreAColdStartHypothesisWithTheFactor() {
    List<Hypothesis> hs = Analysis.analyze(META, launches(true), HW).hypotheses();
    Hypothesis h = hs.stream().filter(x -> x.cause() == Cause.COLD_START).findFirst().orElseThrow();
    Evidence e = aipw(h, Conditions.Condition.FIRST_LAUNCH.label).orElseThrow();
    assertThat(e.data()).containsEntry("significant", true).containsEntry("treated", 60);
    assertThat((Double) e.data().get("factor")).isBetween(2.8, 3.2);
    // 60 first launches lose about 2 ms each of a span of about 720 ms
    assertThat(h.effect()).isBetween(0.15, 0.18);
  }

  @Test
  void firstLaunchesAsFastAsTheRestMakeNoColdStartHypothesis() {
    assertThat(Analysis.analyze(META, launches(false), HW).hypotheses()).noneMatch(h -> h.cause() == Cause.COLD_START);
  }
}
