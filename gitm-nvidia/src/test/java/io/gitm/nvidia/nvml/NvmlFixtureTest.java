package io.gitm.nvidia.nvml;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.trace.ClockReason;
import io.gitm.trace.StateField;
import io.gitm.trace.StateSample;
import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Checks NVML samples recorded on a real GPU ({@code fixtures/nvml/nvml-SCENARIO-DRIVER.json}, written by
 * {@code NvmlGpuTest} into {@code $GITM_FIXTURE_OUT} on the GPU machine): every field name still decodes, clock-event
 * bits decode to known reasons, and the readings are physically consistent.
 */
class NvmlFixtureTest {

  static List<Path> fixtures() throws IOException, URISyntaxException {
    URL dir = NvmlFixtureTest.class.getResource("/fixtures/nvml");
    if (dir == null || !"file".equals(dir.getProtocol())) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(Path.of(dir.toURI()))) {
      return s.filter(p -> p.getFileName().toString().endsWith(".json")).sorted().toList();
    }
  }

  static List<StateSample> samples(JsonNode root) {
    List<StateSample> out = new ArrayList<>();
    for (JsonNode s : root.get("samples")) {
      Map<StateField, Double> values = new EnumMap<>(StateField.class);
      for (Map.Entry<String, JsonNode> e : s.get("values").properties()) {
        values.put(StateField.valueOf(e.getKey()), e.getValue().asDouble());
      }
      out.add(StateSample.of(s.get("device").asInt(), s.get("timeNs").asLong(), values));
    }
    return out;
  }

  @TestFactory
  Stream<DynamicTest> recordedSamplesDecodeAndAreConsistent() throws Exception {
    List<Path> files = fixtures();
    if (files.isEmpty()) {
      return Stream.of(DynamicTest.dynamicTest("no fixtures", () -> Assumptions.abort(
          "no recorded NVML fixtures yet: run scripts/gpu-suite.sh on a GPU and commit its fixtures/ under "
              + "src/test/resources/fixtures/nvml")));
    }
    JsonMapper json = JsonMapper.builder().build();
    return files.stream().map(f -> DynamicTest.dynamicTest(f.getFileName().toString(), () -> {
      JsonNode root = json.readTree(Files.readString(f));
      List<StateSample> xs = samples(root);
      assertThat(xs).isNotEmpty();
      List<String> unsupported = new ArrayList<>();
      root.get("unsupported").properties().forEach(e -> unsupported.add(e.getKey()));
      long previous = Long.MIN_VALUE;
      for (StateSample x : xs) {
        assertThat(x.timeNs()).isGreaterThan(previous);
        previous = x.timeNs();
        for (String u : unsupported) {
          assertThat(x.has(StateField.valueOf(u))).as(u + " recorded as unsupported, so never read").isFalse();
        }
        if (x.has(StateField.CLOCK_EVENT_REASONS)) {
          assertThat(ClockReason.decode((long) x.get(StateField.CLOCK_EVENT_REASONS)))
              .noneMatch(r -> r.startsWith("Unknown"));
        }
        if (x.has(StateField.MEMORY_TOTAL)) {
          assertThat(x.get(StateField.MEMORY_USED) + x.get(StateField.MEMORY_FREE))
              .isCloseTo(x.get(StateField.MEMORY_TOTAL), org.assertj.core.data.Percentage.withPercentage(5));
        }
        for (StateField pct : List.of(StateField.GPU_UTILIZATION, StateField.MEMORY_UTILIZATION)) {
          if (x.has(pct)) {
            assertThat(x.get(pct)).isBetween(0.0, 100.0);
          }
        }
        if (x.has(StateField.POWER) && x.has(StateField.POWER_LIMIT)) {
          assertThat(x.get(StateField.POWER)).isBetween(1.0, x.get(StateField.POWER_LIMIT) * 1.25);
        }
        if (x.has(StateField.OTHER_PROCESSES)) {
          double n = x.get(StateField.OTHER_PROCESSES);
          assertThat(n).as("a count of processes").isGreaterThanOrEqualTo(0).isEqualTo(Math.rint(n));
          if (n == 0 && x.has(StateField.OTHER_SM_UTILIZATION)) {
            assertThat(x.get(StateField.OTHER_SM_UTILIZATION)).as("no other process, no other SM use").isZero();
          }
        }
        if (x.has(StateField.OTHER_SM_UTILIZATION)) {
          assertThat(x.get(StateField.OTHER_SM_UTILIZATION)).isGreaterThanOrEqualTo(0);
        }
        for (StateField rate : List.of(StateField.PCIE_TX, StateField.PCIE_RX, StateField.NVLINK_TX,
            StateField.NVLINK_RX)) {
          if (x.has(rate)) {
            assertThat(x.get(rate)).isGreaterThanOrEqualTo(0);
          }
        }
      }
      if ("gemm-load".equals(root.get("scenario").asString())) {
        assertThat(xs.stream().mapToDouble(x -> x.get(StateField.GPU_UTILIZATION)).max().orElse(0))
            .as("a GPU busy with GEMMs reports high utilization").isGreaterThan(50);
      }
    }));
  }

  @org.junit.jupiter.api.Test
  void theFixtureWriterRoundTripsThroughTheReader() {
    StateSample a = StateSample.of(0, 10, Map.of(StateField.POWER, 81.5, StateField.CLOCK_EVENT_REASONS, 1.0,
        StateField.MEMORY_TOTAL, 150_754_820_096.0));
    StateSample b = StateSample.of(0, 20, Map.of(StateField.POWER, 150.25, StateField.SM_CLOCK, 1980.0));
    String text = NvmlJson.fixture("idle", "580.159.04", "NVIDIA H200", "GPU-x",
        Map.of(StateField.RETIRED_PAGES, "nvmlDeviceGetRetiredPages: NVML_ERROR_NOT_SUPPORTED"), List.of(a, b));
    JsonNode root = JsonMapper.builder().build().readTree(text);

    assertThat(samples(root)).containsExactly(a, b);
    assertThat(root.at("/unsupported/RETIRED_PAGES").asString()).contains("NOT_SUPPORTED");
    assertThat(root.at("/units/POWER").asString()).isEqualTo("W");
  }
}
