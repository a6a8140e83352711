package io.gitm.cli;

import io.gitm.optimizer.Analysis;
import io.gitm.optimizer.Ceilings;
import io.gitm.optimizer.attribution.Evidence;
import io.gitm.optimizer.attribution.Hypothesis;
import io.gitm.optimizer.monitor.Violation;
import io.gitm.store.RunStore;
import io.gitm.trace.TraceDevice;
import io.gitm.trace.TraceMeta;
import io.gitm.trace.TraceRecord;
import io.gitm.tracer.KinetoImporter;
import io.gitm.tracer.TraceReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code gitm analyze RUN|TRACE}: invariant violations and ranked causes of a captured trace. */
@Command(name = "analyze", mixinStandardHelpOptions = true,
    description = "Predict what a captured job should have cost, check the three invariants and rank the causes of"
        + " the gap. Takes a run folder, a run id from the store, a .gtrace file, or a PyTorch profiler (Kineto)"
        + " JSON trace.")
final class AnalyzeCommand implements Callable<Integer> {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Parameters(index = "0", paramLabel = "RUN|TRACE", description = "A run folder or id, a .gtrace file or a Kineto JSON"
      + " trace.")
  String target;

  @Option(names = "--top", paramLabel = "N", defaultValue = "10", description = "Violations to list (default: 10).")
  int top;

  @Option(names = "--json", description = "Print the analysis as JSON.")
  boolean json;

  @CommandLine.Mixin
  StoreOptions storeOptions = new StoreOptions();

  @Override
  public Integer call() throws IOException {
    CommandLine cl = spec.commandLine();
    if (top < 0) {
      throw new CommandLine.ParameterException(cl, "--top must be 0 or more, got " + top);
    }
    Path trace = resolve(cl);
    List<TraceRecord> records = new ArrayList<>();
    TraceMeta meta;
    Path tmp = null;
    try {
      Path gtrace = trace;
      if (trace.getFileName().toString().endsWith(".json") || trace.getFileName().toString().endsWith(".json.gz")) {
        tmp = Files.createTempFile("gitm-analyze-", ".gtrace");
        Files.delete(tmp);
        KinetoImporter.importTrace(trace, tmp);
        gtrace = tmp;
      }
      try (TraceReader r = TraceReader.open(gtrace)) {
        meta = r.meta();
        r.read(records::add);
      }
    } catch (IOException e) {
      throw TraceFiles.failure(trace, null, e);
    } finally {
      if (tmp != null) {
        Files.deleteIfExists(tmp);
      }
    }
    Path calibrated = null;
    if (!meta.devices().isEmpty()) {
      TraceDevice d = meta.devices().getFirst();
      try {
        RunStore store = RunStore.open(storeOptions.root(cl));
        calibrated = store.hardwareSpec(d.name(), d.uuid(), meta.attributes().getOrDefault("driver", ""));
      } catch (IOException | RuntimeException e) {
        calibrated = null;
      }
    }
    Ceilings.Choice ceilings = Ceilings.forTrace(meta, calibrated);
    Analysis.Result a = Analysis.analyze(meta, records, ceilings.spec());
    PrintWriter out = cl.getOut();
    if (json) {
      out.println(Json.write(asMap(trace, a, ceilings)));
    } else {
      print(out, trace, a, ceilings);
    }
    return Main.OK;
  }

  private Path resolve(CommandLine cl) {
    Path p = Path.of(target);
    if (Files.isDirectory(p)) {
      Path t = p.resolve("trace.gtrace");
      if (!Files.isRegularFile(t)) {
        throw new CommandLine.ParameterException(cl, "the folder " + p + " holds no trace.gtrace (is it a run folder?)");
      }
      return t;
    }
    if (Files.isRegularFile(p)) {
      return p;
    }
    if (!target.contains("/") && !target.contains(java.io.File.separator)) {
      Path run = storeOptions.root(cl).resolve("runs").resolve(target).resolve("trace.gtrace");
      if (Files.isRegularFile(run)) {
        return run;
      }
    }
    throw new CommandLine.ParameterException(cl, "no such run or trace: " + target);
  }

