package io.gitm.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

class LeversCommandTest {
  @TempDir
  Path scratch;

  private CliResult levers(String... args) {
    List<String> a = new ArrayList<>(List.of("levers", "--workload", "hft-lob", "--device", "sim", "--scratch",
        scratch.toString()));
    a.addAll(List.of(args));
    return CliResult.run(a.toArray(String[]::new));
  }

  @Test
  void aBaseSetupIsLeftOutOfTheListAndLeversAreJudgedOnTopOfIt() throws Exception {
    JsonNode shipped = Json.MAPPER.readTree(levers("--json").out());
    JsonNode based = Json.MAPPER.readTree(levers("--json", "--base", "pinned-host-memory").out());
    assertThat(based.get("base").get(0).asString()).isEqualTo("pinned-host-memory");
    List<String> ids = new ArrayList<>();
    based.get("levers").forEach(l -> ids.add(l.get("id").asString()));
    assertThat(ids).doesNotContain("pinned-host-memory");
    boolean asyncAppliesShipped = false;
    for (JsonNode l : shipped.get("levers")) {
      if (l.get("id").asString().equals("async-copies")) {
        asyncAppliesShipped = l.get("applies").asBoolean();
      }
    }
    boolean asyncAppliesOnPinned = false;
    for (JsonNode l : based.get("levers")) {
      if (l.get("id").asString().equals("async-copies")) {
        asyncAppliesOnPinned = l.get("applies").asBoolean();
      }
    }
    assertThat(asyncAppliesShipped).as("async copies need pinned memory").isFalse();
    assertThat(asyncAppliesOnPinned).as("async copies on top of pinned memory").isTrue();
  }

  @Test
  void aSetupIsGatedAgainstTheBaseOnTheSimulatedDevice() throws Exception {
    CliResult r = levers("--measure", "--json", "--block-iterations", "4", "--gate-pairs", "6",
        "--base", "pinned-host-memory", "--setup", "pinned-host-memory+preallocate");
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode row = Json.MAPPER.readTree(r.out()).get("levers").get(0);
    assertThat(row.get("id").asString()).isEqualTo("pinned-host-memory+preallocate");
    assertThat(row.get("outcome").asString()).isNotBlank();
    assertThat(row.get("anchorMedian").asDouble()).isPositive();
    assertThat(row.get("candidateMedian").asDouble()).isPositive();
  }

  @Test
  void badSetupsAreOneLineErrors() {
    CliResult unknown = levers("--base", "no-such-lever");
    assertThat(unknown.code()).isEqualTo(2);
    assertThat(unknown.errorLine()).startsWith("gitm: --base: unknown lever");
    CliResult order = levers("--measure", "--setup", "async-copies+pinned-host-memory");
    assertThat(order.code()).isEqualTo(2);
    assertThat(order.errorLine()).contains("async-copies does not apply to the shipped setup");
    CliResult twice = levers("--base", "preallocate+preallocate");
    assertThat(twice.code()).isEqualTo(2);
    assertThat(twice.errorLine()).contains("preallocate twice");
    CliResult noMeasure = levers("--setup", "preallocate");
    assertThat(noMeasure.code()).isEqualTo(2);
    assertThat(noMeasure.errorLine()).isEqualTo("gitm: --setup needs --measure");
    CliResult empty = levers("--base", "preallocate++pinned-host-memory");
    assertThat(empty.errorLine()).contains("an empty lever id");
  }
}
