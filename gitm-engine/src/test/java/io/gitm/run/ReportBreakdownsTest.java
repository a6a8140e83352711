package io.gitm.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.analysis.attribution.Cause;
import io.gitm.analysis.attribution.Hypothesis;
import io.gitm.analysis.critical.CriticalPath;
import io.gitm.analysis.critical.Edge;
import io.gitm.report.BreakdownChart;
import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.ApiKind;
import io.gitm.trace.Dim3;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.TraceRecord;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The report's breakdowns come from the shipped configuration's trace and name the levers of its ranked causes. */
class ReportBreakdownsTest {
  private static List<TraceRecord> trace() {
    return List.of(new ApiCallRecord(ApiKind.LAUNCH, "cudaLaunchKernel", 1, 1, 0, 2_000),
        new KernelRecord("sgemm", 0, 7, 1, 1_000, 11_000, Dim3.ONE, Dim3.ONE, -1, -1, -1),
        new ApiCallRecord(ApiKind.LAUNCH, "cudaLaunchKernel", 1, 2, 30_000, 32_000),
        new KernelRecord("sgemm", 0, 7, 2, 31_000, 41_000, Dim3.ONE, Dim3.ONE, -1, -1, -1));
  }

  @Test
  void theChartHoldsTheTracesFiguresAndTheTiesNameTheLevers() {
    BreakdownChart c = ReportBreakdowns.of(trace(), List.of(new Hypothesis(Cause.LAUNCH_BOUND_HOST, 0.5, 0.4, 0.6,
        0.001, 0.9, List.of())));
    assertThat(c.window()).startsWith("all (the default: the trace has no ProfilerStep annotations)");
    assertThat(List.of(c.spanNs(), c.idleNs(), c.computeNs(), c.nonComputeNs()))
        .containsExactly(40_000L, 20_000L, 20_000L, 0L);
    assertThat(c.streams()).containsExactly(new BreakdownChart.StreamIdle("device 0 stream 7", 20_000, 0, 0));
    assertThat(c.ties().getFirst()).startsWith("idle is 50.0% of the window's device span (0.020 ms): launch-bound"
        + " host (cause #1, 50.0% of the span); levers graph-capture");
  }

  @Test
  void theChartCarriesTheCriticalPathOfTheSameWindowAsAnalyzeComputesIt() {
    BreakdownChart.PathChart p = ReportBreakdowns.of(trace(), List.of()).criticalPath();
    CriticalPath.Result analyzed = CriticalPath.clipped(trace(), Long.MIN_VALUE, Long.MAX_VALUE);
    assertThat(p.windowNs()).as("the whole trace, clipped to its extent").isEqualTo(41_000);
    assertThat(p.lengthNs()).isEqualTo(analyzed.lengthNs()).isPositive().isLessThanOrEqualTo(p.windowNs());
    assertThat(p.byKind()).extracting(BreakdownChart.Part::name).containsExactly("HOST_OP", "LAUNCH", "KERNEL", "SYNC",
        "IDLE", "DEPENDENCY");
    assertThat(p.byKind().stream().mapToLong(BreakdownChart.Part::ns).sum()).isEqualTo(p.lengthNs());
    assertThat(p.byKind().get(2).ns()).as("kernel time on the path").isEqualTo(analyzed.byKind().get(Edge.KERNEL))
        .isGreaterThanOrEqualTo(10_000);
    assertThat(p.top()).first().satisfies(i -> assertThat(i.name()).isEqualTo("sgemm"));
    assertThat(p.hostOperations()).as("API calls only").isFalse();
  }

  @Test
  void aTraceWithoutDeviceOperationsHasNoChart() {
    assertThat(ReportBreakdowns.of(List.of(trace().getFirst()), List.of())).isNull();
  }
}
