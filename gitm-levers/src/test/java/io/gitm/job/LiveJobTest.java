package io.gitm.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.api.Ticker;
import io.gitm.levers.SafetyClass;
import io.gitm.levers.Setup;
import io.gitm.search.Gate;
import io.gitm.search.Verdict;
import io.gitm.testkit.TorchPython;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Live mode for real on CPU: a PyTorch training script ({@code live/train.py}) run by /usr/bin/python3 with gitm's
 * hook and its control channel, steered by {@link LiveJob} and judged by the {@link Gate}. The script's step sleeps
 * in proportion to its intra-op threads, so that {@code threads}, switched live, changes the step rate by a factor
 * the test sets, on an idle machine or a loaded one.
 * Skipped when /usr/bin/python3 has no torch, unless {@code CI=true}, where that fails.
 */
class LiveJobTest {
  private static final Duration LIVENESS = TorchPython.LIVENESS;
  private static final Path PYTHON = TorchPython.PYTHON;
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final int CPUS = Runtime.getRuntime().availableProcessors();
  /** Threads the job starts with: four times the CPUs, at least 8. */
  private static final int OVERSUBSCRIBED = Math.max(8, 4 * CPUS);
  /**
   * The job's step period per intra-op thread, ms: 20 ms a step with CPUS threads, 80 ms or more with OVERSUBSCRIBED;
   * the job keeps the pace against deadlines, so a scheduler's delay on a loaded machine is made up.
   */
  private static final String PERIOD = String.valueOf(20.0 / CPUS);

  @TempDir
  Path dir;

  private LiveJob job;

  @BeforeAll
  static void torchOrSkip() throws Exception {
    TorchPython.requireTorch();
  }

  @AfterEach
  void endTheJob() throws Exception {
    if (job != null) {
      job.close();
      Files.writeString(dir.resolve("stop"), "");
      var handle = ProcessHandle.of(job.pid());
      if (handle.isPresent() && !TorchPython.waitFor(() -> !handle.get().isAlive())) {
        handle.get().destroyForcibly();
      }
    }
  }

  private ProcessSpec spec(int threads, String... more) throws URISyntaxException {
    Path script = Path.of(LiveJobTest.class.getResource("live/train.py").toURI());
    Map<String, String> env = new TreeMap<>(ProcessSpec.environment(System.getenv(), List.of("PATH", "HOME"),
        List.of()));
    ProcessMetric steps = new ProcessMetric(ProcessMetric.Kind.STEPS, null, null, true, null);
    List<String> argv = new java.util.ArrayList<>(List.of(PYTHON.toString(), script.toString(), "--threads",
        String.valueOf(threads), "--work", "0", "--period-per-thread", PERIOD,
        "--out", dir.resolve("out.json").toString(), "--stop", dir.resolve("stop").toString()));
    argv.addAll(List.of(more));
    return new ProcessSpec(argv, false, dir, env, steps, List.of(), 1e-3, 0, null);
  }

  private LiveJob start(int threads, LiveJob.Options options, String... more) throws Exception {
    TorchHook hook = TorchHook.install(dir.resolve("hook-python"));
    job = LiveJob.start(spec(threads, more), dir.resolve("run"), Ticker.system(), hook, options);
    return job;
  }

  private static LiveJob.Options small() {
    return LiveJob.Options.defaults().withSteps(16, 4);
  }

  private static Setup threads(int n) {
    return Setup.shipped().withEnvironment(TorchHook.LEVERS_VARIABLE, "threads=" + n);
  }

  /** The job's own account of how it ended (written when it stops), after asking it to stop. */
  private JsonNode stopAndRead() throws Exception {
    return JSON.readTree(TorchPython.stopAndAwait(dir).toFile());
  }

