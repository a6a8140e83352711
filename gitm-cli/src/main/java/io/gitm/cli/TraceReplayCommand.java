package io.gitm.cli;

import io.gitm.sim.Replay;
import io.gitm.sim.SimSpec;
import io.gitm.trace.ClockDomain;
import io.gitm.trace.DeclaredWork;
import io.gitm.trace.DeviceKind;
import io.gitm.trace.Precision;
import io.gitm.trace.TraceChange;
import io.gitm.trace.TraceChange.CopiesOnSideStream;
import io.gitm.trace.TraceChange.DeviceFaults;
import io.gitm.trace.TraceChange.GraphLaunches;
import io.gitm.trace.TraceChange.HostGapScale;
import io.gitm.trace.TraceChange.KernelPrecision;
import io.gitm.trace.TraceChange.PinnedCopies;
import io.gitm.trace.TraceChange.PoolAllocations;
import io.gitm.trace.TraceDevice;
import io.gitm.trace.TraceMeta;
import io.gitm.trace.TraceRecord;
import io.gitm.tracer.TraceReader;
import io.gitm.tracer.TraceWriter;
import java.io.IOException;
import java.io.PrintWriter;
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

/**
 * {@code gitm trace replay TRACE [--preset P] [--change C,...] [--faults SPEC] [--seconds S] [--out FILE]}: the
 * simulated device driven by a recorded trace. The trace's host program (its API calls and the host time between
 * them) is re-issued on a simulated device of the preset, each kernel timed from the work its launch declared (else
 * its observed duration), optionally under a changed configuration; with {@code --seconds} the program runs over and
 * over on one device until that much simulated time has passed, which times the simulator itself.
 */
@Command(name = "replay", mixinStandardHelpOptions = true,
    description = {"Re-time a recorded gitm trace on the simulated device (trace-driven simulation), as it was or "
        + "under a changed configuration, and say what it would cost.",
        "Kernels are timed from the work their launches declared (recorded by gitm's runtime facade), else they keep "
            + "their observed duration. Needs the trace's host API calls (a gitm run or injection trace; an "
            + "imported PyTorch profiler trace has them too)."})
final class TraceReplayCommand implements Callable<Integer> {
  /** The configuration changes {@code --change} takes. */
  static final List<String> CHANGES = List.of("pinned-copies", "pool-allocations", "graph-launches",
      "side-stream-copies", "tf32", "bf16", "host-gaps=F");

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Parameters(index = "0", paramLabel = "TRACE", completionCandidates = TraceFormat.Native.class,
      description = "The trace to replay: ${COMPLETION-CANDIDATES}.")
  Path input;

  @Option(names = "--preset", paramLabel = "NAME", defaultValue = "h200",
      description = "The simulated device: h200, h100 or a100 (default: ${DEFAULT-VALUE}).")
  String preset;

  @Option(names = "--change", paramLabel = "CHANGE", split = ",",
      description = "Replay under these changes: pinned-copies, pool-allocations, graph-launches, "
          + "side-stream-copies, tf32, bf16 (FP32 kernels in that precision), host-gaps=F (the host time between "
          + "calls times F).")
  List<String> changes = new ArrayList<>();

  @Option(names = "--faults", paramLabel = "SPEC", defaultValue = "",
      description = "Faults of the replaying device, as for gitm run --faults (default: none).")
  String faults;

  @Option(names = "--seconds", paramLabel = "S", defaultValue = "0",
      description = "Also run the trace's host program over and over on one simulated device (the job iterating) "
          + "until S simulated seconds have passed, and report the simulator's speed (default: not run).")
  double seconds;

  @Option(names = "--seed", paramLabel = "N", defaultValue = "1", description = "The first replay's seed.")
  long seed;

  @Option(names = {"-o", "--out"}, paramLabel = "FILE",
      description = "Also write the first replay's records as a gitm trace (labelled simulated).")
  Path out;

  @Option(names = "--json", description = "Print the result as JSON.")
  boolean json;

  @Override
  public Integer call() {
    CommandLine cl = spec.commandLine();
    if (!(seconds >= 0) || Double.isInfinite(seconds) || seconds > 86_400) {
      throw new CommandLine.ParameterException(cl, "--seconds must be between 0 and 86400, got " + seconds);
    }
    SimSpec device;
    try {
      device = SimSpec.preset(preset);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(cl, e.getMessage());
    }
    TraceChange change = change(cl, changes).with(new DeviceFaults(faults));
    TraceFiles.requireInput(cl, input);
    if (out != null) {
      TraceFiles.requireOutput(cl, input, out);
    }
    List<TraceRecord> trace = new ArrayList<>();
    TraceMeta meta;
    try (TraceReader r = TraceReader.open(input)) {
      meta = r.meta();
      r.forEach(trace::add);
    } catch (IOException e) {
      throw TraceFiles.failure(input, null, e);
    }
    Replay replay;
    try {
      replay = Replay.of(trace, DeclaredWork.of(trace));
    } catch (IllegalArgumentException e) {
      throw new CliFailure(input + ": " + e.getMessage());
    }
    long declared = trace.stream().filter(t -> t instanceof io.gitm.trace.WorkRecord).count();
    trace = null;
    Replay.Prediction unchanged;
    Replay.Prediction first;
    try {
      // the baseline is the trace as it was, on a device without faults; the faults belong to the change
      unchanged = replay.predict(device, TraceChange.none(), seed);
      first = change.equals(TraceChange.none()) ? unchanged : replay.predict(device, change, seed);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(cl, e.getMessage());
    }
    if (out != null) {
      write(first);
    }
    // the simulator's speed: the trace's host program over and over on one device (the job iterating) until the
    // simulated time is reached
    long wall0 = System.nanoTime();
    Replay.Loop loop = null;
    if (seconds > 0) {
      loop = replay.loop(device, change, seed + 1, (long) (seconds * 1e9), r -> { });
    }
    double wall = (System.nanoTime() - wall0) / 1e9;
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("trace", input.toString());
    doc.put("traceDevice", meta.kind().label());
    doc.put("source", meta.source());
    doc.put("preset", device.preset());
    doc.put("changes", List.copyOf(changes));
    doc.put("faults", faults);
    doc.put("declaredWorkRecords", declared);
    doc.put("observedNs", replay.observedNs());
    doc.put("unchangedNs", unchanged.totalNs());
    doc.put("modelError", replay.observedNs() == 0 ? null
        : (unchanged.totalNs() - replay.observedNs()) / (double) replay.observedNs());
    doc.put("changedNs", first.totalNs());
    doc.put("timeChange", (first.totalNs() - unchanged.totalNs()) / (double) Math.max(1, unchanged.totalNs()));
    if (loop != null) {
      doc.put("repetitions", loop.repetitions());
      doc.put("simulatedSeconds", loop.simulatedNs() / 1e9);
      doc.put("wallSeconds", wall);
      doc.put("simulatedSecondsPerWallSecond", loop.simulatedNs() / 1e9 / Math.max(1e-9, wall));
      doc.put("records", loop.records());
    }
    if (out != null) {
      doc.put("out", out.toString());
    }
    PrintWriter o = cl.getOut();
    if (json) {
      o.println(Json.write(doc));
    } else {
      print(o, doc, seconds > 0);
    }
    return Main.OK;
  }

