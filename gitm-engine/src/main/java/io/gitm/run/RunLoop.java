package io.gitm.run;

import io.gitm.api.Budget;
import io.gitm.api.Target;
import io.gitm.api.Ticker;
import io.gitm.device.Device;
import io.gitm.device.DeviceInfo;
import io.gitm.device.DeviceProvider;
import io.gitm.device.DeviceRequest;
import io.gitm.report.Report;
import io.gitm.report.Reports;
import io.gitm.search.Agent;
import io.gitm.search.Gate;
import io.gitm.search.TrialRecord;
import io.gitm.store.Journal;
import io.gitm.store.RunDir;
import io.gitm.store.RunInfo;
import io.gitm.store.RunStore;
import io.gitm.trace.DeviceKind;
import io.gitm.trace.TraceRecord;
import io.gitm.tracer.TraceReader;
import io.gitm.tracer.TraceWriter;
import io.gitm.workload.ExecutionConfig;
import io.gitm.workload.Workload;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import tools.jackson.databind.json.JsonMapper;

/**
 * One whole optimization run, the five phases end to end, shared by {@code gitm run} and the embedded API: profile
 * (in the run folder: {@code trace.gtrace}, {@code baseline.json}), attribute, rank and apply ({@link Optimizer}),
 * report ({@code report.md}, {@code report.html}, {@code report.json}, {@code outcome.json}), each step journaled in
 * {@code journal.jsonl} so that a run can be resumed.
 */
public final class RunLoop {
  /**
   * State sampling period on a real device (100 Hz), in host time: the Granger matrix bins telemetry per sample
   * interval and needs at least 14 of them, so a profile of a fraction of a second still gets a testable series; one
   * NVML sample costs 18–47 µs on the H200 (docs/nvidia-backend.md), under 0.5% of a core at this rate.
   */
  public static final long SAMPLE_PERIOD_NS = 10_000_000L;
  /** State sampling period on the simulated device, in simulated time: its runs cover far less device time. */
  public static final long SIM_SAMPLE_PERIOD_NS = 1_000_000L;

  static final JsonMapper JSON = JsonMapper.builder().build();

  private RunLoop() {}

  /** What the run shows as it goes. */
  public interface Listener {
    void header(String run, String device, String budget);

    void phase(Phase p, Duration window);

    void line(String s);

    void trial(TrialRecord t, long startNanos, PhasePlan plan);

    /** A trial of the interrupted run that a resumed run takes over, told before the search goes on. */
    default void reused(TrialRecord t, long startNanos, PhasePlan plan) {
      trial(t, startNanos, plan);
    }

    /** The agent starts a trial: {@code what} names it (e.g. {@code trial 3 pool-allocation}). */
    default void trialStarted(String what, long startNanos, PhasePlan plan) {}

    static Listener none() {
      return new Listener() {
        @Override
        public void header(String run, String device, String budget) {}

        @Override
        public void phase(Phase p, Duration window) {}

        @Override
        public void line(String s) {}

        @Override
        public void trial(TrialRecord t, long startNanos, PhasePlan plan) {}
      };
    }
  }

  /**
   * How a run is stopped from outside (Ctrl-C, SIGTERM, an embedding application): {@link #requestStop} sets a flag
   * that the profile loop and the phases look at, and, while the apply phase runs (or a process job's profile run),
   * interrupts the thread running it so that the trial or run in progress is cut. The interrupt never reaches the
   * thread outside those sections: entering and leaving them and requesting a stop are serialised on this object.
   */
  public static final class Control {
    private final AtomicBoolean stop = new AtomicBoolean();
    private Thread applying;

    public static Control none() {
      return new Control();
    }

    /** Asks the run to stop gracefully: it reverts to the anchor and writes the report of what was done. */
    public synchronized void requestStop() {
      stop.set(true);
      if (applying != null) {
        applying.interrupt();
      }
    }

    public boolean stopRequested() {
      return stop.get();
    }

    synchronized void enterApply() {
      applying = Thread.currentThread();
      if (stop.get()) {
        applying.interrupt();
      }
    }

    /** Leaves the apply phase; returns whether the thread had been interrupted (its flag is cleared). */
    synchronized boolean leaveApply() {
      applying = null;
      return Thread.interrupted();
    }
  }

