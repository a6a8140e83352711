package io.gitm.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.store.Journal;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * {@code gitm run} through all five phases on the simulated device, as a user runs it: with a fault to find, killed
 * with SIGKILL and resumed, and stopped with SIGINT (Ctrl-C). Every run is on a wall clock that only the workload's
 * steps move ({@link SteppedRuns}), so its phases and trials are the same on a busy machine as on an idle one; a run
 * to be killed or stopped pauses at a known point (after so many journaled trials) and says so with a marker file.
 */
class RunEndToEndTest {
  /** Real time a test waits at most for a run to reach its pause: only a broken run takes that long. */
  private static final Duration PATIENCE = Duration.ofMinutes(15);

  @TempDir
  Path scratch;

  /** The dataset is made once per JVM: each run's set-up verifies it, as on a machine that ran gitm before. */
  @BeforeEach
  void seedDatasets() {
    Datasets.seed(scratch, "hft-lob");
  }

  /** The output of the last gitm process started. */
  private Path log;

  @Test
  void aRunWithAFaultFindsItsCauseKeepsOnlyGatedLeversAndWritesEveryReport() throws Exception {
    CliResult r = SteppedRuns.run("run", "--workload", "hft-lob", "--budget", "30s", "--target", "15%", "--device",
        "sim", "--sim-seed", "3", "--faults", "launch-bound", "--max-iterations", "30", "--scratch",
        scratch.toString(), "--json");
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode doc = Json.MAPPER.readTree(r.out());
    Path run = Path.of(doc.get("folder").asString());
    for (String f : List.of("run.json", "journal.jsonl", "trace.gtrace", "baseline.json", "report.md", "report.html",
        "report.json", "outcome.json", "ground-truth.json")) {
      assertThat(run.resolve(f)).isRegularFile();
    }
    List<String> causes = new ArrayList<>();
    doc.get("hypotheses").forEach(h -> causes.add(h.asString()));
    assertThat(causes).contains("LAUNCH_BOUND_HOST");
    assertThat(doc.get("status").asString()).isIn("TARGET_REACHED", "TARGET_MISSED", "TARGET_NOT_REACHABLE");
    // every kept lever passed its gate: its trial in the journal says KEPT
    List<JsonNode> trials = trials(run);
    assertThat(trials).isNotEmpty();
    List<String> keptByGate = new ArrayList<>();
    for (JsonNode t : trials) {
      if (t.get("verdict").get("outcome").asString().equals("KEPT")
          && !t.get("kind").asString().equals("CONFIRMATION")) {
        t.get("levers").forEach(l -> keptByGate.add(l.asString()));
      }
    }
    List<String> kept = new ArrayList<>();
    doc.get("kept").forEach(k -> kept.add(k.asString()));
    assertThat(keptByGate).containsAll(kept);
    String md = Files.readString(run.resolve("report.md"));
    assertThat(md).contains("SIMULATED device").contains("launch-bound host");
    assertThat(Files.readString(run.resolve("report.html"))).contains("<svg");
    assertThat(Journal.read(run.resolve("journal.jsonl")).entries()).extracting(Journal.Entry::type)
        .startsWith("start", "phase-start", "phase-end").endsWith("end");
    assertThat(doc.get("elapsedSeconds").asDouble()).as("the stepped clock moves only with the job")
        .isLessThan(30 * 1.01 + 5);
    JsonNode report = Json.MAPPER.readTree(run.resolve("report.json").toFile());
    assertThat(report.get("run").get("gitmVersion").asString()).matches(".+ \\(git [0-9a-f]{4,}(\\+dirty)?\\)");
    // every claim cites its gate and each piece of evidence once, and no trace slice is empty
    for (JsonNode c : report.get("claims")) {
      List<String> refs = new ArrayList<>();
      c.get("evidence").forEach(e -> refs.add(e.get("kind").asString() + " " + e.get("ref").asString()));
      assertThat(refs).doesNotHaveDuplicates().anyMatch(x -> x.startsWith("GATE trial "));
      c.get("evidence").forEach(e -> {
        if (e.get("kind").asString().equals("TRACE")) {
          assertThat(e.get("endNs").asLong()).isGreaterThan(e.get("startNs").asLong());
        }
      });
    }
    if (!kept.isEmpty()) {
      assertThat(report.get("claims")).isNotEmpty();
      assertThat(report.get("charts").get("after").isNull()).as("the final setup's timeline is in the report")
          .isFalse();
      assertThat(report.get("charts").get("after").get("streams")).isNotEmpty();
    }
  }

