package io.gitm.cli;

import io.gitm.analysis.Analysis;
import io.gitm.analysis.Ceilings;
import io.gitm.analysis.Differential;
import io.gitm.analysis.attribution.Evidence;
import io.gitm.analysis.attribution.Hypothesis;
import io.gitm.analysis.breakdown.Breakdown;
import io.gitm.analysis.breakdown.BreakdownDiff;
import io.gitm.analysis.breakdown.Ties;
import io.gitm.analysis.breakdown.Window;
import io.gitm.analysis.monitor.Monitor;
import io.gitm.analysis.monitor.Violation;
import io.gitm.planner.Graph;
import io.gitm.stats.Sample;
import io.gitm.store.RunStore;
import io.gitm.trace.TraceDevice;
import io.gitm.trace.TraceMeta;
import io.gitm.trace.TraceRecord;
import io.gitm.tracer.KinetoImporter;
import io.gitm.tracer.NsysImporter;
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
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine;

/** {@code gitm analyze RUN|TRACE}: invariant violations and ranked causes of a captured trace. */
@Command(name = "analyze", mixinStandardHelpOptions = true,
    description = "Predict what a captured job should have cost, check the three invariants and rank the causes of"
        + " the gap. Takes a run folder, a run id from the store, a .gtrace file, a PyTorch profiler (Kineto)"
        + " JSON trace, or an Nsight Systems export (.sqlite).")
final class AnalyzeCommand implements Callable<Integer> {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Parameters(index = "0", paramLabel = "RUN|TRACE", completionCandidates = TraceFormat.Readable.class,
      description = "A run folder or id, or a trace file: ${COMPLETION-CANDIDATES}.")
  String target;

  @Option(names = "--top", paramLabel = "N", defaultValue = "10", description = "Violations to list (default: 10).")
  int top;

  @Option(names = "--ncu", paramLabel = "CSV", description = "DRAM bytes per kernel measured by Nsight Compute (`ncu"
      + " --csv --metrics dram__bytes_read.sum,dram__bytes_write.sum`) on a run of the same job: the memory-traffic"
      + " invariant is judged with them.")
  Path ncu;

  @Option(names = "--baseline", paramLabel = "RUN|TRACE", description = "A run of the same job to compare with (same"
      + " kinds as RUN|TRACE): after the analysis, the causes ranked by the lost time this run added against it.")
  String baseline;

  @Option(names = "--window", paramLabel = "steps|all|FROM:TO", description = "The part of the trace to analyse:"
      + " steps (every ProfilerStep but the last, partial one, as HTA takes them; the default where the trace has"
      + " ProfilerStep annotations), all (the default otherwise), or FROM:TO in step numbers (2:4) or in times from"
      + " the trace's first record with a unit (0ms:20ms); a side left out is the trace's start or end. Work belongs"
      + " to the window its launch call started in. The baseline is taken in the same window.")
  String window;

  @Option(names = "--json", description = "Print the analysis as JSON.")
  boolean json;

  @Option(names = "--nodes", description = "With --json: every predicted operation with its bounds, basis and"
      + " residual (large for long traces).")
  boolean nodes;

  @CommandLine.Mixin
  StoreOptions storeOptions = new StoreOptions();

