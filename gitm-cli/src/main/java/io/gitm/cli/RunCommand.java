package io.gitm.cli;

import io.gitm.api.Budget;
import io.gitm.api.Target;
import io.gitm.api.Ticker;
import io.gitm.device.Device;
import io.gitm.device.Devices;
import io.gitm.job.ProcessSpec;
import io.gitm.levers.Levers;
import io.gitm.report.Report;
import io.gitm.run.ManagedTarget;
import io.gitm.run.ProcessTarget;
import io.gitm.run.RunEvents;
import io.gitm.run.RunLoop;
import io.gitm.run.Secrets;
import io.gitm.search.Gate;
import io.gitm.store.RunDir;
import io.gitm.store.RunLock;
import io.gitm.store.RunStore;
import io.gitm.workload.Workload;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * {@code gitm run}: optimize a job within a wall-clock budget towards a target improvement, in five phases (profile,
 * attribute, rank, apply behind rollback gates, report). The job is a built-in managed workload ({@code --workload})
 * or a black-box process ({@code --cmd PROGRAM [ARGS...]}, last on the line).
 */
@Command(name = "run", mixinStandardHelpOptions = true,
    description = "Profile a GPU job, attribute its slowdowns, apply levers behind rollback gates, and report.",
    footer = {"", "A black-box job: gitm run --budget 10m --target 15%% --metric-regex 'it/s: ([0-9.]+)'"
        + " --higher-is-better --output out.npy --cmd python3 train.py --epochs 1"})
final class RunCommand implements Callable<Integer> {
  /** Dataset folder of each built-in workload. */
  static final Map<String, String> DATASET_DOMAIN = Map.of("hft-lob", "hft", "af2", "biotech", "kitti", "edge");

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Option(names = "--workload", paramLabel = "NAME", completionCandidates = Workloads.Names.class,
      description = "A built-in managed workload: ${COMPLETION-CANDIDATES}.")
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

  @CommandLine.Mixin
  ProcessOptions process = new ProcessOptions();

  @CommandLine.Mixin
  ExportOptions export = new ExportOptions();

  @CommandLine.Mixin
  InputOptions inputOptions = new InputOptions();

  /** The job's argument vector: what followed {@code --cmd} on the command line (set by {@link Main}). */
  static final ThreadLocal<List<String>> JOB_ARGV = ThreadLocal.withInitial(List::of);

  @Option(names = "--max-iterations", paramLabel = "N", defaultValue = "0",
      description = "Stop profiling after N iterations even if time is left (0: no cap).")
  int maxIterations;

  @Option(names = "--json", description = "Print the result as JSON.")
  boolean json;

