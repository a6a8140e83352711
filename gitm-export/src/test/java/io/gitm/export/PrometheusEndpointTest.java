package io.gitm.export;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.api.Budget;
import io.gitm.run.Phase;
import io.gitm.run.PhasePlan;
import io.gitm.run.RunClock;
import io.gitm.run.RunEvents;
import io.gitm.search.TrialRecord;
import io.gitm.search.Verdict;
import io.gitm.trace.StateField;
import io.gitm.trace.StateSample;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code /metrics} scraped over HTTP by the JDK's client and read by a strict parser of the text format:
 * dcgm-exporter's names, types, units and labels for the device fields, the run's progress, the exporter's own cost.
 */
class PrometheusEndpointTest {
  private final AtomicLong ticker = new AtomicLong(1_000_000_000L);
  private final Clock clock = Clock.fixed(Instant.parse("2026-11-30T12:00:00Z"), ZoneOffset.UTC);
  private MetricsExporter exporter;

  private MetricsExporter start() throws Exception {
    exporter = MetricsExporter.start(new MetricsExporter.Options(new InetSocketAddress("127.0.0.1", 0), null,
        MetricsExporter.DEFAULT_OTLP_INTERVAL, "node-7", "test"), ticker::get, clock);
    return exporter;
  }

  @AfterEach
  void close() {
    if (exporter != null) {
      exporter.close();
    }
  }

  private URI uri(String path) {
    InetSocketAddress a = exporter.prometheusAddress().orElseThrow();
    return URI.create("http://127.0.0.1:" + a.getPort() + path);
  }

  private Map<String, PrometheusTextParser.ParsedFamily> scrape() throws Exception {
    HttpResponse<String> r = Fixtures.get(uri("/metrics"));
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type")).hasValue("text/plain; version=0.0.4; charset=utf-8");
    return PrometheusTextParser.parse(r.body());
  }

  @Test
  void deviceStateCarriesDcgmExporterNamesUnitsAndLabels() throws Exception {
    start().addDevice(Fixtures.H200);
    exporter.sink().accept(Fixtures.busy(0, 5));
    var f = scrape();
    Map<String, String> gpu0 = Fixtures.labels(Fixtures.H200);
    assertThat(f.get("DCGM_FI_DEV_SM_CLOCK").type()).isEqualTo("gauge");
    assertThat(f.get("DCGM_FI_DEV_SM_CLOCK").help()).isEqualTo("SM clock frequency (in MHz).");
    assertThat(f.get("DCGM_FI_DEV_SM_CLOCK").samples().getFirst().labels()).isEqualTo(gpu0);
    assertThat(f.get("DCGM_FI_DEV_SM_CLOCK").value(gpu0)).isEqualTo(1755);
    assertThat(f.get("DCGM_FI_DEV_MEM_CLOCK").value(gpu0)).isEqualTo(2619);
    assertThat(f.get("DCGM_FI_DEV_GPU_TEMP").value(gpu0)).isEqualTo(71);
    assertThat(f.get("DCGM_FI_DEV_POWER_USAGE").value(gpu0)).isEqualTo(612.25);
    assertThat(f.get("DCGM_FI_DEV_GPU_UTIL").value(gpu0)).isEqualTo(97);
    assertThat(f.get("DCGM_FI_DEV_MEM_COPY_UTIL").value(gpu0)).isEqualTo(41);
    assertThat(f.get("DCGM_FI_DEV_FB_USED").value(gpu0)).as("MiB").isEqualTo(80 * 1024);
    assertThat(f.get("DCGM_FI_DEV_FB_FREE").value(gpu0)).isEqualTo(63.5 * 1024);
    assertThat(f.get("DCGM_FI_DEV_FB_TOTAL").value(gpu0)).isEqualTo(143.5 * 1024);
    assertThat(f.get("DCGM_FI_DEV_POWER_MGMT_LIMIT").value(gpu0)).isEqualTo(700);
    assertThat(f.get("DCGM_FI_DEV_CLOCK_THROTTLE_REASONS").value(gpu0)).isEqualTo(36);
    assertThat(f.get("DCGM_FI_PROF_PCIE_TX_BYTES").value(gpu0)).isEqualTo(1.5e9);
    assertThat(f.get("DCGM_FI_PROF_PCIE_RX_BYTES").value(gpu0)).isEqualTo(2.25e10);
    assertThat(f.get("DCGM_FI_DEV_ECC_SBE_VOL_TOTAL").type()).as("a gauge: as a counter it would gain _total")
        .isEqualTo("gauge");
    assertThat(f.get("DCGM_FI_DEV_ECC_SBE_VOL_TOTAL").value(gpu0)).isEqualTo(3);
    assertThat(f.get("DCGM_FI_DEV_ECC_SBE_AGG_TOTAL").value(gpu0)).isEqualTo(12);
    assertThat(f.get("gitm_dev_graphics_clock").value(gpu0)).isEqualTo(1755);
    assertThat(f.get("gitm_dev_remapped_rows").value(gpu0)).isEqualTo(1);
    assertThat(f).as("a field the device did not read has no series").doesNotContainKey("DCGM_FI_PROF_NVLINK_TX_BYTES");
  }

