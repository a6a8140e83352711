package io.gitm.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.report.Report.Charts;
import io.gitm.trace.DeviceKind;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/**
 * The report's breakdown section: plotted in HTML (time axis in ms, queue axis in operations), tabled in Markdown,
 * and kept whole in the JSON report.
 */
class BreakdownReportTest {
  static final BreakdownChart CHART = new BreakdownChart("steps: ProfilerStep#1 to #2, 2 of 3 steps", 170_000,
      80_030, 69_970, 20_000, List.of(new BreakdownChart.Part("COMPUTATION", 49_970),
          new BreakdownChart.Part("COMPUTATION overlapping COMMUNICATION", 20_000)), 0.5,
      List.of(new BreakdownChart.StreamIdle("device 0 stream 7", 45_010, 10_020, 40_000)),
      List.of(new BreakdownChart.Queue("device 0 stream 7", 0.7, 1, 2)),
      List.of(new BreakdownChart.Part("fwd", 85_000)),
      List.of("kernel wait is 2.9% of the window's device span (0.010 ms): launch-bound host (cause #1)"),
      new BreakdownChart.PathChart(170_000, 150_000, true, List.of(new BreakdownChart.Part("HOST_OP", 60_000),
          new BreakdownChart.Part("LAUNCH", 15_000), new BreakdownChart.Part("KERNEL", 75_000),
          new BreakdownChart.Part("SYNC", 0), new BreakdownChart.Part("IDLE", 0),
          new BreakdownChart.Part("DEPENDENCY", 0)), List.of(new BreakdownChart.PathItem("sgemm_<i>", "KERNEL", 2,
          75_000), new BreakdownChart.PathItem("aten::linear", "HOST_OP", 2, 60_000))));

  private static Report withBreakdowns() {
    Report s = SampleReports.sample();
    Charts c = s.charts();
    return new Report(s.run(), s.phases(), s.baseline(), s.outcome(), s.qualification(), s.violations(),
        s.hypotheses(), s.trials(), s.claims(), new Charts(c.before(), c.after(), c.residuals(), c.telemetry(), CHART),
        s.notes());
  }

  @Test
  void theHtmlPlotsTheBreakdownsAndTheQueueLengthWithUnitsOnTheAxes() throws Exception {
    Document doc = HtmlReportTest.dom(Reports.html(withBreakdowns()));
    List<Element> svgs = HtmlReportTest.elements(doc, "svg").stream()
        .filter(s -> s.getAttribute("class").contains("breakdown") || s.getAttribute("class").contains("queues"))
        .toList();
    assertThat(svgs).hasSize(2);
    assertThat(svgs.get(0).getTextContent()).contains("time in the window (ms)", "temporal",
        "device 0 stream 7 idle", "idle: 0.080 ms", "host wait: 0.045 ms");
    assertThat(svgs.get(1).getTextContent()).contains("operations queued on the stream (launched, not yet started)",
        "mean 0.70 operations", "most: 2 operations");
    assertThat(doc.getDocumentElement().getTextContent()).contains("Window: steps: ProfilerStep#1 to #2",
        "Communication overlapped by computation: 50.00%", "launch-bound host (cause #1)",
        "Critical path: 0.150 ms over a window of 0.170 ms", "KERNEL0.07550.0%", "sgemm_<i>KERNEL20.075");
  }

  @Test
  void theMarkdownTablesEveryFigureAndTheJsonKeepsThem() {
    Report r = withBreakdowns();
    assertThat(Reports.markdown(r)).contains("## Breakdowns (HTA's definitions)", "| idle | 0.080 | 47.08% |",
        "| device 0 stream 7 kernel wait | 0.010 | 5.89% |", "- queue length on device 0 stream 7: mean 0.70",
        "Critical path: 0.150 ms over the window of 0.170 ms.", "| `HOST_OP` | 0.060 | 40.0% |",
        "| `aten::linear` | HOST_OP | 2 | 0.060 |");
    assertThat(Reports.fromJson(Reports.json(r)).charts().breakdowns()).isEqualTo(CHART);
  }

  @Test
  void aTraceWithoutHostOperationsSaysItsPathIsOfApiCallsOnly() {
    BreakdownChart.PathChart p = CHART.criticalPath();
    BreakdownChart apiOnly = new BreakdownChart(CHART.window(), CHART.spanNs(), CHART.idleNs(), CHART.computeNs(),
        CHART.nonComputeNs(), CHART.kernelTypes(), CHART.commCompOverlap(), CHART.streams(), CHART.queues(),
        CHART.annotations(), CHART.ties(), new BreakdownChart.PathChart(p.windowNs(), p.lengthNs(), false,
        p.byKind(), p.top()));
    Report s = withBreakdowns();
    Charts c = s.charts();
    Report r = new Report(s.run(), s.phases(), s.baseline(), s.outcome(), s.qualification(), s.violations(),
        s.hypotheses(), s.trials(), s.claims(), new Charts(c.before(), c.after(), c.residuals(), c.telemetry(),
        apiOnly), s.notes());
    assertThat(Reports.markdown(r)).contains("(no host operations in the trace: API calls only)");
    assertThat(Reports.html(r)).contains("(no host operations in the trace: API calls only)");
  }

  @Test
  void aReportWithoutATraceHasNoBreakdownSection() {
    Report bare = SampleReports.bare(DeviceKind.SIMULATED);
    assertThat(bare.charts().breakdowns()).isNull();
    assertThat(Reports.markdown(bare)).doesNotContain("## Breakdowns");
    assertThat(Reports.html(bare)).contains("nothing to break down");
  }
}
