package io.gitm.samples;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.Gitm;
import io.gitm.api.Budget;
import io.gitm.report.Report;
import io.gitm.testkit.FakeTicker;
import io.gitm.testkit.SteppedWorkload;
import io.gitm.testkit.TickerClock;
import io.gitm.workload.ExecutionConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedded API's sample, run: a user's own engine ({@link ScaleEngine}) optimized by {@link Gitm#optimize} on
 * the simulated device, as {@code docs/embedded-api.md} shows it.
 */
class EmbeddedApiSampleTest {
  @TempDir
  Path store;

  @Test
  void aUsersOwnEngineIsOptimizedAndGetsBackASetupThatPassedTheGates() throws Exception {
    // on a wall clock that only the engine's steps move: the same gates on a busy machine as on an idle one
    FakeTicker wall = new FakeTicker();
    Gitm.Optimization o = Gitm.optimize(new SteppedWorkload(new ScaleEngine(), wall, Duration.ofMillis(25)),
        Budget.parse("30s"), 0.15, Gitm.Options.defaults().withDevice("sim", Map.of("seed", "11")).withStore(store)
            .withClocks(wall, new TickerClock(wall, Instant.parse("2026-12-02T03:00:00Z"))));

    assertThat(o.status()).isIn(Report.Status.TARGET_REACHED, Report.Status.TARGET_MISSED,
        Report.Status.TARGET_NOT_REACHABLE);
    assertThat(o.report()).isRegularFile();
    assertThat(Files.readString(o.report())).contains("scale-sample").contains("SIMULATED device");
    // the engine is written the straightforward way: pinned memory and a pool are what it lacks
    assertThat(o.keptLevers()).isNotEmpty();
    assertThat(o.gain()).isGreaterThan(1.0);
    ExecutionConfig best = o.setup().config();
    assertThat(best).isNotEqualTo(ExecutionConfig.shipped());
  }
}