  @Test
  void everyDeviceHasItsOwnSeriesAndAClosedDeviceDisappears() throws Exception {
    start().addDevice(Fixtures.H200);
    exporter.addDevice(Fixtures.SECOND);
    exporter.sink().accept(Fixtures.busy(0, 5));
    assertThat(scrape().get("DCGM_FI_DEV_SM_CLOCK").samples()).as("no sample of gpu 1 yet").hasSize(1);
    Map<StateField, Double> m = new HashMap<>(Fixtures.busy(1, 6).present());
    m.put(StateField.SM_CLOCK, 345.0);
    exporter.sink().accept(StateSample.of(1, 6, m));
    exporter.sink().accept(Fixtures.busy(9, 6)); // a device never added is not served
    var f = scrape();
    assertThat(f.get("DCGM_FI_DEV_SM_CLOCK").samples()).hasSize(2);
    assertThat(f.get("DCGM_FI_DEV_SM_CLOCK").value(Map.of("gpu", "1", "device", "nvidia1"))).isEqualTo(345);
    assertThat(f.get("DCGM_FI_DEV_SM_CLOCK").value(Map.of("gpu", "0"))).isEqualTo(1755);
    exporter.removeDevice(0);
    assertThat(scrape().get("DCGM_FI_DEV_SM_CLOCK").samples()).extracting(s -> s.labels().get("gpu"))
        .containsExactly("1");
  }

  @Test
  void aSimulatedDeviceSaysSoOnEverySeries() throws Exception {
    start().addDevice(Fixtures.SIM);
    exporter.sink().accept(Fixtures.busy(0, 5));
    var f = scrape();
    for (String name : List.of("DCGM_FI_DEV_SM_CLOCK", "DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_FB_USED")) {
      assertThat(f.get(name).samples()).allSatisfy(s -> assertThat(s.labels())
          .containsEntry("gitm_device_kind", "simulated").containsEntry("device", "sim0")
          .containsEntry("modelName", "Simulated NVIDIA H200 (preset h200)"));
    }
  }

  @Test
  void labelValuesWithQuotesBackslashesAndLineFeedsSurviveTheRoundTrip() throws Exception {
    String odd = "A \"quoted\" C:\\gpu\nname";
    start().addDevice(DeviceLabels.nvidia(0, "GPU-1", odd, "host\\1"));
    exporter.sink().accept(Fixtures.busy(0, 5));
    var s = scrape().get("DCGM_FI_DEV_GPU_TEMP").samples().getFirst();
    assertThat(s.labels()).containsEntry("modelName", odd).containsEntry("Hostname", "host\\1");
  }

