package io.gitm.cli;

import io.gitm.api.Ticker;
import io.gitm.device.Device;
import io.gitm.device.DeviceInfo;
import io.gitm.device.Devices;
import io.gitm.job.ManagedJob;
import io.gitm.levers.Lever;
import io.gitm.levers.LeverContext;
import io.gitm.levers.Levers;
import io.gitm.levers.SafetyClass;
import io.gitm.levers.Setup;
import io.gitm.run.RunLoop;
import io.gitm.search.Gate;
import io.gitm.search.Verdict;
import io.gitm.store.RunStore;
import io.gitm.workload.Workload;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * {@code gitm levers}: the intervention library for a workload on a device — every lever, whether it applies and
 * why not; with {@code --measure}, each applicable lever gated alone against the base setup on the device (the shipped
 * setup, or the levers of {@code --base} applied to it in order), or with {@code --setup}, whole setups gated against
 * the base (a tuned setup against another, say).
 */
@Command(name = "levers", mixinStandardHelpOptions = true,
    description = "List the levers for a workload on a device; with --measure, measure each applicable lever alone"
        + " against the shipped setup behind the rollback gate.")
final class LeversCommand implements Callable<Integer> {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Option(names = "--workload", paramLabel = "NAME", defaultValue = "hft-lob",
      completionCandidates = Workloads.Names.class,
      description = "A built-in managed workload: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
  String workload;

  @Option(names = "--measure", description = "Gate each applicable lever alone against the shipped setup.")
  boolean measure;

  @Option(names = "--levers", split = ",", paramLabel = "ID", description = "Only these levers.")
  List<String> only;

  @Option(names = "--block-iterations", paramLabel = "N", defaultValue = "32",
      description = "Iterations per gate block (default: ${DEFAULT-VALUE}).")
  int blockIterations;

  @Option(names = "--gate-pairs", paramLabel = "N", defaultValue = "8",
      description = "Interleaved A/B block pairs per gate (default: ${DEFAULT-VALUE}).")
  int gatePairs;

  @Option(names = "--base", paramLabel = "ID[+ID...]",
      description = "The anchor of every gate: these levers applied in order to the shipped setup (default: shipped).")
  String base;

  @Option(names = "--setup", paramLabel = "ID[+ID...]",
      description = "With --measure: gate this setup (levers applied in order to the shipped setup) against the base"
          + " instead of each lever alone; repeatable.")
  List<String> setups;

  @Option(names = "--allow-device-settings", description = "Include class-C levers (simulated device only).")
  boolean allowDeviceSettings;

  @Option(names = "--json", description = "Print the result as JSON.")
  boolean json;

  @CommandLine.Mixin
  DeviceOptions device = new DeviceOptions();

  @CommandLine.Mixin
  StoreOptions storeOptions = new StoreOptions();

  @CommandLine.Mixin
  InputOptions inputOptions = new InputOptions();

  @Override
  public Integer call() {
    CommandLine cl = spec.commandLine();
    Workload w = inputOptions.apply(cl, Workloads.find(workload).orElseThrow(() -> new CommandLine.ParameterException(cl,
        "unknown workload '" + workload + "'; known workloads: " + Workloads.knownNames())));
    Gate.Options gateOptions = checkOptions(cl);
    List<Lever> baseLevers = base == null ? List.of() : SetupArgs.parseIds(cl, "--base", base);
    Devices.Choice choice = device.choose(cl);
    DeviceInfo info;
    try (Device d = device.open(cl, choice)) {
      info = d.info();
    }
    Map<String, Double> facts = Map.of(LeverContext.FACT_HOST_CPUS,
        (double) Runtime.getRuntime().availableProcessors());
    LeverContext shippedContext = new LeverContext(w.spec(), info, List.of(), facts, allowDeviceSettings,
        Setup.shipped());
    Setup anchor = SetupArgs.build(cl, "--base", baseLevers, shippedContext);
    LeverContext context = shippedContext.withSetup(anchor);
    List<Map<String, Object>> rows = setups != null ? setupRows(cl, shippedContext)
        : leverRows(context, baseLevers);
    PrintWriter out = cl.getOut();
    if (measure && !json) {
      out.println("gates against " + (baseLevers.isEmpty() ? "the shipped setup"
          : String.join(" + ", baseLevers.stream().map(Lever::id).toList())) + " on " + info.name() + " ["
          + info.kind().label() + "]");
    }
    if (measure) {
      measure(cl, w, choice, gateOptions, rows, anchor, context, shippedContext, out);
    }
    if (json) {
      Map<String, Object> doc = new LinkedHashMap<>();
      doc.put("workload", workload);
      doc.put("device", Map.of("name", info.name(), "kind", info.kind().name(), "backend", info.backend(),
          "driver", info.driverVersion()));
      doc.put("measured", measure);
      doc.put("blockIterations", blockIterations);
      doc.put("gatePairs", gatePairs);
      doc.put("base", baseLevers.stream().map(Lever::id).toList());
      doc.put("levers", rows);
      out.println(Json.write(doc));
    } else if (!measure) {
      out.println("levers for " + workload + " on " + info.name() + " [" + info.kind().label() + "]");
      for (Map<String, Object> row : rows) {
        out.printf(Locale.ROOT, "%-32s %s %-8s %-7s %s%n", row.get("id"), row.get("class"), row.get("scope"),
            (Boolean) row.get("applies") ? "applies" : "no", (Boolean) row.get("applies") ? row.get("description")
                : row.get("reason"));
      }
    }
    return Main.OK;
  }

  /** Checks the options that need no device; returns the gate's. */
  private Gate.Options checkOptions(CommandLine cl) {
    if (blockIterations < 1) {
      throw new CommandLine.ParameterException(cl, "--block-iterations must be 1 or more");
    }
    Gate.Options gateOptions;
    try {
      gateOptions = Gate.Options.defaults().withPairs(gatePairs);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(cl, "--gate-pairs: " + e.getMessage());
    }
    if (only != null) {
      for (String id : only) {
        try {
          Levers.byId(id);
        } catch (IllegalArgumentException e) {
          throw new CommandLine.ParameterException(cl, "--levers: " + Main.oneLine(e.getMessage()));
        }
      }
    }
    if (setups != null && !measure) {
      throw new CommandLine.ParameterException(cl, "--setup needs --measure");
    }
    for (String spec : setups == null ? List.<String>of() : setups) {
      SetupArgs.parseIds(cl, "--setup", spec);
    }
    return gateOptions;
  }

  /** A row per {@code --setup}, each checked to build on the shipped setup. */
  private List<Map<String, Object>> setupRows(CommandLine cl, LeverContext shippedContext) {
    List<Map<String, Object>> rows = new ArrayList<>();
    for (String spec : setups) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("id", spec);
      row.put("class", classOf(SetupArgs.parseIds(cl, "--setup", spec)).name());
      row.put("levers", SetupArgs.parseIds(cl, "--setup", spec).stream().map(Lever::id).toList());
      row.put("applies", true);
      row.put("reason", "");
      rows.add(row);
      SetupArgs.build(cl, "--setup", SetupArgs.parseIds(cl, "--setup", spec), shippedContext);
    }
    return rows;
  }

