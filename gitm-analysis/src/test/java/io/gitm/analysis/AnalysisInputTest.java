package io.gitm.analysis;

import static io.gitm.analysis.Records.HW;
import static io.gitm.analysis.Records.META;
import static io.gitm.analysis.Records.kernel;
import static io.gitm.analysis.Records.sample;
import static io.gitm.analysis.Records.work;
import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.analysis.attribution.Cause;
import io.gitm.trace.ApiKind;
import io.gitm.trace.Precision;
import io.gitm.trace.StateField;
import io.gitm.trace.StateSample;
import io.gitm.trace.TraceRecord;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Bad input becomes explicit diagnostics: never an exception, never a silent zero. */
class AnalysisInputTest {
  /** Ten 1 ms memory-bound kernels back to back, with a state sample before each. */
  private static List<TraceRecord> healthy(int device) {
    List<TraceRecord> t = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      long at = i * 1_001_000L;
      t.add(sample(device, at, 1000, 0));
      t.add(kernel("stream", 7, i + 1, at, at + 1_000_000, 1000));
      t.add(work("stream", 7, i + 1, at, 0, Precision.FP32, 1_000_000));
    }
    return t;
  }

  @Test
  void anEmptyTraceIsSaidAndHasNoHypotheses() {
    Analysis.Result a = Analysis.analyze(META, List.of(), HW);
    assertThat(a.diagnostics()).anyMatch(d -> d.contains("no kernel records") && d.contains("empty"))
        .anyMatch(d -> d.contains("no state samples"));
    assertThat(a.nodes()).isZero();
    assertThat(a.hypotheses()).isEmpty();
    assertThat(a.violations()).isEmpty();
  }

  @Test
  void aTraceWithoutKernelsSaysKernelTimeCannotBeJudged() {
    List<TraceRecord> t = List.of(Records.api(ApiKind.ALLOC, "cuMemAlloc_v2", 1, 0, 30_000),
        sample(0, 0, 1000, 0), sample(0, 1_000_000, 1000, 0));
    Analysis.Result a = Analysis.analyze(META, t, HW);
    assertThat(a.diagnostics()).anyMatch(d -> d.contains("no kernel records") && !d.contains("empty"));
    assertThat(a.hypotheses()).isEmpty();
  }

  @Test
  void recordsOfADeviceTheMetaDoesNotListAreAnalyzedAndSaid() {
    List<TraceRecord> t = new ArrayList<>(healthy(0));
    t.add(new io.gitm.trace.KernelRecord("stray", 3, 7, 99, 30_000_000, 30_001_000, io.gitm.trace.Dim3.ONE,
        io.gitm.trace.Dim3.ONE, 32, 0, 0));
    Analysis.Result a = Analysis.analyze(META, t, HW);
    assertThat(a.diagnostics()).anyMatch(d -> d.contains("device(s) [3]") && d.contains("does not list"));
    assertThat(a.nodes()).isEqualTo(11);
  }

  @Test
  void stateSamplesGoingBackInTimeAreLeftOutAndSaid() {
    List<TraceRecord> t = new ArrayList<>(healthy(0));
    // a throttled sample stamped before the previous one: it must not become a clock cause
    t.add(sample(0, 5_000_000, 500, 0x4));
    Analysis.Result a = Analysis.analyze(META, t, HW);
    assertThat(a.diagnostics()).anyMatch(d -> d.startsWith("1 state sample(s) go back in time (first at 5000000 ns)"));
    assertThat(a.hypotheses()).noneMatch(h -> h.cause() == Cause.POWER_THROTTLING);
  }

  @Test
  void notANumberInTelemetryIsCountedAsMissingAndNeverBecomesACause() {
    List<TraceRecord> t = new ArrayList<>();
    for (TraceRecord r : healthy(0)) {
      if (r instanceof StateSample s) {
        Map<StateField, Double> m = new EnumMap<>(StateField.class);
        m.put(StateField.SM_CLOCK, Double.NaN);
        m.put(StateField.CLOCK_EVENT_REASONS, (double) 0x80);
        m.put(StateField.POWER, 300.0);
        m.put(StateField.TEMPERATURE, Double.POSITIVE_INFINITY);
        t.add(StateSample.of(0, s.timeNs(), m));
      } else {
        t.add(r);
      }
    }
    Analysis.Result a = Analysis.analyze(META, t, HW);
    assertThat(a.diagnostics()).anyMatch(d -> d.equals("SM_CLOCK is missing (not read, or NaN) in 10 of 10 state"
        + " samples: causes that need it cannot be judged")).anyMatch(d -> d.startsWith("TEMPERATURE is missing"));
    assertThat(a.hypotheses()).noneMatch(h -> h.cause() == Cause.POWER_BRAKE);
  }

  @Test
  void aTraceWhoseKernelsDeclareNoWorkIsSaidToBeJudgedEmpirically() {
    List<TraceRecord> t = new ArrayList<>();
    for (TraceRecord r : healthy(0)) {
      if (!(r instanceof io.gitm.trace.WorkRecord)) {
        t.add(r);
      }
    }
    Analysis.Result a = Analysis.analyze(META, t, HW);
    assertThat(a.modelNodes()).isZero();
    assertThat(a.diagnostics()).anyMatch(d -> d.contains("no kernel declares its work"));
  }

  @Test
  void aDeviceTheMetaListsButNoRecordNamesIsSaid() {
    io.gitm.trace.TraceMeta two = new io.gitm.trace.TraceMeta("test", META.clock(), List.of(META.devices().getFirst(),
        new io.gitm.trace.TraceDevice(1, "Test GPU", "GPU-test-1", io.gitm.trace.DeviceKind.REAL)), Map.of());
    Analysis.Result a = Analysis.analyze(two, healthy(0), HW);
    assertThat(a.diagnostics()).anyMatch(d -> d.startsWith("the trace's meta lists device(s) [1] that no record"));
  }

  @Test
  void kernelsOverlappingOnOneStreamAreNamedWithHowManyAndTheFirst() {
    List<TraceRecord> t = new ArrayList<>(healthy(0));
    // recorded last, stamped inside the third kernel
    t.add(kernel("late", 7, 99, 2_500_000, 2_600_000, 1000));
    Analysis.Result a = Analysis.analyze(META, t, HW);
    assertThat(a.diagnostics()).anyMatch(d -> d.startsWith("kernel timestamps on device 0 stream 7 go backwards: 1"
        + " kernel(s) start before the previous one on the stream ended (by up to 502000 ns; first: 'late' corr 99"
        + " at 2500000 ns overlaps 'stream' corr 3 at 2002000 ns)"));
  }

  @Test
  void kernelsOutOfFileOrderButApartInTimeAreNoDiagnostic() {
    List<TraceRecord> t = new ArrayList<>(healthy(0));
    Collections.reverse(t);
    List<TraceRecord> early = List.of(kernel("early", 7, 99, 10_100_000, 10_200_000, 1000));
    t.addAll(0, early);
    Analysis.Result a = Analysis.analyze(META, t, HW);
    assertThat(a.diagnostics()).noneMatch(d -> d.contains("go backwards"));
  }

  @Test
  void aTraceWithOnlyCopiesModelledStillSaysNoKernelDeclaresItsWork() {
    List<TraceRecord> t = new ArrayList<>();
    for (TraceRecord r : healthy(0)) {
      if (!(r instanceof io.gitm.trace.WorkRecord)) {
        t.add(r);
      }
    }
    t.add(Records.copy(io.gitm.trace.CopyKind.HTOD, 1 << 20, false, 7, 50, 20_000_000, 20_200_000));
    Analysis.Result a = Analysis.analyze(META, t, HW);
    assertThat(a.modelNodes()).isEqualTo(1);
    assertThat(a.byBasis()).containsOnlyKeys(io.gitm.planner.Graph.Basis.EMPIRICAL,
        io.gitm.planner.Graph.Basis.COPY_MODEL);
    assertThat(a.diagnostics()).anyMatch(d -> d.contains("no kernel declares its work"));
  }

  @Test
  void importerNotesOpenTheDiagnostics() {
    Analysis.Result a = Analysis.analyze(META, healthy(0), HW, List.of("3 kernel event(s) have a negative dur"));
    assertThat(a.diagnostics()).first().isEqualTo("3 kernel event(s) have a negative dur");
  }

  @Test
  void aHealthyTraceHasNoDiagnosticsAndNoHypotheses() {
    Analysis.Result a = Analysis.analyze(META, healthy(0), HW);
    assertThat(a.diagnostics()).isEmpty();
    assertThat(a.hypotheses()).isEmpty();
    assertThat(a.modelNodes()).isEqualTo(10);
  }
}
