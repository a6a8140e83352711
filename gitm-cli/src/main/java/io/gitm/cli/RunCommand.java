package io.gitm.cli;

import io.gitm.api.Budget;
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

  @Override
  public Integer call() throws IOException {
    CommandLine cl = spec.commandLine();
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
    if (maxIterations < 0) {
      throw new CommandLine.ParameterException(cl, "--max-iterations must be 0 or more");
    }
    Devices.Choice choice = device.choose(cl);
    RunStore store = storeOptions.open(cl);
    PhasePlan plan = new PhasePlan(budget);
    Ticker wall = Ticker.system();
    PrintWriter out = cl.getOut();

    try (Device d = device.open(cl, choice)) {
      DeviceInfo info = d.info();
      Map<String, String> deviceMap = new LinkedHashMap<>();
      deviceMap.put("kind", info.kind().label());
      deviceMap.put("backend", info.backend());
      deviceMap.put("name", info.name());
      deviceMap.put("uuid", info.uuid());
      deviceMap.put("driver", info.driverVersion());
      deviceMap.put("chosen", choice.reason());
      RunDir run = RunDir.create(store, new RunInfo(null, workload, "gitm " + String.join(" ", cl.getParseResult().originalArgs()),
          budget.toString(), target.toString(), deviceMap, null, VersionCommand.version()), Clock.systemUTC());
      if (!json) {
        out.println("gitm run " + run.id());
        out.println("device   " + info.name() + " [" + label(info.kind()) + "]");
        out.println("budget   " + budget + " (" + plan.windows().stream()
            .map(x -> x.phase().label().toLowerCase() + " " + window(x.length()))
            .collect(Collectors.joining(", ")) + "); target " + target);
        out.flush();
      }
      Profiler.Baseline baseline;
      TraceSummary summary;
      Path tracePath = run.dir().resolve("trace.gtrace");
      try (Journal j = run.journal()) {
        j.append("start", now(), Map.of("budget", budget.toString(), "target", target.toString(), "device", deviceMap));
        if (d instanceof SimDevice sim) {
          run.writeJson("ground-truth.json", sim.groundTruth());
        }
        Duration window = plan.window(Phase.PROFILE).length();
        j.append("phase-start", now(), Map.of("phase", "profile", "seconds", window.toMillis() / 1000.0));
        TraceWriter[] writer = new TraceWriter[1];
        try {
          baseline = Profiler.run(d, w, ExecutionConfig.shipped(),
              store.datasets(DATASET_DOMAIN.getOrDefault(workload, "edge")), wall,
              new Profiler.Options(window, maxIterations,
                  info.kind() == DeviceKind.SIMULATED ? SIM_SAMPLE_PERIOD_NS : SAMPLE_PERIOD_NS),
              meta -> {
                try {
                  writer[0] = TraceWriter.create(tracePath, meta);
                  return writer[0];
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
          writer[0].close();
        } catch (RuntimeException | IOException e) {
          if (writer[0] != null) {
            writer[0].abort();
          }
          String why = Main.oneLine(String.valueOf(e.getMessage()));
          j.append("failed", now(), Map.of("phase", "profile", "error", why));
          throw new CliFailure("run " + run.id() + " failed in the profile phase: " + why, e);
        }
        try {
          run.writeJson("baseline.json", baseline);
          summary = TraceSummary.of(tracePath, 8);
          j.append("phase-end", now(), Map.of("phase", "profile", "iterations", baseline.iterations(),
              "throughput", baseline.throughput()));
          run.writeText("report.md", report(run, info, plan, baseline, summary));
        } catch (IOException | RuntimeException e) {
          String why = StoreOptions.describe(e);
          j.append("failed", now(), Map.of("phase", "report", "error", why));
          throw new CliFailure("run " + run.id() + " profiled, but its results could not be written: " + why, e);
        }
        j.append("end", now(), Map.of("status", "profiled", "note", NOT_BUILT));
      }
      if (json) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("run", run.id());
        doc.put("folder", run.dir().toString());
        doc.put("device", deviceMap);
        doc.put("budget", budget.toString());
        doc.put("target", target.toString());
        doc.put("status", "profiled");
        doc.put("baseline", baseline);
        doc.put("trace", Map.of("file", tracePath.toString(), "records", summary.recordCounts()));
        doc.put("note", NOT_BUILT);
        out.println(Json.write(doc));
      } else {
        out.printf("profile  %d iterations, %s %s, latency p50 %.3f ms p99 %.3f ms (%s clock), tracing %s%n",
            baseline.iterations(), si(baseline.throughput()), baseline.metric(), baseline.latency().p50(),
            baseline.latency().p99(), info.kind() == DeviceKind.SIMULATED ? "simulated" : "host", baseline.tracing());
        out.println("trace    " + summary.recordCounts().get("kernel") + " kernels, " + summary.recordCounts().get("copy")
            + " copies, " + summary.recordCounts().get("state") + " state samples → " + tracePath.getFileName());
        out.println("next     " + NOT_BUILT);
        out.println("report   " + run.dir().resolve("report.md"));
      }
    }
    return Main.OK;
  }

  /** State sampling period on a real device (10 Hz), in host time. */
  static final long SAMPLE_PERIOD_NS = 100_000_000L;
  /** State sampling period on the simulated device, in simulated time: its runs cover far less device time. */
  static final long SIM_SAMPLE_PERIOD_NS = 1_000_000L;

  static final String NOT_BUILT = "the attribute, rank and apply phases are not built yet, so no lever was tried and"
      + " the target was not evaluated; this run measured the baseline only";

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

  static String report(RunDir run, DeviceInfo info, PhasePlan plan, Profiler.Baseline b, TraceSummary t) {
    StringBuilder s = new StringBuilder();
    s.append("# gitm run ").append(run.id()).append("\n\n");
    if (info.kind() == DeviceKind.SIMULATED) {
      s.append("> **Simulated device.** Every figure in this report comes from gitm's model of a GPU, not from a"
          + " measurement on real hardware.\n\n");
    }
    s.append("| | |\n|---|---|\n");
    s.append("| workload | `").append(b.workload()).append("` (shipped configuration) |\n");
    s.append("| device | ").append(info.name()).append(" (").append(info.kind().label()).append(", ")
        .append(info.backend()).append(", driver ").append(info.driverVersion()).append(") |\n");
    s.append("| budget | ").append(plan.budget()).append(" (profile phase ")
        .append(plan.window(Phase.PROFILE).length().toMillis() / 1000.0).append(" s) |\n");
    s.append("| target | ").append(run.info().target()).append(" |\n\n");
    s.append("## Baseline (phase 1: profile)\n\n");
    s.append(String.format("- %d iterations, %d units: **%s %s** (over %s-clock time of the iterations)%n",
        b.iterations(), b.units(), si(b.throughput()), b.metric(), info.kind() == DeviceKind.SIMULATED ? "simulated" : "host"));
    s.append(String.format("- iteration latency (steady iterations): p50 %.3f ms, p99 %.3f ms, min %.3f ms, max %.3f ms;"
        + " the first iteration, with its one-time costs, took %.3f ms and is left out of these figures%n",
        b.latency().p50(), b.latency().p99(), b.latency().min(), b.latency().max(), b.firstIterationMs()));
    s.append("- event tracing: ").append(b.tracing()).append("; state samples: ").append(b.samples())
        .append(b.samplerErrors() > 0 ? " (" + b.samplerErrors() + " readings failed)" : "").append("\n");
    s.append("- output digest: `").append(b.output().sha256()).append("`\n\n");
    s.append("## Trace\n\n");
    s.append("Records: ").append(t.recordCounts().entrySet().stream().filter(e -> e.getValue() > 0)
        .map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining(", "))).append(".\n\n");
    if (!t.topKernels().isEmpty()) {
      s.append("| kernel | launches | total ms | mean µs |\n|---|---:|---:|---:|\n");
      for (TraceSummary.KernelStat k : t.topKernels()) {
        s.append("| `").append(k.name().replace("|", "\\|").replace("`", "'")).append("` | ").append(k.count())
            .append(" | ").append(String.format("%.3f", k.totalNs() / 1e6)).append(" | ")
            .append(String.format("%.2f", k.meanNs() / 1e3)).append(" |\n");
      }
      s.append("\n");
    }
    s.append("## What this run did not do\n\n");
    s.append(NOT_BUILT.substring(0, 1).toUpperCase()).append(NOT_BUILT.substring(1)).append(".\n");
    List<String> files = List.of("run.json", "journal.jsonl", "trace.gtrace", "baseline.json", "report.md");
    s.append("\nFiles: ").append(files.stream().map(f -> "`" + f + "`").collect(Collectors.joining(", "))).append(".\n");
    return s.toString();
  }
}
