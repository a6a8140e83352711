package io.gitm.run;

import io.gitm.analysis.attribution.Hypothesis;
import io.gitm.api.Ticker;
import io.gitm.device.DeviceInfo;
import io.gitm.device.GpuProcess;
import io.gitm.device.HardwareSpec;
import io.gitm.device.StateSampler;
import io.gitm.job.Job;
import io.gitm.job.ProcessJob;
import io.gitm.job.ProcessSpec;
import io.gitm.job.TorchHook;
import io.gitm.levers.Lever;
import io.gitm.levers.LeverContext;
import io.gitm.levers.Setup;
import io.gitm.search.Gate;
import io.gitm.sim.SimSpec;
import io.gitm.store.RunDir;
import io.gitm.trace.TraceRecord;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A black-box job ({@code gitm run --cmd}) as a run's target: profiled by {@link ProcessProfiler} (one run traced by
 * CUPTI injection, then untraced runs for the baseline), measured by the agent as a {@link ProcessJob} (each gate
 * block one fresh process), reached only by the levers a process accepts from outside, and never replayed. Its spec
 * is written to the run folder ({@code process.json}), and so are its profile's notes, for a resume.
 *
 * @param tracing the environment that traces a run into the given file (CUPTI injection), or null when tracing is
 *     unavailable ({@code tracingOff} says why)
 * @param sampler the job's GPU's state sampler (NVML), or null when there is none
 * @param gpuProcesses the processes using that GPU now (NVML), or null when unknown; the profile keeps those of the
 *     job's process group
 * @param info the GPU as NVML describes it, or a host-only description
 * @param extraEvidence findings from elsewhere (an imported PyTorch profiler trace), added to the report's notes
 * @param pythonHook whether every run gets gitm's Python hook ({@link TorchHook}: step metric, framework facts and
 *     levers); off with {@code --no-hook}
 */
