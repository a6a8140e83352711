package io.gitm.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.api.Ticker;
import io.gitm.job.output.OutputFile;
import io.gitm.levers.SafetyClass;
import io.gitm.levers.Setup;
import io.gitm.os.ProcessGroups;
import io.gitm.os.ProcessTree;
import io.gitm.search.Gate;
import io.gitm.search.Verdict;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Black-box jobs as small bash scripts: process handling, metric parsing, equivalence inputs, orphan-free ends. */
class ProcessJobTest {
  /**
   * How long a test waits for something that must happen (a process to start or end, a thread to return): a bound
   * that only a hang reaches, however busy the machine is.
   */
  private static final Duration LIVENESS = Duration.ofMinutes(2);

  @TempDir
  Path dir;

  private Path script(String name, String body) throws IOException {
    Path p = dir.resolve(name);
    Files.writeString(p, "#!/bin/bash\n" + body + "\n");
    Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
    return p;
  }

  private ProcessSpec spec(Path script, ProcessMetric metric, List<OutputFile> outputs, Map<String, String> extraEnv) {
    Map<String, String> env = new java.util.TreeMap<>(ProcessSpec.environment(System.getenv(), List.of("PATH"),
        List.of()));
    env.putAll(extraEnv);
    return new ProcessSpec(List.of(script.toString()), false, dir, env, metric, outputs, 1e-3, 0, null);
  }

  private ProcessJob job(ProcessSpec s, Duration timeout) {
    return new ProcessJob(s, dir.resolve("run"), Ticker.system(), timeout);
  }

  private static ProcessMetric rate() {
    return new ProcessMetric(ProcessMetric.Kind.REGEX, "it/s: ([0-9.]+)", null, true, null);
  }

  private static boolean alive(long pid) {
    return Files.exists(Path.of("/proc", Long.toString(pid))) && !zombie(pid);
  }

