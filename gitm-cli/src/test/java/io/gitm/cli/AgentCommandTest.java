package io.gitm.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.export.OtlpReceiver;
import io.gitm.export.PrometheusTextParser;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code gitm agent} end to end on the simulated device: scraped over HTTP while it runs, and pushing to a collector
 * endpoint the test runs.
 */
class AgentCommandTest {
  static Map<String, PrometheusTextParser.ParsedFamily> scrape(String url) throws Exception {
    try (HttpClient c = HttpClient.newHttpClient()) {
      HttpResponse<String> r = c.send(HttpRequest.newBuilder(URI.create(url)).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(200);
      return PrometheusTextParser.parse(r.body());
    }
  }

  @Test
  void servesTheSimulatedDevicesStateLabelledSimulated() throws Exception {
    try (BackgroundCli agent = BackgroundCli.start("agent", "--device", "sim", "--sim-preset", "h200", "--listen",
        "127.0.0.1:0", "--sample-hz", "20", "--hostname", "node-7", "--duration", "3s")) {
      String url = agent.await("^metrics  (http://127\\.0\\.0\\.1:\\d+/metrics)$").group(1);
      var f = scrape(url);
      var labels = f.get("DCGM_FI_DEV_SM_CLOCK").samples().getFirst().labels();
      assertThat(labels).containsEntry("gpu", "0").containsEntry("device", "sim0")
          .containsEntry("modelName", "Simulated NVIDIA H200 (preset h200)").containsEntry("Hostname", "node-7")
          .containsEntry("gitm_device_kind", "simulated").containsKey("UUID");
      assertThat(f.get("DCGM_FI_DEV_SM_CLOCK").value()).isPositive();
      assertThat(f.get("DCGM_FI_DEV_GPU_UTIL").value()).as("nothing runs on it").isZero();
      assertThat((long) f.get("DCGM_FI_DEV_CLOCK_THROTTLE_REASONS").value() & 1).as("the idle reason bit").isOne();
      double total = f.get("DCGM_FI_DEV_FB_TOTAL").value();
      assertThat(total).as("an H200's memory, in MiB").isBetween(130_000.0, 150_000.0);
      assertThat(f.get("DCGM_FI_DEV_FB_USED").value() + f.get("DCGM_FI_DEV_FB_FREE").value()).isEqualTo(total);
      assertThat(f.get("DCGM_FI_DEV_POWER_USAGE").value()).isPositive();
      assertThat(f.get("gitm_exporter_sample_rate_hz").value()).isEqualTo(20);
      assertThat(f.get("gitm_exporter_sampling_rounds_total").value()).isPositive();
      assertThat(f).doesNotContainKey("gitm_run_info");

      CliResult r = agent.join();
      assertThat(r.code()).as(r.err()).isZero();
      assertThat(r.out()).contains("device   sim0 Simulated NVIDIA H200 (preset h200) [SIMULATED")
          .contains("sampling 20 Hz").containsPattern("stopped  after \\d+\\.\\d s: \\d+ sampling rounds");
    }
  }

  @Test
  void pushesToACollectorWithoutServingWhenAskedTo() throws Exception {
    try (OtlpReceiver collector = new OtlpReceiver()) {
      CliResult r = CliResult.run("agent", "--device", "sim", "--no-prometheus", "--otlp",
          collector.endpoint().toString(), "--otlp-interval", "1s", "--duration", "2s");
      assertThat(r.code()).as(r.err()).isZero();
      assertThat(r.out()).contains("OTLP to " + collector.endpoint()).doesNotContain("/metrics")
          .contains("(0 failed)");
      var sm = collector.lastPoints("DCGM_FI_DEV_SM_CLOCK");
      assertThat(OtlpReceiver.attributes(sm.getFirst().getAttributesList()))
          .containsEntry("gitm_device_kind", "simulated").containsEntry("device", "sim0");
      assertThat(collector.lastPoints("DCGM_FI_DEV_FB_TOTAL").getFirst().getAsDouble()).isPositive();
    }
  }

  @Test
  void badOptionsAreOneLineUsageErrors() {
    Map<String[], String> cases = Map.of(
        new String[] {"agent", "--device", "sim", "--no-prometheus"}, "leaves nothing to export",
        new String[] {"agent", "--device", "sim", "--listen", "9401"}, "--listen: listen address '9401' has no port",
        new String[] {"agent", "--device", "sim", "--sample-hz", "0"}, "--sample-hz must be above 0",
        new String[] {"agent", "--device", "sim", "--sample-hz", "5000"}, "at most 1000",
        new String[] {"agent", "--device", "sim", "--otlp", "collector:4318"}, "--otlp: OTLP endpoint",
        new String[] {"agent", "--device", "sim", "--duration", "soon"}, "--duration: 'soon' is not a duration",
        new String[] {"agent", "--device", "sim", "--otlp-interval", "-1s"}, "--otlp-interval",
        new String[] {"agent", "--device", "tpu"}, "unknown device 'tpu'");
    cases.forEach((args, message) -> {
      CliResult r = CliResult.run(args);
      assertThat(r.code()).as(String.join(" ", args)).isEqualTo(Main.USAGE);
      assertThat(r.errorLine()).as(String.join(" ", args)).contains(message);
    });
  }

  @Test
  void aPortInUseIsAOneLineFailure() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      CliResult r = CliResult.run("agent", "--device", "sim", "--listen", "127.0.0.1:" + taken.getLocalPort(),
          "--duration", "1s");
      assertThat(r.code()).isEqualTo(Main.FAILURE);
      assertThat(r.errorLine()).startsWith("gitm: error: cannot listen on 127.0.0.1:" + taken.getLocalPort());
    }
  }
}
