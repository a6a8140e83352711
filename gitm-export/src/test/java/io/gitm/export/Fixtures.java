package io.gitm.export;

import io.gitm.levers.Setup;
import io.gitm.search.TrialRecord;
import io.gitm.search.Verdict;
import io.gitm.trace.DeviceKind;
import io.gitm.trace.StateField;
import io.gitm.trace.StateSample;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;

/** Samples, labels, trials and an HTTP client shared by the export tests. */
final class Fixtures {
  static final DeviceLabels H200 = DeviceLabels.nvidia(0, "GPU-0b1c2d3e-aaaa-bbbb-cccc-000000000001", "NVIDIA H200",
      "node-7");
  static final DeviceLabels SECOND = DeviceLabels.nvidia(1, "GPU-0b1c2d3e-aaaa-bbbb-cccc-000000000002", "NVIDIA H200",
      "node-7");
  static final DeviceLabels SIM = new DeviceLabels(0, "GPU-sim-h200", "sim0", "Simulated NVIDIA H200 (preset h200)",
      "node-7", DeviceKind.SIMULATED);

  private Fixtures() {
  }

  /** A throttled, busy H200: every field but NVLink set. */
  static StateSample busy(int device, long timeNs) {
    return StateSample.of(device, timeNs, Map.ofEntries(
        Map.entry(StateField.GPU_UTILIZATION, 97.0),
        Map.entry(StateField.MEMORY_UTILIZATION, 41.0),
        Map.entry(StateField.MEMORY_USED, 80.0 * (1L << 30)),
        Map.entry(StateField.MEMORY_FREE, 63.5 * (1L << 30)),
        Map.entry(StateField.MEMORY_TOTAL, 143.5 * (1L << 30)),
        Map.entry(StateField.POWER, 612.25),
        Map.entry(StateField.POWER_LIMIT, 700.0),
        Map.entry(StateField.SM_CLOCK, 1755.0),
        Map.entry(StateField.MEMORY_CLOCK, 2619.0),
        Map.entry(StateField.GRAPHICS_CLOCK, 1755.0),
        Map.entry(StateField.TEMPERATURE, 71.0),
        Map.entry(StateField.CLOCK_EVENT_REASONS, (double) (4 | 32)),
        Map.entry(StateField.PCIE_TX, 1.5e9),
        Map.entry(StateField.PCIE_RX, 2.25e10),
        Map.entry(StateField.ECC_VOLATILE_CORRECTED, 3.0),
        Map.entry(StateField.ECC_VOLATILE_UNCORRECTED, 0.0),
        Map.entry(StateField.ECC_AGGREGATE_CORRECTED, 12.0),
        Map.entry(StateField.ECC_AGGREGATE_UNCORRECTED, 0.0),
        Map.entry(StateField.RETIRED_PAGES, 0.0),
        Map.entry(StateField.REMAPPED_ROWS, 1.0)));
  }

  static Map<String, String> labels(DeviceLabels d) {
    return Map.of("gpu", Integer.toString(d.gpu()), "UUID", d.uuid(), "device", d.device(), "modelName",
        d.modelName(), "Hostname", d.hostname(), "gitm_device_kind", d.kind().label());
  }

  static TrialRecord trial(int index, String lever, Verdict.Outcome outcome, double gain, long wallNanos) {
    return new TrialRecord(index, TrialRecord.Kind.SINGLE, List.of(lever), List.of(), Setup.shipped(), gain,
        "test", new Verdict(outcome, "test", Verdict.Arm.NONE, new double[] {1, 1}, new double[] {gain, gain}, 1,
            gain, gain, gain, gain * 0.98, gain * 1.02, 0.0078, 0, 16, wallNanos));
  }

  static HttpResponse<String> get(URI uri) throws IOException, InterruptedException {
    return send(HttpRequest.newBuilder(uri).GET().build());
  }

  static HttpResponse<String> send(HttpRequest r) throws IOException, InterruptedException {
    try (HttpClient c = HttpClient.newHttpClient()) {
      return c.send(r, HttpResponse.BodyHandlers.ofString());
    }
  }
}
