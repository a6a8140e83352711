package io.gitm.run;

import io.gitm.analysis.attribution.Hypothesis;
import io.gitm.api.Ticker;
import io.gitm.device.DeviceInfo;
import io.gitm.device.HardwareSpec;
import io.gitm.job.Job;
import io.gitm.job.LiveJob;
import io.gitm.job.ProcessSpec;
import io.gitm.job.TorchHook;
import io.gitm.job.TrialFailure;
import io.gitm.levers.Lever;
import io.gitm.levers.LeverContext;
import io.gitm.levers.Levers;
import io.gitm.levers.Setup;
import io.gitm.search.Gate;
import io.gitm.sim.SimSpec;
import io.gitm.stats.Stats;
import io.gitm.store.RunDir;
import io.gitm.trace.ClockDomain;
import io.gitm.trace.TraceMeta;
import io.gitm.tracer.TraceWriter;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * A PyTorch job optimized while it runs ({@code gitm run --live --cmd ...}): started once as a {@link LiveJob}, its
 * first windows of steps are the profile's baseline (no restart, no CUPTI trace), the agent measures it in windows of
 * that one process, and only the framework levers that switch at a step boundary reach it. When the run ends the job
 * runs on with the setup kept. The run folder holds {@code live.json} (the job), {@code live/} (its output, the hook's
 * folder and {@code live.log}), {@code steps.jsonl} (every window and switch) and, written with the report,
 * {@code steps.md} and {@code steps.svg}: the step rate over time with every switch marked.
 */
public final class LiveTarget implements RunTarget {
  /** The job's description in the run folder; a run folder with it is not resumed. */
  public static final String LIVE_FILE = "live.json";
  /** The levers that switch in a running process (the hook's live settings). */
  static final Set<String> LIVE_LEVERS = Set.of("torch-tf32", "torch-cudnn-benchmark", "torch-threads");
  /** Windows the profile measures at least and at most. */
  static final int MIN_WINDOWS = 3;
  static final int MAX_WINDOWS = 10;

  private final ProcessSpec spec;
  private final DeviceInfo info;
  private final String choiceReason;
  private final LiveJob.Options options;
  private final List<String> extraEvidence;
  private LiveJob job;

  /** @param options how the profile's windows are measured (the apply phase's are sized from its baseline) */
  public LiveTarget(ProcessSpec spec, DeviceInfo info, String choiceReason, LiveJob.Options options,
      List<String> extraEvidence) {
    this.spec = spec;
    this.info = info;
    this.choiceReason = choiceReason;
    this.options = options;
    this.extraEvidence = List.copyOf(extraEvidence);
  }

  @Override
  public String name() {
    return "live: " + ProcessTarget.shortCommand(spec);
  }

  @Override
  public String choiceReason() {
    return choiceReason;
  }

  @Override
  public DeviceInfo info() {
    return info;
  }

  @Override
  public Map<String, String> requestDescription() {
    return Map.of("request.kind", "live");
  }

  @Override
  public Map<String, Object> resumeFiles() {
    Map<String, Object> json = ProcessTarget.redactedJson(spec);
    json.put("mode", "live");
    return Map.of(LIVE_FILE, json);
  }

  @Override
  public Optional<Record> groundTruth() {
    return Optional.empty();
  }