  @Test
  void aRunKilledWithSigkillResumesWithoutRepeatingATrialAndReachesTheEnd() throws Exception {
    Process p = gitm(Duration.ZERO, 2, "run", "--workload", "hft-lob", "--budget", "1m", "--target", "99%",
        "--device", "sim", "--sim-seed", "5", "--max-iterations", "20", "--scratch", scratch.toString());
    Path run = awaitPause(p);
    p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    List<JsonNode> before = trialsIfAny(run);
    assertThat(before).hasSizeGreaterThanOrEqualTo(2);
    assertThat(Journal.read(run.resolve("journal.jsonl")).entries()).extracting(Journal.Entry::type)
        .doesNotContain("end");

    CliResult r = resume(run);
    assertThat(r.code()).as(r.err()).isZero();
    List<Journal.Entry> entries = Journal.read(run.resolve("journal.jsonl")).entries();
    assertThat(entries).extracting(Journal.Entry::type).contains("resume").endsWith("end");
    // the profile is not repeated, and no completed trial is run again: trial indices never repeat
    assertThat(entries.stream().filter(e -> e.type().equals("phase-end") && "profile".equals(e.data().get("phase"))))
        .hasSize(1);
    List<JsonNode> after = trials(run);
    List<Integer> indices = after.stream().map(t -> t.get("index").asInt()).toList();
    assertThat(indices).doesNotHaveDuplicates();
    assertThat(after.subList(0, before.size())).containsExactlyElementsOf(before);
    assertThat(run.resolve("report.md")).isRegularFile();
  }

  @Test
  void aRunKilledPastItsRankDeadlineResumesOnTheSameRankingAndLosesNoCompletedTrial() throws Exception {
    Duration rankDeadline = new io.gitm.run.PhasePlan(io.gitm.api.Budget.parse("1m"))
        .deadline(io.gitm.run.Phase.RANK);
    // an unreachable target and long blocks keep the search going past the rank deadline; the run pauses (and is
    // killed) once a trial that ended past that deadline is journaled
    Process p = gitm(rankDeadline, 1, "run", "--workload", "hft-lob", "--budget", "1m", "--target",
        "900%", "--device", "sim", "--sim-seed", "5", "--max-iterations", "20", "--block-iterations", "24",
        "--scratch", scratch.toString());
    Path run = awaitPause(p);
    p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    List<Journal.Entry> journaled = Journal.read(run.resolve("journal.jsonl")).entries();
    assertThat(Duration.between(Instant.parse(journaled.getFirst().time()), Instant.parse(journaled.getLast().time())))
        .as("the killed run had used more than its rank deadline").isGreaterThan(rankDeadline);
    List<JsonNode> before = trials(run);
    assertThat(before).isNotEmpty();

    CliResult r = resume(run);
    assertThat(r.code()).as(r.err()).isZero();
    List<Journal.Entry> entries = Journal.read(run.resolve("journal.jsonl")).entries();
    List<JsonNode> after = trials(run);
    List<String> keys = after.stream().map(t -> t.get("kind").asString() + t.get("levers") + t.get("anchorLevers"))
        .toList();
    assertThat(keys).as("no trial of the interrupted run is run again").doesNotHaveDuplicates();
    JsonNode report = Json.MAPPER.readTree(run.resolve("report.json").toFile());
    List<JsonNode> reported = new ArrayList<>();
    report.get("trials").forEach(reported::add);
    for (JsonNode t : before) {
      assertThat(reported).as("trial %s is in the report", t.get("index"))
          .anySatisfy(x -> {
            assertThat(x.get("index").asInt()).isEqualTo(t.get("index").asInt() + 1);
            assertThat(x.get("levers")).isEqualTo(t.get("levers"));
            assertThat(x.get("reason").asString()).doesNotContain("did not come to it");
          });
    }
    assertThat(r.err()).contains("reused from the interrupted run").contains("best so far");
    // ranked once, by the interrupted run: the resumed run took its ranking from the journal
    assertThat(entries).filteredOn(e -> e.type().equals("ranked")).hasSize(1);
  }

