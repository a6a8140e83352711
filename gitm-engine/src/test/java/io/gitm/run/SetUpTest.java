package io.gitm.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.store.Journal;
import io.gitm.store.RunDir;
import io.gitm.store.RunStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * A run's set-up (gitm's start, the device, the workload's dataset) is done before its budget is split into phases,
 * and the profile phase runs a floor of iterations whatever its share: on a wall clock that only the job moves
 * ({@link SimRun}), so that a slow set-up or a slow iteration is the same on every machine.
 */
class SetUpTest {
  static final Instant EPOCH = Instant.parse("2026-12-02T03:00:00Z");
  static final Map<String, String> DEVICE = Map.of("seed", "3", "faults", "launch-bound");

  @TempDir
  Path root;

  @Test
  void aStartUpAndDatasetLongerThanTheProfileShareLeaveTheProfileItsIterations() throws Exception {
    RunStore store = RunStore.open(root.resolve("store"));
    // the profile's share of 30 s is 2.5 s: a 3 s start-up used to leave it nothing, and the dataset ate the rest
    SimRun sim = new SimRun(EPOCH, DEVICE).startUp(Duration.ofSeconds(3)).firstOpen(Duration.ofSeconds(4));
    RunLoop.Result r = sim.run(store, root.resolve("data"), null);

    assertThat(r.failure()).isNull();
    assertThat(sim.events.lines).contains("set-up   7.0s (start-up and device 3.0s, workload and dataset 4.0s)")
        .anyMatch(l -> l.startsWith("profile  30 iterations"));
    assertThat(sim.events.header).contains("30s (set-up 7s, profile 1.9s, attribute 3.8s");
    Journal.Entry start = Journal.read(r.run().dir().resolve(RunDir.JOURNAL_FILE)).entries().getFirst();
    assertThat(start.type()).isEqualTo("start");
    assertThat(SetUp.journaled(start.data())).isEqualTo(Duration.ofSeconds(7));
    JsonNode phase = RunLoop.JSON.readTree(r.run().dir().resolve("report.json").toFile()).get("phases").get(0);
    assertThat(phase.get("name").asString()).isEqualTo("set-up");
    assertThat(phase.get("plannedSeconds").asDouble()).isEqualTo(7.0);
  }

  @Test
  void aProfileWhoseFirstIterationOutlastsItsShareStillRunsTheFloorOfIterations() throws Exception {
    RunStore store = RunStore.open(root.resolve("store"));
    // each iteration takes longer than the profile's whole share of a 30 s budget
    SimRun sim = new SimRun(EPOCH, DEVICE).step(Duration.ofSeconds(3));
    RunLoop.Result r = sim.run(store, root.resolve("data"), null);

    assertThat(sim.events.lines).anyMatch(l -> l.startsWith("profile  " + Profiler.FLOOR_ITERATIONS + " iterations"));
    assertThat(r.baseline().iterations()).isEqualTo(Profiler.FLOOR_ITERATIONS);
    assertThat(r.run().dir().resolve("report.md")).isRegularFile();
  }

  @Test
  void aSetUpThatLeavesThePhasesTooLittleFailsBeforeTheRunFolderNamingItsTimeAndABudgetThatWouldDo()
      throws Exception {
    RunStore store = RunStore.open(root.resolve("store"));
    SimRun sim = new SimRun(EPOCH, DEVICE).firstOpen(Duration.ofSeconds(25));

    assertThatThrownBy(() -> sim.run(store, root.resolve("data"), null)).isInstanceOf(RunLoop.RunFailure.class)
        .hasMessage("hft-lob: set-up took 25.0s (start-up and device 0.0s, workload and dataset 25.0s) of the 30s"
            + " budget, leaving less than the 10s the phases need: give --budget 35s or more");
    try (Stream<Path> runs = Files.list(store.runs())) {
      assertThat(runs.toList()).as("no run folder is left half-made").isEmpty();
    }
  }

  @Test
  void aResumedRunKeepsThePhasesOfTheRunItContinues() throws Exception {
    RunStore store = RunStore.open(root.resolve("store"));
    Path data = root.resolve("data");
    SimRun first = new SimRun(EPOCH, DEVICE).firstOpen(Duration.ofSeconds(4));
    Path dir = first.run(store, data, null).run().dir();
    List<String> lines = Files.readAllLines(dir.resolve(RunDir.JOURNAL_FILE));
    // cut after the profile: no trial, no report, no end
    int profiled = 0;
    while (!lines.get(profiled++).contains("\"type\":\"phase-end\"")) {
      // the first phase-end is the profile's
    }
    Files.write(dir.resolve(RunDir.JOURNAL_FILE), lines.subList(0, profiled));

    SimRun second = new SimRun(EPOCH.plusSeconds(3600), DEVICE).firstOpen(Duration.ofSeconds(1));
    RunLoop.Result r = second.run(store, data, RunDir.open(dir));

    assertThat(r.failure()).isNull();
    JsonNode phase = RunLoop.JSON.readTree(dir.resolve("report.json").toFile()).get("phases").get(0);
    assertThat(phase.get("name").asString()).isEqualTo("set-up");
    assertThat(phase.get("plannedSeconds").asDouble()).as("the interrupted run's set-up").isEqualTo(4.0);
    assertThat(second.events.lines).contains("set-up   1.0s (start-up and device 0.0s, workload and dataset 1.0s)");
  }
}