  static Map<String, Object> asMap(Path trace, Analysis.Result a, Ceilings.Choice c) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("trace", trace.toString());
    m.put("deviceKind", a.meta().kind().name());
    m.put("devices", a.meta().devices());
    m.put("ceilings", c.note());
    m.put("diagnostics", a.diagnostics());
    m.put("nodes", a.nodes());
    m.put("modelNodes", a.modelNodes());
    m.put("empiricalNodes", a.nodes() - a.modelNodes());
    m.put("concurrentPairs", a.concurrentPairs());
    m.put("spanNs", a.spanNs());
    m.put("busyNs", a.busyNs());
    m.put("idle", a.idle());
    m.put("violations", a.violations());
    List<Map<String, Object>> hs = new ArrayList<>();
    for (Hypothesis h : a.hypotheses()) {
      Map<String, Object> x = new LinkedHashMap<>();
      x.put("cause", h.cause().name());
      x.put("label", h.cause().label());
      x.put("effect", h.effect());
      x.put("effectLow", h.effectLow());
      x.put("effectHigh", h.effectHigh());
      x.put("pValue", h.pValue());
      x.put("confidence", h.confidence());
      x.put("evidence", h.evidence());
      hs.add(x);
    }
    m.put("hypotheses", hs);
    m.put("facts", new java.util.TreeMap<>(a.facts()));
    return m;
  }

  private void print(PrintWriter out, Path trace, Analysis.Result a, Ceilings.Choice c) {
    out.println("trace     " + trace + " [" + (a.meta().kind() == io.gitm.trace.DeviceKind.SIMULATED
        ? "SIMULATED device" : "real device") + "]");
    out.println("ceilings  " + c.note());
    for (String d : a.diagnostics()) {
      out.println("note      " + d);
    }
    out.printf(Locale.ROOT, "graph     %d operations (%d predicted from declared work, %d from their own history),"
        + " %d predicted-concurrent pairs%n", a.nodes(), a.modelNodes(), a.nodes() - a.modelNodes(),
        a.concurrentPairs());
    if (a.spanNs() > 0) {
      out.printf(Locale.ROOT, "time      span %.3f ms, device busy %.1f%%; idle: kernel wait %.3f ms, host wait %.3f ms,"
          + " other %.3f ms%n", a.spanNs() / 1e6, 100.0 * a.busyNs() / a.spanNs(), a.idle().kernelWaitNs() / 1e6,
          a.idle().hostWaitNs() / 1e6, a.idle().otherNs() / 1e6);
    }
    out.println();
    out.println("violations (" + a.violations().size() + ")");
    if (a.violations().isEmpty()) {
      out.println("  none");
    }
    for (Violation v : a.violations().subList(0, Math.min(top, a.violations().size()))) {
      out.printf(Locale.ROOT, "  %-18s %s: %d of %d, %.2f× the bound, %.3f ms beyond it%n", v.invariant().name(),
          v.subject(), v.count(), v.of(), v.howFar(), v.excessNs() / 1e6);
    }
    out.println();
    out.println("hypotheses (" + a.hypotheses().size() + ")");
    if (a.hypotheses().isEmpty()) {
      out.println("  none significant");
    }
    int i = 1;
    for (Hypothesis h : a.hypotheses()) {
      out.printf(Locale.ROOT, "  %d. %-28s %5.1f%% of the span [%.1f%%, %.1f%%], p=%.2g, confidence %.2f%n", i++,
          h.cause().label(), h.effect() * 100, h.effectLow() * 100, h.effectHigh() * 100, h.pValue(), h.confidence());
      for (Evidence e : h.evidence()) {
        out.println("       - " + e.summary());
      }
    }
    out.flush();
  }
}
