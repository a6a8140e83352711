package io.gitm.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.store.Journal;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * {@code gitm run} through all five phases on the simulated device, as a user runs it: with a fault to find, killed
 * with SIGKILL and resumed, and stopped with SIGINT (Ctrl-C).
 */
class RunEndToEndTest {
  @TempDir
  Path scratch;

  /** The output of the last gitm process started. */
  private Path log;

  @Test
  void aRunWithAFaultFindsItsCauseKeepsOnlyGatedLeversAndWritesEveryReport() throws Exception {
    CliResult r = CliResult.run("run", "--workload", "hft-lob", "--budget", "30s", "--target", "15%", "--device", "sim",
        "--sim-seed", "3", "--faults", "launch-bound", "--max-iterations", "30", "--scratch", scratch.toString(),
        "--json");
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
    assertThat(doc.get("elapsedSeconds").asDouble()).isLessThan(30 * 1.01 + 5);
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
    Process p = gitm("run", "--workload", "hft-lob", "--budget", "1m", "--target", "99%", "--device", "sim",
        "--sim-seed", "5", "--max-iterations", "20", "--scratch", scratch.toString());
    Path run = waitForRunFolder();
    // wait until at least two trials are journaled, then kill -9
    long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    while (trialsIfAny(run).size() < 2 && System.nanoTime() < deadline && p.isAlive()) {
      Thread.sleep(100);
    }
    assertThat(p.isAlive()).as("the run is still going when it is killed").isTrue();
    p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    List<JsonNode> before = trialsIfAny(run);
    assertThat(before).hasSizeGreaterThanOrEqualTo(2);
    assertThat(Journal.read(run.resolve("journal.jsonl")).entries()).extracting(Journal.Entry::type)
        .doesNotContain("end");

    CliResult r = CliResult.run("run", "--resume", run.getFileName().toString(), "--scratch", scratch.toString(),
        "--json");
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
    long started = System.nanoTime();
    // an unreachable target and long blocks keep the search going past the rank deadline
    Process p = gitm("run", "--workload", "hft-lob", "--budget", "1m", "--target", "900%", "--device", "sim",
        "--sim-seed", "5", "--max-iterations", "20", "--block-iterations", "24", "--scratch", scratch.toString());
    Path run = waitForRunFolder();
    // kill -9 once the rank deadline has passed and a trial is journaled
    long deadline = started + Duration.ofSeconds(55).toNanos();
    while ((System.nanoTime() - started < rankDeadline.plusSeconds(3).toNanos() || trialsIfAny(run).isEmpty())
        && System.nanoTime() < deadline && p.isAlive()) {
      Thread.sleep(100);
    }
    assertThat(p.isAlive()).as("the run is still going when it is killed").isTrue();
    p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThan(rankDeadline);
    List<JsonNode> before = trials(run);
    assertThat(before).isNotEmpty();

    CliResult r = CliResult.run("run", "--resume", run.getFileName().toString(), "--scratch", scratch.toString(),
        "--json");
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
    Process p = gitm("run", "--workload", "hft-lob", "--budget", "2m", "--target", "99%", "--device", "sim",
        "--sim-seed", "7", "--max-iterations", "20", "--scratch", scratch.toString());
    Path run = waitForRunFolder();
    long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    while (trialsIfAny(run).isEmpty() && System.nanoTime() < deadline && p.isAlive()) {
      Thread.sleep(100);
    }
    new ProcessBuilder("kill", "-INT", Long.toString(p.pid())).inheritIO().start().waitFor();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("gitm stops within a minute of Ctrl-C").isTrue();
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
    Process p = gitm("run", "--workload", "hft-lob", "--budget", "2m", "--target", "99%", "--device", "sim",
        "--sim-seed", "9", "--max-iterations", "20", "--scratch", scratch.toString());
    Path run = waitForRunFolder();
    long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    while (trialsIfAny(run).isEmpty() && System.nanoTime() < deadline && p.isAlive()) {
      Thread.sleep(100);
    }
    assertThat(p.isAlive()).as("the run is still going").isTrue();
    new ProcessBuilder("kill", "-INT", Long.toString(p.pid())).inheritIO().start().waitFor();
    new ProcessBuilder("kill", "-INT", Long.toString(p.pid())).inheritIO().start().waitFor();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).isEqualTo(130);
    List<Journal.Entry> entries = Journal.read(run.resolve("journal.jsonl")).entries();
    if (!entries.getLast().type().equals("end")) {
      // stopped before the graceful stop finished: the journal is whole and the run resumes
      CliResult r = CliResult.run("run", "--resume", run.getFileName().toString(), "--scratch", scratch.toString(),
          "--json");
      assertThat(r.code()).as(r.err()).isZero();
      assertThat(Journal.read(run.resolve("journal.jsonl")).entries()).extracting(Journal.Entry::type)
          .contains("resume").endsWith("end");
    }
    assertThat(Files.readString(log)).contains("gitm: stopping");
  }

  private Process gitm(String... args) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("--enable-native-access=ALL-UNNAMED");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add("io.gitm.cli.Main");
    cmd.addAll(List.of(args));
    log = scratch.resolve("gitm-" + System.nanoTime() + ".log");
    return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
  }

  private Path waitForRunFolder() throws Exception {
    Path runs = scratch.resolve("runs");
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (System.nanoTime() < deadline) {
      if (Files.isDirectory(runs)) {
        try (var s = Files.list(runs)) {
          var first = s.filter(Files::isDirectory).findFirst();
          if (first.isPresent() && Files.exists(first.get().resolve("journal.jsonl"))) {
            return first.get();
          }
        }
      }
      Thread.sleep(50);
    }
    throw new AssertionError("no run folder appeared in " + runs + "; gitm said: "
        + (log == null ? "" : Files.readString(log)));
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
