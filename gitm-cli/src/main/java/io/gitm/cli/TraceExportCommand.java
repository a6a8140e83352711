package io.gitm.cli;

import io.gitm.tracer.PerfettoExporter;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code gitm trace export --perfetto IN.gtrace [-o OUT.json]}. */
@Command(name = "export", mixinStandardHelpOptions = true,
    description = {"Export a gitm trace to Chrome/Perfetto trace-event JSON (open it at https://ui.perfetto.dev).",
        "Devices become processes, streams become tracks of kernel/copy/memset slices, host threads carry the API "
            + "calls, state samples become counters."})
final class TraceExportCommand implements Callable<Integer> {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Option(names = "--perfetto", completionCandidates = TraceFormat.Exportable.class,
      description = "Write ${COMPLETION-CANDIDATES}, the only export format.")
  boolean perfetto;

  @Parameters(index = "0", paramLabel = "TRACE", completionCandidates = TraceFormat.Native.class,
      description = "The trace to export: ${COMPLETION-CANDIDATES}.")
  Path input;

  @Option(names = {"-o", "--output"}, paramLabel = "FILE",
      description = "Where to write the JSON (default: TRACE with .gtrace replaced by .perfetto.json).")
  Path output;

  @Override
  public Integer call() {
    CommandLine cl = spec.commandLine();
    if (!perfetto) {
      throw new CommandLine.ParameterException(cl, "choose an export format: --perfetto");
    }
    TraceFiles.requireInput(cl, input);
    Path out = output != null ? output
        : input.resolveSibling(
            TraceFiles.stripExtensions(input.getFileName().toString(), ".gtrace") + ".perfetto.json");
    TraceFiles.requireOutput(cl, input, out);
    PerfettoExporter.Result r;
    try {
      r = PerfettoExporter.export(input, out);
    } catch (IOException e) {
      throw TraceFiles.failure(input, out, e);
    }
    cl.getOut().println("wrote " + out + ": " + r.events() + " trace events from " + r.records()
        + " records; open it at https://ui.perfetto.dev");
    return Main.OK;
  }
}
