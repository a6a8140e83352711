package io.gitm.cli;

import io.gitm.api.Budget;
import io.gitm.agents.Agent;
import io.gitm.agents.Gate;
import io.gitm.agents.TrialRecord;
import io.gitm.device.DeviceRequest;
import io.gitm.kernels.Levers;
import io.gitm.optimizer.report.Report;
import io.gitm.optimizer.report.Reports;
import io.gitm.scheduler.Optimizer;
import io.gitm.trace.TraceRecord;
import io.gitm.tracer.TraceReader;
import io.gitm.api.Target;
import io.gitm.api.Ticker;
import io.gitm.device.Device;
import io.gitm.device.DeviceInfo;
import io.gitm.device.Devices;
import io.gitm.scheduler.Phase;
import io.gitm.scheduler.PhasePlan;
import io.gitm.scheduler.Profiler;
import io.gitm.sim.SimDevice;
import io.gitm.store.Journal;
import io.gitm.store.RunDir;
import io.gitm.store.RunInfo;
import io.gitm.store.RunStore;
import io.gitm.trace.DeviceKind;
import io.gitm.tracer.TraceSummary;
import io.gitm.tracer.TraceWriter;
import io.gitm.workload.ExecutionConfig;
import io.gitm.workload.Workload;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code gitm run}: optimize a workload within a wall-clock budget towards a target improvement. Today it runs the
 * first of the five phases, profile: the workload in its shipped configuration for the profile phase's share of
 * the budget, with kernel events and device state recorded, and writes the baseline and its report. The later
 * phases (attribute, rank, apply, report of interventions) are not built yet and the run says so.
 */
@Command(name = "run", mixinStandardHelpOptions = true,
    description = "Profile a GPU job, attribute its slowdowns, apply levers behind rollback gates, and report.",
    footer = {"", "Today only the profile phase is built: the run measures the job's baseline, records its trace and"
        + " device state, writes a report, and says plainly that the optimizing phases did not run."})
final class RunCommand implements Callable<Integer> {
  /** Dataset folder of each built-in workload. */
  static final Map<String, String> DATASET_DOMAIN = Map.of("hft-lob", "hft", "af2", "biotech", "kitti", "edge");

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Option(names = "--workload", paramLabel = "NAME", description = "A built-in managed workload: ${sys:gitm.workloads:-hft-lob}.")
  String workload;

  @Option(names = "--budget", paramLabel = "DURATION", converter = Converters.BudgetConverter.class,
      description = "Wall-clock limit: 24h, 90m, 2m30s, 1d, 45s (at least 30s).")
  Budget budget;

  @Option(names = "--target", paramLabel = "FRACTION", converter = Converters.TargetConverter.class,
      description = "Improvement to commit to: 15%% or 0.15.")
  Target target;

  @CommandLine.Mixin
  DeviceOptions device = new DeviceOptions();

  @CommandLine.Mixin
  StoreOptions storeOptions = new StoreOptions();

  @Option(names = "--max-iterations", paramLabel = "N", defaultValue = "0",
      description = "Stop profiling after N iterations even if time is left (0: no cap).")
  int maxIterations;

  @Option(names = "--json", description = "Print the result as JSON.")
  boolean json;

  @Option(names = "--resume", paramLabel = "RUN",
      description = "Continue an interrupted run (a run id or folder): completed trials are kept, the anchor is re-applied"
          + " first, and the budget left is what the run had not used.")
  String resume;

  @Option(names = "--allow-device-settings",
      description = "Allow class-C levers (power limit, application clocks). Honoured on the simulated device only.")
  boolean allowDeviceSettings;

  @Option(names = "--levers", split = ",", paramLabel = "ID",
      description = "Consider only these levers (comma-separated ids; see docs/levers.md).")
  List<String> levers;

  @Option(names = "--block-iterations", paramLabel = "N", defaultValue = "0",
      description = "Iterations per measurement block of the rollback gate (0: chosen from the profile).")
  int blockIterations;

  @Option(names = "--gate-pairs", paramLabel = "N", defaultValue = "8",
      description = "Interleaved A/B block pairs each gate measures (default: 8).")
  int gatePairs;

  /** Whether the run is in its apply phase, where Ctrl-C interrupts the waiting thread. */
  private final java.util.concurrent.atomic.AtomicBoolean applying = new java.util.concurrent.atomic.AtomicBoolean();

