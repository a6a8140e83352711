package io.gitm.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.store.Journal;
import io.gitm.store.RunDir;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gitm run --resume} as a user meets it on the simulated device: refused while the run is live and free once
 * its process is killed, a SIGTERM that leaves a run to resume, and a resume that keeps the options the run started
 * with. Waits are for journal entries, never for a time.
 */
class RunResumeEndToEndTest {
  @TempDir
  Path scratch;

  /** The dataset is made once per JVM: each run's set-up verifies it, as on a machine that ran gitm before. */
  @BeforeEach
  void seedDatasets() {
    Datasets.seed(scratch, "hft-lob");
  }

  private Path log;

  @Test
  void aResumeWhileTheRunIsLiveIsRefusedNamingItsProcessAndAllowedOnceItIsKilled() throws Exception {
    Process p = gitm("run", "--workload", "hft-lob", "--budget", "1m", "--target", "99%", "--device", "sim",
        "--sim-seed", "5", "--max-iterations", "20", "--scratch", scratch.toString());
    Path run = waitForEntry("phase-start");
    try {
      assertThat(p.isAlive()).as("the run is live").isTrue();
      CliResult refused = CliResult.run("run", "--resume", run.getFileName().toString(), "--scratch",
          scratch.toString());
      assertThat(refused.code()).isEqualTo(Main.FAILURE);
      assertThat(refused.errorLine()).contains("is still running in process " + p.pid());
      assertThat(refused.err().lines()).hasSize(1);
    } finally {
      p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }
    assertThat(Journal.read(run.resolve(RunDir.JOURNAL_FILE)).entries()).extracting(Journal.Entry::type)
        .doesNotContain("resume", "end");
    CliResult r = CliResult.run("run", "--resume", run.getFileName().toString(), "--scratch", scratch.toString(),
        "--json");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(Journal.read(run.resolve(RunDir.JOURNAL_FILE)).entries()).extracting(Journal.Entry::type)
        .contains("resume").endsWith("end");
  }

  @Test
  void aSigtermLeavesARunThatResumesToItsEnd() throws Exception {
    Process p = gitm("run", "--workload", "hft-lob", "--budget", "2m", "--target", "99%", "--device", "sim",
        "--sim-seed", "7", "--max-iterations", "20", "--scratch", scratch.toString());
    Path run = waitForEntry("trial");
    new ProcessBuilder("kill", "-TERM", Long.toString(p.pid())).inheritIO().start().waitFor();
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("gitm ends after SIGTERM").isTrue();
    List<Journal.Entry> entries = Journal.read(run.resolve(RunDir.JOURNAL_FILE)).entries();
    assertThat(entries).extracting(Journal.Entry::type).as(Files.readString(log)).doesNotContain("end");

    CliResult r = CliResult.run("run", "--resume", run.getFileName().toString(), "--scratch", scratch.toString(),
        "--json");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(Journal.read(run.resolve(RunDir.JOURNAL_FILE)).entries()).extracting(Journal.Entry::type)
        .contains("resume").endsWith("end");
  }

  @Test
  void aRunLimitedToSomeLeversResumesOverThoseLeversOnlyAndRefusesOptionsGivenAgain() throws Exception {
    Set<String> allowed = Set.of("graph-capture", "pinned-host-memory");
    CliResult first = CliResult.run("run", "--workload", "hft-lob", "--budget", "30s", "--target", "99%", "--device",
        "sim", "--sim-seed", "3", "--faults", "launch-bound", "--max-iterations", "20", "--levers",
        String.join(",", allowed), "--scratch", scratch.toString(), "--json");
    assertThat(first.code()).as(first.err()).isZero();
    Path run = Path.of(Json.MAPPER.readTree(first.out()).get("folder").asString());
    cutAfterTheProfile(run);

    CliResult again = CliResult.run("run", "--resume", run.toString(), "--levers", "sched-spin", "--scratch",
        scratch.toString());
    assertThat(again.code()).isEqualTo(Main.USAGE);
    assertThat(again.errorLine()).contains("--levers cannot be given again");

    CliResult r = CliResult.run("run", "--resume", run.toString(), "--scratch", scratch.toString(), "--json");
    assertThat(r.code()).as(r.err()).isZero();
    List<Journal.Entry> entries = Journal.read(run.resolve(RunDir.JOURNAL_FILE)).entries();
    List<String> ranked = new ArrayList<>();
    List<String> tried = new ArrayList<>();
    for (Journal.Entry e : entries) {
      if (e.type().equals("ranked")) {
        Map<?, ?> ranking = (Map<?, ?>) e.data().get("ranking");
        ((List<?>) ranking.get("candidates")).forEach(c -> ranked.add(String.valueOf(((Map<?, ?>) c).get("lever"))));
      } else if (e.type().equals("trial")) {
        ((List<?>) ((Map<?, ?>) e.data().get("trial")).get("levers")).forEach(l -> tried.add(String.valueOf(l)));
      }
    }
    assertThat(ranked).as("the resumed run ranked").isNotEmpty();
    assertThat(allowed).containsAll(ranked);
    assertThat(allowed).containsAll(tried);
  }

  /** Leaves the run folder as a kill right after its profile would: the profile journaled, nothing after it. */
  static void cutAfterTheProfile(Path dir) throws IOException {
    Path journal = dir.resolve(RunDir.JOURNAL_FILE);
    List<String> lines = Files.readAllLines(journal);
    int keep = 0;
    while (!(lines.get(keep).contains("\"type\":\"phase-end\"") && lines.get(keep).contains("\"profile\""))) {
      keep++;
    }
    Files.write(journal, lines.subList(0, keep + 1));
    for (String f : List.of("report.md", "report.html", "report.json", "outcome.json")) {
      Files.deleteIfExists(dir.resolve(f));
    }
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

  /** The run folder once its journal holds an entry of {@code type} (waiting up to five minutes). */
  private Path waitForEntry(String type) throws Exception {
    Path runs = scratch.resolve("runs");
    long deadline = System.nanoTime() + Duration.ofMinutes(15).toNanos();
    while (System.nanoTime() < deadline) {
      if (Files.isDirectory(runs)) {
        try (Stream<Path> s = Files.list(runs)) {
          for (Path run : s.filter(Files::isDirectory).toList()) {
            Path j = run.resolve(RunDir.JOURNAL_FILE);
            if (Files.exists(j) && Journal.read(j).entries().stream().anyMatch(e -> e.type().equals(type))) {
              return run;
            }
          }
        }
      }
      Thread.sleep(50);
    }
    throw new AssertionError("no '" + type + "' entry in a journal under " + runs + "; gitm said: "
        + (log == null ? "" : Files.readString(log)));
  }
}