  /** The change {@code names} describe; a usage error names an unknown one. */
  static TraceChange change(CommandLine cl, List<String> names) {
    TraceChange c = TraceChange.none();
    for (String raw : names) {
      String n = raw.strip().toLowerCase(Locale.ROOT);
      if (n.startsWith("host-gaps=")) {
        double f;
        try {
          f = Double.parseDouble(n.substring("host-gaps=".length()));
        } catch (NumberFormatException e) {
          f = Double.NaN;
        }
        if (!(f >= 0) || Double.isInfinite(f)) {
          throw new CommandLine.ParameterException(cl, "--change host-gaps takes a factor >= 0, got '" + raw + "'");
        }
        c = c.with(new HostGapScale(f));
        continue;
      }
      c = switch (n) {
        case "pinned-copies" -> c.with(new PinnedCopies());
        case "pool-allocations" -> c.with(new PoolAllocations());
        case "graph-launches" -> c.with(new GraphLaunches());
        case "side-stream-copies" -> c.with(new CopiesOnSideStream());
        case "tf32" -> c.with(new KernelPrecision(Precision.FP32, Precision.TF32));
        case "bf16" -> c.with(new KernelPrecision(Precision.FP32, Precision.BF16));
        default -> throw new CommandLine.ParameterException(cl, "unknown --change '" + raw + "'; known: "
            + String.join(", ", CHANGES));
      };
    }
    return c;
  }

  private void write(Replay.Prediction p) {
    TraceMeta m = new TraceMeta("gitm trace replay", ClockDomain.SIMULATED, List.of(new TraceDevice(0,
        "Simulated " + preset, "sim-" + preset, DeviceKind.SIMULATED)), Map.of("replayOf", input.toString(),
        "changes", String.join(",", changes), "faults", faults, "seed", Long.toString(seed)));
    try (TraceWriter w = TraceWriter.create(out, m)) {
      for (TraceRecord r : p.records()) {
        w.write(r);
      }
    } catch (IOException e) {
      throw TraceFiles.failure(input, out, e);
    }
  }

  private static void print(PrintWriter o, Map<String, Object> d, boolean timed) {
    o.printf(Locale.ROOT, "trace     %s (%s device, %s; %d declared-work records)%n", d.get("trace"),
        d.get("traceDevice"), d.get("source"), (Long) d.get("declaredWorkRecords"));
    o.printf(Locale.ROOT, "replay    on the simulated %s%s%s%n", d.get("preset"),
        ((List<?>) d.get("changes")).isEmpty() ? "" : ", changed: " + String.join(", ",
            ((List<?>) d.get("changes")).stream().map(String::valueOf).toList()),
        ((String) d.get("faults")).isEmpty() ? "" : ", faults: " + d.get("faults"));
    Object err = d.get("modelError");
    o.printf(Locale.ROOT, "observed  %.3f ms; replayed as it was %.3f ms%s%n", (Long) d.get("observedNs") / 1e6,
        (Long) d.get("unchangedNs") / 1e6, err == null ? "" : String.format(Locale.ROOT, " (%+.1f%%: the model's"
            + " error on this trace)", 100 * (Double) err));
    if (!((List<?>) d.get("changes")).isEmpty() || !((String) d.get("faults")).isEmpty()) {
      double tc = (Double) d.get("timeChange");
      o.printf(Locale.ROOT, "changed   %.3f ms: %+.1f%% time against the unchanged replay (%.3f× as fast)%n",
          (Long) d.get("changedNs") / 1e6, 100 * tc, 1 / (1 + tc));
    }
    if (timed) {
      o.printf(Locale.ROOT, "speed     %.1f simulated s in %.2f s wall: %.1f simulated s per wall s (the trace's"
          + " program %d times on one device, %,d records)%n", (Double) d.get("simulatedSeconds"),
          (Double) d.get("wallSeconds"), (Double) d.get("simulatedSecondsPerWallSecond"),
          (Integer) d.get("repetitions"), (Long) d.get("records"));
    }
    if (d.containsKey("out")) {
      o.println("wrote     " + d.get("out") + " (the first replay)");
    }
  }
}
