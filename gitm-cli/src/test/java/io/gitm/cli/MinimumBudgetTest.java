package io.gitm.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.run.Profiler;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

/**
 * Every built-in workload succeeds at the documented minimum budget (30 s) when its set-up and its iterations are
 * slow, as on a busy machine: on clocks that only the workload moves ({@link SteppedRuns}), its dataset takes 12 s to
 * make and each iteration 3 s, more than the profile's whole share of what set-up left. The profile still runs its
 * floor of iterations and the run ends with its report, not with an empty profile.
 */
class MinimumBudgetTest {
  @TempDir
  Path scratch;

  @ParameterizedTest
  @ValueSource(strings = {"hft-lob", "af2", "kitti"})
  void aBuiltInWorkloadWithASlowSetUpAndSlowIterationsSucceedsAtTheMinimumBudget(String workload) throws Exception {
    CliResult r = SteppedRuns.run(Duration.ofSeconds(3), Duration.ofSeconds(12), "run", "--workload", workload,
        "--budget", "30s", "--target", "15%", "--device", "sim", "--scratch", scratch.toString(), "--json");

    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.err()).contains("set-up   12.0s (start-up and device 0.0s, workload and dataset 12.0s)");
    JsonNode doc = Json.MAPPER.readTree(r.out());
    assertThat(doc.get("baseline").get("iterations").asInt()).isEqualTo(Profiler.FLOOR_ITERATIONS);
    assertThat(doc.get("status").asString()).isIn("TARGET_REACHED", "TARGET_MISSED", "TARGET_NOT_REACHABLE");
  }
}
