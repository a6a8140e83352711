package io.gitm.cli;

import io.gitm.trace.TraceDevice;
import io.gitm.tracer.NsysImporter;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The CLI's side of Nsight Systems exports: which inputs are one (the SQLite header, or the name for a file that
 * claims to be one), and {@code gitm trace import}'s report of an import.
 */
final class NsysImport {
  private NsysImport() {}

  /**
   * Whether {@code file} is to be read as an nsys export: it starts with the SQLite header, or it is named
   * {@code .sqlite} (then the importer says what it is instead). An nsys report ({@code .nsys-rep}, {@code .qdrep})
   * is a failure that says how to export it.
   */
  static boolean isExport(Path file) {
    String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
    if (name.endsWith(".nsys-rep") || name.endsWith(".qdrep")) {
      throw new CliFailure(file + ": an Nsight Systems report, which gitm reads once exported to SQLite: run 'nsys"
          + " export --type sqlite " + file + "' and give gitm the .sqlite file");
    }
    try {
      return NsysImporter.isSqlite(file) || name.endsWith(".sqlite");
    } catch (IOException e) {
      return name.endsWith(".sqlite");
    }
  }

  /** The default output of importing {@code input}: its name without {@code .sqlite}, with {@code .gtrace}. */
  static Path defaultOutput(Path input) {
    return input.resolveSibling(TraceFiles.stripExtensions(input.getFileName().toString(), ".sqlite") + ".gtrace");
  }

  /** Imports {@code input} into {@code out} and prints the report; failures are one line (exit 1). */
  static int importAndReport(PrintWriter pw, Path input, Path out, boolean json) {
    NsysImporter.Result r;
    try {
      r = NsysImporter.importTrace(input, out);
    } catch (IOException e) {
      throw TraceFiles.failure(input, out, e);
    } catch (IllegalArgumentException e) {
      throw new CliFailure(input + ": " + e.getMessage() + "; nothing was written", e);
    }
    if (json) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("input", input.toString());
      m.put("output", out.toString());
      m.put("format", "nsys");
      m.put("schemaVersion", r.schemaVersion());
      m.put("nsysVersion", r.productVersion());
      m.put("rows", r.rows());
      m.put("records", r.recordCount());
      m.put("recordsByType", r.records());
      m.put("clock", r.meta().clock().name());
      m.put("devices", r.meta().devices());
      m.put("missing", r.missing());
      m.put("skipped", r.skipped());
      m.put("ignored", r.ignored());
      pw.println(Json.write(m));
      return Main.OK;
    }
    pw.println("imported " + input + " (Nsight Systems export, schema " + (r.schemaVersion().isEmpty() ? "not stated"
        : r.schemaVersion()) + ") into " + out + ": " + r.recordCount() + " records from " + r.rows() + " rows"
        + (r.records().isEmpty() ? "" : " (" + counts(r.records()) + ")"));
    pw.println("clock " + r.meta().clock() + "; devices: " + (r.meta().devices().isEmpty() ? "none"
        : r.meta().devices().stream().map(NsysImport::device).collect(Collectors.joining(", "))));
    if (!r.missing().isEmpty()) {
      pw.println("missing fields, stored as unknown: " + Terminal.safe(counts(r.missing())));
    }
    if (!r.skipped().isEmpty()) {
      pw.println("skipped rows: " + Terminal.safe(counts(r.skipped())));
    }
    if (!r.ignored().isEmpty()) {
      pw.println("not imported: " + Terminal.safe(counts(r.ignored())));
    }
    return Main.OK;
  }

  private static String device(TraceDevice d) {
    return d.index() + (d.name().isEmpty() ? "" : " " + Terminal.safe(d.name()));
  }

  private static String counts(Map<String, Long> m) {
    return m.entrySet().stream().map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining(", "));
  }
}
