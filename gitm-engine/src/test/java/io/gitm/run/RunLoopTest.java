package io.gitm.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.report.Report;
import io.gitm.search.TrialRecord;
import io.gitm.store.Journal;
import io.gitm.store.RunDir;
import io.gitm.store.RunStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The run loop end to end on the simulated device, on a wall clock that only the job moves ({@link SimRun}): the
 * five phases in order, the run folder's files, and a run cut short after its second trial resumed from its
 * journal.
 */
class RunLoopTest {
  static final Instant EPOCH = Instant.parse("2026-12-01T12:00:00Z");
  static final Map<String, String> DEVICE = Map.of("seed", "3", "faults", "launch-bound");

  @TempDir
  Path root;

  @Test
  void aRunGoesThroughTheFivePhasesInOrderAndLeavesItsJournalAndReports() throws Exception {
    RunStore store = RunStore.open(root.resolve("store"));
    SimRun sim = new SimRun(EPOCH, DEVICE);
    RunLoop.Result r = sim.run(store, root.resolve("data"), null);

    assertThat(sim.events.phases).containsExactly(Phase.PROFILE, Phase.ATTRIBUTE, Phase.RANK, Phase.APPLY,
        Phase.REPORT);
    assertThat(r.status()).isIn(Report.Status.TARGET_REACHED, Report.Status.TARGET_MISSED,
        Report.Status.TARGET_NOT_REACHABLE);
    assertThat(r.failure()).isNull();
    Path dir = r.run().dir();
    for (String f : List.of("run.json", "journal.jsonl", "trace.gtrace", "baseline.json", "report.md", "report.html",
        "report.json", "outcome.json", "ground-truth.json")) {
      assertThat(dir.resolve(f)).isRegularFile();
    }
    List<Journal.Entry> entries = Journal.read(dir.resolve(RunDir.JOURNAL_FILE)).entries();
    assertThat(entries.getFirst().type()).isEqualTo("start");
    assertThat(entries.getLast().type()).isEqualTo("end");
    assertThat(entries.stream().filter(e -> e.type().equals("phase-start")).map(e -> e.data().get("phase")))
        .containsExactly("profile", "attribute", "rank", "apply");
    assertThat(entries.stream().filter(e -> e.type().equals("phase-end")).map(e -> e.data().get("phase")))
        .containsExactly("profile", "attribute", "rank", "apply");
    assertThat(entries).filteredOn(e -> e.type().equals("ranked")).hasSize(1);
    assertThat(entries).filteredOn(e -> e.type().equals("trial")).hasSameSizeAs(sim.events.trials);
    assertThat(sim.events.trials).isNotEmpty();
    assertThat(sim.events.lines).anyMatch(l -> l.startsWith("profile  30 iterations"))
        .anyMatch(l -> l.startsWith("result   "));
    assertThat(r.summary()).containsKeys("gain", "kept", "trialLog", "elapsedSeconds");
    assertThat((Double) r.summary().get("elapsedSeconds")).as("the fake clock moves only with the job")
        .isLessThan(30 + 5);
    assertThat(Files.readString(dir.resolve("report.md"))).contains("SIMULATED device");
  }

  @Test
  void theBriefCallsAFractionGainAndARatioSpeedupAsTheReportDoes() throws Exception {
    RunStore store = RunStore.open(root.resolve("store"));
    RunLoop.Result r = new SimRun(EPOCH, DEVICE).run(store, root.resolve("data"), null);
    Map<String, Object> brief = r.summary();
    double speedup = (Double) brief.get("speedup");
    assertThat((Double) brief.get("gain")).isCloseTo(speedup - 1, Offset.offset(1e-12));
    Map<?, ?> report = RunLoop.JSON.readValue(r.run().dir().resolve("report.json").toFile(), Map.class);
    Map<?, ?> gain = (Map<?, ?>) ((Map<?, ?>) report.get("outcome")).get("gain");
    double reported = ((Number) gain.get("value")).doubleValue();
    assertThat(Math.abs(reported - (Double) brief.get("gain"))).as("report.json's gain is on the brief's scale")
        .isLessThan(Math.abs(reported - speedup));
    @SuppressWarnings("unchecked")
    Map<String, Map<String, Object>> log = (Map<String, Map<String, Object>>) brief.get("trialLog");
    assertThat(log).isNotEmpty().allSatisfy((k, v) -> assertThat(v)
        .containsKeys("predictedSpeedup", "measuredSpeedup").doesNotContainKeys("predictedGain", "measuredGain"));
  }

  @Test
  void aRunCutAfterItsSecondTrialResumesWithoutProfilingAgainOrRepeatingATrial() throws Exception {
    RunStore store = RunStore.open(root.resolve("store"));
    Path data = root.resolve("data");
    SimRun first = new SimRun(EPOCH, DEVICE);
    Path dir = first.run(store, data, null).run().dir();
    assertThat(first.events.trials).as("a search long enough to cut").hasSizeGreaterThan(2);
    List<TrialRecord> before = first.events.trials.subList(0, 2);
    cutAfterSecondTrial(dir);

    SimRun second = new SimRun(EPOCH.plusSeconds(3600), DEVICE);
    RunLoop.Result r = second.run(store, data, RunDir.open(dir));

    assertThat(r.run().id()).isEqualTo(dir.getFileName().toString());
    assertThat(second.events.reused).containsExactlyElementsOf(before);
    assertThat(second.events.lines).anyMatch(l -> l.startsWith("profile  reused from the interrupted run"));
    assertThat(second.events.phases).containsExactly(Phase.ATTRIBUTE, Phase.RANK, Phase.APPLY, Phase.REPORT);
    List<Journal.Entry> entries = Journal.read(dir.resolve(RunDir.JOURNAL_FILE)).entries();
    assertThat(entries).extracting(Journal.Entry::type).contains("resume").endsWith("end");
    assertThat(entries).filteredOn(e -> e.type().equals("phase-end") && "profile".equals(e.data().get("phase")))
        .hasSize(1);
    assertThat(entries).as("ranked once, by the interrupted run").filteredOn(e -> e.type().equals("ranked"))
        .hasSize(1);
    List<TrialRecord> trials = entries.stream().filter(e -> e.type().equals("trial"))
        .map(e -> RunLoop.JSON.convertValue(e.data().get("trial"), TrialRecord.class)).toList();
    assertThat(trials.subList(0, 2)).containsExactlyElementsOf(before);
    assertThat(trials).extracting(TrialRecord::index).doesNotHaveDuplicates();
    assertThat(dir.resolve("report.md")).isRegularFile();
    assertThat(dir.resolve("outcome.json")).isRegularFile();
  }

  /** Leaves the run folder as a kill right after the second trial was journaled would: no report, no end. */
  private static void cutAfterSecondTrial(Path dir) throws Exception {
    Path journal = dir.resolve(RunDir.JOURNAL_FILE);
    List<String> lines = Files.readAllLines(journal);
    int trials = 0;
    int keep = 0;
    while (trials < 2) {
      if (lines.get(keep++).contains("\"type\":\"trial\"")) {
        trials++;
      }
    }
    Files.write(journal, lines.subList(0, keep));
    for (String f : List.of("report.md", "report.html", "report.json", "outcome.json")) {
      Files.delete(dir.resolve(f));
    }
  }
}
