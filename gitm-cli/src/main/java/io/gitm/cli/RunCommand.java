package io.gitm.cli;

import io.gitm.api.Budget;
import io.gitm.agents.Gate;
import io.gitm.kernels.Levers;
import io.gitm.optimizer.report.Report;
import io.gitm.scheduler.RunLoop;
import io.gitm.api.Target;
import io.gitm.api.Ticker;
import io.gitm.device.Device;
import io.gitm.device.Devices;
import io.gitm.store.Journal;
import io.gitm.store.RunDir;
import io.gitm.store.RunStore;
import io.gitm.workload.Workload;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
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
    RunLoop.Control control = RunLoop.Control.none();
    Interrupts interrupts = Interrupts.install(control, cl.getErr());
    RunLoop.Result r;
    try {
      Device d = device.open(cl, choice);
      RunLoop.Request req = new RunLoop.Request(w, budget, target, d, choice.provider(), choice.reason(),
          device.request(), store, store.datasets(DATASET_DOMAIN.getOrDefault(workload, "edge")), resumed, previous, maxIterations,
          blockIterations, gateOptions, allowDeviceSettings, levers, "gitm "
          + String.join(" ", cl.getParseResult().originalArgs()), VersionCommand.version());
      r = RunLoop.run(req, wall, Clock.systemUTC(), progress, control);
    } catch (RunLoop.RunFailure e) {
      throw new CliFailure(Main.oneLine(e.getMessage()), e);
    } finally {
      interrupts.close();
    }
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
    return r.status() == io.gitm.optimizer.report.Report.Status.INTERRUPTED ? 130 : Main.OK;
  }
}