  @Override
  public Integer call() throws IOException {
    CommandLine cl = spec.commandLine();
    if (top < 0) {
      throw new CommandLine.ParameterException(cl, "--top must be 0 or more, got " + top);
    }
    Path trace = resolve(cl, target, "");
    Path before = baseline == null ? null : resolve(cl, baseline, "--baseline: ");
    if (nodes && !json) {
      throw new CommandLine.ParameterException(cl, "--nodes needs --json");
    }
    Loaded run = load(cl, trace, ncu, "");
    Analysis.Result a = run.analysis();
    Ceilings.Choice ceilings = run.ceilings();
    Differential.Result diff = null;
    BreakdownDiff breakdownDiff = null;
    if (before != null) {
      Loaded base = load(cl, before, null, "--baseline: ");
      Analysis.Result b = base.analysis();
      breakdownDiff = BreakdownDiff.compare(base.breakdown(), run.breakdown());
      try {
        diff = Differential.compare(b, a);
      } catch (IllegalArgumentException e) {
        throw new CliFailure("--baseline: " + before + ": " + e.getMessage(), e);
      }
    }
    PrintWriter out = cl.getOut();
    List<Ties.Tie> ties = Ties.of(run.breakdown(), a.hypotheses(), BreakdownOutput::levers);
    if (json) {
      Map<String, Object> m = asMap(trace, a, ceilings);
      m.put("window", BreakdownOutput.window(run.breakdown().window()));
      m.put("breakdowns", BreakdownOutput.json(run.breakdown()));
      m.put("breakdownTies", BreakdownOutput.ties(ties));
      run.host().put(m);
      if (nodes) {
        m.put("graphNodes", nodes(a));
      }
      if (diff != null) {
        Map<String, Object> d = differential(before, diff);
        d.put("breakdowns", BreakdownOutput.json(breakdownDiff));
        m.put("differential", d);
      }
      out.println(Json.write(m));
    } else {
      print(out, trace, a, ceilings, run.breakdown().window());
      BreakdownOutput.print(out, run.breakdown(), ties);
      out.println();
      run.host().print(out);
      out.flush();
      if (diff != null) {
        print(out, before, diff);
        BreakdownOutput.print(out, breakdownDiff);
      }
      out.flush();
    }
    return Main.OK;
  }

  /** An analyzed trace window, the ceilings it was judged against, its breakdowns and its host side. */
  private record Loaded(Analysis.Result analysis, Ceilings.Choice ceilings, Breakdown breakdown, HostSide host) {}