  /**
   * What to run.
   *
   * @param device the opened device for the profile phase (closed by the loop); the apply phase reopens through
   *     {@code provider} with {@code deviceRequest} and each setup's settings
   * @param resumed the run folder of an interrupted run to continue, or null
   * @param previous that run's journal, or null
   * @param dataDir the workload's input folder (e.g. the store's {@code datasets/hft/})
   * @param levers when not empty, only these levers are considered
   */
  public record Request(Workload workload, Budget budget, Target target, Device device, DeviceProvider provider,
      String choiceReason, DeviceRequest deviceRequest, RunStore store, Path dataDir, RunDir resumed,
      Journal.Contents previous, int maxIterations, int blockIterations, Gate.Options gate,
      boolean allowDeviceSettings, List<String> levers, String command, String gitmVersion, ProcessTarget process) {
    /** A run of a managed workload. */
    public Request(Workload workload, Budget budget, Target target, Device device, DeviceProvider provider,
        String choiceReason, DeviceRequest deviceRequest, RunStore store, Path dataDir, RunDir resumed,
        Journal.Contents previous, int maxIterations, int blockIterations, Gate.Options gate,
        boolean allowDeviceSettings, List<String> levers, String command, String gitmVersion) {
      this(workload, budget, target, device, provider, choiceReason, deviceRequest, store, dataDir, resumed, previous,
          maxIterations, blockIterations, gate, allowDeviceSettings, levers, command, gitmVersion, null);
    }

    /** A run of a black-box process ({@code gitm run --cmd}). */
    public static Request process(ProcessTarget p, Budget budget, Target target, RunStore store, RunDir resumed,
        Journal.Contents previous, Gate.Options gate, List<String> levers, String command, String gitmVersion) {
      return new Request(null, budget, target, null, null, p.choiceReason(), DeviceRequest.first(), store, null,
          resumed, previous, 0, 1, gate, false, levers, command, gitmVersion, p);
    }
  }

  /**
   * A black-box job to optimize instead of a managed workload.
   *
   * @param tracing the environment that traces a run into the given file (CUPTI injection), or null when tracing is
   *     unavailable ({@code tracingOff} says why)
   * @param sampler the job's GPU's state sampler (NVML), or null when there is none
   * @param gpuProcesses the processes using that GPU now (NVML), or null when unknown; the profile keeps those of the
   *     job's process group
   * @param info the GPU as NVML describes it, or a host-only description
   * @param extraEvidence findings from elsewhere (an imported PyTorch profiler trace), added to the report's notes
   */
  public record ProcessTarget(io.gitm.job.ProcessSpec spec, java.util.function.Function<Path, Map<String, String>>
      tracing, String tracingOff, io.gitm.device.StateSampler sampler,
      java.util.function.Supplier<List<io.gitm.device.GpuProcess>> gpuProcesses, DeviceInfo info, String choiceReason,
      List<String> extraEvidence) {
    public ProcessTarget {
      extraEvidence = List.copyOf(extraEvidence == null ? List.of() : extraEvidence);
    }

    /** How reports name the job: its command, shortened. */
    public String name() {
      String c = String.join(" ", spec.command());
      return "cmd: " + (c.length() > 80 ? c.substring(0, 77) + "..." : c);
    }
  }

  /**
   * What a run did.
   *
   * @param summary the run in brief, as {@code outcome.json} holds it ({@link #summary})
   */
  public record Result(RunDir run, Report.Status status, Profiler.Baseline baseline, Optimizer.Outcome outcome,
      Map<String, String> device, Map<String, Object> summary, String failure) {
    /** The improvement of the final setup over the shipped one (1 = none). */
    public double gain() {
      return outcome == null ? 1 : outcome.agent().totalGain();
    }
  }