  private static boolean zombie(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      return stat.substring(stat.lastIndexOf(')') + 2).startsWith("Z");
    } catch (IOException e) {
      return false;
    }
  }

  @Test
  void aJobWhoseShippedRunsWriteDifferentOutputsIsNotReproducible() throws Exception {
    Path same = script("same.sh", "echo 1,2 > out.csv; echo 'it/s: 10'");
    Path random = script("random.sh", "echo $RANDOM$RANDOM,2 > out.csv; echo 'it/s: 10'");
    for (Path s : List.of(same, random)) {
      try (ProcessJob j = new ProcessJob(spec(s, rate(), List.of(OutputFile.parse("out.csv")), Map.of()),
          dir.resolve("run-" + s.getFileName()), Ticker.system(), LIVENESS)) {
        assertThat(j.execute(Setup.shipped(), Map.of(), "t").ok()).isTrue();
        assertThat(j.reproducibleOutput()).isTrue();
        j.execute(Setup.shipped().withEnvironment("X", "1"), Map.of(), "t");
        assertThat(j.reproducibleOutput()).as("a lever's run is not the shipped setup's").isTrue();
        assertThat(j.execute(Setup.shipped(), Map.of(), "t").ok()).isTrue();
        assertThat(j.reproducibleOutput()).as(s.getFileName().toString()).isEqualTo(s == same);
      }
      try (ProcessJob again = new ProcessJob(spec(s, rate(), List.of(OutputFile.parse("out.csv")), Map.of()),
          dir.resolve("run-" + s.getFileName()), Ticker.system(), LIVENESS)) {
        assertThat(again.reproducibleOutput()).as("read back from the run folder's log").isEqualTo(s == same);
      }
    }
  }

  @Test
  void eachRunIsAFreshProcessThatGetsOnlyTheGivenEnvironmentAndTheSetupsVariables() throws Exception {
    Path s = script("env.sh", "echo \"pid $$\"; env | sort; echo 'it/s: 10'");
    try (ProcessJob j = job(spec(s, rate(), List.of(), Map.of("KEEP_ME", "1")), Duration.ofSeconds(20))) {
      ProcessJob.RunResult a = j.execute(Setup.shipped().withEnvironment("OMP_NUM_THREADS", "4"), Map.of(), "t");
      ProcessJob.RunResult b = j.execute(Setup.shipped(), Map.of(), "t");
      assertThat(a.ok()).as(a.failure()).isTrue();
      String out = Files.readString(a.stdout());
      assertThat(out).contains("OMP_NUM_THREADS=4").contains("KEEP_ME=1").doesNotContain("JAVA_HOME=");
      assertThat(Files.readString(b.stdout())).doesNotContain("OMP_NUM_THREADS");
      assertThat(out.lines().filter(l -> l.startsWith("pid ")).findFirst())
          .isNotEqualTo(Files.readString(b.stdout()).lines().filter(l -> l.startsWith("pid ")).findFirst());
      assertThat(a.leverEnvironment()).containsExactly(Map.entry("OMP_NUM_THREADS", "4"));
      assertThat(Files.readString(dir.resolve("run/trials/processes.jsonl")).lines()).hasSize(2);
    }
  }

  @Test
  void theMetricIsTheLastMatchAndAJobThatPrintsNoMatchFailsWithItsLastLine() throws Exception {
    Path good = script("good.sh", "echo 'it/s: 5'; echo 'it/s: 7.5'; echo done");
    Path bad = script("bad.sh", "echo 'no numbers here'");
    try (ProcessJob j = job(spec(good, rate(), List.of(), Map.of()), Duration.ofSeconds(20))) {
      assertThat(j.execute(Setup.shipped(), Map.of(), "t").metric()).isEqualTo(7.5);
    }
    try (ProcessJob j = job(spec(bad, rate(), List.of(), Map.of()), Duration.ofSeconds(20))) {
      ProcessJob.RunResult r = j.execute(Setup.shipped(), Map.of(), "t");
      assertThat(r.ok()).isFalse();
      assertThat(r.failure()).contains("matched nothing").contains("no numbers here");
    }
  }

  @Test
  void theWallMetricAndAMetricFileAreRead() throws Exception {
    Path s = script("file.sh", "sleep 0.2; echo 'throughput=42.5' > metric.txt");
    try (ProcessJob j = job(spec(s, ProcessMetric.wall(), List.of(), Map.of()), Duration.ofSeconds(20))) {
      assertThat(j.execute(Setup.shipped(), Map.of(), "t").metric()).isBetween(0.2, 10.0);
    }
    ProcessMetric file = new ProcessMetric(ProcessMetric.Kind.FILE, "throughput=([0-9.]+)", "metric.txt", true, null);
    try (ProcessJob j = job(spec(s, file, List.of(), Map.of()), Duration.ofSeconds(20))) {
      assertThat(j.execute(Setup.shipped(), Map.of(), "t").metric()).isEqualTo(42.5);
    }
  }

  @Test
  void aNonZeroExitFailsWithItsStatusAndLastLine() throws Exception {
    Path s = script("crash.sh", "echo 'it/s: 3'; echo 'Traceback: CUDA out of memory' >&2; exit 3");
    try (ProcessJob j = job(spec(s, rate(), List.of(), Map.of()), Duration.ofSeconds(20))) {
      ProcessJob.RunResult r = j.execute(Setup.shipped(), Map.of(), "t");
      assertThat(r.exitCode()).isEqualTo(3);
      assertThat(r.failure()).contains("exited with status 3").contains("CUDA out of memory");
      assertThat(r.failureKind()).isEqualTo(TrialFailure.Kind.CRASH);
    }
  }

  @Test
  void anOutputFileTheJobDoesNotWriteIsAFailureAndAStaleOneDoesNotCount() throws Exception {
    Files.writeString(dir.resolve("out.csv"), "stale\n");
    Path s = script("noout.sh", "echo 'it/s: 1'");
    try (ProcessJob j = job(spec(s, rate(), List.of(OutputFile.parse("out.csv")), Map.of()), Duration.ofSeconds(20))) {
      assertThat(j.keepPreexistingOutputs()).hasSize(1);
      assertThat(dir.resolve("run/preexisting-outputs/out.csv")).hasContent("stale");
      ProcessJob.RunResult r = j.execute(Setup.shipped(), Map.of(), "t");
      assertThat(r.ok()).isFalse();
      assertThat(r.failure()).contains("out.csv").contains("not written");
    }
  }

  @Test
  void aHangingJobIsKilledAtTheTimeoutWithEveryProcessOfItsGroup() throws Exception {
    Path s = script("hang.sh", "sleep 300 & echo \"child $!\"; trap '' TERM; while true; do sleep 0.1; done");
    try (ProcessJob j = job(spec(s, rate(), List.of(), Map.of()), Duration.ofSeconds(2))) {
      ProcessJob.RunResult r = j.execute(Setup.shipped(), Map.of(), "t");
      assertThat(r.failureKind()).isEqualTo(TrialFailure.Kind.HANG);
      assertThat(r.failure()).contains("did not finish within 2000 ms");
      long child = Long.parseLong(Files.readString(r.stdout()).strip().split(" ")[1]);
      assertThat(alive(child)).as("the job's background child").isFalse();
      assertThat(ProcessGroups.live()).isEmpty();
    }
  }

  @Test
  void processesAJobLeavesBehindAreEnded() throws Exception {
    Path s = script("leaves.sh", "sleep 300 & echo \"child $!\"; echo 'it/s: 2'");
    try (ProcessJob j = job(spec(s, rate(), List.of(), Map.of()), Duration.ofSeconds(20))) {
      ProcessJob.RunResult r = j.execute(Setup.shipped(), Map.of(), "t");
      assertThat(r.ok()).isTrue();
      long child = Long.parseLong(Files.readString(r.stdout()).lines().findFirst().orElseThrow().split(" ")[1]);
      assertThat(r.leftovers()).extracting(ProcessTree.Found::pid).contains(child);
      assertThat(alive(child)).isFalse();
    }
  }

  /**
   * A shell function: {@code execed PID COMMAND} waits until process PID runs COMMAND (a child forked by the shell
   * has the shell's command line until it has exec'd).
   */
  private static final String EXECED = "execed() { while ! tr '\\0' ' ' < /proc/$1/cmdline 2>/dev/null"
      + " | grep -q \"^$2\"; do sleep 0.01; done; }\n";

  private static long pidAfter(String stdout, String tag) {
    return stdout.lines().filter(l -> l.startsWith(tag + " ")).mapToLong(l -> Long.parseLong(l.split(" ")[1]))
        .findFirst().orElseThrow(() -> new AssertionError("no line '" + tag + " PID' in " + stdout));
  }

  /** Waits (a bounded number of reads) until the script has written the line tagged {@code tag}. */
  private static long awaitPid(Path stdout, String tag) throws Exception {
    for (int i = 0; i < 1000; i++) {
      String out = Files.exists(stdout) ? Files.readString(stdout) : "";
      if (out.lines().anyMatch(l -> l.startsWith(tag + " "))) {
        return pidAfter(out, tag);
      }
      Thread.sleep(20);
    }
    throw new AssertionError("the script never wrote '" + tag + " PID'");
  }

  @Test
  void childrenThatLeftTheJobsSessionAreEndedWithTheRunAndListedWithTheirCommandLines() throws Exception {
    Path s = script("detach.sh", EXECED + "setsid sleep 1000 & echo \"own $!\"; execed $! 'sleep 1000'\n"
        + "( setsid sleep 1001 & echo \"orphan $!\"; execed $! 'sleep 1001' )\n"
        + "sleep 1002 & echo \"plain $!\"; execed $! 'sleep 1002'\n"
        + "echo 'it/s: 2'");
    try (ProcessJob j = job(spec(s, rate(), List.of(), Map.of()), Duration.ofSeconds(20))) {
      ProcessJob.RunResult r = j.execute(Setup.shipped(), Map.of(), "gate");
      assertThat(r.ok()).as(r.failure()).isTrue();
      String out = Files.readString(r.stdout());
      List<Long> pids = List.of(pidAfter(out, "own"), pidAfter(out, "orphan"), pidAfter(out, "plain"));
      for (long pid : pids) {
        assertThat(alive(pid)).as("process " + pid + " of the job").isFalse();
      }
      assertThat(r.leftovers()).extracting(ProcessTree.Found::pid).containsAll(pids);
      assertThat(r.leftovers()).extracting(ProcessTree.Found::command)
          .contains("sleep 1000", "sleep 1001", "sleep 1002");
      String logged = Files.readString(dir.resolve("run/trials/processes.jsonl"));
      assertThat(logged).contains("\"command\":\"sleep 1000\"").contains("\"pid\":" + pids.getFirst());
      assertThat(dir.resolve("run/trials/job-processes.json")).doesNotExist();
    }
  }

  @Test
  void aSetupWhoseRunsLeaveProcessesBehindIsNotKeptByTheGate() throws Exception {
    Path s = script("spawn.sh", EXECED + "if [ -n \"$SPAWN\" ]; then setsid sleep 1003 & execed $! 'sleep 1003'; fi\n"
        + "echo 'it/s: 2'");
    try (ProcessJob j = job(spec(s, rate(), List.of(), Map.of()), Duration.ofSeconds(20))) {
      Setup spawning = Setup.shipped().withEnvironment("SPAWN", "1");
      try (Job.Run shipped = j.open(Setup.shipped())) {
        assertThat(shipped.block()).isEqualTo(2);
      }
      try (Job.Run run = j.open(spawning)) {
        assertThatThrownBy(run::block).isInstanceOf(TrialFailure.class)
            .hasMessageContaining("the run left 1 process behind (")
            .hasMessageContaining("(sleep 1003)")
            .hasMessageContaining("a setup whose runs leave processes behind is not kept");
      }
      Verdict v = new Gate(Ticker.system(), Gate.Options.defaults().withBlockTimeout(Duration.ofSeconds(30)))
          .judge(j, Setup.shipped(), spawning, SafetyClass.A, 1e-3);
      assertThat(v.kept()).isFalse();
      assertThat(v.detail()).contains("the run left 1 process behind");
      for (String line : Files.readAllLines(dir.resolve("run/trials/processes.jsonl"))) {
        if (line.contains("\"SPAWN\"")) {
          assertThat(line).contains("\"command\":\"sleep 1003\"");
        }
      }
    }
  }

  @Test
  void openingAJobEndsWhatARunOfAKilledGitmLeftAndOnlyThat() throws Exception {
    Path trials = dir.resolve("run/trials");
    Files.createDirectories(trials);
    Path out = dir.resolve("left.out");
    Process left = new ProcessBuilder("setsid", "bash", "-c", "sleep 1004 & echo \"child $!\"; "
        + "setsid sleep 1005 & echo \"detached $!\"; wait").redirectOutput(out.toFile()).start();
    Process stranger = new ProcessBuilder("setsid", "sleep", "1006").start();
    try {
      long child = awaitPid(out, "child");
      long detached = awaitPid(out, "detached");
      ProcessTree.Proc root = ProcessTree.read(left.pid()).orElseThrow();
      ProcessTree.Proc d = ProcessTree.read(detached).orElseThrow();
      long strangerStart = ProcessTree.read(stranger.pid()).orElseThrow().start();
      // as a gitm killed with SIGKILL leaves it: the run in progress, with the detached child it had seen
      Files.writeString(trials.resolve("job-processes.json"), "{\"pid\":" + root.pid() + ",\"start\":"
          + root.start() + ",\"since\":" + root.start() + ",\"seen\":[{\"pid\":" + detached + ",\"start\":"
          + d.start() + ",\"command\":\"sleep 1005\"},{\"pid\":" + stranger.pid() + ",\"start\":"
          + (strangerStart + 1) + ",\"command\":\"sleep 1006\"}]}\n");

      try (ProcessJob j = job(spec(script("any.sh", "echo 'it/s: 1'"), rate(), List.of(), Map.of()),
          Duration.ofSeconds(20))) {
        assertThat(j.endedOnOpen()).extracting(ProcessTree.Found::pid)
            .containsExactlyInAnyOrder(root.pid(), child, detached);
      }
      assertThat(left.waitFor(LIVENESS.toSeconds(), TimeUnit.SECONDS)).isTrue();
      assertThat(alive(child)).isFalse();
      assertThat(alive(detached)).isFalse();
      assertThat(stranger.isAlive()).as("a process whose start time is not the recorded one").isTrue();
      assertThat(trials.resolve("job-processes.json")).doesNotExist();
      assertThat(Files.readString(trials.resolve("processes.jsonl"))).contains("left by an earlier gitm")
          .contains("sleep 1004");
    } finally {
      left.destroyForcibly();
      stranger.destroyForcibly();
    }
  }

  @Test
  void anInterruptEndsTheRunsWholeGroupAndIsPassedOn() throws Exception {
    Path s = script("long.sh", "sleep 300 & echo \"child $!\"; wait");
    try (ProcessJob j = job(spec(s, rate(), List.of(), Map.of()), Duration.ofSeconds(60))) {
      AtomicReference<Throwable> thrown = new AtomicReference<>();
      Thread t = Thread.ofPlatform().start(() -> {
        try {
          j.execute(Setup.shipped(), Map.of(), "t");
        } catch (Throwable e) {
          thrown.set(e);
        }
      });
      long until = System.nanoTime() + LIVENESS.toNanos();
      while (j.runningGroup().isEmpty() && System.nanoTime() < until) {
        Thread.sleep(20);
      }
      long group = j.runningGroup().orElseThrow();
      Thread.sleep(300);
      t.interrupt();
      t.join(LIVENESS);
      assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
      assertThat(ProcessGroups.members(group)).isEmpty();
    }
  }

  @Test
  void closingTheJobEndsARunInProgress() throws Exception {
    Path s = script("long2.sh", "sleep 300");
    ProcessJob j = job(spec(s, rate(), List.of(), Map.of()), Duration.ofSeconds(60));
    Thread t = Thread.ofPlatform().start(() -> {
      try {
        j.execute(Setup.shipped(), Map.of(), "t");
      } catch (InterruptedException ignored) {
        // not expected here
      }
    });
    long until = System.nanoTime() + LIVENESS.toNanos();
    while (j.runningGroup().isEmpty() && System.nanoTime() < until) {
      Thread.sleep(20);
    }
    long group = j.runningGroup().orElseThrow();
    j.close();
    t.join(LIVENESS);
    assertThat(t.isAlive()).isFalse();
    assertThat(ProcessGroups.members(group)).isEmpty();
  }

  @Test
  void aSetupWithPinnedCpusRunsTheJobOnThem() throws Exception {
    Path s = script("cpus.sh", "grep Cpus_allowed_list /proc/self/status; echo 'it/s: 1'");
    try (ProcessJob j = job(spec(s, rate(), List.of(), Map.of()), Duration.ofSeconds(20))) {
      org.junit.jupiter.api.Assumptions.assumeTrue(j.canPin(), "taskset not installed");
      ProcessJob.RunResult r = j.execute(Setup.shipped().withCpus(java.util.Set.of(0)), Map.of(), "t");
      assertThat(Files.readString(r.stdout())).contains("Cpus_allowed_list:\t0\n");
    }
  }

  @Test
  void aJobThatCannotStartIsRefusedWithAOneLineReason() throws IOException {
    Path notExec = Files.writeString(dir.resolve("plain.sh"), "echo hi\n");
    Map<String, String> env = Map.of("PATH", "/usr/bin:/bin");
    ProcessMetric m = ProcessMetric.wall();
    assertThatThrownBy(() -> new ProcessSpec(List.of("./missing"), false, dir, env, m, List.of(), 0, 0, null)
        .checkStartable()).hasMessage("program ./missing does not exist");
    assertThatThrownBy(() -> new ProcessSpec(List.of(notExec.toString()), false, dir, env, m, List.of(), 0, 0, null)
        .checkStartable()).hasMessageContaining("is not an executable file");
    assertThatThrownBy(() -> new ProcessSpec(List.of("no-such-program-x"), false, dir, env, m, List.of(), 0, 0, null)
        .checkStartable()).hasMessageContaining("was not found on the job's PATH (/usr/bin:/bin)");
    assertThatThrownBy(() -> ProcessSpec.environment(Map.of(), List.of(), List.of("1BAD=x")))
        .hasMessageContaining("is not a variable name");
    assertThatThrownBy(() -> ProcessSpec.environment(Map.of(), List.of(), List.of("NOT_SET_HERE")))
        .hasMessageContaining("has no NOT_SET_HERE to pass on");
    assertThatThrownBy(() -> new ProcessMetric(ProcessMetric.Kind.REGEX, "it/s: ([0-9", null, true, null))
        .hasMessageContaining("is not a valid pattern");
  }

  @Test
  void aShellCommandLineRunsThroughShOnlyWhenAsked() throws Exception {
    ProcessSpec s = new ProcessSpec(List.of("echo 'it/s: 4' | tr 4 9"), true, dir,
        ProcessSpec.environment(System.getenv(), List.of("PATH"), List.of()), rate(), List.of(), 0, 0, null);
    try (ProcessJob j = job(s, Duration.ofSeconds(20))) {
      assertThat(j.execute(Setup.shipped(), Map.of(), "t").metric()).isEqualTo(9);
    }
  }

  @Test
  void aMetricNameIsReadOffThePattern() {
    assertThat(ProcessMetric.label("it/s: ([0-9.]+)")).isEqualTo("it/s");
    assertThat(ProcessMetric.label("tokens\\/sec=(\\d+)")).isEqualTo("tokens/sec");
    assertThat(ProcessMetric.label("([0-9.]+) img/s")).isEqualTo("metric");
  }
}