  @Test
  void runProgressFollowsTheRunsEvents() throws Exception {
    start();
    List<String> seen = new ArrayList<>();
    RunEvents console = new RunEvents() {
      @Override
      public void header(String run, String device, String budget) {
        seen.add("header " + run);
      }

      @Override
      public void phase(Phase p, Duration window) {
        seen.add("phase " + p);
      }

      @Override
      public void line(String s) {
        seen.add(s);
      }

      @Override
      public void trial(TrialRecord t, RunClock clock) {
        seen.add("trial " + t.index());
      }
    };
    RunEvents l = exporter.around(console);
    assertThat(scrape()).as("nothing of a run before its header").doesNotContainKey("gitm_run_info");
    long start = ticker.get();
    l.header("20261130-120000-hft-lob-abcd", "Simulated NVIDIA H200 (preset h200) [SIMULATED]",
        "2m (profile 10s, attribute 20s, rank 30s, apply 40s, report 20s); target 15%");
    l.phase(Phase.PROFILE, Duration.ofSeconds(10));
    ticker.addAndGet(12_000_000_000L);
    l.phase(Phase.APPLY, Duration.ofSeconds(40));
    RunClock runClock = new RunClock(new PhasePlan(Budget.parse("2m")), ticker::get, start);
    l.trial(Fixtures.trial(0, "pool-allocation", Verdict.Outcome.KEPT, 1.25, 3_000_000_000L), runClock);
    l.trial(Fixtures.trial(1, "streams-2", Verdict.Outcome.SLOWER, 0.97, 3_000_000_000L), runClock);
    l.trial(Fixtures.trial(2, "preallocate", Verdict.Outcome.KEPT, 1.04, 3_000_000_000L), runClock);
    l.line("result   done");
    ticker.addAndGet(18_000_000_000L);

    assertThat(seen).as("the console sees every event, in order").containsExactly(
        "header 20261130-120000-hft-lob-abcd", "phase PROFILE", "phase APPLY", "trial 0", "trial 1", "trial 2",
        "result   done");
    var f = scrape();
    assertThat(f.get("gitm_run_info").samples().getFirst().labels()).containsEntry("run",
        "20261130-120000-hft-lob-abcd").containsEntry("device", "Simulated NVIDIA H200 (preset h200) [SIMULATED]");
    assertThat(f.get("gitm_run_phase").value(Map.of("phase", "apply"))).isEqualTo(1);
    assertThat(f.get("gitm_run_phase").value(Map.of("phase", "profile"))).isEqualTo(0);
    assertThat(f.get("gitm_run_phase").samples()).hasSize(Phase.values().length);
    assertThat(f.get("gitm_run_elapsed_seconds").value()).isEqualTo(30);
    assertThat(f.get("gitm_run_remaining_seconds").value()).isEqualTo(90);
    assertThat(f.get("gitm_run_best_gain").value())
        .isCloseTo(1.25 * 1.04 - 1, org.assertj.core.data.Offset.offset(1e-12));
    assertThat(f.get("gitm_run_trials_total").type()).isEqualTo("counter");
    assertThat(f.get("gitm_run_trials_total").value()).isEqualTo(3);
    assertThat(f.get("gitm_run_trials_kept_total").value()).isEqualTo(2);
  }

  @Test
  void aFailureInTheExporterIsCountedAndNeverReachesTheRun() throws Exception {
    start();
    RunEvents l = exporter.around(RunEvents.none());
    l.header("r", "d", "not a budget line");
    l.trial(Fixtures.trial(0, "x", Verdict.Outcome.KEPT, 1.1, 1), null); // clock null: a bug upstream
    var f = scrape();
    assertThat(f.get("gitm_exporter_errors_total").value()).isEqualTo(1);
    assertThat(f).as("no budget known, no remaining time").doesNotContainKey("gitm_run_remaining_seconds");
  }

  @Test
  void theExporterShowsItsOwnCost() throws Exception {
    start();
    scrape();
    var f = scrape();
    assertThat(f.get("gitm_exporter_scrapes_total").value()).isEqualTo(2);
    assertThat(f.get("process_cpu_seconds_total").value()).isPositive();
    assertThat(f.get("process_resident_memory_bytes").value()).isGreaterThan(1 << 20);
    assertThat(f.get("jvm_memory_used_bytes").value(Map.of("area", "heap"))).isPositive();
  }