  /** Thrown when the run cannot go on; the run folder holds what was done and the journal says why. */
  public static final class RunFailure extends RuntimeException {
    public RunFailure(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** Runs (or resumes) a run whose clock starts now. Closes {@code request.device()}. */
  public static Result run(Request req, Ticker wall, Clock clock, Listener progress, Control control)
      throws IOException {
    return run(req, wall, clock, progress, control, wall.nanos());
  }

  /**
   * Runs (or resumes) a run whose clock started at {@code startedAtNanos} on {@code wall}: before the request's
   * device was opened (and before the process started, for {@code gitm run}), so that opening it counts inside the
   * budget. Closes {@code request.device()}.
   */
  public static Result run(Request req, Ticker wall, Clock clock, Listener progress, Control control,
      long startedAtNanos) throws IOException {
    long before = Math.max(0, wall.nanos() - startedAtNanos);
    Journal.Contents previous = req.previous();
    Duration usedBefore = Duration.ZERO;
    if (previous != null && previous.entries().size() > 1) {
      usedBefore = Duration.between(Instant.parse(previous.entries().getFirst().time()),
          Instant.parse(previous.entries().getLast().time()));
    }
    PhasePlan plan = new PhasePlan(req.budget());
    long startNanos = wall.nanos() - before - usedBefore.toNanos();
    Instant started = clock.instant().minus(usedBefore).minusNanos(before);
    return execute(req, plan, wall, clock, startNanos, started, progress, control);
  }

  private static Result execute(Request req, PhasePlan plan, Ticker wall, Clock clock, long startNanos,
      Instant started, Listener progress, Control control) throws IOException {
    Workload w = req.workload();
    RunStore store = req.store();
    RunDir resumed = req.resumed();
    Journal.Contents previous = req.previous();
    Budget budget = req.budget();
    Target target = req.target();
    ProcessTarget proc = req.process();
    String workload = proc != null ? proc.name() : w.spec().name();
    Map<Phase, Duration> used = new java.util.EnumMap<>(Phase.class);
    Map<String, String> deviceMap = new LinkedHashMap<>();
    DeviceInfo info;
    Profiler.Baseline baseline;
    RunDir run;
    Path tracePath;
    io.gitm.device.HardwareSpec hw;
    io.gitm.sim.SimSpec replaySpec;
    DeviceRequest request = req.deviceRequest();
    List<TraceRecord> records = new java.util.ArrayList<>();
    io.gitm.trace.TraceMeta meta;
    String ceilingsNote;
    List<TrialRecord> completed = new java.util.ArrayList<>();
    Optimizer.Ranking earlierRanking = null;
    List<String> profileNotes = new java.util.ArrayList<>();
    Map<String, Double> facts = new LinkedHashMap<>();
    try (Device d = proc != null ? null : req.device()) {
      info = d != null ? d.info() : proc.info();
      deviceMap.put("kind", info.kind().label());
      deviceMap.put("backend", info.backend());
      deviceMap.put("name", info.name());
      deviceMap.put("uuid", info.uuid());
      deviceMap.put("driver", info.driverVersion());
      deviceMap.put("chosen", req.choiceReason());
      deviceMap.put("request.kind", proc != null ? "process" : req.provider().kind());
      if (proc == null) {
        request.options().forEach((k, v) -> deviceMap.put("request." + k, v));
      }
      run = resumed != null ? resumed : RunDir.create(store, new RunInfo(null, workload, req.command(),
          budget.toString(), target.toString(), deviceMap, null, req.gitmVersion()), clock);
      tracePath = run.dir().resolve("trace.gtrace");
      if (proc != null && resumed == null) {
        run.writeJson("process.json", proc.spec().toJson());
      }
      progress.header(run.id(), info.name() + " [" + label(info.kind()) + "]", budget + " (" + plan.windows().stream()
          .map(x -> x.phase().label().toLowerCase() + " " + window(x.length()))
          .collect(Collectors.joining(", ")) + "); target " + target);
      if (d != null && resumed == null) {
        Optional<Record> truth = d.groundTruth();
        if (truth.isPresent()) {
          run.writeJson("ground-truth.json", truth.get());
        }
      }
      boolean profiled = previous != null && previous.entries().stream()
          .anyMatch(e -> e.type().equals("phase-end") && "profile".equals(e.data().get("phase")))
          && java.nio.file.Files.isRegularFile(tracePath) && java.nio.file.Files.isRegularFile(run.dir().resolve("baseline.json"));
      if (previous != null) {
        for (Journal.Entry e : previous.entries()) {
          if (e.type().equals("trial")) {
            completed.add(JSON.convertValue(e.data().get("trial"), TrialRecord.class));
          } else if (e.type().equals("ranked")) {
            earlierRanking = JSON.convertValue(e.data().get("ranking"), Optimizer.Ranking.class);
          }
        }
      }
      try (Journal j = run.journal()) {
        if (resumed == null) {
          j.append("start", now(clock), Map.of("budget", budget.toString(), "target", target.toString(), "device", deviceMap));
        } else {
          j.append("resume", now(clock), Map.of("completedTrials", completed.size(), "profiled", profiled,
              "usedSeconds", Duration.ofNanos(wall.nanos() - startNanos).toMillis() / 1000.0));
        }
        if (profiled) {
          baseline = JSON.readValue(run.dir().resolve("baseline.json").toFile(), Profiler.Baseline.class);
          if (proc != null && java.nio.file.Files.isRegularFile(run.dir().resolve("profile-notes.json"))) {
            Map<?, ?> pn = JSON.readValue(run.dir().resolve("profile-notes.json").toFile(), Map.class);
            ((List<?>) pn.get("notes")).forEach(x -> profileNotes.add(String.valueOf(x)));
            facts.put(io.gitm.levers.LeverContext.FACT_JOB_PROCESSES, ((Number) pn.get("jobProcesses")).doubleValue());
          }
          progress.line("profile  reused from the interrupted run: " + baseline.iterations() + " iterations");
        } else {
          Duration window = plan.remaining(Phase.PROFILE, Duration.ofNanos(wall.nanos() - startNanos));
          progress.phase(Phase.PROFILE, window);
          j.append("phase-start", now(clock), Map.of("phase", "profile", "seconds", window.toMillis() / 1000.0));
          long t0 = wall.nanos();
          TraceWriter[] writer = new TraceWriter[1];
          if (proc != null) {
            ProcessProfiler.Result pr = profileProcess(proc, run, tracePath, window, budget, wall, control, j, clock);
            baseline = pr.baseline();
            profileNotes.addAll(pr.notes());
            facts.put(io.gitm.levers.LeverContext.FACT_JOB_PROCESSES, (double) pr.jobProcesses());
            run.writeJson("profile-notes.json", Map.of("notes", pr.notes(), "jobProcesses", pr.jobProcesses()));
          } else try {
            baseline = Profiler.run(d, w, ExecutionConfig.shipped(), req.dataDir(), wall,
                new Profiler.Options(window, req.maxIterations(),
                    info.kind() == DeviceKind.SIMULATED ? SIM_SAMPLE_PERIOD_NS : SAMPLE_PERIOD_NS),
                m -> {
                  try {
                    writer[0] = TraceWriter.create(tracePath, m);
                    return writer[0];
                  } catch (IOException e) {
                    throw new UncheckedIOException(e);
                  }
                }, control::stopRequested);
            writer[0].close();
          } catch (RuntimeException | IOException e) {
            if (writer[0] != null) {
              writer[0].abort();
            }
            String why = oneLine(String.valueOf(e.getMessage()));
            j.append("failed", now(clock), Map.of("phase", "profile", "error", why));
            throw new RunFailure("run " + run.id() + " failed in the profile phase: " + why, e);
          }
          run.writeJson("baseline.json", baseline);
          used.put(Phase.PROFILE, Duration.ofNanos(wall.nanos() - t0));
          j.append("phase-end", now(clock), Map.of("phase", "profile", "iterations", baseline.iterations(),
              "throughput", baseline.throughput()));
          progress.line(String.format(java.util.Locale.ROOT, "profile  %d iterations, %s %s, latency p50 %.3f ms p99"
              + " %.3f ms, tracing %s", baseline.iterations(), si(baseline.throughput()), baseline.metric(),
              baseline.latency().p50(), baseline.latency().p99(), baseline.tracing()));
        }
        try (TraceReader r = TraceReader.open(tracePath)) {
          meta = r.meta();
          r.read(records::add);
        }
        if (proc != null) {
          facts.putAll(ProcessProfiler.traceFacts(records));
        }
        Path cal = store.hardwareSpec(info.name(), info.uuid(), info.driverVersion());
        io.gitm.analysis.Ceilings.Choice ceilings = io.gitm.analysis.Ceilings.forTrace(meta, cal);
        hw = ceilings.spec();
        ceilingsNote = ceilings.note();
        replaySpec = proc != null ? null : info.kind() == DeviceKind.SIMULATED
            ? io.gitm.sim.SimSpec.preset(request.option("preset", "h200"))
            : io.gitm.sim.SimSpec.fromCalibration(hw, hw.deviceName().toLowerCase().contains("h100") ? "h100"
                : hw.deviceName().toLowerCase().contains("a100") ? "a100" : "h200");
      }
    }
    // the profile's device is closed: the apply phase opens the device again per setup (scheduling mode, settings)
    int perBlock = proc != null ? 1
        : req.blockIterations() > 0 ? req.blockIterations() : blockIterations(baseline, req.gate(), plan);
    Duration processTimeout = proc == null ? null : processTimeout(proc.spec(), baseline);
    Gate.Options gate = proc != null ? req.gate().withBlockTimeout(processTimeout.plusSeconds(30))
        : gateFor(req.gate(), baseline, perBlock);
    Optimizer.Options options = new Optimizer.Options(target.fraction(), perBlock, gate,
        req.allowDeviceSettings(), req.levers(), expectedTrial(baseline, gate, perBlock));
    Optimizer.Outcome outcome = null;
    String failure = null;
    try (Journal j = run.journal()) {
      Optimizer.Events events = new Optimizer.Events() {
        @Override
        public void phaseStarted(Phase phase, Duration window) {
          if (phase == Phase.APPLY) {
            // a stop requested before the apply phase interrupts at once: the agent stops before its first trial
            control.enterApply();
          }
          progress.phase(phase, window);
          append(j, clock, "phase-start", Map.of("phase", phase.label().toLowerCase(), "seconds", window.toMillis() / 1000.0));
        }

        @Override
        public void phaseEnded(Phase phase, Duration u, String summary) {
          used.put(phase, u);
          progress.line(phase.label().toLowerCase() + pad(phase) + summary);
          append(j, clock, "phase-end", Map.of("phase", phase.label().toLowerCase(), "seconds", u.toMillis() / 1000.0,
              "summary", summary));
        }

        @Override
        public void trialDone(TrialRecord t) {
          append(j, clock, "trial", Map.of("trial", JSON.convertValue(t, Map.class)));
          progress.trial(t, startNanos, plan);
        }

        @Override
        public void trialStarted(int number, String what) {
          progress.trialStarted("trial " + number + " " + what, startNanos, plan);
        }

        @Override
        public void ranked(Optimizer.Ranking ranking) {
          append(j, clock, "ranked", Map.of("ranking", JSON.convertValue(ranking, Map.class)));
        }
      };
      for (TrialRecord t : completed) {
        progress.reused(t, startNanos, plan);
      }
      try (io.gitm.job.Job.Closeable job = proc != null
          ? new io.gitm.job.ProcessJob(proc.spec(), run.dir(), wall, processTimeout)
          : new io.gitm.job.ManagedJob(w, req.provider(), request, req.dataDir(), perBlock)) {
        outcome = Optimizer.run(proc != null ? null : w.spec(), proc != null ? proc.spec().rtol()
            : w.spec().outputTolerance(), job, info, meta, records, facts, hw, replaySpec, plan, wall, startNanos,
            options, events, completed, earlierRanking);
      } catch (RuntimeException e) {
        failure = oneLine(String.valueOf(e.getMessage()));
        append(j, clock, "failed", Map.of("phase", "optimize", "error", failure));
      }
      boolean interruptFlag = control.leaveApply();
      AfterTrace after = proc != null ? new AfterTrace(List.of(), "no \"after\" timeline: a black-box job's runs in"
          + " the apply phase are not traced") : traceAfter(req, outcome, baseline, wall, startNanos, plan, control);
      long tr = wall.nanos();
      progress.phase(Phase.REPORT, plan.remaining(Phase.REPORT, Duration.ofNanos(wall.nanos() - startNanos)));
      boolean wasInterrupted = control.stopRequested() || interruptFlag
          || (outcome != null && outcome.agent().stopReason() == Agent.StopReason.INTERRUPTED);
      Report.Status status = failure != null ? Report.Status.FAILED : wasInterrupted ? Report.Status.INTERRUPTED
          : outcome.agent().reached(target.fraction()) ? Report.Status.TARGET_REACHED
          : !outcome.qualification().reachable() ? Report.Status.TARGET_NOT_REACHABLE : Report.Status.TARGET_MISSED;
      if (outcome != null) {
        used.putAll(outcome.used());
      }
      List<String> notes = new java.util.ArrayList<>();
      notes.add("ceilings: " + ceilingsNote);
      if (proc != null) {
        notes.add("job: " + String.join(" ", proc.spec().argv()) + " in " + proc.spec().workdir() + "; metric: "
            + proc.spec().metric().describe() + "; each gate block is one fresh process; per-run timeout "
            + window(processTimeout));
        notes.add("environment the job received before any lever (nothing else of gitm's): " + proc.spec().environment());
        notes.addAll(profileNotes);
        proc.extraEvidence().forEach(e -> notes.add("extra evidence: " + e));
      }
      if (info.kind() == DeviceKind.SIMULATED) {
        notes.add("every figure comes from gitm's simulated device, not from a GPU");
      }
      if (failure != null) {
        notes.add("the optimization failed: " + failure);
      }
      if (outcome != null) {
        notes.add("search: " + outcome.agent().detail());
        if (Double.isFinite(outcome.replayModelError())) {
          notes.add(String.format(java.util.Locale.ROOT, "counterfactual replay of the unchanged trace landed %.0f%%"
              + " from the observed time: predictions are relative to it", outcome.replayModelError() * 100));
        }
        outcome.notApplicable().forEach((k, v) -> notes.add("lever " + k + " not tried: " + v));
      }
      Report report;
      Map<String, Object> brief;
      try {
        used.put(Phase.REPORT, Duration.ofNanos(wall.nanos() - tr));
        if (after.note() != null) {
          notes.add(after.note());
        }
        report = ReportAssembly.build(run.id(), workload, info, plan, target.fraction(), status, started,
            clock.instant(), baseline, outcome, records, after.records(), used, notes, req.gitmVersion(),
            proc == null || proc.spec().metric().higherIsBetter());
        Reports.write(run.dir(), report);
        brief = summary(workload, budget, target, outcome, baseline, status, wall, startNanos, plan);
        run.writeJson("outcome.json", brief);
      } catch (IOException | RuntimeException e) {
        String why = oneLine(e.getClass().getSimpleName() + ": " + e.getMessage());
        append(j, clock, "failed", Map.of("phase", "report", "error", why));
        throw new RunFailure("run " + run.id() + " ran, but its report could not be written: " + why, e);
      }
      double overrun = (wall.nanos() - startNanos) / 1e9 - plan.budget().duration().toMillis() / 1000.0;
      append(j, clock, "end", Map.of("status", status.name(), "overrunSeconds", overrun));
      double elapsed = (wall.nanos() - startNanos) / 1e9;
      progress.line(String.format(Locale.ROOT, "result   %s: %s; budget %s, used %.1f s (%+.1f s)",
          status.label(), outcome == null ? "no optimization" : String.format(Locale.ROOT,
              "%.1f%% better with %s", (outcome.agent().totalGain() - 1) * 100,
              outcome.agent().keptLevers().isEmpty() ? "nothing kept" : String.join(" + ",
                  outcome.agent().keptLevers())), budget, elapsed, overrun));
      progress.line("report   " + run.dir().resolve("report.md") + " (also report.html, report.json)");
      return new Result(run, status, baseline, outcome, deviceMap, brief, failure);
    }
  }

  /** The final setup's short trace for the report's "after" timeline, or why there is none. */
  record AfterTrace(List<TraceRecord> records, String note) {}

  /** Wall time the "after" trace may take at most, device opening excluded. */
  static final Duration AFTER_TRACE_WINDOW = Duration.ofSeconds(1);
  /** Iterations the "after" trace runs at most: the timeline shows the first 30 ms of device work. */
  static final int AFTER_TRACE_ITERATIONS = 20;
  /** Wall time kept for writing the report after the "after" trace. */
  static final Duration AFTER_TRACE_LEAVES = Duration.ofSeconds(3);

  /**
   * Traces a short window of the final setup (the agent's anchor, after its confirmation gate) on a device opened
   * as the apply phase opens it for that setup, for the report's "after" timeline; skipped, with the reason, when
   * nothing was kept, the run was stopped, or less than {@link #AFTER_TRACE_LEAVES} plus a tenth of a second of the
   * budget is left.
   */
  static AfterTrace traceAfter(Request req, Optimizer.Outcome outcome, Profiler.Baseline baseline, Ticker wall,
      long startNanos, PhasePlan plan, Control control) {
    if (outcome == null || outcome.agent().keptLevers().isEmpty()) {
      return new AfterTrace(List.of(), null);
    }
    if (control.stopRequested()) {
      return new AfterTrace(List.of(), "no \"after\" timeline: the run was stopped before the final setup was traced");
    }
    io.gitm.levers.Setup setup = outcome.agent().anchor();
    Duration budgetLeft = plan.budget().duration().minus(Duration.ofNanos(wall.nanos() - startNanos));
    if (budgetLeft.minus(AFTER_TRACE_LEAVES).compareTo(Duration.ofMillis(100)) < 0) {
      return new AfterTrace(List.of(), "no \"after\" timeline: the budget had no time left to trace the final setup");
    }
    DeviceRequest base = req.deviceRequest();
    Map<String, String> options = new LinkedHashMap<>(base.options());
    options.putAll(setup.deviceSettings());
    io.gitm.device.SchedulingMode mode = setup.scheduling() == io.gitm.device.SchedulingMode.AUTO ? base.scheduling()
        : setup.scheduling();
    List<TraceRecord> out = java.util.Collections.synchronizedList(new ArrayList<>());
    try (Device d = req.provider().open(new DeviceRequest(base.ordinal(), mode, options))) {
      Duration left = plan.budget().duration().minus(Duration.ofNanos(wall.nanos() - startNanos))
          .minus(AFTER_TRACE_LEAVES);
      if (left.compareTo(Duration.ofMillis(100)) < 0) {
        return new AfterTrace(List.of(), "no \"after\" timeline: opening the device for the final setup used the"
            + " time left");
      }
      Duration window = left.compareTo(AFTER_TRACE_WINDOW) < 0 ? left : AFTER_TRACE_WINDOW;
      int iterations = Math.max(2, Math.min(AFTER_TRACE_ITERATIONS, baseline.iterations()));
      Profiler.run(d, req.workload(), setup.config(), req.dataDir(), wall, new Profiler.Options(window, iterations,
          d.info().kind() == DeviceKind.SIMULATED ? SIM_SAMPLE_PERIOD_NS : SAMPLE_PERIOD_NS), m -> out::add,
          control::stopRequested);
    } catch (RuntimeException e) {
      return new AfterTrace(List.of(), "no \"after\" timeline: tracing the final setup failed: "
          + oneLine(String.valueOf(e.getMessage())));
    }
    List<TraceRecord> records = List.copyOf(out);
    return new AfterTrace(records, setup.cpus().isEmpty() ? null : "the \"after\" timeline ran the final setup"
        + " without its CPU pinning (" + setup.cpus() + "); the gates measured it pinned");
  }

  private static String pad(Phase p) {
    return " ".repeat(Math.max(1, 9 - p.label().length()));
  }

  /**
   * Appends to the journal with the thread's interrupt status cleared for the write (an interrupt during channel I/O
   * would close the journal), then restored.
   */
  private static void append(Journal j, Clock clock, String type, Map<String, Object> data) {
    boolean interrupted = Thread.interrupted();
    try {
      j.append(type, now(clock), data);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** The run's outcome in brief, as {@code outcome.json} and {@code gitm run --json} carry it. */
  public static Map<String, Object> summary(String workload, Budget budget, Target target, Optimizer.Outcome o,
      Profiler.Baseline b, Report.Status status, Ticker wall, long startNanos, PhasePlan plan) {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("workload", workload);
    doc.put("budget", budget.toString());
    doc.put("target", target.toString());
    doc.put("status", status.name());
    // the baseline without its output's values (a workload's whole output, megabytes for af2): baseline.json keeps
    // them for a resume; here the digest names the output
    @SuppressWarnings("unchecked")
    Map<String, Object> base = JSON.convertValue(b, Map.class);
    if (b != null && b.output() != null) {
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("sha256", b.output().sha256());
      out.put("valueCount", b.output().values() == null ? 0 : b.output().values().length);
      base.put("output", out);
    }
    doc.put("baseline", base);
    doc.put("elapsedSeconds", (wall.nanos() - startNanos) / 1e9);
    doc.put("overrunSeconds", (wall.nanos() - startNanos) / 1e9 - plan.budget().duration().toMillis() / 1000.0);
    if (o != null) {
      doc.put("gain", o.agent().totalGain());
      doc.put("kept", o.agent().keptLevers());
      doc.put("trials", o.agent().trials().size());
      doc.put("stopReason", o.agent().stopReason().name());
      doc.put("hypotheses", o.analysis().hypotheses().stream().map(h -> h.cause().name()).toList());
      doc.put("qualification", o.qualification().summary());
      Map<String, Object> pred = new LinkedHashMap<>();
      for (TrialRecord t : o.agent().trials()) {
        Map<String, Object> x = new LinkedHashMap<>();
        x.put("levers", t.levers());
        x.put("predictedGain", t.predictedGain());
        x.put("measuredGain", t.verdict().gain());
        x.put("outcome", t.verdict().outcome().name());
        pred.put(Integer.toString(t.index()), x);
      }
      doc.put("trialLog", pred);
    }
    return doc;
  }

  /**
   * Iterations per gate block: enough for a block to cover {@link #BLOCK_DEVICE_NS} of the job's time (so launch
   * jitter averages out), but few enough that a gate takes at most a twelfth of the apply window in wall time (so
   * the agent has room for a dozen trials); between 4 and 200, a multiple of 4.
   */
  static int blockIterations(Profiler.Baseline b, Gate.Options gate, PhasePlan plan) {
    double p50Ns = Math.max(1_000, b.latency().p50() * 1e6);
    int byDevice = (int) Math.ceil(BLOCK_DEVICE_NS / p50Ns);
    double wallPerIteration = b.wallSeconds() / Math.max(1, b.iterations());
    double blocksPerGate = 2.0 * (gate.pairs() + gate.warmupBlocks());
    double applySeconds = plan.window(Phase.APPLY).length().toMillis() / 1000.0;
    int byWall = wallPerIteration <= 0 ? Integer.MAX_VALUE
        : (int) Math.floor(applySeconds / 12 / blocksPerGate / wallPerIteration);
    // a multiple of 4, so that a block holds whole device batches when 2 or 4 input batches are coalesced
    int n = Math.clamp(Math.min(byDevice, byWall), 4, 200);
    return (n + 3) / 4 * 4;
  }

  /**
   * What a gate is expected to take before any was measured: its blocks (both arms' warm-up and measured pairs) of
   * {@code perBlock} iterations at the baseline's wall time per iteration. The agent starts no first trial that
   * would not end before the deadline.
   */
  static Duration expectedTrial(Profiler.Baseline b, Gate.Options gate, int perBlock) {
    double wallPerIteration = b.wallSeconds() / Math.max(1, b.iterations());
    if (!(wallPerIteration > 0) || Double.isInfinite(wallPerIteration)) {
      return Duration.ZERO;
    }
    double blocks = 2.0 * (gate.pairs() + gate.warmupBlocks());
    return Duration.ofNanos((long) Math.min(1e15, blocks * perBlock * wallPerIteration * 1e9));
  }

  /**
   * The gate's options with the watchdog sized to the job: a block that takes {@link #HANG_FACTOR} times its expected
   * wall time (at least {@link #MIN_BLOCK_TIMEOUT}) is a hang. This also bounds how far past the budget a run can go
   * when a block hangs at the deadline; otherwise the agent starts no trial, and the gate no block, that would not
   * finish in time.
   */
  static Gate.Options gateFor(Gate.Options g, Profiler.Baseline b, int perBlock) {
    double expected = b.wallSeconds() / Math.max(1, b.iterations()) * perBlock;
    Duration timeout = Duration.ofMillis(Math.round(1000 * Math.max(MIN_BLOCK_TIMEOUT.toMillis() / 1000.0,
        HANG_FACTOR * expected)));
    return timeout.compareTo(g.blockTimeout()) < 0 ? g.withBlockTimeout(timeout) : g;
  }

  /**
   * The per-run timeout of a process job after its profile: the user's, else five times its slowest baseline run, at
   * least 30 s.
   */
  static Duration processTimeout(io.gitm.job.ProcessSpec spec, Profiler.Baseline b) {
    if (spec.timeout() != null) {
      return spec.timeout();
    }
    double slowest = Double.isFinite(b.latency().max()) ? b.latency().max() / 1000 : 60;
    return Duration.ofMillis(Math.round(1000 * Math.max(30, 5 * slowest)));
  }

  /** The profile phase of a process job; a job that fails as shipped stops the run with its status and last lines. */
  private static ProcessProfiler.Result profileProcess(ProcessTarget proc, RunDir run, Path tracePath, Duration window,
      Budget budget, Ticker wall, Control control, Journal j, Clock clock) throws IOException {
    Duration first = proc.spec().timeout() != null ? proc.spec().timeout() : budget.duration().dividedBy(3);
    try (io.gitm.job.ProcessJob job = new io.gitm.job.ProcessJob(proc.spec(), run.dir(), wall, first)) {
      List<Path> kept = job.keepPreexistingOutputs();
      ProcessProfiler.Result r = ProcessProfiler.profile(job, proc.name(), proc.tracing(), proc.tracingOff(),
          proc.sampler(), proc.gpuProcesses(), tracePath, window, wall, control);
      if (!kept.isEmpty()) {
        List<String> notes = new java.util.ArrayList<>(r.notes());
        notes.add("output files that existed before the run were moved to " + run.dir().resolve("preexisting-outputs"));
        r = new ProcessProfiler.Result(r.baseline(), r.runs(), r.jobProcesses(), notes);
      }
      return r;
    } catch (ProcessProfiler.BrokenJob e) {
      String first1 = oneLine(e.getMessage());
      j.append("failed", now(clock), Map.of("phase", "profile", "error", e.getMessage()));
      throw new RunFailure("run " + run.id() + ": " + first1 + "; last lines:\n" + e.getMessage()
          .substring(Math.min(e.getMessage().length(), e.getMessage().indexOf('\n') + 1)), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      j.append("failed", now(clock), Map.of("phase", "profile", "error", "stopped by request"));
      throw new RunFailure("run " + run.id() + " was stopped before the job's baseline was measured; its process"
          + " group was ended", e);
    } catch (IllegalArgumentException | java.io.UncheckedIOException e) {
      j.append("failed", now(clock), Map.of("phase", "profile", "error", oneLine(e.getMessage())));
      throw new RunFailure("run " + run.id() + " cannot run the job: " + oneLine(e.getMessage()), e);
    }
  }

  static final double HANG_FACTOR = 20;
  static final Duration MIN_BLOCK_TIMEOUT = Duration.ofSeconds(10);

  /** Device time a gate block should cover. */
  static final double BLOCK_DEVICE_NS = 50_000_000;

  private static String now(Clock clock) {
    return clock.instant().toString();
  }

  static String oneLine(String s) {
    String t = s == null ? "" : s.strip();
    int nl = t.indexOf('\n');
    return nl < 0 ? t : t.substring(0, nl).strip();
  }

  static String label(DeviceKind k) {
    return k == DeviceKind.SIMULATED ? "SIMULATED device: every figure is modeled, not measured on a GPU" : "real device";
  }

  /** A phase window as a person reads it: {@code 2.5s}, {@code 40s}, {@code 1h30m}. */
  public static String window(Duration d) {
    if (d.toMillis() % 1000 != 0 && d.toSeconds() < 60) {
      return String.format(Locale.ROOT, "%.1fs", d.toMillis() / 1000.0);
    }
    return new Budget(d.isZero() ? Duration.ofSeconds(1) : d).toString();
  }

  /** A rate as a person reads it: {@code 12.17 M}, {@code 3.40 k}. */
  public static String si(double v) {
    if (v >= 1e9) {
      return String.format(Locale.ROOT, "%.2f G", v / 1e9);
    }
    if (v >= 1e6) {
      return String.format(Locale.ROOT, "%.2f M", v / 1e6);
    }
    if (v >= 1e3) {
      return String.format(Locale.ROOT, "%.2f k", v / 1e3);
    }
    return String.format(Locale.ROOT, "%.2f", v);
  }
}
