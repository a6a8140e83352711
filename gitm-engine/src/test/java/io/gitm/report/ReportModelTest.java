package io.gitm.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.report.Report.Claim;
import io.gitm.report.Report.Estimate;
import io.gitm.report.Report.Evidence;
import io.gitm.report.Report.EvidenceRef;
import io.gitm.report.Report.Intervention;
import io.gitm.report.Report.PhaseUse;
import io.gitm.report.Report.Qualification;
import io.gitm.report.Report.Series;
import io.gitm.report.Report.Span;
import io.gitm.report.Report.SpanKind;
import io.gitm.report.Report.Trial;
import io.gitm.report.Report.Verdict;
import io.gitm.trace.DeviceKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

class ReportModelTest {

  private static void refused(Executable e, String messagePart) {
    assertThatThrownBy(e::execute).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(messagePart)
        .satisfies(t -> assertThat(t.getMessage()).doesNotContain("\n"));
  }

  @Test
  void estimateOutsideItsIntervalIsRefused() {
    refused(() -> new Estimate(0.2, 0.0, 0.1), "outside its interval");
    refused(() -> new Estimate(Double.NaN, 0.0, 0.1), "finite");
  }

  @Test
  void claimCitingAViolationTheReportDoesNotHoldIsRefused() {
    Report s = SampleReports.sample();
    List<Claim> claims = new ArrayList<>(s.claims());
    claims.add(new Claim("C9", "made up", List.of(EvidenceRef.violation("V99", null)), null, null));
    refused(() -> new Report(s.run(), s.phases(), s.baseline(), s.outcome(), s.qualification(), s.violations(),
        s.hypotheses(), s.trials(), claims, s.charts(), s.notes()), "cites violation 'V99'");
  }

  @Test
  void claimCitingAnUnknownHypothesisOrTrialIsRefused() {
    Report s = SampleReports.sample();
    List<Claim> withHypothesis =
        List.of(new Claim("C9", "x", List.of(EvidenceRef.hypothesis("H99", null)), null, null));
    refused(() -> new Report(s.run(), s.phases(), s.baseline(), s.outcome(), s.qualification(), s.violations(),
        s.hypotheses(), s.trials(), withHypothesis, s.charts(), s.notes()), "cites hypothesis 'H99'");
    List<Claim> withTrial = List.of(new Claim("C9", "x", List.of(EvidenceRef.hypothesis("H1", null)),
        new Intervention(List.of("pinned-host-memory"), "pin", 42), new Estimate(0.1, 0.05, 0.15)));
    refused(() -> new Report(s.run(), s.phases(), s.baseline(), s.outcome(), s.qualification(), s.violations(),
        s.hypotheses(), s.trials(), withTrial, s.charts(), s.notes()), "cites trial 42");
  }

  @Test
  void claimWithoutEvidenceOrWithInterventionButNoDeltaIsRefused() {
    refused(() -> new Claim("C1", "x", List.of(), null, null), "cites no evidence");
    refused(() -> new Claim("C1", "x", List.of(EvidenceRef.hypothesis("H1", null)),
        new Intervention(List.of("l"), "d", null), null), "no measured delta");
  }

  @Test
  void traceEvidenceNeedsATimeRangeAndOthersTakeNone() {
    refused(() -> new EvidenceRef(Report.RefKind.TRACE, "stream 7", null, 5L, null), "needs a time range");
    refused(() -> EvidenceRef.trace("stream 7", 10, 5, null), "ends before it starts");
    refused(() -> new EvidenceRef(Report.RefKind.VIOLATION, "V1", 1L, 2L, null), "takes no time range");
  }

  @Test
  void unreachableTargetNeedsAFloorDiagnosis() {
    refused(() -> new Qualification(Map.of(), new Estimate(0.05, 0.02, 0.08), false, null), "no floor diagnosis");
    assertThat(new Qualification(null, new Estimate(0.2, 0.1, 0.3), true, null).fingerprint()).isEmpty();
  }

  @Test
  void keptTrialNeedsAMeasurementAndAPValueGoesWithIt() {
    refused(() -> new Trial(1, List.of("l"), "A", 0.1, 0.01, null, null, Verdict.KEPT, "ok", 8, 1), "kept without");
    refused(() -> new Trial(1, List.of("l"), "A", 0.1, 0.01, new Estimate(0.1, 0.05, 0.15), null,
        Verdict.ROLLED_BACK, "x", 8, 1), "no p-value");
    refused(() -> new Trial(0, List.of("l"), "A", 0.1, 0.01, null, null, Verdict.ROLLED_BACK, "x", 8, 1), "from 1");
    refused(() -> new Trial(1, List.of(), "A", 0.1, 0.01, null, null, Verdict.ROLLED_BACK, "x", 8, 1),
        "names no lever");
    refused(() -> new Trial(1, List.of("l"), "A", 0.1, 0.01, new Estimate(0.1, 0.05, 0.15), 1.5,
        Verdict.KEPT, "x", 8, 1), "p-value");
  }

