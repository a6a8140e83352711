package io.gitm.job;

import io.gitm.api.Ticker;
import io.gitm.job.output.OutputFile;
import io.gitm.job.output.OutputFiles;
import io.gitm.levers.Setup;
import io.gitm.os.ProcessGroups;
import io.gitm.os.ProcessTree;
import io.gitm.workload.OutputDigest;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.stream.Collectors;
import tools.jackson.databind.json.JsonMapper;

/**
 * A black-box job: every run is a fresh process of the {@link ProcessSpec}, started through {@code setsid} in a
 * process group of its own (and through {@code taskset} when the setup pins CPUs), with exactly the environment the
 * spec and the setup give it and nothing else of gitm's. Its stdout and stderr go to {@code trials/pNNNN.stdout} and
 * {@code .stderr} in the log folder, and each run is described in {@code trials/processes.jsonl} (argv, the variables
 * levers set, exit status, wall time, metric, output digest, the processes it left behind). On a timeout, an
 * interrupt (Ctrl-C) or {@link #close}, the whole group is ended (SIGTERM, a grace, SIGKILL). Every process a run
 * leaves behind is ended when the run ends, in its group or not ({@link JobProcesses}: gitm is a child subreaper, so
 * even a process that made a new session with {@code setsid} is found), and listed in the run's entry with its
 * command line. A run under a setup other than the shipped one that leaves more processes behind than the shipped
 * setup's runs do is a failed block, so that a lever whose runs leave processes behind is not kept. Opening the job
 * ends what a run of an earlier gitm that was killed left behind ({@link #endedOnOpen()}).
 *
 * <p>For the agent, one gate block is one run of the process, and a run's output digest is that of the declared
 * output files right after it (they are removed before each run, so a run that does not write them is caught).
 */
public final class ProcessJob implements Job.Closeable {
  /** How long a group gets between SIGTERM and SIGKILL. */
  static final Duration GRACE = Duration.ofSeconds(2);
  /** How much of the end of stdout/stderr the metric and the messages read. */
  static final int TAIL_BYTES = 4 << 20;
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final ProcessSpec spec;
  private final Path logDir;
  private final Ticker ticker;
  private final Path setsid;
  private final Path taskset;
  private final Duration timeout;
  private final TorchHook hook;
  /** How often a run's descendants are looked for while it goes on. */
  private static final Duration POLL = Duration.ofMillis(500);

  private final java.util.Set<Long> groups = java.util.concurrent.ConcurrentHashMap.newKeySet();
  private final List<ProcessTree.Found> endedOnOpen;
  private int runs;
  /** The most processes a run of the shipped setup left behind. */
  private int shippedLeftovers;
  /** The output digests the shipped setup's runs gave. */
  private final java.util.Set<String> shippedOutputs = new java.util.HashSet<>();
  private volatile boolean closed;

  /**
   * One run of the process.
   *
   * @param leverEnvironment the variables set on top of the spec's environment (by levers and by gitm's tracing)
   * @param metric the run's number, or NaN when it failed
   * @param output the digest of the output files, or null when it failed
   * @param failure why the run gave no measurement, or null
   * @param leftovers the run's processes still there when its main process exited or was ended (ended by gitm)
   * @param hook what gitm's Python hook wrote for the run (a report of no torch when the hook was off)
   */
  public record RunResult(int index, String label, List<String> argv, Map<String, String> leverEnvironment,
      SortedSet<Integer> cpus, int exitCode, double wallSeconds, double metric, OutputDigest output, String failure,
      TrialFailure.Kind failureKind, List<ProcessTree.Found> leftovers, Path stdout, Path stderr,
      TorchHook.Report hook) {
    public boolean ok() {
      return failure == null;
    }
  }

  /**
   * @param logDir the run folder: runs are logged under {@code trials/}
   * @param timeout longest a run may take (the spec's own when it has one)
   */
  public ProcessJob(ProcessSpec spec, Path logDir, Ticker ticker, Duration timeout) {
    this(spec, logDir, ticker, timeout, null);
  }

