package io.gitm.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.store.Journal;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/** {@code gitm run --cmd} on small scripts of our own, as a user runs it, without a GPU ({@code --device none}). */
class RunProcessEndToEndTest {
  @TempDir
  Path dir;

  private Path script(String name, String body) throws IOException {
    Path p = dir.resolve(name);
    Files.writeString(p, "#!/bin/bash\n" + body + "\n");
    Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
    return p;
  }

  /** Whether a process runs (a zombie waiting for a reaper that is not gitm's counts as gone). */
  private static boolean running(String pid) {
    try {
      String stat = Files.readString(Path.of("/proc", pid, "stat"));
      return !stat.substring(stat.lastIndexOf(')') + 2).startsWith("Z");
    } catch (IOException e) {
      return false;
    }
  }

  @Test
  void aJobWhoseThreadsOversubscribeTheCoresKeepsTheOmpLeverAndTheReportShowsTheValueSet() throws Exception {
    // fast when OMP_NUM_THREADS is set, as an oversubscribed job would be; the output does not depend on it
    Path job = script("omp.sh", "sleep 0.2; if [ -n \"$OMP_NUM_THREADS\" ]; then r=$((150 + RANDOM % 4)); "
        + "else r=$((100 + RANDOM % 4)); fi; echo \"it/s: $r\"; printf 'x,y\\n1,2.5\\n' > out.csv");
    CliResult r = CliResult.run("run", "--budget", "40s", "--target", "15%", "--device", "none", "--scratch",
        dir.resolve("s").toString(), "--workdir", dir.toString(), "--metric-regex", "it/s: ([0-9.]+)",
        "--higher-is-better", "--output", "out.csv", "--levers", "env-omp-threads,env-expandable-segments", "--json",
        "--cmd", job.toString());
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode doc = Json.MAPPER.readTree(r.out());
    Path run = Path.of(doc.get("folder").asString());
    assertThat(doc.get("status").asString()).isEqualTo("TARGET_REACHED");
    List<String> kept = new ArrayList<>();
    doc.get("kept").forEach(k -> kept.add(k.asString()));
    assertThat(kept).containsExactly("env-omp-threads");
    int cpus = Runtime.getRuntime().availableProcessors();
    assertThat(Files.readString(run.resolve("trials/processes.jsonl")))
        .contains("\"environmentSetByGitm\":{\"OMP_NUM_THREADS\":\"" + cpus + "\"}");
    assertThat(Files.readString(run.resolve("report.md"))).contains("env-omp-threads").contains("it/s")
        .contains("the job ran with OMP\\_NUM\\_THREADS=" + cpus + " set by gitm");
    assertThat(Files.readString(run.resolve("report.json"))).contains("the job ran with OMP_NUM_THREADS=" + cpus
        + " set by gitm");
    assertThat(run.resolve("process.json")).isRegularFile();
    try (Stream<Path> logs = Files.list(run.resolve("trials"))) {
      assertThat(logs.filter(p -> p.toString().endsWith(".stdout")).count()).isGreaterThan(10);
    }
  }

  @Test
  void aJobWhoseOutputDiffersFromRunToRunHasAClassALeverComparedWithinItsTolerance() throws Exception {
    // the output's last digits change every run, as a GPU training's do; the lever is class A
    Path job = script("noisy.sh", "sleep 0.2; if [ -n \"$OMP_NUM_THREADS\" ]; then r=$((150 + RANDOM % 4)); "
        + "else r=$((100 + RANDOM % 4)); fi; echo \"it/s: $r\"; printf 'x,y\\n1,2.500000%05d\\n' $RANDOM > out.csv");
    CliResult r = CliResult.run("run", "--budget", "40s", "--target", "15%", "--device", "none", "--scratch",
        dir.resolve("s").toString(), "--workdir", dir.toString(), "--metric-regex", "it/s: ([0-9.]+)",
        "--higher-is-better", "--output", "out.csv", "--rtol", "1e-3", "--levers", "env-omp-threads", "--json",
        "--cmd", job.toString());
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode doc = Json.MAPPER.readTree(r.out());
    assertThat(doc.get("kept").toString()).contains("env-omp-threads");
    Path run = Path.of(doc.get("folder").asString());
    String report = Files.readString(run.resolve("report.md"));
    assertThat(report).contains("the job's outputs differ from run to run of the shipped setup")
        .contains("not bit for bit");
  }

