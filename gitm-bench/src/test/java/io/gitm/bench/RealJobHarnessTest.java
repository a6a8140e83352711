package io.gitm.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The real-job mode's command line and what it prints and writes. */
class RealJobHarnessTest {
  @TempDir
  Path dir;

  private static RealJobHarness.Args parse(Map<String, String> env, String... argv) {
    return RealJobHarness.parse(argv, env);
  }

  @Test
  void anUnknownOptionIsNamedWithTheUsage() {
    assertThatThrownBy(() -> parse(Map.of(), "--workload", "hft-lob", "--levres", "warmup"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--levres")
        .hasMessageContaining("--levers id,id");
  }

  @Test
  void anOptionWithoutItsValueIsRefused() {
    assertThatThrownBy(() -> parse(Map.of(), "--workload", "hft-lob", "--repeats"))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("option --repeats needs a value");
  }

  @Test
  void anUnknownWorkloadIsRefused() {
    assertThatThrownBy(() -> parse(Map.of("GITM_SCRATCH", dir.toString()), "--workload", "af2"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("hft-lob").hasMessageContaining("'af2'");
  }

  @Test
  void faultsOnTheGpuAreRefused() {
    assertThatThrownBy(() -> parse(Map.of(), "--workload", "hft-lob", "--device", "nvidia", "--faults", "thermal"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--device sim only");
  }

  @Test
  void aNumberThatIsNotOneIsNamed() {
    assertThatThrownBy(() -> parse(Map.of(), "--workload", "hft-lob", "--repeats", "five"))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("--repeats must be a whole number, got 'five'");
    assertThatThrownBy(() -> parse(Map.of(), "--workload", "hft-lob", "--oracle-pairs", "1"))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("--oracle-pairs must be at least 2, got 1");
  }

  @Test
  void theTargetIsTheOraclesUnlessGiven() {
    assertThat(RealJobHarness.parseTarget("oracle")).isNaN();
    assertThat(RealJobHarness.parseTarget("15%")).isEqualTo(0.15);
    assertThat(RealJobHarness.parseTarget("1.2")).isEqualTo(1.2);
    assertThatThrownBy(() -> RealJobHarness.parseTarget("-5%")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("positive");
    assertThatThrownBy(() -> RealJobHarness.parseTarget("lots")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'lots'");
  }

  @Test
  void theDerivedTargetIsEightyPercentOfTheOraclesGainRoundedDown() {
    assertThat(RealJobHarness.targetFromOracle(2.375)).isEqualTo(1.10);
    assertThat(RealJobHarness.targetFromOracle(1.30)).isEqualTo(0.24);
    assertThat(RealJobHarness.targetFromOracle(1.005)).isEqualTo(0.01);
  }

  @Test
  void theDatasetLivesInTheScratchFolderWhenThereIsOne() {
    RealJobHarness.Args a = parse(Map.of("GITM_SCRATCH", dir.toString()), "--workload", "hft-lob", "--oracle-pairs",
        "6", "--sim-seed", "9");

    assertThat(a.scenario().dataDir()).isEqualTo(dir.resolve("datasets").resolve("hft"));
    assertThat(a.tempData()).isNull();
    assertThat(a.settings().gate().pairs()).isEqualTo(8);
    assertThat(a.settings().oracleGate().pairs()).isEqualTo(6);
    assertThat(a.scenario().simOptions()).containsEntry("seed", "9");
  }

  @Test
  void aRunPrintsTheMethodTableAndWritesEveryOracleTrial() throws Exception {
    Path json = dir.resolve("out").resolve("search.json");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    RealJobHarness.run(new String[] {"--workload", "hft-lob", "--device", "sim", "--instruments", "40",
        "--book-messages", "6000", "--batch-messages", "700", "--levers", "pool-allocation,occupancy-block-size",
        "--block-iterations", "4", "--repeats", "1", "--random-budget", "3", "--gate-pairs", "6",
        "--profile-iterations", "5", "--json", json.toString()}, Map.of(),
        new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));

    String text = out.toString(StandardCharsets.UTF_8);
    assertThat(text).contains("| agent, median of 1 runs |", "| random search, median of 1 runs of at most 3 trials |",
        "| oracle, all 3 combinations, 6 pairs each |", "| `pool-allocation` |", "wall time");
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("oracle 3/3 combinations", "agent run 1/1");
    JsonNode doc = JsonMapper.builder().build().readTree(Files.readString(json));
    assertThat(doc.get("oracleTrials")).hasSize(3);
    assertThat(doc.get("methods").get("agent").get("runs")).hasSize(1);
    assertThat(doc.get("device").get("kind").asString()).isEqualTo("SIMULATED");
    assertThat(List.of("agent", "random", "oracle")).allSatisfy(m ->
        assertThat(doc.get("methods").get(m).get("seconds").asDouble()).isPositive());
  }
}