  /**
   * Starts the job and measures its first windows: one for its start-up (discarded), then windows of the shipped
   * setup until the profile's window has passed, at least {@link #MIN_WINDOWS} and until the hook has written its
   * facts, at most {@link #MAX_WINDOWS}. A job that cannot be started stops the run; one started is left running.
   */
  @Override
  public Profile profile(Profile.Input in) throws IOException {
    RunDir run = in.run();
    Ticker wall = in.clock().wall();
    long t0 = wall.nanos();
    TorchHook hook = TorchHook.install(run.dir().resolve("hook").resolve("python"));
    try {
      job = LiveJob.start(spec, run.dir(), wall, hook, options);
      LiveJob.Window first = job.window("start-up");
      List<LiveJob.Window> windows = new ArrayList<>();
      long until = t0 + in.window().toNanos();
      while (windows.size() < MAX_WINDOWS && (windows.size() < MIN_WINDOWS || wall.nanos() < until
          || !TorchHook.read(hookDir()).torch() || TorchHook.read(hookDir()).facts() == null)) {
        windows.add(job.window("profile"));
      }
      Map<String, String> attrs = new LinkedHashMap<>();
      attrs.put("tracing", "off: live mode runs no CUPTI injection");
      try (TraceWriter w = TraceWriter.create(in.tracePath(), new TraceMeta("live job " + name(),
          ClockDomain.HOST_MONOTONIC, List.of(), attrs))) {
        w.records(); // a trace of no records: the analysis has the job's step rate only
      }
      return profile(first, windows, (wall.nanos() - t0) / 1e9);
    } catch (TrialFailure e) {
      in.journal().append("failed", Map.of("phase", "profile", "error", String.valueOf(e.getMessage())));
      detach();
      throw new RunLoop.RunFailure("run " + run.id() + " cannot steer the job live: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      in.journal().append("failed", Map.of("phase", "profile", "error", "stopped by request"));
      detach();
      throw new RunLoop.RunFailure("run " + run.id() + " was stopped before the job's baseline was measured; the"
          + " job runs on", e);
    } catch (RuntimeException e) {
      detach();
      throw e;
    }
  }

  private Profile profile(LiveJob.Window first, List<LiveJob.Window> windows, double seconds) {
    double[] rates = windows.stream().mapToDouble(LiveJob.Window::stepsPerSecond).toArray();
    double[] ms = windows.stream().mapToDouble(w -> 1000 / w.stepsPerSecond()).toArray();
    Stats m = Stats.of("steps/s", rates);
    double measured = windows.stream().mapToDouble(w -> w.endSeconds() - w.startSeconds()).sum();
    Profiler.Baseline b = new Profiler.Baseline(name(), job.metric(), windows.size(),
        (long) windows.size() * first.steps(), m.p50(), Stats.of("ms", ms), 1000 / first.stepsPerSecond(), 0, 0,
        "off: live mode runs no CUPTI injection", null, measured);
    TorchHook.Report h = TorchHook.read(hookDir());
    Map<String, Double> facts = new TreeMap<>(h.leverFacts());
    facts.put(LeverContext.FACT_JOB_PROCESSES, (double) Math.max(1, h.processes()));
    List<String> notes = new ArrayList<>();
    notes.add(String.format(Locale.ROOT, "live profile: the job (pid %d) was started once; %d windows of %d steps"
        + " of the shipped setup after a start-up window (%.3g steps/s there), %.1f s in all; %d process%s imported"
        + " torch, the main one steered", job.pid(), windows.size(), first.steps(), first.stepsPerSecond(), seconds,
        h.processes(), h.processes() == 1 ? "" : "es"));
    notes.add("the job's own live settings at its first step: " + job.baseline() + "; switchable here: "
        + job.supported());
    return new Profile(b, notes, facts);
  }

  private java.nio.file.Path hookDir() {
    return job.folder().resolve("hook");
  }

  private void detach() {
    if (job != null) {
      job.close();
    }
  }

  @Override
  public Optional<SimSpec> replaySpec(DeviceInfo info, HardwareSpec hw) {
    return Optional.empty();
  }

  /**
   * Windows long enough that a trial of the gate's most pairs (both arms, a warm-up after each switch) takes at most
   * a twelfth of the apply phase, between 0.2 s and 10 s and at least 10 steps; a quarter of a window's steps (at
   * least 3) let pass after each switch; no warm-up block (the warm-up steps are one); a block that takes 20 times its
   * expected time, at least 30 s, is a hang.
   */
  @Override
  public Tuning tune(Profiler.Baseline baseline, Gate.Options gate, PhasePlan plan) {
    double rate = baseline.throughput();
    double apply = plan.window(Phase.APPLY).length().toMillis() / 1000.0;
    double seconds = Math.clamp(apply / 12 / (2.0 * gate.maxPairs()), 0.2, 10);
    int steps = (int) Math.clamp(Math.round(rate * seconds), 10, 1_000_000);
    int warmup = Math.max(3, steps / 4);
    double block = (steps + warmup) / rate;
    Gate.Options g = gate.withWarmupBlocks(0).withBlockTimeout(Duration.ofMillis(Math.round(1000
        * Math.max(30, 20 * block))));
    return new Tuning(steps, g, Duration.ofMillis(Math.round(1000 * 2 * gate.maxPairs() * block)));
  }

  /** The job started by the profile, its windows sized by {@code tuning}; closing it detaches, the job runs on. */
  @Override
  public Job.Closeable openJob(RunDir run, Ticker wall, Profiler.Baseline baseline, Tuning tuning) {
    if (job == null) {
      throw new IllegalStateException("a live run's job is started by its profile, which did not run");
    }
    job.resize(tuning.blockIterations(), Math.max(3, tuning.blockIterations() / 4));
    return job;
  }

  @Override
  public LeverContext leverContext(DeviceInfo info, List<Hypothesis> hypotheses, Map<String, Double> facts,
      Setup shipped) {
    return new LeverContext(null, info, hypotheses, facts, false, shipped);
  }

  /** Only the framework levers that switch at a step boundary. */
  @Override
  public boolean admits(Lever lever) {
    return lever.scope() == Lever.Scope.PROCESS && LIVE_LEVERS.contains(lever.id());
  }

  @Override
  public double outputTolerance() {
    return spec.rtol();
  }

  @Override
  public boolean higherIsBetter() {
    return true;
  }

  @Override
  public List<String> notes(Profiler.Baseline baseline, List<String> profileNotes) {
    List<String> out = new ArrayList<>();
    out.add("job: " + String.join(" ", spec.argv()) + " in " + spec.workdir() + "; live mode: started once and"
        + " steered through gitm's Python hook (a Unix socket, 0600, with a per-run token); each gate block is a"
        + " window of steps of that one process, a warm-up of steps let pass after each switch, the windows of a trial"
        + " in a seeded random order balanced every two pairs; class-B levers pass only a measured equivalence check"
        + " (the held batch through the top module under both settings at one step)");
    out.add("environment the job received (values outside the allow-list redacted): "
        + Secrets.redact(spec.environment()));
    List<String> notLive = Levers.all().stream().filter(l -> l.scope() == Lever.Scope.PROCESS && !admits(l))
        .map(Lever::id).sorted().toList();
    out.add("not tried live (they act only when a process starts): " + String.join(", ", notLive));
    out.addAll(profileNotes);
    if (job != null) {
      out.addAll(LiveSeries.write(job.folder().getParent(), job));
    }
    extraEvidence.forEach(e -> out.add("extra evidence: " + e));
    return out;
  }

  @Override
  public AfterTrace traceAfter(Outcome outcome, Profiler.Baseline baseline, RunClock clock,
      RunLoop.Control control) {
    return new AfterTrace(List.of(), "no \"after\" timeline: a live job is not traced");
  }

  /** Nothing: the job is left to the apply phase's {@link #openJob}, whose closing detaches from it. */
  @Override
  public void close() {}
}