  @Test
  void aJobThatFailsAsShippedStopsTheRunWithItsStatusAndLastLines() throws IOException {
    Path job = script("broken.sh", "echo starting; echo 'RuntimeError: CUDA error: out of memory' >&2; exit 3");
    CliResult r = CliResult.run("run", "--budget", "30s", "--target", "15%", "--device", "none", "--scratch",
        dir.resolve("s").toString(), "--cmd", job.toString());
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).contains("the job fails as shipped").contains("exited with status 3")
        .contains("RuntimeError: CUDA error: out of memory");
  }

  @Test
  void aPreexistingOutputIsPutBackWhenTheRunFailsAtOnceAndTheErrorEndsWithTheJobsLastLines() throws IOException {
    Files.writeString(dir.resolve("out.csv"), "mine\n");
    Path job = script("broken-out.sh", "echo theirs > out.csv; echo 'RuntimeError: boom' >&2; exit 3");
    CliResult r = CliResult.run("run", "--budget", "30s", "--target", "15%", "--device", "none", "--scratch",
        dir.resolve("s").toString(), "--workdir", dir.toString(), "--output", "out.csv", "--cmd", job.toString());
    assertThat(r.code()).isEqualTo(1);
    assertThat(Files.readString(dir.resolve("out.csv"))).as("the user's file is back").isEqualTo("mine\n");
    String line = r.err().lines().filter(l -> l.startsWith("gitm: error:")).findFirst().orElseThrow();
    assertThat(line).contains("its last lines: RuntimeError: boom")
        .contains("the output file " + dir.resolve("out.csv") + " that existed before the run was put back")
        .doesNotEndWith("last lines:").doesNotContain("Exception");
  }

  @Test
  void theValuesGivenWithEnvAreWrittenNowhereButTheRunsPrivateSecretsFile() throws Exception {
    Path job = script("env.sh", "sleep 0.1; [ \"$GITM_AUDIT_TOKEN\" = s3cr3t-v4lue ] || exit 9; echo 'it/s: 5'");
    CliResult r = CliResult.run("run", "--budget", "30s", "--target", "15%", "--device", "none", "--scratch",
        dir.resolve("s").toString(), "--metric-regex", "it/s: ([0-9.]+)", "--higher-is-better", "--levers",
        "env-module-loading-eager", "--env", "GITM_AUDIT_TOKEN=s3cr3t-v4lue", "--json", "--cmd", job.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out() + r.err()).doesNotContain("s3cr3t-v4lue");
    Path run = Path.of(Json.MAPPER.readTree(r.out()).get("folder").asString());
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(run))).isEqualTo("rwx------");
    List<Path> files;
    try (Stream<Path> s = Files.walk(run)) {
      files = s.filter(Files::isRegularFile).toList();
    }
    assertThat(files).extracting(f -> f.getFileName().toString()).contains("report.md", "run.json", "process.json");
    for (Path f : files) {
      if (f.getFileName().toString().equals("secrets.json")) {
        assertThat(Files.readString(f)).contains("s3cr3t-v4lue");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f))).isEqualTo("rw-------");
      } else {
        assertThat(Files.readString(f, StandardCharsets.ISO_8859_1)).as("%s", run.relativize(f))
            .doesNotContain("s3cr3t-v4lue");
      }
    }
    assertThat(Files.readString(run.resolve("process.json"))).contains("GITM_AUDIT_TOKEN").contains("<redacted>");
    assertThat(Files.readString(run.resolve("run.json"))).contains("GITM_AUDIT_TOKEN=<redacted>");
  }

  @Test
  void aPatternThatNeverMatchesIsAClearError() throws IOException {
    Path job = script("quiet.sh", "echo 'epoch 1 done'");
    CliResult r = CliResult.run("run", "--budget", "30s", "--target", "15%", "--device", "none", "--scratch",
        dir.resolve("s").toString(), "--metric-regex", "it/s: ([0-9.]+)", "--higher-is-better", "--cmd",
        job.toString());
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.errorLine()).contains("--metric-regex 'it/s: ([0-9.]+)' matched nothing").contains("epoch 1 done");
  }

  @Test
  void badInvocationsAreRefusedInOneLineBeforeAnythingRuns() throws IOException {
    Path notExec = Files.writeString(dir.resolve("plain.sh"), "echo hi\n");
    String s = dir.resolve("s").toString();
    assertThat(CliResult.run("run", "--budget", "30s", "--target", "15%", "--scratch", s, "--cmd", "./nope")
        .errorLine()).isEqualTo("gitm: program ./nope does not exist");
    assertThat(CliResult.run("run", "--budget", "30s", "--target", "15%", "--scratch", s, "--cmd",
        notExec.toString()).errorLine()).contains("is not an executable file");
    assertThat(CliResult.run("run", "--budget", "30s", "--target", "15%", "--scratch", s, "--metric-regex", "x",
        "--cmd", "true").errorLine()).contains("needs a direction");
    assertThat(CliResult.run("run", "--budget", "30s", "--target", "15%", "--scratch", s, "--cmd").errorLine())
        .contains("--cmd needs a program");
    assertThat(CliResult.run("run", "--budget", "30s", "--target", "15%", "--scratch", s, "--device", "sim", "--cmd",
        "true").errorLine()).contains("--device sim cannot run a black-box process");
    assertThat(CliResult.run("run", "--workload", "hft-lob", "--budget", "30s", "--target", "15%", "--scratch", s,
        "--output", "x.npy").errorLine()).contains("add --cmd PROGRAM");
    assertThat(CliResult.run("run", "--budget", "30s", "--target", "15%", "--scratch", s, "--timeout", "soon",
        "--cmd", "true").errorLine()).contains("--timeout 'soon' is not a duration");
    assertThat(Files.exists(dir.resolve("s/runs")) ? Files.list(dir.resolve("s/runs")).count() : 0)
        .as("no run folder for a refused invocation").isZero();
  }

  @Test
  void ctrlCDuringARunEndsTheJobsWholeProcessGroupAndWritesTheReport() throws Exception {
    Path job = script("slow.sh", "sleep 600 & echo $! >> children.txt; sleep 0.3; echo 'it/s: 10'; wait");
    List<String> cmd = new ArrayList<>(SteppedRuns.interruptible());
    cmd.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"), "io.gitm.cli.Main", "run",
        "--budget", "2m", "--target", "15%", "--device", "none", "--scratch", dir.resolve("s").toString(),
        "--workdir", dir.toString(), "--metric-regex", "it/s: ([0-9.]+)", "--higher-is-better", "--timeout", "90s",
        "--cmd", job.toString()));
    Path log = dir.resolve("gitm.log");
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    Path children = dir.resolve("children.txt");
    long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!Files.exists(children) && System.nanoTime() < until) {
      Thread.sleep(50);
    }
    Thread.sleep(300);
    new ProcessBuilder("kill", "-INT", Long.toString(p.pid())).inheritIO().start().waitFor();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("gitm stops after Ctrl-C").isTrue();
    assertThat(p.exitValue()).as(Files.readString(log)).isIn(130, 1);
    for (String pid : Files.readAllLines(children)) {
      assertThat(running(pid.strip())).as("job child " + pid + " is gone").isFalse();
    }
    Path runs = dir.resolve("s/runs");
    try (Stream<Path> s = Files.list(runs)) {
      Path run = s.findFirst().orElseThrow();
      assertThat(Journal.read(run.resolve("journal.jsonl")).entries()).isNotEmpty();
    }
  }

  @Test
  void aProcessRunKilledWithSigkillResumesFromItsJournalAndTheSpecItKept() throws Exception {
    Path job = script("resume.sh", "sleep 0.2; if [ -n \"$OMP_NUM_THREADS\" ]; then r=$((150 + RANDOM % 4)); "
        + "else r=$((100 + RANDOM % 4)); fi; echo \"it/s: $r\"");
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"), "io.gitm.cli.Main", "run",
        "--budget", "1m", "--target", "99%", "--device", "none", "--scratch", dir.resolve("s").toString(),
        "--workdir", dir.toString(), "--metric-regex", "it/s: ([0-9.]+)", "--higher-is-better", "--levers",
        "env-expandable-segments,env-module-loading-eager,env-omp-threads", "--cmd", job.toString()));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve("gitm.log").toFile())
        .start();
    Path runs = dir.resolve("s/runs");
    long until = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    Path journal = null;
    while (System.nanoTime() < until && p.isAlive()) {
      if (Files.isDirectory(runs)) {
        try (Stream<Path> s = Files.list(runs)) {
          journal = s.map(r -> r.resolve("journal.jsonl")).filter(Files::isRegularFile).findFirst().orElse(null);
        }
      }
      if (journal != null && Journal.read(journal).entries().stream().anyMatch(e -> e.type().equals("trial"))) {
        break;
      }
      Thread.sleep(50);
    }
    assertThat(p.isAlive()).as("still running when killed").isTrue();
    p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    Path run = journal.getParent();
    long before = Journal.read(journal).entries().stream().filter(e -> e.type().equals("trial")).count();
    CliResult r = CliResult.run("run", "--resume", run.toString(), "--scratch", dir.resolve("s").toString(), "--json");
    assertThat(r.code()).as(r.err()).isZero();
    List<Journal.Entry> entries = Journal.read(journal).entries();
    assertThat(entries).extracting(Journal.Entry::type).contains("resume").endsWith("end");
    assertThat(entries.stream().filter(e -> e.type().equals("phase-end") && "profile".equals(e.data().get("phase"))))
        .as("the profile is not repeated").hasSize(1);
    assertThat(entries.stream().filter(e -> e.type().equals("trial")).count()).isGreaterThanOrEqualTo(before);
    assertThat(run.resolve("report.md")).isRegularFile();
  }

  @Test
  void theJobsProcessesLeftByAGitmKilledWithSigkillAreEndedByTheResume() throws Exception {
    // the first run of the job hangs with a child in its group and one that made a new session; later runs are quick
    Path job = script("hang-once.sh", "if [ ! -e started ]; then touch started; sleep 1010 & echo $! >> children.txt;"
        + " setsid sleep 1011 & echo $! >> children.txt; wait; fi; sleep 0.1; echo \"it/s: $((100 + RANDOM % 4))\"");
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"), "io.gitm.cli.Main", "run",
        "--budget", "1m", "--target", "99%", "--device", "none", "--scratch", dir.resolve("s").toString(),
        "--workdir", dir.toString(), "--metric-regex", "it/s: ([0-9.]+)", "--higher-is-better", "--timeout", "5m",
        "--levers", "env-omp-threads", "--cmd", job.toString()));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve("gitm.log").toFile())
        .start();
    Path runs = dir.resolve("s/runs");
    Path live = null;
    long until = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (System.nanoTime() < until && p.isAlive()) {
      if (Files.isDirectory(runs)) {
        try (Stream<Path> s = Files.list(runs)) {
          live = s.map(r -> r.resolve("trials/job-processes.json")).filter(Files::isRegularFile).findFirst()
              .orElse(null);
        }
      }
      if (live != null && Files.readString(live).contains("sleep 1011")) {
        break;
      }
      Thread.sleep(50);
    }
    assertThat(p.isAlive()).as("still running when killed: " + Files.readString(dir.resolve("gitm.log"))).isTrue();
    p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    List<String> children = Files.readAllLines(dir.resolve("children.txt")).stream().map(String::strip).toList();
    assertThat(children).hasSize(2).allSatisfy(c -> assertThat(running(c)).as("job child " + c).isTrue());
    Path run = live.getParent().getParent();

    CliResult r = CliResult.run("run", "--resume", run.toString(), "--scratch", dir.resolve("s").toString());

    assertThat(children).allSatisfy(c -> assertThat(running(c)).as("job child " + c + " after the resume").isFalse());
    assertThat(Files.readString(run.resolve("trials/processes.jsonl"))).contains("left by an earlier gitm")
        .contains("sleep 1010").contains("sleep 1011");
    assertThat(r.code()).as(r.out() + r.err()).isZero();
    assertThat(Files.readString(run.resolve("report.md"))).contains("an earlier gitm was killed");
  }

  @Test
  void aPyTorchProfilerTraceOfTheJobIsAnalyzedIntoTheReportAsExtraEvidence() throws Exception {
    Path kineto = dir.resolve("job.pt.trace.json");
    try (var in = getClass().getResourceAsStream("/tracer/kineto-h200.json")) {
      assertThat(in).as("the engine's Kineto fixture on the test class path").isNotNull();
      Files.copy(in, kineto);
    }
    Path job = script("k.sh", "echo 'it/s: 5'");
    CliResult missing = CliResult.run("run", "--budget", "30s", "--target", "15%", "--device", "none", "--scratch",
        dir.resolve("s").toString(), "--kineto", dir.resolve("none.json").toString(), "--cmd", job.toString());
    assertThat(missing.code()).isEqualTo(Main.USAGE);
    assertThat(missing.errorLine()).contains("--kineto").contains("no such file");
    CliResult r = CliResult.run("run", "--budget", "30s", "--target", "15%", "--device", "none", "--scratch",
        dir.resolve("s").toString(), "--metric-regex", "it/s: ([0-9.]+)", "--higher-is-better", "--levers",
        "env-module-loading-eager", "--kineto", kineto.toString(), "--json", "--cmd", job.toString());
    assertThat(r.code()).as(r.err()).isZero();
    Path run = Path.of(Json.MAPPER.readTree(r.out()).get("folder").asString());
    assertThat(Files.readString(run.resolve("report.md"))).contains("extra evidence: PyTorch profiler trace"
        + " job.pt.trace.json");
  }
}
