package io.gitm.cli;

import io.gitm.analysis.breakdown.Window;
import io.gitm.trace.ClockDomain;
import io.gitm.trace.CopyKind;
import io.gitm.trace.TraceDevice;
import io.gitm.trace.TraceMeta;
import io.gitm.tracer.KinetoImporter;
import io.gitm.tracer.TraceSummary;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code gitm trace info FILE [--json]}: what a trace holds. */
@Command(name = "info", mixinStandardHelpOptions = true,
    description = "Summarize a gitm trace: meta, record counts by type, time span, devices and streams, "
        + "top kernels by total time.")
final class TraceInfoCommand implements Callable<Integer> {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Parameters(index = "0", paramLabel = "TRACE", completionCandidates = TraceFormat.Native.class,
      description = "The trace: ${COMPLETION-CANDIDATES}.")
  Path input;

  @Option(names = "--top", paramLabel = "N", defaultValue = "10",
      description = "How many kernels to list by total time (default: ${DEFAULT-VALUE}).")
  int top;

  @Option(names = "--window", paramLabel = "steps|all|FROM:TO", description = "Summarize a part of the trace, as"
      + " gitm analyze takes it: steps (every ProfilerStep but the last, partial one), all, or FROM:TO in step numbers"
      + " (2:4) or in times from the trace's first record with a unit (0ms:20ms). Default: the whole file.")
  String window;

  @Option(names = "--json", description = "Print the summary as JSON.")
  boolean json;

  /** The window summarized, in words. */
  private String windowDescription = "the whole file (no --window)";

  @Override
  public Integer call() {
    CommandLine cl = spec.commandLine();
    if (top < 0) {
      throw new CommandLine.ParameterException(cl, "--top must be 0 or more, got " + top);
    }
    TraceFiles.requireInput(cl, input);
    TraceSummary s;
    try {
      s = window == null ? TraceSummary.of(input, top) : TraceSummary.of(input, top, records -> {
        Window w = Window.of(window, records);
        windowDescription = w.description();
        return w.select(records);
      });
    } catch (IOException e) {
      throw TraceFiles.failure(input, null, e);
    } catch (IllegalArgumentException e) {
      if (window == null) {
        throw e;
      }
      throw new CommandLine.ParameterException(cl, "--window " + window + ": " + Main.oneLine(e.getMessage()) + " (in "
          + input + ")");
    }
    PrintWriter out = cl.getOut();
    if (json) {
      out.println(Json.write(asMap(s)));
    } else {
      print(out, s);
    }
    return Main.OK;
  }

