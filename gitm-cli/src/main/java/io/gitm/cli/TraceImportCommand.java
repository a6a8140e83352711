package io.gitm.cli;

import io.gitm.trace.TraceDevice;
import io.gitm.tracer.KinetoImporter;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code gitm trace import KINETO.json|REPORT.sqlite [-o OUT.gtrace]}. */
@Command(name = "import", mixinStandardHelpOptions = true,
    description = {"Import a PyTorch profiler (Kineto) JSON trace, plain or .gz, or an Nsight Systems export (nsys "
        + "export --type sqlite, found by its SQLite header) into a gitm trace.",
        "GPU kernels, memcpy/memset, CUDA runtime/driver calls (with correlation ids), synchronizations and "
            + "ProfilerStep (or NVTX) markers are imported; fields missing from the trace are counted and reported,"
            + " and so are ids that do not fit (imported as none) and the events not imported, by category.",
        "A trace without a kernel, memcpy or memset is refused (exit 1), saying what it holds."})
final class TraceImportCommand implements Callable<Integer> {
  /** The unit of ts/dur on the command line. */
  enum Unit {
    auto, us, ns
  }

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Parameters(index = "0", paramLabel = "TRACE", completionCandidates = TraceFormat.Importable.class,
      description = "The trace to import: ${COMPLETION-CANDIDATES}.")
  Path input;

  @Option(names = {"-o", "--output"}, paramLabel = "FILE",
      description = "Where to write the trace (default: the input's name with .gtrace).")
  Path output;

  @Option(names = "--ts-unit", paramLabel = "UNIT", defaultValue = "auto",
      description = {"Unit of ts/dur in the input: us (the trace-event format's, what Kineto writes), ns, or auto "
          + "(default: us, unless the times cannot be microseconds, then ns)."})
  Unit unit;

  @Option(names = "--json", description = "Print the import report as JSON.")
  boolean json;

  @Override
  public Integer call() {
    CommandLine cl = spec.commandLine();
    TraceFiles.requireInput(cl, input);
    if (NsysImport.isExport(input)) {
      if (unit != Unit.auto) {
        throw new CommandLine.ParameterException(cl, "--ts-unit applies to Kineto JSON only: an Nsight Systems"
            + " export states its times in nanoseconds");
      }
      Path nsysOut = output != null ? output : NsysImport.defaultOutput(input);
      TraceFiles.requireOutput(cl, input, nsysOut);
      return NsysImport.importAndReport(cl.getOut(), input, nsysOut, json);
    }
    Path out = output != null ? output : input.resolveSibling(TraceFiles.stripExtensions(
        input.getFileName().toString(), ".gz", ".json", ".pt.trace") + ".gtrace");
    TraceFiles.requireOutput(cl, input, out);
    KinetoImporter.Result r;
    try {
      r = KinetoImporter.importTrace(input, out, switch (unit) {
        case auto -> KinetoImporter.TimeUnit.AUTO;
        case us -> KinetoImporter.TimeUnit.MICROSECONDS;
        case ns -> KinetoImporter.TimeUnit.NANOSECONDS;
      });
    } catch (IOException e) {
      throw TraceFiles.failure(input, out, e);
    } catch (IllegalArgumentException e) {
      throw new CliFailure(input + ": " + e.getMessage() + "; nothing was written", e);
    }
    PrintWriter pw = cl.getOut();
    if (json) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("input", input.toString());
      m.put("output", out.toString());
      m.put("events", r.events());
      m.put("records", r.recordCount());
      m.put("recordsByType", r.records());
      m.put("clock", r.meta().clock().name());
      m.put("devices", r.meta().devices());
      m.put("missing", r.missing());
      m.put("skipped", r.skipped());
      m.put("ignored", r.ignored());
      Map<String, String> why = new LinkedHashMap<>();
      r.ignored().keySet().forEach(k -> why.put(k, KinetoImporter.whyNotImported(k)));
      m.put("ignoredWhy", why);
      m.put("mapped", r.mapped());
      pw.println(Json.write(m));
      return Main.OK;
    }
    pw.println("imported " + input + " into " + out + ": " + r.recordCount() + " records from " + r.events()
        + " events" + (r.records().isEmpty() ? "" : " (" + counts(r.records()) + ")"));
    pw.println("clock " + r.meta().clock() + "; devices: " + (r.meta().devices().isEmpty() ? "none"
        : r.meta().devices().stream().map(TraceImportCommand::device).collect(Collectors.joining(", "))));
    if (!r.missing().isEmpty()) {
      pw.println("missing fields, stored as unknown: " + Terminal.safe(counts(r.missing())));
    }
    if (!r.mapped().isEmpty()) {
      pw.println("ids that do not fit, imported as -1 (none): " + Terminal.safe(counts(r.mapped())));
    }
    if (!r.skipped().isEmpty()) {
      pw.println("skipped events: " + Terminal.safe(counts(r.skipped())));
    }
    if (!r.ignored().isEmpty()) {
      pw.println("not imported: " + Terminal.safe(notImported(r.ignored())));
    }
    return Main.OK;
  }

  private static String device(TraceDevice d) {
    return d.index() + (d.name().isEmpty() ? "" : " " + Terminal.safe(d.name()));
  }

  /** Events not imported, each with what they are: {@code cat cpu_op 12 (CPU operators)}. */
  static String notImported(Map<String, Long> m) {
    return m.entrySet().stream().map(e -> e.getKey() + " " + e.getValue() + " ("
        + KinetoImporter.whyNotImported(e.getKey()) + ")").collect(Collectors.joining(", "));
  }

  private static String counts(Map<String, Long> m) {
    return m.entrySet().stream().map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining(", "));
  }
}