  /** A row per candidate lever not in the base (only those of {@code --levers}), with whether it applies. */
  private List<Map<String, Object>> leverRows(LeverContext context, List<Lever> baseLevers) {
    List<Map<String, Object>> rows = new ArrayList<>();
    for (Lever l : Levers.candidates(context)) {
      if (baseLevers.stream().anyMatch(b -> b.id().equals(l.id()))) {
        continue;
      }
      if (only != null && !only.contains(l.id())) {
        continue;
      }
      Lever.Applicability a = l.check(context);
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("id", l.id());
      row.put("class", l.safety().name());
      row.put("scope", l.scope().name());
      row.put("causes", l.addresses().stream().map(Enum::name).toList());
      row.put("applies", a.applies());
      row.put("reason", a.reason());
      row.put("description", l.description());
      rows.add(row);
    }
    return rows;
  }

  /** Gates each applicable row's setup against {@code anchor}, adding the verdict to the row (and printing it). */
  private void measure(CommandLine cl, Workload w, Devices.Choice choice, Gate.Options gateOptions,
      List<Map<String, Object>> rows, Setup anchor, LeverContext context, LeverContext shippedContext,
      PrintWriter out) {
    RunStore store = storeOptions.open(cl);
    Gate gate = new Gate(Ticker.system(), gateOptions);
    try (ManagedJob job = new ManagedJob(w, choice.provider(), device.request(),
        store.datasets(RunCommand.DATASET_DOMAIN.getOrDefault(workload, "edge")), blockIterations)) {
      for (Map<String, Object> row : rows) {
        if (!(Boolean) row.get("applies")) {
          continue;
        }
        List<Lever> ls = setups != null ? SetupArgs.parseIds(cl, "--setup", (String) row.get("id"))
            : List.of(Levers.byId((String) row.get("id")));
        Setup candidate = setups != null ? SetupArgs.build(cl, "--setup", ls, shippedContext)
            : ls.get(0).apply(anchor, context);
        Verdict v = gate.judge(job, anchor, candidate, classOf(ls), w.spec().outputTolerance());
        row.put("outcome", v.outcome().name());
        row.put("gain", v.gain() - 1);
        row.put("speedup", v.gain());
        row.put("speedupLow", v.ciLow());
        row.put("speedupHigh", v.ciHigh());
        row.put("pValue", v.pValue());
        row.put("anchorMedian", v.anchorMedian());
        row.put("candidateMedian", v.candidateMedian());
        row.put("outputDifference", v.outputDifference());
        row.put("seconds", v.wallNanos() / 1e9);
        row.put("detail", v.detail());
        if (!json) {
          out.printf(Locale.ROOT, "%-32s %s  %-16s %s%n", row.get("id"), row.get("class"),
              v.outcome().name().toLowerCase(Locale.ROOT), Double.isFinite(v.gain()) ? String.format(Locale.ROOT,
                  "%+.1f%% (95%% CI %+.1f%%..%+.1f%%, p=%.2g), %s → %s %s", (v.gain() - 1) * 100,
                  (v.ciLow() - 1) * 100, (v.ciHigh() - 1) * 100, v.pValue(), RunLoop.si(v.anchorMedian()),
                  RunLoop.si(v.candidateMedian()), w.spec().metric()) : v.detail());
          out.flush();
        }
      }
    }
  }

  /** The strictest safety class among {@code levers} (the gate's output check follows it). */
  private static SafetyClass classOf(List<Lever> levers) {
    return levers.stream().map(Lever::safety).max(Comparator.naturalOrder()).orElse(SafetyClass.A);
  }
}