  /**
   * @param logDir the run folder: runs are logged under {@code trials/}
   * @param timeout longest a run may take (the spec's own when it has one)
   * @param hook gitm's Python hook, put on every run's {@code PYTHONPATH} with a folder of its own per run
   *     ({@code trials/pNNNN.hook/}), or null for none
   */
  public ProcessJob(ProcessSpec spec, Path logDir, Ticker ticker, Duration timeout, TorchHook hook) {
    if (spec == null || logDir == null || ticker == null) {
      throw new IllegalArgumentException("a process job needs a spec, a log folder and a ticker");
    }
    if (spec.metric().needsHook() && hook == null) {
      throw new IllegalArgumentException("--metric " + spec.metric().name() + " is counted by gitm's Python hook,"
          + " which --no-hook turns off");
    }
    this.hook = hook;
    if (!ProcessGroups.supported()) {
      throw new IllegalArgumentException("black-box jobs need process groups: " + ProcessGroups.unsupportedReason());
    }
    this.spec = spec;
    this.logDir = logDir.resolve("trials");
    this.ticker = ticker;
    this.setsid = tool("setsid").orElseThrow(() -> new IllegalArgumentException(
        "setsid (util-linux) was not found: gitm runs every job in a process group of its own with it"));
    this.taskset = tool("taskset").orElse(null);
    this.timeout = spec.timeout() != null ? spec.timeout() : timeout;
    if (this.timeout == null || this.timeout.isNegative() || this.timeout.isZero()) {
      throw new IllegalArgumentException("a process job needs a positive per-run timeout");
    }
    try {
      Files.createDirectories(this.logDir);
      try (var s = Files.list(this.logDir)) {
        runs = (int) s.filter(p -> p.getFileName().toString().endsWith(".stdout")).count();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    this.endedOnOpen = endLeftBehind(logDir, ticker);
    for (Map<?, ?> m : shippedRuns(this.logDir.resolve("processes.jsonl"))) {
      if (m.get("leftoverProcesses") instanceof List<?> left) {
        shippedLeftovers = Math.max(shippedLeftovers, left.size());
      }
      if (m.get("failure") == null && m.get("outputSha256") instanceof String sha) {
        shippedOutputs.add(sha);
      }
    }
  }

  /** Whether every run of the shipped setup so far (this job's and the run folder's earlier ones) gave one output. */
  @Override
  public synchronized boolean reproducibleOutput() {
    return shippedOutputs.size() <= 1;
  }

  /**
   * Makes gitm a child subreaper and ends what a run of the job in run folder {@code runDir} left when the gitm that
   * ran it was killed (recorded in {@code trials/}, each process checked by its start time); lists them in
   * {@code trials/processes.jsonl} and returns them.
   */
  public static List<ProcessTree.Found> endLeftBehind(Path runDir, Ticker ticker) {
    ProcessTree.subreaper();
    Path trials = runDir.resolve("trials");
    List<ProcessTree.Found> ended = JobProcesses.endEarlier(trials, GRACE, ticker);
    if (!ended.isEmpty()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("label", "left by an earlier gitm");
      m.put("leftoverProcesses", JobProcesses.describe(ended));
      append(trials, m);
    }
    return ended;
  }

  /** A note for the report on the processes {@link #endLeftBehind} ended, or null when there were none. */
  public static String describeLeftBehind(List<ProcessTree.Found> ended) {
    if (ended.isEmpty()) {
      return null;
    }
    return "the job's run in progress when an earlier gitm was killed had left " + ended.size() + " process"
        + (ended.size() == 1 ? "" : "es") + " running; they were ended: " + ended.stream().limit(5)
        .map(f -> f.pid() + " (" + abbreviate(f.command()) + ")").collect(Collectors.joining(", "))
        + (ended.size() > 5 ? ", ..." : "");
  }

  /** The processes a run of an earlier gitm in this folder had left, ended when this job was opened. */
  public List<ProcessTree.Found> endedOnOpen() {
    return endedOnOpen;
  }

  /** The entries of the log's runs of the shipped setup (no variable set by gitm, no CPUs pinned). */
  private static List<Map<?, ?>> shippedRuns(Path log) {
    List<Map<?, ?>> out = new ArrayList<>();
    if (!Files.isRegularFile(log)) {
      return out;
    }
    try {
      for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
        Map<?, ?> m;
        try {
          m = JSON.readValue(line, Map.class);
        } catch (RuntimeException torn) {
          continue;
        }
        if (m.get("environmentSetByGitm") instanceof Map<?, ?> env && env.isEmpty()
            && m.get("cpus") instanceof List<?> cpus && cpus.isEmpty()) {
          out.add(m);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  public ProcessSpec spec() {
    return spec;
  }

  public Duration timeout() {
    return timeout;
  }

  /** The process group of the run in progress, if any. */
  public java.util.OptionalLong runningGroup() {
    return groups.stream().mapToLong(Long::longValue).findFirst();
  }

  /** Whether the setup's CPU pinning can be applied here ({@code taskset} found). */
  public boolean canPin() {
    return taskset != null;
  }

  @Override
  public String metric() {
    return spec.metric().name();
  }

  @Override
  public boolean higherIsBetter() {
    return spec.metric().higherIsBetter();
  }

  @Override
  public Run open(Setup setup) throws TrialFailure {
    if (!setup.cpus().isEmpty() && taskset == null) {
      throw new TrialFailure(TrialFailure.Kind.SETUP_REFUSED, "pinning CPUs needs taskset (util-linux), not found");
    }
    if (!setup.deviceSettings().isEmpty()) {
      throw new TrialFailure(TrialFailure.Kind.SETUP_REFUSED, "a process job takes no device settings");
    }
    return new Run() {
      private OutputDigest last;

      @Override
      public double block() throws TrialFailure {
        RunResult r;
        try {
          r = execute(setup, Map.of(), "gate");
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new TrialFailure(TrialFailure.Kind.CRASH, "interrupted");
        }
        if (!r.ok()) {
          throw new TrialFailure(r.failureKind(), r.failure());
        }
        String left = leftBehind(setup, r);
        if (left != null) {
          throw new TrialFailure(TrialFailure.Kind.CRASH, left);
        }
        String unapplied = unapplied(setup, r.hook());
        if (unapplied != null) {
          throw new TrialFailure(TrialFailure.Kind.SETUP_REFUSED, unapplied);
        }
        last = r.output();
        return r.metric();
      }

      @Override
      public OutputDigest output() {
        return last;
      }

      @Override
      public void close() {}
    };
  }

  /**
   * Why a run under {@code setup} counts against it for the processes it left behind, or null: a setup other than
   * the shipped one whose run left more than the shipped setup's runs do.
   */
  private synchronized String leftBehind(Setup setup, RunResult r) {
    if (shipped(setup, Map.of()) || r.leftovers().size() <= shippedLeftovers) {
      return null;
    }
    String list = r.leftovers().stream().limit(5).map(f -> f.pid() + " (" + abbreviate(f.command()) + ")")
        .collect(Collectors.joining(", "));
    return "the run left " + r.leftovers().size() + " process" + (r.leftovers().size() == 1 ? "" : "es")
        + " behind (" + list + (r.leftovers().size() > 5 ? ", ..." : "") + "), where a run of the shipped setup left "
        + shippedLeftovers + "; gitm ended them, and a setup whose runs leave processes behind is not kept";
  }

  /**
   * Why the framework levers a setup asks the hook for ({@link TorchHook#LEVERS_VARIABLE}) did not all change the
   * run, or null when each did: a lever that changed nothing must not be judged as if it had.
   */
  static String unapplied(Setup setup, TorchHook.Report hook) {
    String asked = setup.environment().get(TorchHook.LEVERS_VARIABLE);
    if (asked == null || asked.isBlank()) {
      return null;
    }
    List<String> names = java.util.Arrays.stream(asked.split(",")).map(x -> x.split("=", 2)[0].strip())
        .filter(x -> !x.isEmpty()).toList();
    if (!hook.torch()) {
      return "the job never imported torch" + (hook.error() == null ? "" : " as far as gitm's hook saw (it failed: "
          + hook.error() + ")") + ", so the framework levers " + names + " changed nothing";
    }
    if (hook.error() != null) {
      return "gitm's Python hook failed and turned itself off: " + hook.error();
    }
    Map<String, TorchHook.LeverOutcome> done = hook.levers();
    for (String n : names) {
      TorchHook.LeverOutcome o = done.get(n);
      if (o == null) {
        return "the job gave the hook nothing to apply " + n + " to (" + switch (n) {
          case "channels-last" -> "no module was called";
          case "dl-workers", "dl-pin-memory", "dl-persistent-workers", "dl-prefetch-factor" -> "no DataLoader was made";
          default -> "it was never reached";
        } + ")";
      }
      if (!o.applied()) {
        return "the hook could not apply " + n + ": " + o.detail();
      }
    }
    return null;
  }

  private static boolean shipped(Setup setup, Map<String, String> extra) {
    return setup.environment().isEmpty() && setup.cpus().isEmpty() && extra.isEmpty();
  }

  private static String abbreviate(String command) {
    return command.length() > 60 ? command.substring(0, 57) + "..." : command;
  }

  /**
   * Runs the job once under {@code setup}, with {@code extra} variables on top (gitm's tracing), and logs it. The
   * job's own failures are in the result; an interrupt ends the group and is thrown.
   */
  public synchronized RunResult execute(Setup setup, Map<String, String> extra, String label)
      throws InterruptedException {
    if (closed) {
      throw new IllegalStateException("the process job is closed");
    }
    int index = ++runs;
    String stem = String.format("p%04d", index);
    Path out = logDir.resolve(stem + ".stdout");
    Path err = logDir.resolve(stem + ".stderr");
    Map<String, String> set = new TreeMap<>(setup.environment());
    set.putAll(extra);
    Map<String, String> env = new TreeMap<>(spec.environment());
    env.putAll(set);
    Path hookDir = null;
    if (hook != null) {
      hookDir = logDir.resolve(stem + ".hook");
      try {
        Files.createDirectories(hookDir);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot make the run's hook folder " + hookDir, e);
      }
      env.putAll(hook.environment(hookDir, env.get("PYTHONPATH")));
    }
    List<String> argv = new ArrayList<>();
    argv.add(setsid.toString());
    if (!setup.cpus().isEmpty()) {
      argv.add(taskset.toString());
      argv.add("-c");
      argv.add(setup.cpus().stream().map(String::valueOf).collect(Collectors.joining(",")));
    }
    argv.addAll(spec.argv());
    removeOutputs();
    ProcessBuilder pb = new ProcessBuilder(argv).directory(spec.workdir().toFile())
        .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
        .redirectOutput(out.toFile()).redirectError(err.toFile());
    pb.environment().clear();
    pb.environment().putAll(env);
    long t0 = ticker.nanos();
    long since = JobProcesses.ticksNow();
    Process p;
    try {
      p = pb.start();
    } catch (IOException e) {
      return log(new RunResult(index, label, argv, set, setup.cpus(), -1, 0, Double.NaN, null,
          "the job could not be started: " + e.getMessage(), TrialFailure.Kind.CRASH, List.of(), out, err,
          TorchHook.Report.NONE));
    }
    long pgid = p.pid();
    ProcessGroups.register(pgid);
    groups.add(pgid);
    JobProcesses tree = JobProcesses.started(logDir, pgid, since);
    try {
      RunResult r = await(p, pgid, tree, t0, index, label, argv, set, setup, out, err, hookDir);
      if (shipped(setup, extra)) {
        shippedLeftovers = Math.max(shippedLeftovers, r.leftovers().size());
        if (r.ok() && r.output() != null) {
          shippedOutputs.add(r.output().sha256());
        }
      }
      return r;
    } finally {
      groups.remove(pgid);
    }
  }

  /** Waits for the run's main process, looking for its descendants every {@link #POLL}, up to the timeout. */
  private boolean waitFor(Process p, JobProcesses tree, long pgid) throws InterruptedException {
    long left = timeout.toNanos();
    while (left > 0) {
      long step = Math.min(left, POLL.toNanos());
      if (p.waitFor(step, java.util.concurrent.TimeUnit.NANOSECONDS)) {
        return true;
      }
      left -= step;
      tree.poll(otherGroups(pgid));
    }
    return false;
  }

  private static List<Long> otherGroups(long pgid) {
    return ProcessGroups.live().stream().filter(g -> g != pgid).toList();
  }

  private RunResult await(Process p, long pgid, JobProcesses tree, long t0, int index, String label,
      List<String> argv, Map<String, String> set, Setup setup, Path out, Path err, Path hookDir)
      throws InterruptedException {
    boolean finished;
    try {
      finished = waitFor(p, tree, pgid);
    } catch (InterruptedException e) {
      List<ProcessTree.Found> left = end(p, pgid, tree);
      log(new RunResult(index, label, argv, set, setup.cpus(), -1, (ticker.nanos() - t0) / 1e9, Double.NaN, null,
          "stopped by request", TrialFailure.Kind.CRASH, left, out, err, TorchHook.read(hookDir)));
      throw e;
    }
    double wall = (ticker.nanos() - t0) / 1e9;
    if (!finished) {
      List<ProcessTree.Found> left = end(p, pgid, tree);
      TorchHook.Report hr = TorchHook.read(hookDir);
      return log(new RunResult(index, label, argv, set, setup.cpus(), -1, wall, Double.NaN, null,
          "the job did not finish within " + Watchdog.describe(timeout) + "; its process group was killed (last line: "
              + ProcessMetric.lastLine(tail(err).isBlank() ? tail(out) : tail(err)) + ")", TrialFailure.Kind.HANG,
          left, out, err, hr));
    }
    int exit = p.exitValue();
    List<ProcessTree.Found> left = tree.end(pgid, GRACE, ticker, otherGroups(pgid));
    TorchHook.Report hr = TorchHook.read(hookDir);
    String stdout = tail(out);
    String stderr = tail(err);
    if (exit != 0) {
      return log(new RunResult(index, label, argv, set, setup.cpus(), exit, wall, Double.NaN, null,
          "the job exited with status " + exit + describeSignal(exit) + " (last line: "
              + ProcessMetric.lastLine(stderr.isBlank() ? stdout : stderr) + ")", TrialFailure.Kind.CRASH, left, out,
          err, hr));
    }
    double metric;
    try {
      metric = spec.metric().read(stdout, stderr, spec.workdir(), wall, hr);
    } catch (ProcessMetric.Missing m) {
      return log(new RunResult(index, label, argv, set, setup.cpus(), exit, wall, Double.NaN, null, m.getMessage(),
          TrialFailure.Kind.CRASH, left, out, err, hr));
    }
    OutputDigest digest;
    try {
      digest = spec.outputs().isEmpty() ? new OutputDigest("no outputs declared", new double[0])
          : OutputFiles.digest(spec.outputs(), spec.workdir(), spec.floor());
    } catch (OutputFiles.Unreadable u) {
      return log(new RunResult(index, label, argv, set, setup.cpus(), exit, wall, metric, null, u.getMessage(),
          TrialFailure.Kind.CRASH, left, out, err, hr));
    }
    return log(new RunResult(index, label, argv, set, setup.cpus(), exit, wall, metric, digest, null, null, left, out,
        err, hr));
  }

  /**
   * Moves output files that exist before the job's first run (left by an earlier run of the job) into
   * {@code preexisting-outputs/} of the log folder, so that nothing of the user's is lost; returns what was moved.
   */
  public List<Path> keepPreexistingOutputs() throws IOException {
    List<Path> moved = new ArrayList<>();
    for (OutputFile o : spec.outputs()) {
      Path f = spec.workdir().resolve(o.path());
      if (Files.isRegularFile(f)) {
        Path dir = logDir.getParent().resolve("preexisting-outputs");
        Files.createDirectories(dir);
        Path target = dir.resolve(o.path().getFileName().toString());
        Files.move(f, target, StandardCopyOption.REPLACE_EXISTING);
        moved.add(target);
      }
    }
    return moved;
  }

  private void removeOutputs() {
    for (OutputFile o : spec.outputs()) {
      try {
        Files.deleteIfExists(spec.workdir().resolve(o.path()));
      } catch (IOException e) {
        throw new UncheckedIOException("cannot remove the job's output " + o.path() + " before a run", e);
      }
    }
    if (spec.metric().kind() == ProcessMetric.Kind.FILE) {
      try {
        Files.deleteIfExists(spec.workdir().resolve(spec.metric().file()));
      } catch (IOException e) {
        throw new UncheckedIOException("cannot remove the metric file before a run", e);
      }
    }
  }

  /**
   * Ends the run's process group and every other process of the run, and reaps the process (also when it never got
   * to make its group); returns the run's other processes.
   */
  private List<ProcessTree.Found> end(Process p, long pgid, JobProcesses tree) {
    List<ProcessTree.Found> left = tree.end(pgid, GRACE, ticker, otherGroups(pgid));
    if (p.isAlive()) {
      p.destroyForcibly();
    }
    boolean interrupted = Thread.interrupted();
    try {
      p.waitFor(5, java.util.concurrent.TimeUnit.SECONDS);
    } catch (InterruptedException ignored) {
      // reaped or not, the group is gone
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
    return left;
  }

  private static String describeSignal(int exit) {
    if (exit <= 128 || exit > 128 + 64) {
      return "";
    }
    return switch (exit - 128) {
      case 9 -> ", killed by SIGKILL (out of memory?)";
      case 11 -> ", a segmentation fault (SIGSEGV)";
      case 6 -> ", aborted (SIGABRT)";
      case 15 -> ", terminated (SIGTERM)";
      default -> ", signal " + (exit - 128);
    };
  }

  private RunResult log(RunResult r) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("index", r.index());
    m.put("label", r.label());
    m.put("argv", r.argv());
    m.put("environmentSetByGitm", r.leverEnvironment());
    m.put("cpus", r.cpus());
    m.put("exitCode", r.exitCode());
    m.put("wallSeconds", r.wallSeconds());
    m.put("metric", Double.isFinite(r.metric()) ? r.metric() : null);
    m.put("outputSha256", r.output() == null ? null : r.output().sha256());
    m.put("failure", r.failure());
    m.put("leftoverProcesses", JobProcesses.describe(r.leftovers()));
    if (hook != null) {
      m.put("hook", describe(r.hook()));
    }
    append(m);
    return r;
  }

  /** The log's view of what the hook wrote: torch seen, steps, rate, what each lever did, its own failure. */
  private static Map<String, Object> describe(TorchHook.Report h) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("torch", h.torch());
    m.put("processesWithTorch", h.processes());
    m.put("steps", h.steps());
    m.put("stepSource", h.stepSource());
    m.put("stepsPerSecond", h.stepsPerSecond().isPresent() ? h.stepsPerSecond().getAsDouble() : null);
    m.put("levers", h.levers());
    m.put("error", h.error());
    return m;
  }

  private void append(Map<String, Object> entry) {
    append(logDir, entry);
  }

  private static void append(Path logDir, Map<String, Object> entry) {
    try {
      Files.createDirectories(logDir);
      Files.writeString(logDir.resolve("processes.jsonl"), JSON.writeValueAsString(entry) + "\n",
          StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The last {@link #TAIL_BYTES} of a log, as text. */
  static String tail(Path f) {
    try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "r")) {
      long len = raf.length();
      long from = Math.max(0, len - TAIL_BYTES);
      byte[] b = new byte[(int) (len - from)];
      raf.seek(from);
      raf.readFully(b);
      return new String(b, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }

  /** The last {@code n} lines of a run's stderr (else its stdout), for a message. */
  public static String lastLines(RunResult r, int n) {
    String t = tail(r.stderr()).strip();
    if (t.isEmpty()) {
      t = tail(r.stdout()).strip();
    }
    String[] lines = t.split("\n");
    return String.join("\n", java.util.Arrays.asList(lines).subList(Math.max(0, lines.length - n), lines.length));
  }

  static Optional<Path> tool(String name) {
    List<String> dirs = new ArrayList<>(List.of(System.getenv().getOrDefault("PATH", "").split(":")));
    dirs.addAll(List.of("/usr/bin", "/bin", "/usr/sbin", "/sbin"));
    for (String d : dirs) {
      if (d.isEmpty()) {
        continue;
      }
      Path p = Path.of(d, name);
      if (Files.isRegularFile(p) && Files.isExecutable(p)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  /** Ends every process group of this job that is still running. */
  @Override
  public void close() {
    closed = true;
    for (long g : List.copyOf(groups)) {
      if (ProcessGroups.live().contains(g)) {
        ProcessGroups.terminate(g, GRACE, ticker);
      }
    }
  }
}