  @Test
  void otherPathsAndMethodsAreRefused() throws Exception {
    start();
    assertThat(Fixtures.get(uri("/")).body()).contains("/metrics");
    assertThat(Fixtures.get(uri("/nope")).statusCode()).isEqualTo(404);
    assertThat(Fixtures.get(uri("/metrics/x")).statusCode()).isEqualTo(404);
    HttpResponse<String> post = Fixtures.send(HttpRequest.newBuilder(uri("/metrics"))
        .POST(HttpRequest.BodyPublishers.ofString("x")).build());
    assertThat(post.statusCode()).isEqualTo(405);
    assertThat(post.headers().firstValue("Allow")).hasValue("GET, HEAD");
  }

  @Test
  void anAddressInUseIsAOneLineError() throws Exception {
    start();
    int port = exporter.prometheusAddress().orElseThrow().getPort();
    assertThatThrownBy(() -> MetricsExporter.start(new MetricsExporter.Options(new InetSocketAddress("127.0.0.1",
        port), null, MetricsExporter.DEFAULT_OTLP_INTERVAL, "h", ""), ticker::get, clock))
        .hasMessageStartingWith("cannot listen on 127.0.0.1:" + port).hasMessageNotContaining("\n");
  }

  @Test
  void listenAddressesParseOrSayWhatIsWrong() {
    assertThat(MetricsExporter.parseListen("127.0.0.1:9401").getPort()).isEqualTo(9401);
    assertThat(MetricsExporter.parseListen("127.0.0.1:9401").getAddress().isLoopbackAddress()).isTrue();
    assertThat(MetricsExporter.parseListen(":9401").getAddress().isAnyLocalAddress()).isTrue();
    assertThat(MetricsExporter.parseListen("[::1]:0").getAddress().isLoopbackAddress()).isTrue();
    assertThatThrownBy(() -> MetricsExporter.parseListen("9401")).hasMessageContaining("has no port");
    assertThatThrownBy(() -> MetricsExporter.parseListen("localhost:http")).hasMessageContaining("not a number");
    assertThatThrownBy(() -> MetricsExporter.parseListen("localhost:70000")).hasMessageContaining("0 to 65535");
    assertThatThrownBy(() -> MetricsExporter.parseListen("::1:80")).hasMessageContaining("brackets");
    assertThatThrownBy(() -> MetricsExporter.parseListen("no-such-host.invalid:80"))
        .hasMessageContaining("unknown host");
  }

  @Test
  void everyNameTheExporterCanWriteIsValidInTheTextFormat() {
    for (Family f : Board.CATALOGUE) {
      assertThat(PrometheusText.validMetricName(f.name())).as(f.name()).isTrue();
    }
    for (String l : DeviceLabels.NAMES) {
      assertThat(PrometheusText.validLabelName(l)).as(l).isTrue();
    }
    assertThat(Board.CATALOGUE).extracting(Family::name).doesNotHaveDuplicates();
  }

  @Test
  void valuesAreWrittenAsTheFormatSpellsThemAndAPointGoneLeavesTheExposition() {
    PrometheusText text = new PrometheusText();
    double[] values = {0, 3, 1e15, 9.5e18, 0.125, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
        1e-7};
    List<Family.Point> points = new ArrayList<>();
    for (int i = 0; i < values.length; i++) {
      points.add(Family.Point.of(values[i], "i", Integer.toString(i)));
    }
    Family f = new Family("gitm_test_value", Family.Type.GAUGE, "Values.", "1", points);
    var parsed = PrometheusTextParser.parse(text.write(List.of(f))).get("gitm_test_value");
    for (int i = 0; i < values.length; i++) {
      double v = parsed.value(Map.of("i", Integer.toString(i)));
      assertThat(Double.compare(v, values[i])).as("%s read back as %s", values[i], v).isZero();
    }
    Family fewer = new Family("gitm_test_value", Family.Type.GAUGE, "Values.", "1", points.subList(0, 2));
    assertThat(PrometheusTextParser.parse(text.write(List.of(fewer))).get("gitm_test_value").samples()).hasSize(2);
    assertThat(PrometheusTextParser.parse(text.write(List.of()))).doesNotContainKey("gitm_test_value");
  }
}