  /**
   * Reads {@code trace} (a .gtrace, a Kineto JSON trace or an nsys export), attaches {@code ncuCsv}'s bytes when
   * given, and analyzes it with the ceilings of its device; {@code what} prefixes the messages of a trace that cannot
   * be read.
   */
  private Loaded load(CommandLine cl, Path trace, Path ncuCsv, String what) throws IOException {
    List<TraceRecord> records = new ArrayList<>();
    TraceMeta meta;
    Path tmp = null;
    List<String> notes = List.of();
    try {
      Path gtrace = trace;
      if (NsysImport.isExport(trace)) {
        tmp = Files.createTempFile("gitm-analyze-", ".gtrace");
        Files.delete(tmp);
        notes = NsysImporter.importTrace(trace, tmp).notes();
        gtrace = tmp;
      } else if (TraceFormat.KINETO.matches(trace)) {
        tmp = Files.createTempFile("gitm-analyze-", ".gtrace");
        Files.delete(tmp);
        notes = KinetoImporter.importTrace(trace, tmp).notes();
        gtrace = tmp;
      }
      try (TraceReader r = TraceReader.open(gtrace)) {
        meta = r.meta();
        r.read(records::add);
      }
    } catch (IOException e) {
      CliFailure f = TraceFiles.failure(trace, null, e);
      throw what.isEmpty() ? f : new CliFailure(what + f.getMessage(), e);
    } catch (IllegalArgumentException e) {
      throw new CliFailure(what + trace + ": " + e.getMessage(), e);
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
    if (ncuCsv != null) {
      if (!Files.isRegularFile(ncuCsv)) {
        throw new CommandLine.ParameterException(cl, "--ncu " + ncuCsv + ": no such file");
      }
      io.gitm.tracer.NcuTraffic.Attached traffic;
      try {
        traffic = io.gitm.tracer.NcuTraffic.attach(records, io.gitm.tracer.NcuTraffic.read(ncuCsv));
      } catch (io.gitm.tracer.NcuFormatException e) {
        throw new CliFailure(e.getMessage(), e);
      }
      records.removeIf(r -> r instanceof io.gitm.trace.TrafficRecord);
      records.addAll(traffic.records());
      List<String> all = new ArrayList<>(notes);
      all.addAll(traffic.notes());
      notes = all;
    }
    Window w;
    try {
      w = Window.of(window, records);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(cl, what + e.getMessage() + " (in " + trace + ")");
    }
    List<TraceRecord> selected = w.select(records);
    Ceilings.Choice ceilings = Ceilings.forTrace(meta, calibrated);
    Analysis.Result a = Analysis.analyze(meta, selected, ceilings.spec(), notes);
    return new Loaded(a, ceilings, Breakdown.ofSelected(w, selected), HostSide.of(records, w, selected));
  }

  /** The trace of {@code name}: a run folder, a trace file or a run id in the store; {@code what} prefixes errors. */
  private Path resolve(CommandLine cl, String name, String what) {
    Path p = Path.of(name);
    if (Files.isDirectory(p)) {
      Path t = p.resolve("trace.gtrace");
      if (!Files.isRegularFile(t)) {
        throw new CommandLine.ParameterException(cl, what + "the folder " + p + " holds no trace.gtrace (is it a run"
            + " folder?)");
      }
      return t;
    }
    if (Files.isRegularFile(p)) {
      return p;
    }
    if (!name.contains("/") && !name.contains(java.io.File.separator)) {
      Path run = storeOptions.root(cl).resolve("runs").resolve(name).resolve("trace.gtrace");
      if (Files.isRegularFile(run)) {
        return run;
      }
    }
    throw new CommandLine.ParameterException(cl, what + "no such run or trace: " + name);
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
    m.put("predictions", predictions(a));
    m.put("concurrentPairs", a.concurrentPairs());
    m.put("spanNs", a.spanNs());
    m.put("busyNs", a.busyNs());
    m.put("idle", a.idle());
    m.put("violations", a.violations());
    m.put("belowLowerBound", a.monitor().floors());
    m.put("iterations", a.monitor().iterations());
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

  /** The comparison with the baseline, as {@code --json} prints it under {@code differential}. */
  static Map<String, Object> differential(Path baseline, Differential.Result d) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("baseline", baseline.toString());
    m.put("unit", d.unit().name());
    m.put("baselineUnits", d.baselineUnits());
    m.put("runUnits", d.runUnits());
    m.put("baselineTimePerUnitNs", d.baselineTimePerUnit());
    m.put("runTimePerUnitNs", d.runTimePerUnit());
    m.put("timeChange", d.timeChange());
    m.put("addedByChanges", d.addedByChanges());
    m.put("notes", d.notes());
    List<Map<String, Object>> cs = new ArrayList<>();
    for (Differential.Change c : d.changes()) {
      Map<String, Object> x = new LinkedHashMap<>();
      x.put("cause", c.cause().name());
      x.put("label", c.cause().label());
      x.put("status", c.status().name());
      x.put("baselineLost", c.baselineLost());
      x.put("runLost", c.runLost());
      x.put("added", c.added());
      x.put("addedLow", c.addedLow());
      x.put("addedHigh", c.addedHigh());
      x.put("addedShare", c.addedShare());
      x.put("confidence", c.confidence());
      x.put("score", c.score());
      cs.add(x);
    }
    m.put("changes", cs);
    return m;
  }

  /** Every node: what it is, its bounds and their basis, and its residual (duration less tracer time, less upper). */
  static List<Map<String, Object>> nodes(Analysis.Result a) {
    List<Map<String, Object>> out = new ArrayList<>(a.graph().nodes().size());
    double[] residual = a.monitor().residualNs();
    for (Graph.Node n : a.graph().nodes()) {
      Map<String, Object> x = new LinkedHashMap<>();
      x.put("index", n.index());
      x.put("kind", n.kind().name());
      x.put("name", n.name());
      x.put("device", n.device());
      x.put("stream", n.stream());
      x.put("correlationId", n.correlationId());
      x.put("startNs", n.startNs());
      x.put("durationNs", n.durationNs());
      x.put("lowerNs", n.lowerNs());
      x.put("upperNs", n.upperNs());
      x.put("residualNs", residual[n.index()]);
      x.put("basis", n.basis().name());
      if (!n.peers().isEmpty()) {
        x.put("peers", n.peers());
      }
      out.add(x);
    }
    return out;
  }

  /** Streams listed by the text output, most idle first. */
  static final int STREAMS = 8;

  /** Per subject (kernel name, copy kind, memset) and basis: how many operations, and the peers where it has them. */
  static List<Map<String, Object>> predictions(Analysis.Result a) {
    Map<String, Map<String, Object>> by = new LinkedHashMap<>();
    for (Graph.Node n : a.graph().nodes()) {
      Map<String, Object> p = by.computeIfAbsent(n.kind() + "\u0000" + n.name() + "\u0000" + n.basis(), k -> {
        Map<String, Object> x = new LinkedHashMap<>();
        x.put("subject", n.name());
        x.put("kind", n.kind().name());
        x.put("basis", n.basis().name());
        x.put("label", n.basis().label());
        x.put("modelBased", n.basis().modelBased());
        x.put("count", 0);
        if (!n.peers().isEmpty()) {
          x.put("peers", n.peers());
        }
        return x;
      });
      p.put("count", (Integer) p.get("count") + 1);
    }
    return new ArrayList<>(by.values());
  }

  private void print(PrintWriter out, Path trace, Analysis.Result a, Ceilings.Choice c, Window w) {
    out.println("trace     " + trace + " [" + (a.meta().kind() == io.gitm.trace.DeviceKind.SIMULATED
        ? "SIMULATED device" : "real device") + "]");
    out.println("ceilings  " + c.note());
    out.println("window    " + Terminal.safe(w.description()));
    for (String d : a.diagnostics()) {
      out.println("note      " + Terminal.safe(d));
    }
    out.printf(Locale.ROOT, "graph     %d operations (%d model-based, %d empirical), %d predicted-concurrent pairs%n",
        a.nodes(), a.modelNodes(), a.nodes() - a.modelNodes(), a.concurrentPairs());
    a.byBasis().forEach((b, kinds) -> out.printf(Locale.ROOT, "basis     %-40s %s%n", b.label() + ":",
        kinds.entrySet().stream().map(e -> e.getValue() + " " + switch (e.getKey()) {
          case KERNEL -> e.getValue() == 1 ? "kernel" : "kernels";
          case COPY -> e.getValue() == 1 ? "copy" : "copies";
          case MEMSET -> e.getValue() == 1 ? "memset" : "memsets";
        }).collect(java.util.stream.Collectors.joining(", "))));
    for (Map<String, Object> p : predictions(a)) {
      if (p.get("basis").equals(Graph.Basis.PEERS.name())) {
        out.println("peers     '" + Terminal.safe(p.get("subject")) + "' (" + p.get("count") + "×) from "
            + Terminal.safe(p.get("peers")));
      }
    }
    if (a.spanNs() > 0) {
      Monitor.Idle i = a.idle();
      out.printf(Locale.ROOT, "time      span %.3f ms, device busy %.1f%%%n", a.spanNs() / 1e6,
          100.0 * a.busyNs() / a.spanNs());
      out.printf(Locale.ROOT, "idle      %.3f ms (HTA's categories): host wait %.3f ms (host blocked in syncs %.3f ms,"
          + " allocations %.3f ms, blocking copies %.3f ms), kernel wait %.3f ms (gaps up to %.1f µs), other %.3f ms;"
          + " tracer overhead taken out %.3f ms%n", i.totalNs() / 1e6, i.hostWaitNs() / 1e6, i.hostSyncNs() / 1e6,
          i.hostAllocNs() / 1e6, i.hostCopyNs() / 1e6, i.kernelWaitNs() / 1e6, i.thresholdNs() / 1e3,
          i.otherNs() / 1e6, i.overheadNs() / 1e6);
      List<Monitor.Part> streams = new ArrayList<>(i.streams());
      streams.sort(java.util.Comparator.comparingLong(Monitor.Part::totalNs).reversed());
      for (Monitor.Part p : streams.subList(0, Math.min(STREAMS, streams.size()))) {
        out.printf(Locale.ROOT, "  stream  device %d stream %d: idle %.3f ms = host wait %.3f + kernel wait %.3f +"
            + " other %.3f ms%n", p.device(), p.stream(), p.totalNs() / 1e6, p.hostWaitNs() / 1e6,
            p.kernelWaitNs() / 1e6, p.otherNs() / 1e6);
      }
      if (streams.size() > STREAMS) {
        out.println("  (" + (streams.size() - STREAMS) + " more streams in --json)");
      }
    }
    List<Monitor.Iteration> its = a.monitor().iterations();
    if (!its.isEmpty()) {
      double[] excess = its.stream().mapToDouble(Monitor.Iteration::excessNs).toArray();
      Monitor.Iteration worst = its.stream().max(java.util.Comparator.comparingDouble(Monitor.Iteration::excessNs))
          .orElseThrow();
      out.printf(Locale.ROOT, "iterations %d marked; time beyond upper bounds per iteration: median %.3f ms, most %.3f"
          + " ms (%s, %d of %d operations beyond); the series is in --json%n", its.size(),
          Sample.upperMedian(excess) / 1e6, worst.excessNs() / 1e6, Terminal.safe(worst.name()), worst.beyond(),
          worst.ops());
    }
    out.println();
    out.println("violations (" + a.violations().size() + ")");
    if (a.violations().isEmpty()) {
      out.println("  none");
    }
    for (Violation v : a.violations().subList(0, Math.min(top, a.violations().size()))) {
      out.printf(Locale.ROOT, "  %-18s %s: %d of %d, %.2f× the bound, %.3f ms beyond it [%s]%n",
          v.invariant().name(), Terminal.safe(v.subject()), v.count(), v.of(), v.howFar(), v.excessNs() / 1e6,
          v.basis());
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
        out.println("       - " + Terminal.safe(e.summary()));
      }
    }
    out.flush();
  }

