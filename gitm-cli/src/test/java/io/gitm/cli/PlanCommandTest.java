package io.gitm.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

class PlanCommandTest {
  @TempDir
  static Path scratch;

  private static CliResult plan(String... args) {
    List<String> a = new ArrayList<>(List.of("plan", "--workload", "hft-lob", "--scratch", scratch.toString()));
    a.addAll(List.of(args));
    if (!a.contains("--iterations")) {
      a.addAll(List.of("--iterations", "2"));
    }
    return CliResult.run(a.toArray(String[]::new));
  }

  @Test
  void theShippedPlanNamesEveryKernelWithItsRooflineAndTheHostsSynchronizations() throws Exception {
    CliResult r = plan();
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("plan     hft-lob under shipped").contains("[SIMULATED: predicted, not measured]")
        .contains("kernel   lob_book").contains("host synchronizations");
    JsonNode d = Json.MAPPER.readTree(plan("--json").out());
    assertThat(d.get("kernels").asLong()).isPositive();
    assertThat(d.get("modelBasedNodes").asLong()).isPositive();
    assertThat(d.get("dependencies").get("STREAM_ORDER").asInt()).isPositive();
    assertThat(d.get("predictedPerIterationNs").asLong()).isPositive();
    assertThat(d.get("kernelsByName").get(0).get("lowerNs").asLong()).isPositive();
  }

  @Test
  void preallocatedPinnedBuffersArePredictedFasterThanTheShippedSetup() throws Exception {
    long shipped = Json.MAPPER.readTree(plan("--json").out()).get("predictedPerIterationNs").asLong();
    long tuned = Json.MAPPER.readTree(plan("--json", "--setup", "pinned-host-memory+preallocate").out())
        .get("predictedPerIterationNs").asLong();
    assertThat(tuned).isLessThan(shipped);
  }

  @Test
  void badInputIsAOneLineError() throws Exception {
    assertThat(plan("--preset", "h900").errorLine()).startsWith("gitm: --preset: ");
    assertThat(plan("--iterations", "0").errorLine()).isEqualTo("gitm: --iterations must be 1 to 10000, got 0");
    assertThat(plan("--setup", "async-copies").errorLine()).contains("async-copies does not apply to the shipped"
        + " setup");
    assertThat(plan("--calibration", scratch.resolve("none.json").toString()).errorLine()).endsWith("no such file");
    Path bad = Files.writeString(scratch.resolve("bad.json"), "{\"spec\": 3}");
    CliResult r = plan("--calibration", bad.toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.errorLine()).contains("not a calibration file");
  }
}
