package io.gitm.export;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.api.Budget;
import io.gitm.run.Phase;
import io.gitm.run.PhasePlan;
import io.gitm.run.RunClock;
import io.gitm.run.RunEvents;
import io.gitm.search.Verdict;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.trace.v1.Span;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * OTLP push against a collector endpoint the test runs, decoded with the protocol's own classes: the same metrics as
 * {@code /metrics} (names, values, device attributes), and the run as spans: the run, its phases, its trials.
 */
class OtlpPushTest {
  private static final Instant T0 = Instant.parse("2026-11-30T12:00:00Z");
  private final AtomicLong ticker = new AtomicLong(5_000_000_000L);
  private final Clock clock = Clock.fixed(T0, ZoneOffset.UTC);

  private MetricsExporter start(URI endpoint) throws Exception {
    // an interval far beyond the test: what arrives is what close() pushes
    return MetricsExporter.start(new MetricsExporter.Options(null, endpoint, Duration.ofHours(1), "node-7", "0.1.0"),
        ticker::get, clock);
  }

  @Test
  void pushesDeviceStateWithDcgmNamesAndDeviceAttributes() throws Exception {
    try (OtlpReceiver collector = new OtlpReceiver()) {
      MetricsExporter e = start(collector.endpoint());
      e.addDevice(Fixtures.H200);
      e.sink().accept(Fixtures.busy(0, 5));
      e.close();

      assertThat(collector.contentTypes).contains("application/x-protobuf");
      assertThat(collector.metrics).isNotEmpty();
      var resource = OtlpReceiver.attributes(collector.metrics.getFirst().getResourceMetrics(0).getResource()
          .getAttributesList());
      assertThat(resource).containsEntry("service.name", "gitm").containsEntry("host.name", "node-7")
          .containsEntry("service.version", "0.1.0");
      var sm = collector.lastPoints("DCGM_FI_DEV_SM_CLOCK");
      assertThat(sm).hasSize(1);
      assertThat(sm.getFirst().getAsDouble()).isEqualTo(1755);
      assertThat(OtlpReceiver.attributes(sm.getFirst().getAttributesList())).isEqualTo(Fixtures.labels(Fixtures.H200));
      assertThat(collector.lastPoints("DCGM_FI_DEV_FB_USED").getFirst().getAsDouble()).isEqualTo(80 * 1024);
      assertThat(collector.lastPoints("DCGM_FI_DEV_POWER_USAGE").getFirst().getAsDouble()).isEqualTo(612.25);
      assertThat(collector.lastPoints("DCGM_FI_DEV_CLOCK_THROTTLE_REASONS").getFirst().getAsDouble()).isEqualTo(36);
      Map<String, Metric> byName = collector.allMetrics().stream()
          .collect(Collectors.toMap(Metric::getName, Function.identity(), (a, b) -> b));
      assertThat(byName.get("DCGM_FI_DEV_SM_CLOCK").getUnit()).isEqualTo("MHz");
      assertThat(byName.get("DCGM_FI_DEV_SM_CLOCK").hasGauge()).isTrue();
      Metric ecc = byName.get("DCGM_FI_DEV_ECC_SBE_VOL_TOTAL");
      assertThat(ecc).as("a counter is a monotonic cumulative sum (a DCGM name is kept whole)").isNotNull();
      assertThat(ecc.getSum().getIsMonotonic()).isTrue();
      assertThat(ecc.getSum().getAggregationTemporality())
          .isEqualTo(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE);
      assertThat(byName).doesNotContainKey("DCGM_FI_PROF_NVLINK_TX_BYTES");
      long t = sm.getFirst().getTimeUnixNano();
      assertThat(t).as("timestamps come from the injected clock").isEqualTo(T0.getEpochSecond() * 1_000_000_000L);
      assertThat(e.otlpFailures()).isZero();
      assertThat(e.otlpExports()).isPositive();
    }
  }

