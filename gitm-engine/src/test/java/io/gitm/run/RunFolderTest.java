package io.gitm.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.report.Report;
import io.gitm.search.TrialRecord;
import io.gitm.store.Journal;
import io.gitm.store.RunDir;
import io.gitm.store.RunLock;
import io.gitm.store.RunStore;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run's folder as its one writer keeps it, on the simulated device and a wall clock only the job moves
 * ({@link SimRun}): the writer's lock, a stop from outside journaled so that the run resumes, and the options that
 * shaped the run journaled at its start.
 */
class RunFolderTest {
  static final Instant EPOCH = Instant.parse("2026-12-02T04:00:00Z");
  static final Map<String, String> DEVICE = Map.of("seed", "3", "faults", "launch-bound");

  @TempDir
  Path root;

  @Test
  void aResumeOfARunWhoseFolderALiveWriterHoldsIsRefusedNamingTheWriter() throws Exception {
    RunStore store = RunStore.open(root.resolve("store"));
    Path data = root.resolve("data");
    Path dir = new SimRun(EPOCH, DEVICE).run(store, data, null).run().dir();
    dropTheEnd(dir);
    List<Journal.Entry> before = Journal.read(dir.resolve(RunDir.JOURNAL_FILE)).entries();

    try (RunLock live = RunLock.acquire(dir)) {
      SimRun second = new SimRun(EPOCH.plusSeconds(3600), DEVICE);
      assertThatThrownBy(() -> second.run(store, data, RunDir.open(dir))).isInstanceOf(RunLock.HeldException.class)
          .hasMessageContaining("is still running in this gitm process (pid " + ProcessHandle.current().pid() + ")");
    }
    assertThat(Journal.read(dir.resolve(RunDir.JOURNAL_FILE)).entries()).as("the refused resume wrote nothing")
        .isEqualTo(before);
    RunLoop.Result r = new SimRun(EPOCH.plusSeconds(7200), DEVICE).run(store, data, RunDir.open(dir));
    assertThat(r.run().id()).isEqualTo(dir.getFileName().toString());
    assertThat(Journal.read(dir.resolve(RunDir.JOURNAL_FILE)).entries()).extracting(Journal.Entry::type)
        .contains("resume").endsWith("end");
  }

  @Test
  void aRunStoppedFromOutsideIsJournaledAsInterruptedAndItsResumeGoesOnToTheEnd() throws Exception {
    RunStore store = RunStore.open(root.resolve("store"));
    Path data = root.resolve("data");
    SimRun first = new SimRun(EPOCH, DEVICE);
    RunLoop.Control control = RunLoop.Control.none();
    RunEvents stopAfterFirstTrial = new RunEvents() {
      @Override
      public void header(String run, String device, String budget) {}

      @Override
      public void phase(Phase p, Duration window) {}

      @Override
      public void line(String s) {}

      @Override
      public void trial(TrialRecord t, RunClock clock) {
        control.requestStop();
      }
    };
    RunLoop.Result stopped = RunLoop.run(first.request(store, data, null), first.wall, first.clock,
        stopAfterFirstTrial, control);
    assertThat(stopped.status()).isEqualTo(Report.Status.INTERRUPTED);
    Path dir = stopped.run().dir();
    List<Journal.Entry> entries = Journal.read(dir.resolve(RunDir.JOURNAL_FILE)).entries();
    assertThat(entries.getLast().type()).isEqualTo("interrupted");
    assertThat(entries.getLast().data()).containsEntry("status", "INTERRUPTED");
    assertThat(entries).extracting(Journal.Entry::type).doesNotContain("end");
    assertThat(dir.resolve("report.md")).as("the report of what was done").isRegularFile();

    SimRun second = new SimRun(EPOCH.plusSeconds(3600), DEVICE);
    RunLoop.Result r = second.run(store, data, RunDir.open(dir));
    assertThat(r.status()).isNotEqualTo(Report.Status.INTERRUPTED);
    List<Journal.Entry> after = Journal.read(dir.resolve(RunDir.JOURNAL_FILE)).entries();
    assertThat(after).extracting(Journal.Entry::type).containsSubsequence("interrupted", "resume").endsWith("end");
    assertThat(second.events.lines).anyMatch(l -> l.startsWith("profile  reused from the interrupted run"));
  }

  @Test
  void theOptionsThatShapedARunAreJournaledAtItsStart() throws Exception {
    RunStore store = RunStore.open(root.resolve("store"));
    SimRun sim = new SimRun(EPOCH, DEVICE);
    RunLoop.Request plain = sim.request(store, root.resolve("data"), null);
    Map<String, Object> options = Map.of("levers", List.of("graph-capture"), "max-iterations", 30);
    RunLoop.Request req = new RunLoop.Request(plain.job(), plain.budget(), plain.target(), store, null, null,
        plain.gate(), List.of("graph-capture"), "test", "test", options);
    Path dir = RunLoop.run(req, sim.wall, sim.clock, sim.events, RunLoop.Control.none()).run().dir();

    Journal.Contents journal = Journal.read(dir.resolve(RunDir.JOURNAL_FILE));
    assertThat(journal.entries().getFirst().type()).isEqualTo("start");
    assertThat(RunLoop.journaledOptions(journal)).isEqualTo(options);
  }

  @Test
  void failuresReadAsPlainSentencesWithoutJavaClassNames() {
    assertThat(Failures.describe(new UncheckedIOException(new NoSuchFileException("/x/trace.gtrace"))))
        .isEqualTo("no such file or folder: /x/trace.gtrace");
    assertThat(Failures.describe(new IllegalStateException("java.nio.file.NoSuchFileException: /y")))
        .isEqualTo("/y");
    assertThat(Failures.describe(new NullPointerException())).doesNotContain("Exception")
        .isEqualTo("an internal error of gitm (GITM_DEBUG=1 prints where)");
    assertThat(ProcessTarget.lastLines("the job fails as shipped: exited with status 3\n")).isEqualTo(
        "; it printed nothing");
    assertThat(ProcessTarget.lastLines("the job fails: status 3\nstarting\nRuntimeError: boom\n"))
        .isEqualTo("; its last lines: starting | RuntimeError: boom");
  }

  /** Leaves the run folder as a kill just before its end entry would: every other entry there. */
  private static void dropTheEnd(Path dir) throws Exception {
    Path journal = dir.resolve(RunDir.JOURNAL_FILE);
    List<String> lines = Files.readAllLines(journal);
    assertThat(lines.getLast()).contains("\"type\":\"end\"");
    Files.write(journal, lines.subList(0, lines.size() - 1));
  }
}