  private String liveLog() throws IOException {
    Path log = job.folder().resolve("hook").resolve("live.log");
    return Files.isRegularFile(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
  }

  /** The intra-op threads in the hook's facts (rewritten every second at a step boundary), or -1. */
  static int threadsNow(Path hookDir) {
    try {
      Path f = hookDir.resolve("facts.json");
      return Files.isRegularFile(f) ? JSON.readTree(f.toFile()).path("flags").path("intraOpThreadsNow").asInt(-1) : -1;
    } catch (RuntimeException e) {
      return -1;
    }
  }

  private boolean logHas(String text) {
    try {
      return liveLog().contains(text);
    } catch (IOException e) {
      return false;
    }
  }

  private static Gate gate() {
    return new Gate(Ticker.system(), Gate.Options.defaults().withWarmupBlocks(0)
        .withBlockTimeout(LIVENESS));
  }

  @Test
  void aLeverIsKeptAndAnotherSwitchedBackWithoutARestartAndTheJobRunsOnAfterGitmDetaches() throws Exception {
    LiveJob j = start(OVERSUBSCRIBED, small());
    long pid = j.pid();
    assertThat(j.baseline()).containsEntry("threads", OVERSUBSCRIBED);
    Setup fit = threads(CPUS);
    Verdict first = gate().judge(j, Setup.shipped(), fit, SafetyClass.B, 1e-3);
    assertThat(first.outcome()).as(first.detail()).isEqualTo(Verdict.Outcome.KEPT);
    j.kept(fit);
    assertThat(j.current()).containsEntry("threads", CPUS);

    Setup worse = threads(2 * OVERSUBSCRIBED);
    Verdict second = gate().judge(j, fit, worse, SafetyClass.B, 1e-3);
    assertThat(second.outcome()).as(second.detail()).isNotEqualTo(Verdict.Outcome.KEPT);
    j.kept(fit);
    assertThat(j.current()).as("the rejected lever is switched back live").containsEntry("threads", CPUS);
    assertThat(j.switches()).extracting(LiveJob.Switch::to).extracting(m -> m.get("threads"))
        .contains(CPUS, 2 * OVERSUBSCRIBED);

    j.close();
    assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive)).as("the job runs on after gitm detaches")
        .contains(true);
    assertThat(TorchPython.waitFor(() -> logHas("controller detached"))).as("live.log says so").isTrue();
    JsonNode end = stopAndRead();
    assertThat(end.path("threads").asInt()).as("the job ended with the kept setting").isEqualTo(CPUS);
    assertThat(Files.readString(dir.resolve("run").resolve("steps.jsonl"))).contains("\"kind\":\"switch\"")
        .contains("\"kind\":\"window\"").contains("\"kind\":\"check\"");
    assertThat(j.folder().resolve("hook").resolve("hook-error.txt")).doesNotExist();
  }

  @Test
  void theEquivalenceCheckRunsTheHeldBatchUnderBothSettingsAtOneStep() throws Exception {
    LiveJob j = start(2, small());
    Job.Run a = j.open(Setup.shipped());
    Job.Run c = j.open(Setup.shipped().withEnvironment(TorchHook.LEVERS_VARIABLE, "tf32"));
    a.block();
    c.block();
    var da = a.output();
    var dc = c.output();
    assertThat(da.values()).isNotEmpty();
    assertThat(da.values()).hasSize(32 * 8);
    // TF32 changes nothing on a CPU, and the side forward runs in eval mode with the module's state restored
    assertThat(dc.sha256()).isEqualTo(da.sha256());
    a.block();
    var again = a.output();
    assertThat(again.values()).as("a later check sees the weights trained further").isNotEqualTo(da.values());
    c.close();
    a.close();
    JsonNode end = stopAndRead();
    assertThat(end.path("steps").asInt()).isGreaterThan(16);
  }

  @Test
  void whenTheControllerGoesWithoutDetachingTheTrialInProgressIsRevertedAndTheKeptSettingStays() throws Exception {
    LiveJob j = start(OVERSUBSCRIBED, small());
    j.kept(threads(CPUS));
    Job.Run a = j.open(threads(CPUS));
    Job.Run c = j.open(Setup.shipped().withEnvironment(TorchHook.LEVERS_VARIABLE, "threads=3,tf32"));
    c.block();
    assertThat(j.current()).containsEntry("threads", 3).containsEntry("tf32", true);
    j.channel().close(); // what the kernel does to gitm's socket when gitm is killed
    assertThat(TorchPython.waitFor(() -> logHas("reverting to"))).isTrue();
    long seen = System.currentTimeMillis();
    assertThat(TorchPython.waitFor(() -> TorchPython.modifiedAfter(j.folder().resolve("hook/facts.json"), seen)
        && threadsNow(j.folder().resolve("hook")) == CPUS)).as("facts written after the drop show the revert").isTrue();
    JsonNode end = stopAndRead();
    assertThat(end.path("threads").asInt()).as("the kept setting stays").isEqualTo(CPUS);
    assertThat(end.path("tf32").asBoolean()).as("the trial in progress was reverted").isFalse();
    assertThat(job.folder().resolve("hook").resolve("hook-error.txt")).doesNotExist();
    a.close();
    job = null;
  }

  @Test
  void threadsTheJobSetsAfterTheChannelOpenedAreTheSettingsInForce() throws Exception {
    // torch.get_num_threads() is per thread: the channel's thread, which answered the hello before the job set its
    // threads, would go on reading the count in force then
    LiveJob j = start(OVERSUBSCRIBED, small(), "--threads-after-hello");
    assertThat(j.baseline()).containsEntry("threads", OVERSUBSCRIBED);
    assertThat(j.current()).as("the settings in force, as the state op reports them").isEqualTo(j.baseline());
    assertThat(j.channel().call(Map.of("op", "state"), Duration.ofSeconds(30)).path("settings").path("threads")
        .asInt()).isEqualTo(OVERSUBSCRIBED);
  }

  @Test
  void aWrongTokenAMalformedMessageAndAnotherProtocolAreRefusedLoggedAndTheJobIsUntouched() throws Exception {
    LiveJob j = start(2, small());
    Path socket = j.socket();
    String token = j.token();
    assertThat(j.folder().resolve("token")).as("the token's file is gone once the hook has read it").doesNotExist();
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(socket))).isEqualTo("rw-------");
    Duration t = Duration.ofSeconds(30);
    try (LiveChannel other = LiveChannel.connect(socket, Ticker.system())) {
      JsonNode r = other.raw("{\"op\":\"hello\",\"protocol\":1,\"token\":\"0123456789abcdef0123\"}", t);
      assertThat(r.path("ok").asBoolean()).isFalse();
      assertThat(r.path("error").asString()).isEqualTo("refused: wrong token");
    }
    try (LiveChannel other = LiveChannel.connect(socket, Ticker.system())) {
      JsonNode r = other.raw("{\"op\":\"hello\",\"protocol\":" + (TorchHook.PROTOCOL + 1) + ",\"token\":\"" + token
          + "\"}", t);
      assertThat(r.path("error").asString()).contains("gitm speaks protocol " + (TorchHook.PROTOCOL + 1)
          + " and this hook " + TorchHook.PROTOCOL);
    }
    try (LiveChannel other = LiveChannel.connect(socket, Ticker.system())) {
      JsonNode r = other.raw("this is not json", t);
      assertThat(r.path("error").asString()).startsWith("refused: malformed message");
    }
    try (LiveChannel other = LiveChannel.connect(socket, Ticker.system())) {
      JsonNode r = other.raw("{\"op\":\"hello\",\"protocol\":1,\"token\":\"" + token + "\"}", t);
      assertThat(r.path("error").asString()).isEqualTo("refused: another controller is connected");
    }
    LiveChannel mine = j.channel();
    assertThat(mine.raw("{\"op\":", t).path("error").asString()).startsWith("malformed message");
    assertThatThrownBy(() -> mine.call(Map.of("op", "switch", "settings", Map.of("threads", "many")), t))
        .hasMessageContaining("threads must be an integer");
    assertThatThrownBy(() -> mine.call(Map.of("op", "switch", "settings", Map.of("channels-last", true)), t))
        .hasMessageContaining("cannot switch in a running process");
    assertThatThrownBy(() -> mine.call(Map.of("op", "launch"), t)).hasMessageContaining("unknown op");
    assertThat(j.window("after the refusals").stepsPerSecond()).isPositive();
    assertThat(j.current()).isEqualTo(j.baseline());
    String log = liveLog();
    assertThat(log).contains("refused a connection: wrong token").contains("refused a connection: gitm speaks")
        .contains("refused a connection: malformed message").contains("another controller is connected")
        .contains("refused a message: malformed message");
    assertThat(log).doesNotContain(token);
    j.close();
    JsonNode end = stopAndRead();
    assertThat(end.path("threads").asInt()).isEqualTo(2);
    assertThat(j.folder().resolve("hook").resolve("hook-error.txt")).doesNotExist();
  }

  @Test
  void aHookOfAnotherProtocolRefusesAtStartUpAndTheJobRunsOnUntouched() throws Exception {
    TorchHook hook = TorchHook.install(dir.resolve("hook-python"));
    Path init = hook.python().resolve("gitm_torch").resolve("__init__.py");
    Files.writeString(init, Files.readString(init).replace("VERSION = " + TorchHook.PROTOCOL,
        "VERSION = " + (TorchHook.PROTOCOL + 1)));
    assertThatThrownBy(() -> LiveJob.start(spec(3), dir.resolve("run"), Ticker.system(), hook, small()))
        .isInstanceOf(TrialFailure.class).hasMessageContaining("gitm's Python hook failed and turned itself off")
        .hasMessageContaining("gitm expects hook protocol " + TorchHook.PROTOCOL + " and this hook speaks "
            + (TorchHook.PROTOCOL + 1));
    JsonNode end = stopAndRead();
    assertThat(end.path("threads").asInt()).as("the job ended as it would without gitm").isEqualTo(3);
    assertThat(dir.resolve("run").resolve("live").resolve("hook.sock")).doesNotExist();
  }

  @Test
  void setupsThatCannotSwitchLiveAreRefused() {
    Map<String, Object> base = Map.of("tf32", false, "cudnn-benchmark", false, "threads", 4);
    assertThatThrownBy(() -> LiveJob.settingsOf(Setup.shipped().withEnvironment("OMP_NUM_THREADS", "1"), base))
        .hasMessageContaining("OMP_NUM_THREADS is read by the job when it starts");
    assertThatThrownBy(() -> LiveJob.settingsOf(Setup.shipped().withEnvironment(TorchHook.LEVERS_VARIABLE,
        "channels-last"), base)).hasMessageContaining("channels-last is applied only when the job starts");
    assertThatThrownBy(() -> LiveJob.settingsOf(threads(0), base)).hasMessageContaining("positive count");
    assertThatThrownBy(() -> LiveJob.settingsOf(Setup.shipped().withCpus(java.util.Set.of(0)), base))
        .hasMessageContaining("CPU pinning");
  }

  @Test
  void aJobThatNeverImportsTorchFailsToStartWithItsLastLine() throws Exception {
    Path script = dir.resolve("plain.py");
    Files.writeString(script, "print('no torch here')\n");
    ProcessSpec s = new ProcessSpec(List.of(PYTHON.toString(), script.toString()), false, dir,
        ProcessSpec.environment(System.getenv(), List.of("PATH"), List.of()),
        new ProcessMetric(ProcessMetric.Kind.STEPS, null, null, true, null), List.of(), 1e-3, 0, null);
    assertThatThrownBy(() -> LiveJob.start(s, dir.resolve("run"), Ticker.system(),
        TorchHook.install(dir.resolve("hook-python")), small()))
        .isInstanceOf(TrialFailure.class).hasMessageContaining("exited with status 0 before gitm's hook opened")
        .hasMessageContaining("no torch here");
  }
}