  @Test
  void pushesTheRunAsSpansOfPhasesAndTrialsAndItsProgressAsMetrics() throws Exception {
    try (OtlpReceiver collector = new OtlpReceiver()) {
      MetricsExporter e = start(collector.endpoint());
      RunEvents l = e.around(RunEvents.none());
      long start = ticker.get();
      l.header("20261130-120000-hft-lob-abcd", "Simulated NVIDIA H200 (preset h200) [SIMULATED]", "2m (…)");
      l.phase(Phase.PROFILE, Duration.ofSeconds(10));
      ticker.addAndGet(10_000_000_000L);
      l.phase(Phase.ATTRIBUTE, Duration.ofSeconds(20));
      l.phase(Phase.RANK, Duration.ofSeconds(30));
      l.phase(Phase.APPLY, Duration.ofSeconds(40));
      RunClock runClock = new RunClock(new PhasePlan(Budget.parse("2m")), ticker::get, start);
      ticker.addAndGet(4_000_000_000L);
      l.trial(Fixtures.trial(0, "pool-allocation", Verdict.Outcome.KEPT, 1.2, 3_000_000_000L), runClock);
      ticker.addAndGet(4_000_000_000L);
      l.trial(Fixtures.trial(1, "streams-2", Verdict.Outcome.NOT_SIGNIFICANT, 1.01, 3_500_000_000L), runClock);
      l.phase(Phase.REPORT, Duration.ofSeconds(20));
      ticker.addAndGet(1_000_000_000L);
      e.close();

      List<Span> spans = collector.allSpans();
      Map<String, Span> byName = spans.stream().collect(Collectors.toMap(Span::getName, Function.identity()));
      assertThat(byName).containsOnlyKeys("gitm run", "profile", "attribute", "rank", "apply", "report",
          "trial pool-allocation", "trial streams-2");
      Span run = byName.get("gitm run");
      assertThat(run.getParentSpanId().isEmpty()).isTrue();
      for (String phase : List.of("profile", "attribute", "rank", "apply", "report")) {
        assertThat(byName.get(phase).getParentSpanId()).as(phase).isEqualTo(run.getSpanId());
        assertThat(byName.get(phase).getTraceId()).isEqualTo(run.getTraceId());
      }
      Span apply = byName.get("apply");
      Span t1 = byName.get("trial pool-allocation");
      assertThat(t1.getParentSpanId()).isEqualTo(apply.getSpanId());
      assertThat(OtlpReceiver.attributes(t1.getAttributesList())).containsEntry("gitm.trial.outcome", "kept")
          .containsEntry("gitm.trial.kept", "true").containsEntry("gitm.trial.index", "1")
          .containsEntry("gitm.trial.levers", "pool-allocation");
      assertThat(t1.getEndTimeUnixNano() - t1.getStartTimeUnixNano()).as("the verdict's wall time")
          .isEqualTo(3_000_000_000L);
      assertThat(OtlpReceiver.attributes(byName.get("trial streams-2").getAttributesList()))
          .containsEntry("gitm.trial.kept", "false").containsEntry("gitm.trial.outcome", "not_significant");
      long epoch0 = T0.getEpochSecond() * 1_000_000_000L;
      assertThat(run.getStartTimeUnixNano()).isEqualTo(epoch0);
      assertThat(run.getEndTimeUnixNano()).isEqualTo(epoch0 + 19_000_000_000L);
      assertThat(byName.get("profile").getEndTimeUnixNano()).isEqualTo(byName.get("attribute").getStartTimeUnixNano())
          .isEqualTo(epoch0 + 10_000_000_000L);
      assertThat(OtlpReceiver.attributes(run.getAttributesList())).containsEntry("gitm.run.id",
          "20261130-120000-hft-lob-abcd");

      assertThat(collector.lastPoints("gitm_run_trials").getFirst().getAsDouble()).isEqualTo(2);
      assertThat(collector.lastPoints("gitm_run_trials_kept").getFirst().getAsDouble()).isEqualTo(1);
      assertThat(collector.lastPoints("gitm_run_best_gain").getFirst().getAsDouble())
          .isCloseTo(0.2, org.assertj.core.data.Offset.offset(1e-12));
      assertThat(collector.lastPoints("gitm_run_elapsed_seconds").getFirst().getAsDouble()).isEqualTo(19);
      assertThat(collector.lastPoints("gitm_run_phase").stream()
          .filter(p -> p.getAsDouble() == 1).map(p -> OtlpReceiver.attributes(p.getAttributesList()).get("phase")))
          .containsExactly("report");
    }
  }

  @Test
  void pushesEveryIntervalWhileRunning() throws Exception {
    try (OtlpReceiver collector = new OtlpReceiver()) {
      MetricsExporter e = MetricsExporter.start(new MetricsExporter.Options(null, collector.endpoint(),
          Duration.ofMillis(100), "node-7", ""), ticker::get, clock);
      try {
        e.addDevice(Fixtures.H200);
        e.sink().accept(Fixtures.busy(0, 5));
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (collector.metrics.size() < 2 && System.nanoTime() < deadline) {
          Thread.sleep(20);
        }
        assertThat(collector.metrics).as("two pushes before close").hasSizeGreaterThanOrEqualTo(2);
      } finally {
        e.close();
      }
    }
  }

  @Test
  void anUnreachableCollectorIsCountedAndNeverStopsTheExporter() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    MetricsExporter e = start(URI.create("http://127.0.0.1:" + port));
    e.addDevice(Fixtures.H200);
    e.sink().accept(Fixtures.busy(0, 5));
    assertThat(e.scrape()).contains("DCGM_FI_DEV_SM_CLOCK");
    e.close();
    assertThat(e.otlpFailures()).isPositive();
  }

  @Test
  void aBadEndpointIsAOneLineError() {
    assertThatThrownBy(() -> MetricsExporter.parseOtlp("collector:4318")).hasMessageContaining("http://")
        .hasMessageNotContaining("\n");
    assertThatThrownBy(() -> MetricsExporter.parseOtlp("ftp://collector:4318")).hasMessageContaining("http://");
    assertThatThrownBy(() -> MetricsExporter.parseOtlp("http://c:4318/?x=1")).hasMessageContaining("no query");
    assertThatThrownBy(() -> MetricsExporter.parseOtlp("http://c d")).hasMessageContaining("not a URL");
    assertThat(MetricsExporter.parseOtlp("http://127.0.0.1:4318").getPort()).isEqualTo(4318);
  }
}