  @Test
  void seriesWithMismatchedOrBackwardTimesIsRefused() {
    refused(() -> new Series("SM clock", "MHz", List.of(0.0, 1.0), List.of(1.0)), "2 times but 1 values");
    refused(() -> new Series("SM clock", "MHz", List.of(1.0, 0.5), List.of(1.0, 2.0)), "goes back in time");
    refused(() -> new Series("SM clock", "MHz", List.of(0.0), List.of(Double.POSITIVE_INFINITY)), "finite");
  }

  @Test
  void spanEndingBeforeItStartsIsRefused() {
    refused(() -> new Span("k", 10, 5, SpanKind.KERNEL), "ends (5 ns) before it starts");
  }

  @Test
  void duplicateIdsAreRefused() {
    Report s = SampleReports.sample();
    List<PhaseUse> phases = List.of(new PhaseUse("profile", 1, 1), new PhaseUse("profile", 1, 1));
    refused(() -> new Report(s.run(), phases, s.baseline(), null, null, null, null, null, null, null, null),
        "phase 'profile' appears more than once");
    List<Report.Violation> twice = List.of(s.violations().getFirst(), s.violations().getFirst());
    refused(() -> new Report(s.run(), s.phases(), s.baseline(), null, null, twice, null, null, null, null, null),
        "violation id 'V1'");
  }

  @Test
  void aSchemaVersionOtherThanTheCurrentIsRefused() {
    Report s = SampleReports.sample();
    refused(() -> new Report(1, s.run(), s.phases(), s.baseline(), null, null, null, null, null, null, null, null),
        "schema version 1");
  }

  @Test
  void evidenceDataKeepsPlainValuesOnlyAndNormalisesNumbers() {
    Evidence e = new Evidence("granger", "x", SampleReports.data("lag", 2, "F", 14.2f, "ok", true,
        "records", List.of("a", 3)));
    assertThat(e.data()).containsEntry("lag", 2L).containsEntry("ok", true).containsEntry("records", List.of("a", 3L));
    assertThat((Double) e.data().get("F")).isCloseTo(14.2, org.assertj.core.data.Offset.offset(1e-5));
    refused(() -> new Evidence("granger", "x", Map.of("m", Map.of())), "strings, numbers, booleans");
    refused(() -> new Evidence("granger", "x", Map.of("nested", List.of(List.of(1)))), "strings, numbers, booleans");
    refused(() -> new Evidence("granger", "x", Map.of("F", Double.NaN)), "finite");
  }

  @Test
  void budgetOverrunIsWhatThePhasesUsedBeyondTheBudget() {
    Report s = SampleReports.sample();
    assertThat(s.budgetOverrunSeconds()).isZero();
    double used = s.phases().stream().mapToDouble(PhaseUse::usedSeconds).sum();
    List<PhaseUse> over = new ArrayList<>(s.phases());
    over.add(new PhaseUse("extra", 0, s.run().budgetSeconds() - used + 7.5));
    Report late = new Report(s.run(), over, s.baseline(), null, null, null, null, null, null, null, null);
    assertThat(late.budgetOverrunSeconds()).isCloseTo(7.5, org.assertj.core.data.Offset.offset(1e-9));
  }

  @Test
  void bannerSaysSimulatedAndSampleAndNothingForARealRun() {
    assertThat(SampleReports.sample().banner()).contains("SIMULATED").contains("SAMPLE");
    assertThat(SampleReports.bare(DeviceKind.SIMULATED).banner()).contains("SIMULATED").doesNotContain("SAMPLE");
    assertThat(SampleReports.bare(DeviceKind.REAL).banner()).isNull();
  }

  @Test
  void missingListsAreEmptyButNullElementsAreRefused() {
    Report bare = SampleReports.bare(DeviceKind.REAL);
    assertThat(bare.trials()).isEmpty();
    assertThat(bare.charts().residuals()).isEmpty();
    List<String> notes = new ArrayList<>();
    notes.add(null);
    refused(() -> new Report(bare.run(), bare.phases(), bare.baseline(), null, null, null, null, null, null, null,
        notes), "report notes[0] is missing");
  }
}
