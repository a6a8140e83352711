package io.gitm.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.export.OtlpReceiver;
import io.gitm.export.PrometheusTextParser;
import io.opentelemetry.proto.trace.v1.Span;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gitm run --prometheus --otlp} on the simulated device: the run's progress scraped over HTTP while it runs,
 * and its phases and trials pushed as spans to a collector endpoint the test runs.
 */
class RunMetricsExportTest {
  @TempDir
  Path scratch;

  /** The dataset is made once per JVM: each run's set-up verifies it, as on a machine that ran gitm before. */
  @BeforeEach
  void seedDatasets() {
    Datasets.seed(scratch, "hft-lob");
  }

  @Test
  void servesTheRunsProgressWhileItRunsAndPushesItsPhasesAndTrials() throws Exception {
    try (OtlpReceiver collector = new OtlpReceiver()) {
      BackgroundCli run = BackgroundCli.start("run", "--workload", "hft-lob", "--budget", "30s", "--target", "15%",
          "--device", "sim", "--max-iterations", "6", "--faults", "allocator-churn", "--levers", "pinned-host-memory",
          "--scratch", scratch.toString(), "--json", "--prometheus", "--listen", "127.0.0.1:0", "--otlp",
          collector.endpoint().toString());
      String url = run.await("^gitm: metrics: (http://127\\.0\\.0\\.1:\\d+/metrics);.*; run progress and no device"
          + " state").group(1);
      // scrape until the run ends: every scrape must parse; keep those that saw the run
      List<Map<String, PrometheusTextParser.ParsedFamily>> seen = new ArrayList<>();
      CompletableFuture<Void> scraper = CompletableFuture.runAsync(() -> {
        while (run.running()) {
          try {
            var f = AgentCommandTest.scrape(url);
            if (f.containsKey("gitm_run_info")) {
              seen.add(f);
            }
            Thread.sleep(25);
          } catch (java.net.ConnectException closedAtTheEnd) {
            return;
          } catch (Exception e) {
            if (run.running()) {
              throw new IllegalStateException(e);
            }
          }
        }
      });
      CliResult r = run.join();
      scraper.get();
      assertThat(r.code()).as(r.err()).isZero();
      var doc = Json.MAPPER.readTree(r.out());
      String id = doc.get("run").asString();
      int trials = doc.get("trials").asInt();

      assertThat(seen).as("scrapes during the run").isNotEmpty();
      var last = seen.getLast();
      assertThat(last.get("gitm_run_info").samples().getFirst().labels()).containsEntry("run", id);
      assertThat(last.get("gitm_run_info").samples().getFirst().labels().get("device")).contains("SIMULATED");
      assertThat(last.get("gitm_run_phase").samples().stream().filter(s -> s.value() == 1)).hasSize(1);
      assertThat(last.get("gitm_run_elapsed_seconds").value()).isPositive();
      assertThat(last.get("gitm_run_remaining_seconds").value()).isBetween(0.0, 30.0);
      assertThat(last.get("gitm_run_trials_total").value()).isBetween(0.0, (double) trials);
      assertThat(last).as("no state of the simulated device during a run").doesNotContainKey("DCGM_FI_DEV_SM_CLOCK");

      List<Span> spans = collector.allSpans();
      assertThat(spans).extracting(Span::getName).contains("gitm run", "profile", "attribute", "rank", "report");
      assertThat(spans.stream().filter(s -> s.getName().startsWith("trial "))).hasSize(trials);
      Span root = spans.stream().filter(s -> s.getName().equals("gitm run")).findFirst().orElseThrow();
      assertThat(OtlpReceiver.attributes(root.getAttributesList())).containsEntry("gitm.run.id", id);
      assertThat(collector.lastPoints("gitm_run_trials").getFirst().getAsDouble()).isEqualTo(trials);
      assertThat(collector.lastPoints("gitm_run_phase").stream().filter(p -> p.getAsDouble() == 1)
          .map(p -> OtlpReceiver.attributes(p.getAttributesList()).get("phase"))).containsExactly("report");
    }
  }

  @Test
  void aBadListenAddressIsAOneLineUsageError() {
    CliResult r = CliResult.run("run", "--workload", "hft-lob", "--budget", "30s", "--target", "15%", "--device",
        "sim", "--scratch", scratch.toString(), "--prometheus", "--listen", "localhost:http");
    assertThat(r.code()).isEqualTo(Main.USAGE);
    assertThat(r.errorLine()).contains("--listen").contains("not a number");
  }
}