public record ProcessTarget(ProcessSpec spec, Function<Path, Map<String, String>> tracing, String tracingOff,
    StateSampler sampler, Supplier<List<GpuProcess>> gpuProcesses, DeviceInfo info, String choiceReason,
    List<String> extraEvidence, boolean pythonHook) implements RunTarget {
  /** The profile's notes and busy-process count, kept for a resumed run. */
  static final String PROFILE_NOTES = "profile-notes.json";
  /** The job's spec in the run folder. */
  public static final String PROCESS_FILE = "process.json";

  public ProcessTarget {
    extraEvidence = List.copyOf(extraEvidence == null ? List.of() : extraEvidence);
  }

  /** How reports name the job: its command, shortened. */
  @Override
  public String name() {
    return "cmd: " + shortCommand(spec);
  }

  /** The job's command line, shortened to 80 characters. */
  static String shortCommand(ProcessSpec spec) {
    String c = String.join(" ", spec.command());
    return c.length() > 80 ? c.substring(0, 77) + "..." : c;
  }

  /** The spec as the run folder keeps it, its environment redacted ({@link Secrets}). */
  static Map<String, Object> redactedJson(ProcessSpec spec) {
    Map<String, Object> json = new LinkedHashMap<>(spec.toJson());
    json.put("environment", Secrets.redact(spec.environment()));
    return json;
  }

  @Override
  public Map<String, String> requestDescription() {
    return Map.of("request.kind", "process");
  }

  /**
   * {@code process.json}, the spec with its redacted environment ({@link Secrets}), and the values it hides in
   * {@code secrets.json}, which stays on this machine.
   */
  @Override
  public Map<String, Object> resumeFiles() {
    Map<String, Object> json = redactedJson(spec);
    Map<String, String> hidden = Secrets.hidden(spec.environment());
    return hidden.isEmpty() ? Map.of(PROCESS_FILE, json)
        : Map.of(PROCESS_FILE, json, RunDir.SECRETS_FILE, Map.of("environment", hidden));
  }

  /**
   * The spec of the job a run folder's {@code process.json} describes, its redacted values put back from
   * {@code secrets.json}.
   *
   * @throws IllegalArgumentException when the files do not describe a job, or a redacted value is not kept
   */
  @SuppressWarnings("unchecked")
  public static ProcessSpec resumedSpec(Map<String, Object> processJson, Map<String, Object> secretsJson) {
    Map<String, Object> json = new LinkedHashMap<>(processJson);
    Object env = json.get("environment");
    if (env instanceof Map<?, ?> m) {
      Object kept = secretsJson == null ? null : secretsJson.get("environment");
      json.put("environment", Secrets.restore((Map<String, String>) m,
          kept instanceof Map<?, ?> k ? (Map<String, String>) k : Map.of()));
    }
    return ProcessSpec.fromJson(json);
  }

  @Override
  public Optional<Record> groundTruth() {
    return Optional.empty();
  }

  /** The profile phase; a job that fails as shipped stops the run with its status and last lines. */
  @Override
  public Profile profile(Profile.Input in) throws IOException {
    ProcessProfiler.Result r = profileProcess(in);
    Map<String, Double> facts = new java.util.TreeMap<>(hookFacts(r.runs()));
    facts.put(LeverContext.FACT_JOB_PROCESSES, (double) r.jobProcesses());
    List<String> notes = new ArrayList<>(r.notes());
    hookNote(r.runs()).ifPresent(notes::add);
    in.run().writeJson(PROFILE_NOTES, Map.of("notes", notes, "jobProcesses", r.jobProcesses(), "facts", facts));
    return new Profile(r.baseline(), notes, facts);
  }

  /** The hook's facts of the profile's first untraced run that went well (its timing is the baseline's). */
  private static Map<String, Double> hookFacts(List<ProcessJob.RunResult> runs) {
    return firstHooked(runs).map(h -> h.leverFacts()).orElse(Map.of());
  }

  private static Optional<TorchHook.Report> firstHooked(List<ProcessJob.RunResult> runs) {
    return runs.stream().filter(x -> x.ok() && "profile".equals(x.label())).map(ProcessJob.RunResult::hook)
        .filter(h -> h != null && h.torch()).findFirst();
  }

  /** What the hook saw in the profile, for the report: steps, processes, data wait, the hook's own failure. */
  private Optional<String> hookNote(List<ProcessJob.RunResult> runs) {
    if (!pythonHook) {
      return Optional.of("gitm's Python hook is off (--no-hook): no step metric, framework facts or levers");
    }
    Optional<TorchHook.Report> h = firstHooked(runs);
    String failed = runs.stream().map(ProcessJob.RunResult::hook).filter(x -> x != null && x.error() != null)
        .map(TorchHook.Report::error).findFirst().orElse(null);
    if (h.isEmpty()) {
      return Optional.of(failed != null ? "gitm's Python hook failed in the profile and turned itself off: " + failed
          : "gitm's Python hook saw no torch imported (not a PyTorch job): no framework facts or levers");
    }
    TorchHook.Report r = h.get();
    StringBuilder sb = new StringBuilder("PyTorch seen by gitm's Python hook: ");
    sb.append(r.facts() == null ? "" : "torch " + r.facts().path("torch").asString("?") + ", ");
    sb.append(r.steps()).append(" steps (").append(r.stepSource()).append(")");
    r.stepsPerSecond().ifPresent(v -> sb.append(String.format(java.util.Locale.ROOT, ", %.3g steps/s", v)));
    Double wait = r.leverFacts().get(LeverContext.FACT_TORCH_DATA_WAIT_SHARE);
    if (wait != null) {
      sb.append(String.format(java.util.Locale.ROOT, ", %.1f%% of each step waiting for the DataLoader", 100 * wait));
    }
    sb.append("; ").append(r.processes()).append(" process").append(r.processes() == 1 ? "" : "es")
        .append(" imported torch, the main one steered");
    if (failed != null) {
      sb.append("; the hook failed in another run: ").append(failed);
    }
    return Optional.of(sb.toString());
  }

  private TorchHook hook(RunDir run) {
    return pythonHook ? TorchHook.install(run.dir().resolve("hook").resolve("python")) : null;
  }

  private ProcessProfiler.Result profileProcess(Profile.Input in) throws IOException {
    RunDir run = in.run();
    Ticker wall = in.clock().wall();
    Duration first = spec.timeout() != null ? spec.timeout() : in.clock().plan().budget().duration().dividedBy(3);
    PreexistingOutputs kept = new PreexistingOutputs(spec, run.dir());
    try (ProcessJob job = new ProcessJob(spec, run.dir(), wall, first, hook(run))) {
      kept.moveAside();
      ProcessProfiler.Result r = ProcessProfiler.profile(job, name(), tracing, tracingOff, sampler, gpuProcesses,
          in.tracePath(), in.window(), wall, in.control());
      List<String> notes = new ArrayList<>(r.notes());
      if (!kept.moved().isEmpty()) {
        notes.add(kept.describe() + " existed before the run: moved to " + kept.folder()
            + " (the job's runs write there now)");
      }
      String ended = ProcessJob.describeLeftBehind(job.endedOnOpen());
      if (ended != null) {
        notes.add(ended);
      }
      return new ProcessProfiler.Result(r.baseline(), r.runs(), r.jobProcesses(), notes);
    } catch (ProcessProfiler.BrokenJob e) {
      String message = e.getMessage();
      in.journal().append("failed", Map.of("phase", "profile", "error", message));
      throw new RunLoop.RunFailure("run " + run.id() + ": " + RunLoop.oneLine(message) + lastLines(message)
          + kept.putBack(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      in.journal().append("failed", Map.of("phase", "profile", "error", "stopped by request"));
      throw new RunLoop.RunFailure("run " + run.id() + " was stopped before the job's baseline was measured; its"
          + " process group was ended" + kept.putBack(), e);
    } catch (IllegalArgumentException | UncheckedIOException e) {
      String why = Failures.describe(e);
      in.journal().append("failed", Map.of("phase", "profile", "error", why));
      throw new RunLoop.RunFailure("run " + run.id() + " cannot run the job: " + why + kept.putBack(), e);
    } catch (IOException | RuntimeException e) {
      String put = kept.putBack();
      if (!put.isEmpty()) {
        e.addSuppressed(new IOException(put.substring(2)));
      }
      throw e;
    }
  }

  /**
   * The job's last lines after the first line of {@code message}, on the same line ({@code "; its last lines: a |
   * b"}), or that it printed nothing.
   */
  static String lastLines(String message) {
    int nl = message.indexOf('\n');
    List<String> lines = nl < 0 ? List.of() : message.substring(nl + 1).lines().map(String::strip)
        .filter(l -> !l.isEmpty()).toList();
    return lines.isEmpty() ? "; it printed nothing" : "; its last lines: " + String.join(" | ", lines);
  }

  /** The profile kept by the run; first ends what the job's run in progress left when gitm was killed. */
  @Override
  public Profile reuse(RunDir run, Profiler.Baseline baseline) throws IOException {
    String ended = ProcessJob.describeLeftBehind(ProcessJob.endLeftBehind(run.dir(), Ticker.system()));
    Path file = run.dir().resolve(PROFILE_NOTES);
    if (!Files.isRegularFile(file)) {
      return new Profile(baseline, ended == null ? List.of() : List.of(ended), Map.of());
    }
    Map<?, ?> pn = RunLoop.JSON.readValue(file.toFile(), Map.class);
    List<String> notes = new ArrayList<>();
    ((List<?>) pn.get("notes")).forEach(x -> notes.add(String.valueOf(x)));
    if (ended != null) {
      notes.add(ended);
    }
    Map<String, Double> facts = new java.util.TreeMap<>();
    if (pn.get("facts") instanceof Map<?, ?> kept) {
      kept.forEach((k, v) -> facts.put(String.valueOf(k), ((Number) v).doubleValue()));
    }
    facts.put(LeverContext.FACT_JOB_PROCESSES, ((Number) pn.get("jobProcesses")).doubleValue());
    return new Profile(baseline, notes, facts);
  }

  @Override
  public Map<String, Double> traceFacts(List<TraceRecord> records) {
    return ProcessProfiler.traceFacts(records);
  }

  @Override
  public Optional<SimSpec> replaySpec(DeviceInfo info, HardwareSpec hw) {
    return Optional.empty();
  }

  /** One process per gate block, under a watchdog of the per-run timeout and half a minute. */
  @Override
  public Tuning tune(Profiler.Baseline baseline, Gate.Options gate, PhasePlan plan) {
    return Tuning.of(baseline, 1, gate.withBlockTimeout(timeout(baseline).plusSeconds(30)));
  }

  @Override
  public Job.Closeable openJob(RunDir run, Ticker wall, Profiler.Baseline baseline, Tuning tuning) {
    return new ProcessJob(spec, run.dir(), wall, timeout(baseline), hook(run));
  }

  @Override
  public LeverContext leverContext(DeviceInfo info, List<Hypothesis> hypotheses, Map<String, Double> facts,
      Setup shipped) {
    // no workload spec: a process job has no knobs of its own, and its device settings are never changed
    return new LeverContext(null, info, hypotheses, facts, false, shipped);
  }

  /** Only the levers a process accepts from outside. */
  @Override
  public boolean admits(Lever lever) {
    return lever.scope() == Lever.Scope.PROCESS;
  }

  @Override
  public double outputTolerance() {
    return spec.rtol();
  }

  @Override
  public boolean higherIsBetter() {
    return spec.metric().higherIsBetter();
  }

  @Override
  public List<String> notes(Profiler.Baseline baseline, List<String> profileNotes) {
    List<String> out = new ArrayList<>();
    out.add("job: " + String.join(" ", spec.argv()) + " in " + spec.workdir() + "; metric: "
        + spec.metric().describe() + "; each gate block is one fresh process; per-run timeout "
        + RunLoop.window(timeout(baseline)));
    out.add("environment the job received before any lever (nothing else of gitm's; values outside the allow-list"
        + " redacted): " + Secrets.redact(spec.environment()));
    out.addAll(profileNotes);
    extraEvidence.forEach(e -> out.add("extra evidence: " + e));
    return out;
  }

  @Override
  public AfterTrace traceAfter(Outcome outcome, Profiler.Baseline baseline, RunClock clock,
      RunLoop.Control control) {
    return new AfterTrace(List.of(), "no \"after\" timeline: a black-box job's runs in the apply phase are not"
        + " traced");
  }

  /** Nothing to release: the profile's processes have ended. */
  @Override
  public void close() {}

  /**
   * The per-run timeout of the job after its profile: the user's, else five times its slowest baseline run, at
   * least 30 s.
   */
  Duration timeout(Profiler.Baseline b) {
    if (spec.timeout() != null) {
      return spec.timeout();
    }
    double slowest = Double.isFinite(b.latency().max()) ? b.latency().max() / 1000 : 60;
    return Duration.ofMillis(Math.round(1000 * Math.max(30, 5 * slowest)));
  }
}