  private Map<String, Object> asMap(TraceSummary s) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("file", input.toString());
    m.put("bytes", s.fileBytes());
    m.put("blocks", s.blocks());
    TraceMeta meta = s.meta();
    Map<String, Object> mm = new LinkedHashMap<>();
    mm.put("source", meta.source());
    mm.put("clock", meta.clock().name());
    mm.put("deviceKind", meta.kind().name());
    mm.put("devices", meta.devices());
    mm.put("attributes", new TreeMap<>(meta.attributes()));
    m.put("meta", mm);
    m.put("window", windowDescription);
    m.put("notImported", notImported(meta));
    m.put("records", s.records());
    m.put("recordCounts", s.recordCounts());
    m.put("firstNs", s.firstNs());
    m.put("lastNs", s.lastNs());
    m.put("spanNs", s.spanNs());
    Map<String, Object> streams = new LinkedHashMap<>();
    s.streamsByDevice().forEach((d, st) -> streams.put(Integer.toString(d), List.copyOf(st)));
    m.put("streamsByDevice", streams);
    m.put("hostThreads", s.hostThreads());
    m.put("copyBytes", s.copyBytes());
    m.put("kernelNs", s.kernelNs());
    List<Map<String, Object>> kernels = new ArrayList<>();
    for (TraceSummary.KernelStat k : s.topKernels()) {
      Map<String, Object> km = new LinkedHashMap<>();
      km.put("name", k.name());
      km.put("count", k.count());
      km.put("totalNs", k.totalNs());
      km.put("meanNs", k.meanNs());
      km.put("minNs", k.minNs());
      km.put("maxNs", k.maxNs());
      kernels.add(km);
    }
    m.put("topKernels", kernels);
    return m;
  }

  private void print(PrintWriter out, TraceSummary s) {
    TraceMeta meta = s.meta();
    out.printf("trace        %s (%s, %d blocks)%n", input, bytes(s.fileBytes()), s.blocks());
    out.printf("source       %s; clock %s; %s device%n",
        meta.source().isEmpty() ? "(none)" : Terminal.safe(meta.source()),
        meta.clock(), meta.kind().label());
    Map<Integer, TraceDevice> named = new LinkedHashMap<>();
    meta.devices().forEach(d -> named.put(d.index(), d));
    if (s.streamsByDevice().isEmpty()) {
      out.println("devices      none");
    }
    boolean first = true;
    for (Map.Entry<Integer, SortedSet<Integer>> e : s.streamsByDevice().entrySet()) {
      TraceDevice d = named.get(e.getKey());
      String name = d == null || d.name().isEmpty() ? "" : " " + Terminal.safe(d.name());
      String kind = d == null ? "" : " (" + d.kind().label() + ")";
      String streams = e.getValue().isEmpty() ? "no streams" : "streams " + e.getValue().stream()
          .map(String::valueOf).collect(Collectors.joining(", "));
      out.printf("%s %d%s%s: %s%n", first ? "devices     " : "            ", e.getKey(), name, kind, streams);
      first = false;
    }
    Map<String, Long> notImported = notImported(meta);
    if (!notImported.isEmpty()) {
      out.printf("not imported %s%n", Terminal.safe(TraceImportCommand.notImported(notImported)));
    }
    out.printf("window       %s%n", Terminal.safe(windowDescription));
    out.printf("records      %d: %s%n", s.records(), s.recordCounts().entrySet().stream()
        .map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining(", ")));
    if (s.records() > 0) {
      out.printf("span         %s, from %s to %s%n", duration(s.spanNs()), time(meta.clock(), s.firstNs()),
          time(meta.clock(), s.lastNs()));
      out.printf("host threads %d%n", s.hostThreads());
      if (!s.copyBytes().isEmpty()) {
        out.printf("copies       %s%n", s.copyBytes().entrySet().stream()
            .map(e -> label(e.getKey()) + " " + bytes(e.getValue())).collect(Collectors.joining(", ")));
      }
      out.printf("kernel time  %s (summed over kernels)%n", duration(s.kernelNs()));
    }
    if (!s.topKernels().isEmpty()) {
      out.printf("top kernels by total time:%n");
      out.printf("  %12s %5s %8s %12s  %s%n", "total", "%", "count", "mean", "name");
      for (TraceSummary.KernelStat k : s.topKernels()) {
        double share = s.kernelNs() == 0 ? 0 : 100.0 * k.totalNs() / s.kernelNs();
        out.printf(Locale.ROOT, "  %12s %5.1f %8d %12s  %s%n", duration(k.totalNs()), share, k.count(),
            duration(Math.round(k.meanNs())), abbreviate(Terminal.safe(k.name()), 120));
      }
    }
  }

  /** The events an importer left out, as it counted them in the meta ({@link KinetoImporter#NOT_IMPORTED}). */
  static Map<String, Long> notImported(TraceMeta meta) {
    Map<String, Long> m = new TreeMap<>();
    meta.attributes().forEach((k, v) -> {
      if (k.startsWith(KinetoImporter.NOT_IMPORTED)) {
        try {
          m.put(k.substring(KinetoImporter.NOT_IMPORTED.length()), Long.parseLong(v));
        } catch (NumberFormatException e) {
          // not a count: not one of the importer's
        }
      }
    });
    return m;
  }

  private static String label(CopyKind k) {
    return switch (k) {
      case HTOD -> "HtoD";
      case DTOH -> "DtoH";
      case DTOD -> "DtoD";
      case HTOH -> "HtoH";
      case PTOP -> "PtoP";
      case UNKNOWN -> "unknown";
    };
  }

  private static String time(ClockDomain clock, long ns) {
    if (clock == ClockDomain.UNIX_EPOCH) {
      return Instant.ofEpochSecond(Math.floorDiv(ns, 1_000_000_000L), Math.floorMod(ns, 1_000_000_000L)).toString();
    }
    return ns + " ns";
  }

  static String duration(long ns) {
    long a = Math.abs(ns);
    if (a < 1_000) {
      return ns + " ns";
    }
    if (a < 1_000_000) {
      return String.format(Locale.ROOT, "%.3f us", ns / 1e3);
    }
    if (a < 1_000_000_000) {
      return String.format(Locale.ROOT, "%.3f ms", ns / 1e6);
    }
    return String.format(Locale.ROOT, "%.3f s", ns / 1e9);
  }

  static String bytes(long b) {
    if (b < 1024) {
      return b + " B";
    }
    String[] units = {"KiB", "MiB", "GiB", "TiB"};
    double v = b;
    int u = -1;
    while (v >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return String.format(Locale.ROOT, "%.1f %s", v, units[u]);
  }

  private static String abbreviate(String s, int max) {
    return s.length() <= max ? s : s.substring(0, max - 3) + "...";
  }
}