  @Override
  public Integer call() throws IOException {
    CommandLine cl = spec.commandLine();
    RunStore store = storeOptions.open(cl);
    RunDir resumed = null;
    Journal.Contents previous = null;
    if (resume != null) {
      Path dir = Path.of(resume);
      if (!java.nio.file.Files.isDirectory(dir)) {
        dir = store.runs().resolve(resume);
      }
      if (!java.nio.file.Files.isRegularFile(dir.resolve("run.json"))) {
        throw new CommandLine.ParameterException(cl, "--resume: no run '" + resume + "' (not a run folder, and not in "
            + store.runs() + ")");
      }
      resumed = RunDir.open(dir);
      previous = Journal.read(dir.resolve("journal.jsonl"));
      if (previous.entries().stream().anyMatch(e -> e.type().equals("end"))) {
        throw new CommandLine.ParameterException(cl, "--resume: run " + resumed.id() + " already ended; nothing to"
            + " resume");
      }
      workload = resumed.info().workload();
      budget = Budget.parse(resumed.info().budget());
      target = Target.parse(resumed.info().target());
      Map<String, String> dm = resumed.info().device();
      if (device.kind.equals("auto") && dm.containsKey("request.kind")) {
        device.kind = dm.get("request.kind");
      }
      device.simPreset = device.simPreset != null ? device.simPreset : dm.get("request.preset");
      device.faults = device.faults != null ? device.faults : dm.get("request.faults");
      if (device.simSeed == null && dm.containsKey("request.seed")) {
        device.simSeed = Long.parseLong(dm.get("request.seed"));
      }
    }
    if (workload == null || workload.isBlank()) {
      throw new CommandLine.ParameterException(cl, "--workload is required; known workloads: " + Workloads.knownNames());
    }
    Workload w = Workloads.find(workload).orElseThrow(() -> new CommandLine.ParameterException(cl,
        "unknown workload '" + workload + "'; known workloads: " + Workloads.knownNames()));
    if (budget == null) {
      throw new CommandLine.ParameterException(cl, "--budget is required (e.g. --budget 2m)");
    }
    if (target == null) {
      throw new CommandLine.ParameterException(cl, "--target is required (e.g. --target 15%)");
    }
    if (maxIterations < 0 || blockIterations < 0) {
      throw new CommandLine.ParameterException(cl, "--max-iterations and --block-iterations must be 0 or more");
    }
    Gate.Options gateOptions;
    try {
      gateOptions = Gate.Options.defaults().withPairs(gatePairs);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(cl, "--gate-pairs: " + e.getMessage());
    }
    if (levers != null) {
      for (String id : levers) {
        try {
          Levers.byId(id);
        } catch (IllegalArgumentException e) {
          throw new CommandLine.ParameterException(cl, "--levers: " + Main.oneLine(e.getMessage()));
        }
      }
    }
    Devices.Choice choice = device.choose(cl);
    Ticker wall = Ticker.system();
    PrintWriter out = cl.getOut();
    Progress progress = new Progress(out, json, wall);

    Duration usedBefore = Duration.ZERO;
    if (previous != null && previous.entries().size() > 1) {
      usedBefore = Duration.between(java.time.Instant.parse(previous.entries().getFirst().time()),
          java.time.Instant.parse(previous.entries().getLast().time()));
    }
    PhasePlan plan = new PhasePlan(budget);
    long startNanos = wall.nanos() - usedBefore.toNanos();
    java.time.Instant started = java.time.Instant.now().minus(usedBefore);

    Thread main = Thread.currentThread();
    java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.atomic.AtomicBoolean interrupted = new java.util.concurrent.atomic.AtomicBoolean();
    applying.set(false);
    Thread hook = new Thread(() -> {
      interrupted.set(true);
      // only the apply phase waits on trials, where an interrupt is safe; elsewhere the phases look at the flag
      if (applying.get()) {
        main.interrupt();
      }
      try {
        done.await(30, java.util.concurrent.TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "gitm-ctrl-c");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      return execute(cl, w, choice, store, resumed, previous, plan, wall, startNanos, started, progress, gateOptions,
          interrupted, out);
    } finally {
      done.countDown();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // the hook is running: it waits for done, counted down above
      }
    }
  }

  private Integer execute(CommandLine cl, Workload w, Devices.Choice choice, RunStore store, RunDir resumed,
      Journal.Contents previous, PhasePlan plan, Ticker wall, long startNanos, java.time.Instant started,
      Progress progress, Gate.Options gateOptions, java.util.concurrent.atomic.AtomicBoolean interrupted,
      PrintWriter out) throws IOException {
    Map<Phase, Duration> used = new java.util.EnumMap<>(Phase.class);
    Map<String, String> deviceMap = new LinkedHashMap<>();
    DeviceInfo info;
    Profiler.Baseline baseline;
    RunDir run;
    Path tracePath;
    io.gitm.device.HardwareSpec hw;
    io.gitm.sim.SimSpec replaySpec;
    DeviceRequest request = device.request();
    List<TraceRecord> records = new java.util.ArrayList<>();
    io.gitm.trace.TraceMeta meta;
    String ceilingsNote;
    List<TrialRecord> completed = new java.util.ArrayList<>();
    try (Device d = device.open(cl, choice)) {
      info = d.info();
      deviceMap.put("kind", info.kind().label());
      deviceMap.put("backend", info.backend());
      deviceMap.put("name", info.name());
      deviceMap.put("uuid", info.uuid());
      deviceMap.put("driver", info.driverVersion());
      deviceMap.put("chosen", choice.reason());
      deviceMap.put("request.kind", choice.provider().kind());
      request.options().forEach((k, v) -> deviceMap.put("request." + k, v));
      run = resumed != null ? resumed : RunDir.create(store, new RunInfo(null, workload, "gitm "
          + String.join(" ", cl.getParseResult().originalArgs()), budget.toString(), target.toString(), deviceMap,
          null, VersionCommand.version()), Clock.systemUTC());
      tracePath = run.dir().resolve("trace.gtrace");
      progress.header(run.id(), info.name() + " [" + label(info.kind()) + "]", budget + " (" + plan.windows().stream()
          .map(x -> x.phase().label().toLowerCase() + " " + window(x.length()))
          .collect(Collectors.joining(", ")) + "); target " + target);
      if (d instanceof SimDevice sim && resumed == null) {
        run.writeJson("ground-truth.json", sim.groundTruth());
      }
      boolean profiled = previous != null && previous.entries().stream()
          .anyMatch(e -> e.type().equals("phase-end") && "profile".equals(e.data().get("phase")))
          && java.nio.file.Files.isRegularFile(tracePath) && java.nio.file.Files.isRegularFile(run.dir().resolve("baseline.json"));
      if (previous != null) {
        for (Journal.Entry e : previous.entries()) {
          if (e.type().equals("trial")) {
            completed.add(Json.MAPPER.convertValue(e.data().get("trial"), TrialRecord.class));
          }
        }
      }
      try (Journal j = run.journal()) {
        if (resumed == null) {
          j.append("start", now(), Map.of("budget", budget.toString(), "target", target.toString(), "device", deviceMap));
        } else {
          j.append("resume", now(), Map.of("completedTrials", completed.size(), "profiled", profiled,
              "usedSeconds", Duration.ofNanos(wall.nanos() - startNanos).toMillis() / 1000.0));
        }
        if (profiled) {
          baseline = Json.MAPPER.readValue(run.dir().resolve("baseline.json").toFile(), Profiler.Baseline.class);
          progress.line("profile  reused from the interrupted run: " + baseline.iterations() + " iterations");
        } else {
          Duration window = plan.remaining(Phase.PROFILE, Duration.ofNanos(wall.nanos() - startNanos));
          progress.phase(Phase.PROFILE, window);
          j.append("phase-start", now(), Map.of("phase", "profile", "seconds", window.toMillis() / 1000.0));
          long t0 = wall.nanos();
          TraceWriter[] writer = new TraceWriter[1];
          try {
            baseline = Profiler.run(d, w, ExecutionConfig.shipped(), store.datasets(DATASET_DOMAIN.getOrDefault(workload, "edge")), wall,
                new Profiler.Options(window, maxIterations,
                    info.kind() == DeviceKind.SIMULATED ? SIM_SAMPLE_PERIOD_NS : SAMPLE_PERIOD_NS),
                m -> {
                  try {
                    writer[0] = TraceWriter.create(tracePath, m);
                    return writer[0];
                  } catch (IOException e) {
                    throw new UncheckedIOException(e);
                  }
                }, interrupted::get);
            writer[0].close();
          } catch (RuntimeException | IOException e) {
            if (writer[0] != null) {
              writer[0].abort();
            }
            String why = Main.oneLine(String.valueOf(e.getMessage()));
            j.append("failed", now(), Map.of("phase", "profile", "error", why));
            throw new CliFailure("run " + run.id() + " failed in the profile phase: " + why, e);
          }
          run.writeJson("baseline.json", baseline);
          used.put(Phase.PROFILE, Duration.ofNanos(wall.nanos() - t0));
          j.append("phase-end", now(), Map.of("phase", "profile", "iterations", baseline.iterations(),
              "throughput", baseline.throughput()));
          progress.line(String.format(java.util.Locale.ROOT, "profile  %d iterations, %s %s, latency p50 %.3f ms p99"
              + " %.3f ms, tracing %s", baseline.iterations(), si(baseline.throughput()), baseline.metric(),
              baseline.latency().p50(), baseline.latency().p99(), baseline.tracing()));
        }
        try (TraceReader r = TraceReader.open(tracePath)) {
          meta = r.meta();
          r.read(records::add);
        }
        Path cal = store.hardwareSpec(info.name(), info.uuid(), info.driverVersion());
        io.gitm.optimizer.Ceilings.Choice ceilings = io.gitm.optimizer.Ceilings.forTrace(meta, cal);
        hw = ceilings.spec();
        ceilingsNote = ceilings.note();
        replaySpec = info.kind() == DeviceKind.SIMULATED
            ? io.gitm.sim.SimSpec.preset(request.option("preset", "h200"))
            : io.gitm.sim.SimSpec.fromCalibration(hw, hw.deviceName().toLowerCase().contains("h100") ? "h100"
                : hw.deviceName().toLowerCase().contains("a100") ? "a100" : "h200");
      }
    }
    // the profile's device is closed: the apply phase opens the device again per setup (scheduling mode, settings)
    int perBlock = blockIterations > 0 ? blockIterations : Math.max(2, Math.min(50,
        (int) Math.ceil(baseline.iterations() / 20.0)));
    Optimizer.Options options = new Optimizer.Options(target.fraction(), perBlock, gateOptions, allowDeviceSettings,
        levers);
    Optimizer.Outcome outcome = null;
    String failure = null;
    try (Journal j = run.journal()) {
      Optimizer.Events events = new Optimizer.Events() {
        @Override
        public void phaseStarted(Phase phase, Duration window) {
          applying.set(phase == Phase.APPLY);
          if (phase == Phase.APPLY && interrupted.get()) {
            // Ctrl-C came before the apply phase: the agent stops before its first trial
            Thread.currentThread().interrupt();
          }
          progress.phase(phase, window);
          append(j, "phase-start", Map.of("phase", phase.label().toLowerCase(), "seconds", window.toMillis() / 1000.0));
        }

        @Override
        public void phaseEnded(Phase phase, Duration u, String summary) {
          used.put(phase, u);
          progress.line(phase.label().toLowerCase() + pad(phase) + summary);
          append(j, "phase-end", Map.of("phase", phase.label().toLowerCase(), "seconds", u.toMillis() / 1000.0,
              "summary", summary));
        }

        @Override
        public void trialDone(TrialRecord t) {
          append(j, "trial", Map.of("trial", Json.MAPPER.convertValue(t, Map.class)));
          progress.trial(t, startNanos, plan);
        }
      };
      try {
        outcome = Optimizer.run(w, choice.provider(), request, info, store.datasets(DATASET_DOMAIN.getOrDefault(workload, "edge")), meta,
            records, hw, replaySpec, plan, wall, startNanos, options, events, completed);
      } catch (RuntimeException e) {
        failure = Main.oneLine(String.valueOf(e.getMessage()));
        append(j, "failed", Map.of("phase", "optimize", "error", failure));
      }
      applying.set(false);
      boolean interruptFlag = Thread.interrupted();
      long tr = wall.nanos();
      progress.phase(Phase.REPORT, plan.remaining(Phase.REPORT, Duration.ofNanos(wall.nanos() - startNanos)));
      boolean wasInterrupted = interrupted.get() || interruptFlag
          || (outcome != null && outcome.agent().stopReason() == Agent.StopReason.INTERRUPTED);
      Report.Status status = failure != null ? Report.Status.FAILED : wasInterrupted ? Report.Status.INTERRUPTED
          : outcome.agent().reached(target.fraction()) ? Report.Status.TARGET_REACHED
          : !outcome.qualification().reachable() ? Report.Status.TARGET_NOT_REACHABLE : Report.Status.TARGET_MISSED;
      if (outcome != null) {
        used.putAll(outcome.used());
      }
      List<String> notes = new java.util.ArrayList<>();
      notes.add("ceilings: " + ceilingsNote);
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
      try {
        used.put(Phase.REPORT, Duration.ofNanos(wall.nanos() - tr));
        report = ReportAssembly.build(run.id(), workload, info, plan, target.fraction(), status, started,
            java.time.Instant.now(), baseline, outcome, records, used, notes);
        Reports.write(run.dir(), report);
        run.writeJson("outcome.json", summary(outcome, baseline, status, wall, startNanos, plan));
      } catch (IOException | RuntimeException e) {
        String why = StoreOptions.describe(e);
        append(j, "failed", Map.of("phase", "report", "error", why));
        throw new CliFailure("run " + run.id() + " ran, but its report could not be written: " + why, e);
      }
      double overrun = (wall.nanos() - startNanos) / 1e9 - plan.budget().duration().toMillis() / 1000.0;
      append(j, "end", Map.of("status", status.name(), "overrunSeconds", overrun));
      if (json) {
        Map<String, Object> doc = summary(outcome, baseline, status, wall, startNanos, plan);
        doc.put("run", run.id());
        doc.put("folder", run.dir().toString());
        doc.put("device", deviceMap);
        out.println(Json.write(doc));
      } else {
        progress.line(String.format(java.util.Locale.ROOT, "result   %s: %s; budget %s, used %.1f s (%+.1f s)",
            status.label(), outcome == null ? "no optimization" : String.format(java.util.Locale.ROOT,
                "%.1f%% better with %s", (outcome.agent().totalGain() - 1) * 100,
                outcome.agent().keptLevers().isEmpty() ? "nothing kept" : String.join(" + ",
                    outcome.agent().keptLevers())), budget, (wall.nanos() - startNanos) / 1e9, overrun));
        progress.line("report   " + run.dir().resolve("report.md") + " (also report.html, report.json)");
      }
      if (failure != null) {
        throw new CliFailure("run " + run.id() + " failed while optimizing: " + failure);
      }
      return wasInterrupted ? 130 : Main.OK;
    }
  }

  private static String pad(Phase p) {
    return " ".repeat(Math.max(1, 9 - p.label().length()));
  }

  /**
   * Appends to the journal with the thread's interrupt status cleared for the write (an interrupt during channel I/O
   * would close the journal), then restored.
   */
  private static void append(Journal j, String type, Map<String, Object> data) {
    boolean interrupted = Thread.interrupted();
    try {
      j.append(type, now(), data);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private Map<String, Object> summary(Optimizer.Outcome o, Profiler.Baseline b, Report.Status status, Ticker wall,
      long startNanos, PhasePlan plan) {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("workload", workload);
    doc.put("budget", budget.toString());
    doc.put("target", target.toString());
    doc.put("status", status.name());
    doc.put("baseline", b);
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

  /** State sampling period on a real device (10 Hz), in host time. */
  static final long SAMPLE_PERIOD_NS = 100_000_000L;
  /** State sampling period on the simulated device, in simulated time: its runs cover far less device time. */
  static final long SIM_SAMPLE_PERIOD_NS = 1_000_000L;

  /** A phase window as a person reads it: {@code 2.5s}, {@code 40s}, {@code 1h30m}. */
  static String window(Duration d) {
    if (d.toMillis() % 1000 != 0 && d.toSeconds() < 60) {
      return String.format(java.util.Locale.ROOT, "%.1fs", d.toMillis() / 1000.0);
    }
    return new Budget(d.isZero() ? Duration.ofSeconds(1) : d).toString();
  }

  static String label(DeviceKind k) {
    return k == DeviceKind.SIMULATED ? "SIMULATED device: every figure is modeled, not measured on a GPU" : "real device";
  }

  static String now() {
    return java.time.Instant.now().toString();
  }

  static String si(double v) {
    if (v >= 1e9) {
      return String.format("%.2f G", v / 1e9);
    }
    if (v >= 1e6) {
      return String.format("%.2f M", v / 1e6);
    }
    if (v >= 1e3) {
      return String.format("%.2f k", v / 1e3);
    }
    return String.format("%.2f", v);
  }
}
