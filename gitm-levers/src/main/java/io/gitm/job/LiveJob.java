package io.gitm.job;

import io.gitm.api.Ticker;
import io.gitm.levers.Setup;
import io.gitm.workload.OutputDigest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A PyTorch job started once and steered while it runs ({@code gitm run --live}): gitm's Python hook opens a control
 * channel in the job ({@link LiveChannel}; {@code gitm_torch/live.py} defines the protocol), through which this class
 * reads the job's step times and switches the settings that can change in a running process at its step boundaries.
 *
 * <p>The process is started through {@code setsid} in a session of its own, with exactly the spec's environment and
 * the hook's variables, its output in {@code live/job.stdout} and {@code .stderr} of the run folder. It is never
 * registered with gitm's process groups and never ended by this class: when gitm's budget ends ({@link #close}) the
 * job is switched to the setup kept so far ({@link #kept}), the channel says {@code detach}, and the job runs on with
 * it. When gitm dies without detaching, the hook reverts the trial in progress to its fallback, the setup kept so far.
 *
 * <p>For the gate, a run's {@link Run#block() block} switches the job to the run's setup if it is not the one in force
 * (then lets {@link Options#warmupSteps()} steps pass, a compiled job's recompilation among them), and measures one
 * window of {@link Options#windowSteps()} steps: steps per second between the window's first and last step
 * boundaries, timed by the hook inside the job. A window is counted only when all its steps were made under the one
 * setup. {@link Run#output()} is a measured equivalence check: the same held batch through the top module under the
 * anchor's and the candidate's settings at one step boundary (same weights, RNG seeded alike, module state restored).
 * Only the hook's live settings can be reached: a setup with anything else (an environment variable read at start-up,
 * CPUs, device settings, a framework lever the hook applies only at start) is refused.
 */
public final class LiveJob implements Job.Closeable {
  /** The hook's lever names that switch live, by the setting they set. */
  public static final Map<String, String> LIVE_LEVERS = Map.of("tf32", "tf32", "cudnn-benchmark", "cudnn-benchmark",
      "threads", "threads");
  private static final JsonMapper JSON = JsonMapper.builder().build();
  /** How often the job is polled while gitm waits for its steps. */
  static final Duration POLL = Duration.ofMillis(25);
  /** How long gitm waits for a reply that needs no step boundary. */
  static final Duration REPLY = Duration.ofSeconds(30);

  private final ProcessSpec spec;
  private final Path folder;
  private final Ticker ticker;
  private Options options;
  private final Process process;
  private final LiveChannel channel;
  private final Map<String, Object> baseline;
  private final Map<String, Object> supported;
  private final Path series;
  private final Path socket;
  private final String token;
  private Map<String, Object> current;
  private Map<String, Object> kept;
  /** The step boundary from which the settings in force have had their warm-up. */
  private long warmFrom;
  private long firstEnd = -1;
  private long count;
  private final List<Window> windows = new ArrayList<>();
  private final List<Switch> switches = new ArrayList<>();
  private final List<LiveRun> open = new ArrayList<>();
  private Map<Map<String, Object>, OutputDigest> checked = Map.of();
  private boolean trial;
  private boolean closed;

  /**
   * How windows are measured.
   *
   * @param windowSteps steps in one measured window
   * @param warmupSteps steps let pass after a switch before a window may start
   * @param startTimeout longest the job may take to import torch and open the channel
   * @param stepTimeout longest the job may go without a step before a window fails as a hang
   */
  public record Options(int windowSteps, int warmupSteps, Duration startTimeout, Duration stepTimeout) {
    public Options {
      if (windowSteps < 2 || windowSteps > 1_000_000) {
        throw new IllegalArgumentException("a live window needs 2 to 1000000 steps, got " + windowSteps);
      }
      if (warmupSteps < 0 || warmupSteps > 1_000_000) {
        throw new IllegalArgumentException("live warm-up steps must be 0 to 1000000, got " + warmupSteps);
      }
      if (startTimeout == null || !startTimeout.isPositive() || stepTimeout == null || !stepTimeout.isPositive()) {
        throw new IllegalArgumentException("live timeouts must be positive");
      }
    }

    /** Windows of 40 steps, 10 warm-up steps after a switch, 3 minutes to start, 2 minutes per step at most. */
    public static Options defaults() {
      return new Options(40, 10, Duration.ofMinutes(3), Duration.ofMinutes(2));
    }

    public Options withSteps(int window, int warmup) {
      return new Options(window, warmup, startTimeout, stepTimeout);
    }
  }

  /**
   * One measured window of steps.
   *
   * @param from the step boundary it starts at; it ends at {@code from + steps}
   * @param startSeconds its first boundary, in seconds since the job's first step ended
   */
  public record Window(String label, long from, int steps, double startSeconds, double endSeconds,
      double stepsPerSecond, Map<String, Object> settings) {}

  /**
   * A switch of the job's settings.
   *
   * @param step the step boundary at which the new settings took effect
   * @param atSeconds that boundary, in seconds since the job's first step ended
   */
  public record Switch(long step, double atSeconds, Map<String, Object> from, Map<String, Object> to, String why) {}

  private LiveJob(LiveStart start, Ticker ticker, Options options, Process process, LiveChannel channel,
      JsonNode hello) {
    this.spec = start.spec();
    this.folder = start.folder();
    this.socket = start.socket();
    this.token = start.token();
    this.ticker = ticker;
    this.options = options;
    this.process = process;
    this.channel = channel;
    this.baseline = settings(hello.path("baseline"));
    this.current = settings(hello.path("settings"));
    this.kept = new TreeMap<>(baseline);
    this.supported = JSON.convertValue(hello.path("supported"), Map.class);
    this.count = hello.path("steps").asLong(0);
    this.series = folder.getParent().resolve("steps.jsonl");
  }

  /**
   * Starts the job once, with gitm's Python hook and its channel, and connects when the job has imported torch.
   *
   * @param runDir the run folder: the job's files go to {@code live/} in it, the step-rate series to
   *     {@code steps.jsonl}
   * @throws TrialFailure when the job cannot start, exits, or opens no channel within the start timeout
   */
  public static LiveJob start(ProcessSpec spec, Path runDir, Ticker ticker, TorchHook hook, Options options)
      throws TrialFailure, InterruptedException {
    if (spec == null || runDir == null || ticker == null || hook == null || options == null) {
      throw new IllegalArgumentException("a live job needs a spec, a run folder, a ticker, the hook and options");
    }
    LiveStart s = LiveStart.prepare(spec, runDir, hook);
    Process p = s.launch(ProcessJob.tool("setsid").orElseThrow(() -> new IllegalArgumentException(
        "setsid (util-linux) was not found: gitm starts a live job in a session of its own with it")));
    LiveChannel ch = null;
    try {
      ch = s.connect(p, ticker, options.startTimeout());
      JsonNode hello = ch.raw(JSON.writeValueAsString(Map.of("op", "hello", "protocol", TorchHook.PROTOCOL,
          "token", s.token())), REPLY);
      if (!hello.path("ok").asBoolean(false)) {
        throw new TrialFailure(TrialFailure.Kind.SETUP_REFUSED, "the job's hook refused gitm: "
            + hello.path("error").asString("no reason given"));
      }
      // the hook read the token when it opened the channel: the file goes, so that no copy of the run folder has it
      Files.deleteIfExists(s.folder().resolve(LiveStart.TOKEN_FILE));
      LiveJob job = new LiveJob(s, ticker, options, p, ch, s.firstStep(p, ch, ticker, options.startTimeout()));
      job.note(Map.of("kind", "start", "pid", p.pid(), "settings", job.current, "supported", job.supported));
      return job;
    } catch (LiveChannel.Failure | IOException e) {
      if (ch != null) {
        ch.close();
      }
      throw new TrialFailure(TrialFailure.Kind.CRASH, "the live channel to the job failed: " + e.getMessage());
    } catch (TrialFailure | RuntimeException e) {
      if (ch != null) {
        ch.close();
      }
      throw e;
    }
  }

  /** The job's process id (the leader of its session). */
  public long pid() {
    return process.pid();
  }

  public boolean alive() {
    return process.isAlive();
  }

  /** Where the job's files are: {@code job.stdout}, {@code job.stderr}, {@code hook/} (live.log among them). */
  public Path folder() {
    return folder;
  }

  /** The hook's socket (0600, in a 0700 folder). */
  Path socket() {
    return socket;
  }

  /** The run's token, which the hook checks in the hello. */
  String token() {
    return token;
  }

  /** gitm's connection to the hook. */
  LiveChannel channel() {
    return channel;
  }

  /** The job's own settings at its first step boundary. */
  public synchronized Map<String, Object> baseline() {
    return Map.copyOf(baseline);
  }

  /** The settings in force now. */
  public synchronized Map<String, Object> current() {
    return Map.copyOf(current);
  }

  /** Windows of {@code windowSteps} steps from now on, {@code warmupSteps} let pass after each switch. */
  public synchronized void resize(int windowSteps, int warmupSteps) {
    options = options.withSteps(windowSteps, warmupSteps);
  }

  /** Which settings can switch in this job's process: true, or why not. */
  public Map<String, Object> supported() {
    return Map.copyOf(supported);
  }

  public synchronized List<Window> windows() {
    return List.copyOf(windows);
  }

  public synchronized List<Switch> switches() {
    return List.copyOf(switches);
  }

  @Override
  public String metric() {
    return "steps/s";
  }

  @Override
  public boolean higherIsBetter() {
    return true;
  }

  /** Every run is a view of the one process: any two setups are measured in interleaved windows. */
  @Override
  public boolean sideBySide(Setup a, Setup b) {
    return true;
  }

  /** Windows of one process are randomized in order: a periodic phase of the job must not line up with the arms. */
  @Override
  public boolean randomizedOrder() {
    return true;
  }

  /**
   * The live settings {@code setup} asks for on top of {@code baseline}.
   *
   * @throws TrialFailure ({@link TrialFailure.Kind#SETUP_REFUSED}) when the setup changes anything that cannot switch
   *     in a running process
   */
  public static Map<String, Object> settingsOf(Setup setup, Map<String, Object> baseline) throws TrialFailure {
    if (!setup.cpus().isEmpty() || !setup.deviceSettings().isEmpty()) {
      throw new TrialFailure(TrialFailure.Kind.SETUP_REFUSED, "a live job takes no CPU pinning or device settings");
    }
    Map<String, Object> s = new TreeMap<>(baseline);
    for (var e : setup.environment().entrySet()) {
      if (!e.getKey().equals(TorchHook.LEVERS_VARIABLE)) {
        throw new TrialFailure(TrialFailure.Kind.SETUP_REFUSED, e.getKey() + " is read by the job when it starts:"
            + " it cannot change in a running process");
      }
      for (String item : e.getValue().split(",")) {
        String[] kv = item.strip().split("=", 2);
        if (kv[0].isEmpty()) {
          continue;
        }
        String setting = LIVE_LEVERS.get(kv[0]);
        if (setting == null) {
          throw new TrialFailure(TrialFailure.Kind.SETUP_REFUSED, "the framework lever " + kv[0] + " is applied"
              + " only when the job starts: it cannot switch live (live: " + String.join(", ",
              new java.util.TreeSet<>(LIVE_LEVERS.keySet())) + ")");
        }
        s.put(setting, setting.equals("threads") ? threads(kv) : (Object) Boolean.TRUE);
      }
    }
    return s;
  }

  private static Object threads(String[] kv) throws TrialFailure {
    try {
      int n = Integer.parseInt(kv.length > 1 ? kv[1].strip() : "");
      if (n >= 1) {
        return n;
      }
    } catch (NumberFormatException ignored) {
      // refused below
    }
    throw new TrialFailure(TrialFailure.Kind.SETUP_REFUSED, "threads needs a positive count, got "
        + String.join("=", kv));
  }

  @Override
  public synchronized Run open(Setup setup) throws TrialFailure {
    checkOpen();
    if (!process.isAlive()) {
      throw new TrialFailure(TrialFailure.Kind.CRASH, "the job has exited (status " + process.exitValue()
          + ", last line: " + lastLine() + "): there is nothing left to steer");
    }
    Map<String, Object> want = settingsOf(setup, baseline);
    for (var e : want.entrySet()) {
      if (!java.util.Objects.equals(e.getValue(), baseline.get(e.getKey()))
          && !Boolean.TRUE.equals(supported.get(e.getKey()))) {
        throw new TrialFailure(TrialFailure.Kind.SETUP_REFUSED, e.getKey() + " cannot switch in this job: "
            + supported.getOrDefault(e.getKey(), "the hook does not report it"));
      }
    }
    if (!open.isEmpty() && !trial && !want.equals(open.getFirst().settings)) {
      try {
        call(Map.of("op", "trial", "action", "begin", "fallback", kept));
      } catch (LiveChannel.Failure e) {
        throw failure(e);
      }
      trial = true;
    }
    LiveRun r = new LiveRun(want);
    open.add(r);
    checked = Map.of();
    return r;
  }

  /**
   * The setup kept so far (the agent's anchor after a trial): the job is switched to it now if another is in force
   * (a rejected lever switched back live), the trial in progress ends, and it is what the job is left with at
   * {@link #close} and what the hook reverts to if gitm dies.
   */
  @Override
  public synchronized void kept(Setup setup) {
    if (closed || !process.isAlive()) {
      return;
    }
    try {
      kept = settingsOf(setup, baseline);
      ensure(kept, "kept");
      endTrial();
    } catch (TrialFailure | LiveChannel.Failure e) {
      note(Map.of("kind", "error", "what", "switching to the kept setup", "error", String.valueOf(e.getMessage())));
    }
  }

  private void endTrial() throws LiveChannel.Failure {
    if (trial) {
      call(Map.of("op", "trial", "action", "keep"));
      trial = false;
    }
  }

  /**
   * Measures one window under the settings in force (the profile's baseline windows).
   *
   * @param label how the step-rate series names the window
   */
  public synchronized Window window(String label) throws TrialFailure, InterruptedException {
    checkOpen();
    return measure(current, label);
  }

  private Window measure(Map<String, Object> want, String label) throws TrialFailure, InterruptedException {
    try {
      ensure(want, label);
      long now = poll(count);
      long from = Math.max(warmFrom, Math.max(0, now - 1));
      long[] ends = await(from, from + options.windowSteps());
      double seconds = (ends[ends.length - 1] - ends[0]) / 1e9;
      if (!(seconds > 0)) {
        throw new TrialFailure(TrialFailure.Kind.CRASH, "the job's steps " + from + " to "
            + (from + options.windowSteps()) + " took no measurable time");
      }
      Window w = new Window(label, from, options.windowSteps(), at(ends[0]), at(ends[ends.length - 1]),
          options.windowSteps() / seconds, Map.copyOf(current));
      windows.add(w);
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("kind", "window");
      m.put("label", label);
      m.put("from", w.from());
      m.put("steps", w.steps());
      m.put("t0", w.startSeconds());
      m.put("t1", w.endSeconds());
      m.put("stepsPerSecond", w.stepsPerSecond());
      m.put("settings", w.settings());
      note(m);
      return w;
    } catch (LiveChannel.Failure e) {
      throw failure(e);
    }
  }

  private TrialFailure failure(LiveChannel.Failure e) {
    String why = process.isAlive() ? "the live channel failed: " + e.getMessage()
        : "the job exited with status " + process.exitValue() + " (last line: " + lastLine() + ")";
    return new TrialFailure(TrialFailure.Kind.CRASH, why);
  }

  private String lastLine() {
    String err = ProcessJob.tail(folder.resolve("job.stderr"));
    return ProcessMetric.lastLine(err.isBlank() ? ProcessJob.tail(folder.resolve("job.stdout")) : err);
  }

  /** Switches the job to {@code want} if other settings are in force, and records the switch. */
  private void ensure(Map<String, Object> want, String why) throws LiveChannel.Failure {
    if (want.equals(current)) {
      return;
    }
    JsonNode r = call(Map.of("op", "switch", "settings", want, "timeoutMs", options.stepTimeout().toMillis()),
        options.stepTimeout().plus(REPLY));
    long step = r.path("step").asLong();
    Map<String, Object> was = current;
    current = settings(r.path("settings"));
    warmFrom = step + options.warmupSteps();
    count = Math.max(count, step + 1);
    Switch s = new Switch(step, at(endOf(step)), was, Map.copyOf(current), why);
    switches.add(s);
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("kind", "switch");
    m.put("step", step);
    m.put("t", s.atSeconds());
    m.put("from", was);
    m.put("to", current);
    m.put("why", why);
    note(m);
  }

  /** The steps recorded so far (the hook's count). */
  private long poll(long since) throws LiveChannel.Failure {
    JsonNode r = call(Map.of("op", "steps", "since", since, "limit", 0));
    count = r.path("count").asLong();
    if (firstEnd < 0 && count > 0) {
      firstEnd = endOf(0);
    }
    return count;
  }

  /** The end time of step boundary {@code step}, which the job has reached. */
  private long endOf(long step) throws LiveChannel.Failure {
    JsonNode ends = call(Map.of("op", "steps", "since", step, "limit", 1)).path("ends");
    if (ends.isEmpty()) {
      throw new LiveChannel.Failure("the hook has no step " + step);
    }
    if (firstEnd < 0 && step == 0) {
      firstEnd = ends.get(0).asLong();
    }
    return ends.get(0).asLong();
  }

  /**
   * The end times of boundaries {@code from} and {@code to}, waiting for the job to reach {@code to} (a poll reads
   * one boundary, so that its cost does not grow with the window); a job that makes no step within the step timeout
   * is a hang, one that exits a crash.
   */
  private long[] await(long from, long to) throws LiveChannel.Failure, TrialFailure, InterruptedException {
    long last = count;
    long lastAt = ticker.nanos();
    while (true) {
      JsonNode r = call(Map.of("op", "steps", "since", to, "limit", 1));
      count = r.path("count").asLong();
      if (firstEnd < 0 && count > 0) {
        firstEnd = endOf(0);
      }
      if (count > to) {
        return new long[] {endOf(from), r.path("ends").get(0).asLong()};
      }
      if (count > last) {
        last = count;
        lastAt = ticker.nanos();
      } else if (ticker.nanos() - lastAt > options.stepTimeout().toNanos()) {
        throw new TrialFailure(TrialFailure.Kind.HANG, "the job made no step within "
            + Watchdog.describe(options.stepTimeout()) + " (at step " + count + ")");
      }
      if (!process.isAlive()) {
        throw new TrialFailure(TrialFailure.Kind.CRASH, "the job exited with status " + process.exitValue()
            + " at step " + count + " (last line: " + lastLine() + ")");
      }
      Thread.sleep(POLL);
    }
  }

  private double at(long end) {
    return firstEnd < 0 ? Double.NaN : (end - firstEnd) / 1e9;
  }

  /**
   * The outputs of the open runs' settings on the held batch, measured at one step boundary: each open run's
   * digest, computed once per trial's blocks.
   */
  private OutputDigest output(LiveRun run) throws TrialFailure {
    if (!checked.containsKey(run.settings)) {
      List<Map<String, Object>> each = open.stream().map(r -> r.settings).distinct().toList();
      try {
        JsonNode r = call(Map.of("op", "check", "settings", each, "timeoutMs", options.stepTimeout().toMillis()),
            options.stepTimeout().plus(REPLY));
        Map<Map<String, Object>, OutputDigest> m = new LinkedHashMap<>();
        for (int i = 0; i < each.size(); i++) {
          m.put(each.get(i), digest(r.path("outputs").get(i), spec.floor()));
        }
        checked = m;
        Map<String, Object> n = new LinkedHashMap<>();
        n.put("kind", "check");
        n.put("step", r.path("step").asLong());
        n.put("settings", each);
        n.put("sha256", m.values().stream().map(OutputDigest::sha256).toList());
        note(n);
      } catch (LiveChannel.Failure e) {
        throw new TrialFailure(TrialFailure.Kind.CRASH, "the equivalence check could not run in the job, so the"
            + " output cannot be compared: " + e.getMessage());
      }
    }
    return checked.get(run.settings);
  }

  /**
   * The digest of one setting's output of the check, with the spec's floor ({@code atol / rtol}), so that values
   * near zero are compared within {@code --atol} as restart mode compares output files.
   */
  static OutputDigest digest(JsonNode o, double floor) {
    JsonNode v = o.path("values");
    double[] values = new double[v.size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = v.get(i).isNumber() ? v.get(i).asDouble() : Double.NaN;
    }
    return new OutputDigest(o.path("sha256").asString(), values, o.path("fixedSha256").asString(), floor);
  }

  private JsonNode call(Map<String, Object> m) throws LiveChannel.Failure {
    return call(m, REPLY);
  }

  private JsonNode call(Map<String, Object> m, Duration timeout) throws LiveChannel.Failure {
    return channel.call(m, timeout);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> settings(JsonNode n) {
    return new TreeMap<>(JSON.convertValue(n, Map.class));
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("the live job is closed");
    }
  }

  /** Appends one entry to the run's step-rate series ({@code steps.jsonl}). */
  private void note(Map<String, Object> entry) {
    try {
      Files.writeString(series, JSON.writeValueAsString(entry) + "\n", StandardCharsets.UTF_8,
          StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the step-rate series " + series, e);
    }
  }

  /**
   * Leaves the job running with the setup kept so far: switches it there if needed, ends any trial as kept, says
   * {@code detach}, and closes the channel. The process is not ended.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      if (process.isAlive()) {
        ensure(kept, "gitm detaches");
        endTrial();
        JsonNode r = call(Map.of("op", "detach"));
        note(Map.of("kind", "detach", "settings", settings(r.path("settings"))));
      }
    } catch (LiveChannel.Failure e) {
      note(Map.of("kind", "error", "what", "detaching", "error", String.valueOf(e.getMessage())));
    } finally {
      channel.close();
    }
  }

  /** One setup's view of the live job, for the gate. */
  private final class LiveRun implements Run {
    final Map<String, Object> settings;
    private boolean done;

    LiveRun(Map<String, Object> settings) {
      this.settings = Map.copyOf(settings);
    }

    @Override
    public double block() throws TrialFailure {
      synchronized (LiveJob.this) {
        checkOpen();
        try {
          checked = Map.of();
          return measure(settings, "gate").stepsPerSecond();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new TrialFailure(TrialFailure.Kind.CRASH, "interrupted");
        }
      }
    }

    @Override
    public OutputDigest output() {
      synchronized (LiveJob.this) {
        try {
          return LiveJob.this.output(this);
        } catch (TrialFailure e) {
          throw new IllegalStateException(e.getMessage(), e);
        }
      }
    }

    @Override
    public void close() {
      synchronized (LiveJob.this) {
        if (!done) {
          done = true;
          open.remove(this);
        }
      }
    }
  }
}
