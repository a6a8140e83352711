package io.gitm.cli;

import io.gitm.analysis.Ceilings;
import io.gitm.device.DeviceInfo;
import io.gitm.levers.Lever;
import io.gitm.levers.LeverContext;
import io.gitm.levers.Setup;
import io.gitm.planner.Compiler;
import io.gitm.planner.Graph;
import io.gitm.sim.SimDevice;
import io.gitm.sim.SimSpec;
import io.gitm.store.RunStore;
import io.gitm.workload.Workload;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * {@code gitm plan}: what a workload should cost on a device under a setup, predicted before it runs there (the
 * planner's behavioural compiler, {@link Compiler}).
 */
@Command(name = "plan", mixinStandardHelpOptions = true,
    description = "Predict what a workload should cost on a device under a setup, before it runs there: its device"
        + " operations with their roofline bounds, the host's work, the dependencies and the concurrency, from the"
        + " workload's own program on a model of the device (a calibration file or a preset).")
final class PlanCommand implements Callable<Integer> {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Option(names = "--workload", paramLabel = "NAME", defaultValue = "hft-lob",
      completionCandidates = Workloads.Names.class,
      description = "A built-in managed workload: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
  String workload;

  @Option(names = "--setup", paramLabel = "ID[+ID...]",
      description = "Levers applied in order to the shipped setup (default: the shipped setup).")
  String setup;

  @Option(names = "--preset", paramLabel = "NAME", defaultValue = "h200",
      description = "The device model: h200, h100 or a100 (default: ${DEFAULT-VALUE}).")
  String preset;

  @Option(names = "--calibration", paramLabel = "FILE",
      description = "A `gitm calibrate -o` file: the device's measured ceilings (over the preset's).")
  Path calibration;

  @Option(names = "--iterations", paramLabel = "N", defaultValue = "8",
      description = "Steady iterations to predict (default: ${DEFAULT-VALUE}).")
  int iterations;

  @Option(names = "--top", paramLabel = "N", defaultValue = "10", description = "Kernels to list (default: 10).")
  int top;

  @Option(names = "--json", description = "Print the plan as JSON.")
  boolean json;

  @CommandLine.Mixin
  StoreOptions storeOptions = new StoreOptions();

  @CommandLine.Mixin
  InputOptions inputOptions = new InputOptions();

  @Override
  public Integer call() throws IOException {
    CommandLine cl = spec.commandLine();
    Workload w = inputOptions.apply(cl, Workloads.find(workload).orElseThrow(() -> new CommandLine.ParameterException(cl,
        "unknown workload '" + workload + "'; known workloads: " + Workloads.knownNames())));
    if (iterations < 1 || iterations > 10_000) {
      throw new CommandLine.ParameterException(cl, "--iterations must be 1 to 10000, got " + iterations);
    }
    if (top < 0) {
      throw new CommandLine.ParameterException(cl, "--top must be 0 or more, got " + top);
    }
    SimSpec hw;
    try {
      hw = SimSpec.preset(preset);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(cl, "--preset: " + Main.oneLine(e.getMessage()));
    }
    String model = "the " + preset + " preset (" + hw.hardware().source() + ")";
    if (calibration != null) {
      if (!Files.isRegularFile(calibration)) {
        throw new CommandLine.ParameterException(cl, "--calibration " + calibration + ": no such file");
      }
      try {
        hw = SimSpec.fromCalibration(Ceilings.read(calibration), preset);
      } catch (IOException | RuntimeException e) {
        throw new CommandLine.ParameterException(cl, "--calibration " + calibration + ": not a calibration file ("
            + Main.oneLine(e.getMessage()) + ")");
      }
      model = "the calibration " + calibration.getFileName() + " over the " + preset + " preset";
    }
    List<Lever> levers = setup == null ? List.of() : SetupArgs.parseIds(cl, "--setup", setup);
    DeviceInfo info;
    try (SimDevice d = SimDevice.open(hw, 1, "")) {
      info = d.info();
    }
    LeverContext context = new LeverContext(w.spec(), info, List.of(), Map.of(LeverContext.FACT_HOST_CPUS,
        (double) Runtime.getRuntime().availableProcessors()), false, Setup.shipped());
    Setup s = SetupArgs.build(cl, "--setup", levers, context);
    RunStore store = storeOptions.open(cl);
    Compiler.Compiled c;
    try {
      c = Compiler.predictGraph(w, s.config(), hw, store.datasets(RunCommand.DATASET_DOMAIN.getOrDefault(workload,
          "edge")), iterations);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(cl, workload + ": " + Main.oneLine(e.getMessage()));
    }
    print(cl.getOut(), w, levers, model, c);
    return Main.OK;
  }

  private void print(PrintWriter out, Workload w, List<Lever> levers, String model, Compiler.Compiled c) {
    Graph g = c.graph();
    Map<String, double[]> byName = new LinkedHashMap<>();
    Map<String, Graph.Node> sample = new LinkedHashMap<>();
    long kernels = 0;
    long copies = 0;
    double copyNs = 0;
    for (Graph.Node n : g.nodes()) {
      if (n.kind() == Graph.Kind.KERNEL) {
        kernels++;
        double[] a = byName.computeIfAbsent(n.name(), k -> new double[4]);
        a[0]++;
        a[1] += n.durationNs();
        a[2] += n.lowerNs();
        a[3] += n.upperNs();
        sample.putIfAbsent(n.name(), n);
      } else {
        copies++;
        copyNs += n.durationNs();
      }
    }
    Map<Compiler.Because, Integer> deps = new EnumMap<>(Compiler.Because.class);
    for (Compiler.Dependency d : c.dependencies()) {
      deps.merge(d.because(), 1, Integer::sum);
    }
    double blocking = c.host().stream().filter(Compiler.HostWork::blocking).mapToLong(Compiler.HostWork::durationNs)
        .sum();
    double hostWork = c.host().stream().filter(h -> !h.blocking()).mapToLong(Compiler.HostWork::durationNs).sum();
    List<Map.Entry<String, double[]>> ranked = new ArrayList<>(byName.entrySet());
    ranked.sort(Comparator.comparingDouble((Map.Entry<String, double[]> e) -> -e.getValue()[1]));
    String setupText = levers.isEmpty() ? "shipped" : String.join(" + ", levers.stream().map(Lever::id).toList());
    if (json) {
      Map<String, Object> doc = new LinkedHashMap<>();
      doc.put("workload", w.spec().name());
      doc.put("setup", levers.stream().map(Lever::id).toList());
      doc.put("deviceModel", model);
      doc.put("iterations", c.iterations());
      doc.put("predictedSpanNs", c.spanNs());
      doc.put("predictedPerIterationNs", c.perIterationNs());
      doc.put("kernels", kernels);
      doc.put("copiesAndMemsets", copies);
      doc.put("modelBasedNodes", g.modelNodes());
      doc.put("concurrentPairs", g.concurrentPairs().size());
      Map<String, Integer> d = new LinkedHashMap<>();
      deps.forEach((k, v) -> d.put(k.name(), v));
      doc.put("dependencies", d);
      doc.put("hostBlockingNs", (long) blocking);
      doc.put("hostWorkNs", (long) hostWork);
      List<Map<String, Object>> ks = new ArrayList<>();
      for (Map.Entry<String, double[]> e : ranked) {
        Graph.Node n = sample.get(e.getKey());
        Map<String, Object> k = new LinkedHashMap<>();
        k.put("name", e.getKey());
        k.put("count", (long) e.getValue()[0]);
        k.put("predictedNs", (long) e.getValue()[1]);
        k.put("lowerNs", (long) e.getValue()[2]);
        k.put("upperNs", (long) e.getValue()[3]);
        k.put("bound", n.bound().name());
        k.put("basis", n.basis().name());
        ks.add(k);
      }
      doc.put("kernelsByName", ks);
      out.println(Json.write(doc));
      return;
    }
    out.printf(Locale.ROOT, "plan     %s under %s, on a model of the device: %s [SIMULATED: predicted, not measured]%n",
        w.spec().name(), setupText, model);
    out.printf(Locale.ROOT, "predict  %d steady iterations: %s each (%s in all)%n", c.iterations(),
        ms(c.perIterationNs()), ms(c.spanNs()));
    out.printf(Locale.ROOT, "nodes    %d kernels, %d copies and memsets (%s of copies); %d of %d model-based;"
        + " %d predicted-concurrent pairs%n", kernels, copies, ms(copyNs), g.modelNodes(), g.nodes().size(),
        g.concurrentPairs().size());
    out.printf(Locale.ROOT, "depends  %d stream order, %d event waits, %d host synchronizations%n",
        deps.getOrDefault(Compiler.Because.STREAM_ORDER, 0), deps.getOrDefault(Compiler.Because.EVENT_WAIT, 0),
        deps.getOrDefault(Compiler.Because.HOST_SYNC, 0));
    out.printf(Locale.ROOT, "host     %s in blocking calls (syncs, allocations, pageable copies), %s of its own work"
        + " between calls%n", ms(blocking), ms(hostWork));
    for (Map.Entry<String, double[]> e : ranked.subList(0, Math.min(top, ranked.size()))) {
      double[] a = e.getValue();
      Graph.Node n = sample.get(e.getKey());
      out.printf(Locale.ROOT, "kernel   %-28s %5d×  %s (roofline %s, bound %s, %s)%n", e.getKey(), (long) a[0],
          ms(a[1]), ms(a[2]), n.bound().name().toLowerCase(Locale.ROOT), n.basis() == Graph.Basis.MODEL
              ? "from declared work" : "no declared work");
    }
  }

  private static String ms(double ns) {
    return String.format(Locale.ROOT, "%.3f ms", ns / 1e6);
  }
}