  @Test
  void ctrlCStopsGracefullyAndWritesTheReportOfWhatWasDone() throws Exception {
    Process p = gitm(Duration.ZERO, 1, "run", "--workload", "hft-lob", "--budget", "1m", "--target", "99%",
        "--device", "sim", "--sim-seed", "7", "--max-iterations", "20", "--scratch", scratch.toString());
    Path run = awaitPause(p);
    new ProcessBuilder("kill", "-INT", Long.toString(p.pid())).inheritIO().start().waitFor();
    assertThat(p.waitFor(PATIENCE.toSeconds(), TimeUnit.SECONDS)).as("gitm stops after Ctrl-C").isTrue();
    assertThat(p.exitValue()).isEqualTo(130);
    List<Journal.Entry> entries = Journal.read(run.resolve("journal.jsonl")).entries();
    // journaled as interrupted, not ended: the --resume that gitm's message offers continues it
    assertThat(entries.getLast().type()).isEqualTo("interrupted");
    assertThat(entries.getLast().data().get("status")).isEqualTo("INTERRUPTED");
    assertThat(Files.readString(run.resolve("report.md"))).contains("interrupted");
    assertThat(Files.readString(run.resolve("outcome.json"))).contains("INTERRUPTED");
    CliResult r = CliResult.run("run", "--resume", run.getFileName().toString(), "--scratch", scratch.toString(),
        "--json");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(Journal.read(run.resolve("journal.jsonl")).entries()).extracting(Journal.Entry::type)
        .contains("interrupted", "resume").endsWith("end");
  }

  @Test
  void aSecondCtrlCStopsAtOnceAndTheRunResumesFromItsJournal() throws Exception {
    Process p = gitm(Duration.ZERO, 1, "run", "--workload", "hft-lob", "--budget", "1m", "--target", "99%",
        "--device", "sim", "--sim-seed", "9", "--max-iterations", "20", "--scratch", scratch.toString());
    Path run = awaitPause(p);
    new ProcessBuilder("kill", "-INT", Long.toString(p.pid())).inheritIO().start().waitFor();
    new ProcessBuilder("kill", "-INT", Long.toString(p.pid())).inheritIO().start().waitFor();
    assertThat(p.waitFor(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).isEqualTo(130);
    List<Journal.Entry> entries = Journal.read(run.resolve("journal.jsonl")).entries();
    if (!entries.getLast().type().equals("end")) {
      // stopped before the graceful stop finished: the journal is whole and the run resumes
      CliResult r = resume(run);
      assertThat(r.code()).as(r.err()).isZero();
      assertThat(Journal.read(run.resolve("journal.jsonl")).entries()).extracting(Journal.Entry::type)
          .contains("resume").endsWith("end");
    }
    assertThat(Files.readString(log)).contains("gitm: stopping");
  }

  /**
   * {@code gitm args} in a process of its own on stepped clocks, pausing in its first step once {@code trials}
   * trials more are journaled than when {@code after} had passed on its clock.
   */
  private Process gitm(Duration after, int trials, String... args) throws IOException {
    SteppedRuns.Pause pause = new SteppedRuns.Pause(scratch.resolve("runs"), trials, after, marker());
    log = scratch.resolve("gitm-" + System.nanoTime() + ".log");
    return new ProcessBuilder(SteppedRuns.command(pause, args)).redirectErrorStream(true).redirectOutput(log.toFile())
        .start();
  }

  private Path marker() {
    return scratch.resolve("paused");
  }

  /** Waits until the run started by {@link #gitm} has paused, and returns its folder. */
  private Path awaitPause(Process p) throws Exception {
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    while (!Files.exists(marker()) && p.isAlive() && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(Files.exists(marker())).as("the run pauses where asked; gitm said: %s", Files.readString(log))
        .isTrue();
    assertThat(p.isAlive()).as("the run is still going when it is stopped").isTrue();
    try (var s = Files.list(scratch.resolve("runs"))) {
      return s.filter(d -> Files.exists(d.resolve("journal.jsonl"))).findFirst().orElseThrow();
    }
  }

  /** {@code gitm run --resume} of {@code run}, in-process on stepped clocks that start after its last entry. */
  private CliResult resume(Path run) throws IOException {
    Instant last = Instant.parse(Journal.read(run.resolve("journal.jsonl")).entries().getLast().time());
    return SteppedRuns.run(last.plusSeconds(1), "run", "--resume", run.getFileName().toString(), "--scratch",
        scratch.toString(), "--json");
  }

  private static List<JsonNode> trials(Path run) throws IOException {
    return trialsIfAny(run);
  }

  private static List<JsonNode> trialsIfAny(Path run) throws IOException {
    List<JsonNode> out = new ArrayList<>();
    if (!Files.exists(run.resolve("journal.jsonl"))) {
      return out;
    }
    for (Journal.Entry e : Journal.read(run.resolve("journal.jsonl")).entries()) {
      if (e.type().equals("trial")) {
        out.add(Json.MAPPER.valueToTree(e.data().get("trial")));
      }
    }
    return out;
  }
}