  @Option(names = "--resume", paramLabel = "RUN",
      description = "Continue an interrupted run (a run id or folder) with the options it started with (they cannot"
          + " be given again): completed trials are kept, the anchor is re-applied first, and the budget left is what"
          + " the run had not used. Refused while the run is still live.")
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
      description = "Interleaved A/B block pairs of the gate's fixed design (default: 8); the sequential gate plans"
          + " up to 1.25 times as many and stops as soon as a look decides.")
  int gatePairs;

  @Override
  public Integer call() throws IOException {
    CommandLine cl = spec.commandLine();
    RunStore store = storeOptions.open(cl);
    gatePairsGiven = cl.getParseResult().hasMatchedOption("--gate-pairs");
    RunResume resumed = resume == null ? null : RunResume.open(cl, store, resume);
    if (resumed != null) {
      restore(resumed);
    }
    if (process.cmd && workload != null) {
      throw new CommandLine.ParameterException(cl, "give --workload or --cmd, not both");
    }
    if (process.cmd && inputOptions.given()) {
      throw new CommandLine.ParameterException(cl, "--input and its options are for a built-in --workload; a --cmd"
          + " job reads its own input (give it in its arguments)");
    }
    if (!process.cmd && resumed == null && process.anyGiven()) {
      throw new CommandLine.ParameterException(cl, "--metric, --output, --timeout, --workdir, --env and the like"
          + " describe a black-box job: add --cmd PROGRAM [ARGS...] at the end");
    }
    if (process.cmd || (resumed != null && resumed.process() != null)) {
      return runProcess(cl, store, resumed);
    }
    if (workload == null || workload.isBlank()) {
      throw new CommandLine.ParameterException(cl, "--workload (or --cmd PROGRAM ...) is required; known workloads: "
          + Workloads.knownNames());
    }
    Workload w = inputOptions.apply(cl, Workloads.find(workload).map(RunClocks.current().workloads()).orElseThrow(() ->
        new CommandLine.ParameterException(cl, "unknown workload '" + workload + "'; known workloads: "
            + Workloads.knownNames())));
    requireBudgetAndTarget(cl);
    if (maxIterations < 0 || blockIterations < 0) {
      throw new CommandLine.ParameterException(cl, "--max-iterations and --block-iterations must be 0 or more");
    }
    Gate.Options gateOptions;
    try {
      gateOptions = Gate.Options.defaults().withPairs(gatePairs);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(cl, "--gate-pairs: " + e.getMessage());
    }
    checkLevers(cl);
    Devices.Choice choice = device.choose(cl);
    boolean realGpu = !choice.provider().kind().equals(Devices.SIMULATED);
    return execute(cl, realGpu, () -> new RunLoop.Request(new ManagedTarget(w, device.open(cl, choice),
        choice.provider(), choice.reason(), device.request(), store.datasets(DATASET_DOMAIN.getOrDefault(workload,
        "edge")), maxIterations, blockIterations, allowDeviceSettings), budget, target, store,
        resumed == null ? null : resumed.run(), resumed == null ? null : resumed.previous(), gateOptions, levers,
        commandLine(cl), VersionCommand.version(), shapingOptions()));
  }

  /** Whether {@code --gate-pairs} was given (or journaled, for a resume). */
  private boolean gatePairsGiven;

  /** The run's own options, from the run it continues: its folder's description and its journal's start. */
  private void restore(RunResume r) {
    RunDir run = r.run();
    workload = r.process() != null ? null : run.info().workload();
    budget = Budget.parse(run.info().budget());
    target = Target.parse(run.info().target());
    Map<String, String> dm = run.info().device();
    if (dm.containsKey("request.kind")) {
      device.kind = dm.get("request.kind");
    }
    device.simPreset = dm.get("request.preset");
    device.faults = dm.get("request.faults");
    device.simSeed = dm.containsKey("request.seed") ? Long.valueOf(dm.get("request.seed")) : null;
    List<String> l = r.list("levers");
    levers = l == null || l.isEmpty() ? null : l;
    maxIterations = r.number("max-iterations", maxIterations);
    blockIterations = r.number("block-iterations", blockIterations);
    gatePairsGiven = r.options().containsKey("gate-pairs");
    gatePairs = r.number("gate-pairs", gatePairs);
    allowDeviceSettings = r.flag("allow-device-settings", false);
    process.noTrace = r.flag("no-trace", false);
    process.noHook = r.flag("no-hook", false);
    List<String> k = r.list("kineto");
    process.kineto = k == null ? new ArrayList<>() : new ArrayList<>(k.stream().map(Path::of).toList());
    inputOptions.restore(r.options());
  }

  /** What shapes the run beyond its budget, target, device and job, as its journal keeps it for a resume. */
  private Map<String, Object> shapingOptions() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("levers", levers == null ? List.of() : List.copyOf(levers));
    m.put("max-iterations", maxIterations);
    m.put("block-iterations", blockIterations);
    if (gatePairsGiven) {
      m.put("gate-pairs", gatePairs);
    }
    m.put("allow-device-settings", allowDeviceSettings);
    m.put("no-trace", process.noTrace);
    m.put("no-hook", process.noHook);
    m.put("live", process.live);
    m.put("kineto", process.kineto.stream().map(p -> p.toAbsolutePath().toString()).toList());
    inputOptions.journal(m);
    return m;
  }

  /** The command line as {@code run.json} keeps it: the values given with {@code --env} redacted. */
  private static String commandLine(CommandLine cl) {
    return "gitm " + String.join(" ", Secrets.redactCommandLine(cl.getParseResult().originalArgs()));
  }

  private void requireBudgetAndTarget(CommandLine cl) {
    if (budget == null) {
      throw new CommandLine.ParameterException(cl, "--budget is required (e.g. --budget 2m)");
    }
    if (target == null) {
      throw new CommandLine.ParameterException(cl, "--target is required (e.g. --target 15%)");
    }
  }

  private void checkLevers(CommandLine cl) {
    for (String id : levers == null ? List.<String>of() : levers) {
      try {
        Levers.byId(id);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.ParameterException(cl, "--levers: " + Main.oneLine(e.getMessage()));
      }
    }
  }

  /** A request to run, made once the stop handlers are in place (opening a device may take a while). */
  private interface RequestMaker {
    RunLoop.Request make() throws IOException;
  }

  /**
   * Runs the request with Ctrl-C and SIGTERM handled and the run exported as asked ({@code --prometheus},
   * {@code --otlp}; a real GPU's state sampled through NVML when {@code realGpu}), prints the run in brief with
   * {@code --json}, and returns the exit status: 0, 130 when stopped, a failure when the run failed.
   */
  private int execute(CommandLine cl, boolean realGpu, RequestMaker request) throws IOException {
    RunClocks clocks = RunClocks.current();
    Ticker wall = clocks.wall();
    long startedAt = clocks == RunClocks.SYSTEM ? startedAt(wall) : wall.nanos();
    PrintWriter out = cl.getOut();
    // with --json the document is alone on standard output: progress goes to standard error, as plain lines
    boolean live = !json && System.console() != null && System.console().isTerminal();
    Progress console = new Progress(json ? cl.getErr() : out, live, wall);
    RunEvents progress = export.wrap(cl, console, realGpu, device.ordinal, wall);
    RunLoop.Control control = RunLoop.Control.none();
    Interrupts interrupts = Interrupts.install(control, cl.getErr());
    RunLoop.Result r;
    try {
      r = RunLoop.run(request.make(), wall, clocks.clock(), progress, control, startedAt);
    } catch (RunLock.HeldException e) {
      throw new CliFailure(e.getMessage(), e);
    } catch (RunLoop.RunFailure e) {
      if (control.stopRequested()) {
        cl.getErr().println("gitm: " + Main.oneLine(e.getMessage()));
        cl.getErr().flush();
        return 130;
      }
      throw new CliFailure(e.getMessage(), e);
    } finally {
      console.close();
      interrupts.close();
      export.close();
    }
    SyncCommand.afterRun(cl, storeOptions.open(cl), r.run().id(), json,
        budget.duration().minusNanos(wall.nanos() - startedAt));
    if (json) {
      Map<String, Object> doc = new LinkedHashMap<>();
      doc.put("run", r.run().id());
      doc.put("folder", r.run().dir().toString());
      doc.put("device", r.device());
      doc.putAll(r.summary());
      out.println(Json.write(doc));
    }
    if (r.failure() != null) {
      throw new CliFailure("run " + r.run().id() + " failed while optimizing: " + r.failure());
    }
    return r.status() == Report.Status.INTERRUPTED ? 130 : Main.OK;
  }

  /**
   * When the run's clock starts, on {@code wall}: when {@code gitm}'s main method was entered ({@link Main#main}), so
   * that parsing the command and opening the device count inside the budget; else (the CLI inside another program)
   * now. {@code wall} must be {@link Ticker#system()}, whose clock {@link System#nanoTime} that entry was read on.
   */
  static long startedAt(Ticker wall) {
    long now = wall.nanos();
    java.util.OptionalLong entered = Main.mainEnteredNanos();
    return entered.isPresent() && entered.getAsLong() <= now ? entered.getAsLong() : now;
  }

  private int runProcess(CommandLine cl, RunStore store, RunResume resumed) throws IOException {
    ProcessSpec resumedSpec = resumed == null ? null : resumed.process();
    requireBudgetAndTarget(cl);
    if (device.kind.equals("sim")) {
      throw new CommandLine.ParameterException(cl, "--device sim cannot run a black-box process: it runs on the"
          + " machine's GPU (or none)");
    }
    if (allowDeviceSettings) {
      throw new CommandLine.ParameterException(cl, "--allow-device-settings: device settings are never changed for a"
          + " black-box process");
    }
    ProcessSpec spec = resumedSpec != null ? resumedSpec : process.spec(cl, JOB_ARGV.get());
    if (resumedSpec != null) {
      try {
        spec.checkStartable();
      } catch (IllegalArgumentException e) {
        throw new CommandLine.ParameterException(cl, "--resume: " + Main.oneLine(e.getMessage()));
      }
    }
    checkLevers(cl);
    Gate.Options gateOptions;
    try {
      // a block is a whole process: no warm-up block (each process warms itself up); a black-box gate's fixed
      // design is six pairs, which its sequential plan stretches to eight when no look decides earlier
      gateOptions = Gate.Options.defaults().withWarmupBlocks(0).withPairs(gatePairsGiven ? gatePairs : 6);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(cl, "--gate-pairs: " + e.getMessage());
    }
    Ticker wall = Ticker.system();
    io.gitm.device.StateSampler sampler = null;
    java.util.function.Supplier<List<io.gitm.device.GpuProcess>> gpuProcesses = null;
    String gpu = null;
    io.gitm.device.DeviceInfo info;
    if (!device.kind.equals("none")) {
      try {
        io.gitm.nvidia.nvml.NvmlSampler s = io.gitm.nvidia.nvml.NvmlSampler.open(device.ordinal, wall);
        sampler = s;
        gpuProcesses = () -> s.processes().stream().map(u -> new io.gitm.device.GpuProcess(u.pid(),
            u.usedMemoryBytes(), u.smUtilization())).toList();
        info = new io.gitm.device.DeviceInfo("nvml", io.gitm.trace.DeviceKind.REAL, device.ordinal, s.name(), s.uuid(),
            "", 0, 0, 0, io.gitm.nvidia.nvml.Nvml.driverVersion().orElse(""), 0, 0);
      } catch (RuntimeException | LinkageError e) {
        gpu = "NVML not usable: " + Main.oneLine(String.valueOf(e.getMessage()));
        info = hostOnly(gpu);
      }
    } else {
      gpu = "--device none";
      info = hostOnly(gpu);
    }
    java.util.function.Function<Path, Map<String, String>> tracing = null;
    String tracingOff;
    if (process.noTrace) {
      tracingOff = "--no-trace";
    } else if (sampler == null) {
      tracingOff = "no GPU visible (" + gpu + ")";
    } else {
      java.util.Optional<Path> lib = io.gitm.nvidia.cupti.Injection.extract(store.root().resolve("lib"));
      if (lib.isPresent()) {
        Path l = lib.get();
        tracing = out -> io.gitm.nvidia.cupti.Injection.environment(l, out);
        tracingOff = null;
      } else {
        tracingOff = "this build of gitm carries no libgitm_inject.so (built without the CUDA toolkit)";
      }
    }
    List<String> evidence = new java.util.ArrayList<>();
    for (Path k : process.kineto) {
      evidence.add(KinetoEvidence.summarize(cl, k));
    }
    String command = commandLine(cl) + " " + String.join(" ", spec.command());
    if (process.live) {
      io.gitm.run.LiveTarget live = new io.gitm.run.LiveTarget(spec, info, sampler != null ? "NVML device "
          + device.ordinal + " (" + info.name() + ")" : "no GPU: " + gpu, io.gitm.job.LiveJob.Options.defaults()
          .withSteps(20, 5), evidence);
      return execute(cl, false, () -> new RunLoop.Request(live, budget, target, store, null, null, gateOptions,
          levers, command, VersionCommand.version(), shapingOptions()));
    }
    ProcessTarget job = new ProcessTarget(spec, tracing, tracingOff, sampler, gpuProcesses, info,
        sampler != null ? "NVML device " + device.ordinal + " (" + info.name() + ")" : "no GPU: " + gpu, evidence,
        !process.noHook);
    return execute(cl, sampler != null, () -> new RunLoop.Request(job, budget, target, store,
        resumed == null ? null : resumed.run(), resumed == null ? null : resumed.previous(), gateOptions, levers,
        command, VersionCommand.version(), shapingOptions()));
  }

  private static io.gitm.device.DeviceInfo hostOnly(String why) {
    return new io.gitm.device.DeviceInfo("host", io.gitm.trace.DeviceKind.REAL, -1, "no GPU (" + why + ")", "", "", 0,
        0, 0, "none", 0, 0);
  }
}