  /** A lost time per the comparison's unit: µs per iteration or kernel, or a share of the span. */
  private static String lost(Differential.Unit u, double v, boolean sign) {
    return u == Differential.Unit.SPAN ? String.format(Locale.ROOT, sign ? "%+.2f%%" : "%.2f%%", v * 100)
        : String.format(Locale.ROOT, sign ? "%+.2f µs" : "%.2f µs", v / 1e3);
  }

  private static void print(PrintWriter out, Path baseline, Differential.Result d) {
    Differential.Unit u = d.unit();
    String per = u == Differential.Unit.SPAN ? " of the span" : " per " + u.label();
    out.println();
    out.println("differential against " + baseline);
    out.printf(Locale.ROOT, "  time %s: %.3f ms in the baseline, %.3f ms in this run (%+.1f%%)%n",
        u == Differential.Unit.SPAN ? "of the span" : "per " + u.label(), d.baselineTimePerUnit() / 1e6,
        d.runTimePerUnit() / 1e6, d.timeChange() * 100);
    for (String n : d.notes()) {
      out.println("  note " + Terminal.safe(n));
    }
    List<Differential.Change> ranked = d.ranked();
    out.printf(Locale.ROOT, "changes (%d new or grown, ranked by added lost time × confidence; together they add"
        + " %+.1f%% of the baseline's time%s, which changed %+.1f%%)%n", ranked.size(), d.addedByChanges() * 100, per,
        d.timeChange() * 100);
    if (ranked.isEmpty()) {
      out.println("  none: no cause is new or grew significantly");
    }
    int i = 1;
    for (Differential.Change c : d.changes()) {
      String head = c.changed() ? String.format(Locale.ROOT, "  %d. ", i++) : "  -  ";
      out.printf(Locale.ROOT, "%s%-28s %-8s %s%s [%s, %s]: %s → %s; %+.1f%% of the baseline's time, confidence"
          + " %.2f%n", head, c.cause().label(), c.status().name(), lost(u, c.added(), true), per,
          lost(u, c.addedLow(), true), lost(u, c.addedHigh(), true), lost(u, c.baselineLost(), false),
          lost(u, c.runLost(), false), c.addedShare() * 100, c.confidence());
    }
    out.flush();
  }
}
