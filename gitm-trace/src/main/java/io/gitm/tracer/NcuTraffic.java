package io.gitm.tracer;

import io.gitm.stats.Sample;
import io.gitm.trace.Dim3;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.TraceRecord;
import io.gitm.trace.TrafficRecord;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.MappingIterator;
import tools.jackson.dataformat.csv.CsvMapper;
import tools.jackson.dataformat.csv.CsvReadFeature;

/**
 * Device-memory traffic measured by Nsight Compute ({@code ncu --csv}) attached to a trace's kernels, so the
 * memory-traffic invariant can be judged on a real GPU.
 *
 * <p>What {@code ncu} writes: with {@code --csv} (the "details" page), one row per profiled kernel execution and
 * metric, with the columns {@code ID}, {@code Kernel Name}, {@code Grid Size}, {@code Block Size}, {@code Metric Name},
 * {@code Metric Unit} and {@code Metric Value} among others, after {@code ==PROF==} lines; gitm reads
 * {@code dram__bytes_read.sum} and {@code dram__bytes_write.sum} (any byte unit, e.g. {@code --print-units base}),
 * and {@code gpu__time_duration.sum} when present.
 *
 * <p>Profiling replays each kernel, so {@code ncu} runs the job apart from its trace; kernels are matched to the
 * trace's by name, grid and block (the median bytes of that shape's profiled executions go to every execution of that
 * shape in the trace), else by name alone, which is said in the notes.
 */
public final class NcuTraffic {
  static final String READ = "dram__bytes_read.sum";
  static final String WRITE = "dram__bytes_write.sum";
  static final String DURATION = "gpu__time_duration.sum";

  private static final CsvMapper CSV = CsvMapper.builder().enable(CsvReadFeature.WRAP_AS_ARRAY).build();

  private NcuTraffic() {}

  /** One profiled kernel execution. */
  public record Profiled(long id, String name, Dim3 grid, Dim3 block, double bytesRead, double bytesWritten,
      double durationNs) {
  }

  /** The traffic records for {@code trace} and what was (not) matched. */
  public record Attached(List<TrafficRecord> records, List<String> notes) {
    public Attached {
      records = List.copyOf(records);
      notes = List.copyOf(notes);
    }
  }

  /**
   * Reads an {@code ncu --csv} file.
   *
   * @throws NcuFormatException naming the line when the file is not such a CSV, a value is not a number or a unit is
   *     unknown, or no row holds both DRAM byte metrics
   */
  public static List<Profiled> read(Path csv) {
    List<String> lines;
    try {
      lines = Files.readAllLines(csv, StandardCharsets.UTF_8);
    } catch (java.nio.charset.MalformedInputException e) {
      throw new NcuFormatException(csv + ": not UTF-8 text (an ncu --csv file is)");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    int header = -1;
    for (int i = 0; i < lines.size(); i++) {
      String l = lines.get(i);
      if (l.startsWith("\"") && l.contains("\"Metric Name\"") && l.contains("\"Metric Value\"")
          && l.contains("\"Kernel Name\"")) {
        header = i;
        break;
      }
    }
    if (header < 0) {
      throw new NcuFormatException(csv + ": no ncu --csv header (a line naming \"Kernel Name\", \"Metric Name\" and"
          + " \"Metric Value\"); was ncu run with --csv?");
    }
    StringBuilder body = new StringBuilder();
    List<Integer> lineOf = new ArrayList<>();
    for (int i = header; i < lines.size(); i++) {
      String l = lines.get(i);
      if (i > header && !l.startsWith("\"")) {
        continue; // ==PROF== and application output between rows
      }
      body.append(l).append('\n');
      lineOf.add(i + 1);
    }
    Map<Long, double[]> metrics = new LinkedHashMap<>();
    Map<Long, String[]> shape = new HashMap<>();
    List<String[]> rows = new ArrayList<>();
    try (MappingIterator<String[]> it = CSV.readerFor(String[].class).readValues(body.toString())) {
      while (it.hasNextValue()) {
        rows.add(it.nextValue());
      }
    } catch (JacksonException e) {
      throw new NcuFormatException(csv + ": not a well-formed CSV: " + e.getOriginalMessage());
    }
    Map<String, Integer> cols = new HashMap<>();
    String[] head = rows.get(0);
    for (int i = 0; i < head.length; i++) {
      cols.putIfAbsent(head[i], i);
    }
    for (String c : List.of("ID", "Kernel Name", "Metric Name", "Metric Unit", "Metric Value")) {
      if (!cols.containsKey(c)) {
        throw new NcuFormatException(csv + ":" + lineOf.get(0) + ": no \"" + c + "\" column");
      }
    }
    int grid = cols.getOrDefault("Grid Size", -1);
    int block = cols.getOrDefault("Block Size", -1);
    for (int row = 1; row < rows.size(); row++) {
      String[] r = rows.get(row);
      int line = lineOf.get(row);
      if (r.length != head.length) {
        throw new NcuFormatException(csv + ":" + line + ": " + r.length + " fields, the header has " + head.length);
      }
      int slot = switch (r[cols.get("Metric Name")]) {
        case READ -> 0;
        case WRITE -> 1;
        case DURATION -> 2;
        default -> -1;
      };
      if (slot < 0) {
        continue;
      }
      long id;
      try {
        id = Long.parseLong(r[cols.get("ID")].strip());
      } catch (NumberFormatException e) {
        throw new NcuFormatException(csv + ":" + line + ": ID '" + r[cols.get("ID")] + "' is not a number");
      }
      double v = value(csv, line, r[cols.get("Metric Value")], r[cols.get("Metric Unit")], slot == 2);
      metrics.computeIfAbsent(id, k -> new double[] {Double.NaN, Double.NaN, Double.NaN})[slot] = v;
      shape.putIfAbsent(id, new String[] {r[cols.get("Kernel Name")], grid < 0 ? "" : r[grid],
          block < 0 ? "" : r[block]});
    }
    List<Profiled> out = new ArrayList<>();
    for (Map.Entry<Long, double[]> e : metrics.entrySet()) {
      double[] m = e.getValue();
      if (Double.isNaN(m[0]) || Double.isNaN(m[1])) {
        continue;
      }
      String[] s = shape.get(e.getKey());
      out.add(new Profiled(e.getKey(), s[0], dim(s[1]), dim(s[2]), m[0], m[1], m[2]));
    }
    if (out.isEmpty()) {
      throw new NcuFormatException(csv + ": no kernel with both " + READ + " and " + WRITE + " (profile with"
          + " --metrics " + READ + "," + WRITE + ")");
    }
    return out;
  }

  /**
   * Traffic records for the kernels of {@code trace} that match a profiled shape (name, grid and block; else name),
   * at the median bytes of that shape's profiled executions.
   */
  public static Attached attach(List<TraceRecord> trace, List<Profiled> profiled) {
    Map<String, List<Profiled>> byShape = new HashMap<>();
    Map<String, List<Profiled>> byName = new HashMap<>();
    for (Profiled p : profiled) {
      byShape.computeIfAbsent(key(p.name(), p.grid(), p.block()), k -> new ArrayList<>()).add(p);
      byName.computeIfAbsent(p.name(), k -> new ArrayList<>()).add(p);
    }
    Map<String, long[]> shapeMedian = new HashMap<>();
    byShape.forEach((k, v) -> shapeMedian.put(k, median(v)));
    Map<String, long[]> nameMedian = new HashMap<>();
    byName.forEach((k, v) -> nameMedian.put(k, median(v)));
    List<TrafficRecord> out = new ArrayList<>();
    long kernels = 0;
    long byShapeMatched = 0;
    long byNameMatched = 0;
    TreeSet<String> unmatchedTrace = new TreeSet<>();
    TreeSet<String> seen = new TreeSet<>();
    for (TraceRecord r : trace) {
      if (!(r instanceof KernelRecord k)) {
        continue;
      }
      kernels++;
      String name = ncuName(k.name(), byName);
      long[] b = shapeMedian.get(key(name, k.grid(), k.block()));
      if (b != null) {
        byShapeMatched++;
      } else if ((b = nameMedian.get(name)) != null) {
        byNameMatched++;
      } else {
        unmatchedTrace.add(k.name());
        continue;
      }
      seen.add(name);
      if (k.correlationId() != 0) {
        out.add(new TrafficRecord(k.device(), k.correlationId(), k.startNs(), b[0], b[1], "ncu"));
      }
    }
    List<String> notes = new ArrayList<>();
    notes.add(String.format(Locale.ROOT, "ncu: %d profiled executions of %d kernels; traffic attached to %d of the"
        + " trace's %d kernels (%d by name, grid and block; %d by name alone)", profiled.size(), byName.size(),
        byShapeMatched + byNameMatched, kernels, byShapeMatched, byNameMatched));
    if (!unmatchedTrace.isEmpty()) {
      notes.add("ncu: not profiled, so not judged for traffic: " + String.join(", ", first(unmatchedTrace, 8)));
    }
    TreeSet<String> unused = new TreeSet<>(byName.keySet());
    unused.removeAll(seen);
    if (!unused.isEmpty()) {
      notes.add("ncu: profiled but not in the trace: " + String.join(", ", first(unused, 8)));
    }
    if (out.size() < byShapeMatched + byNameMatched) {
      notes.add("ncu: kernels without a correlation id cannot carry traffic: "
          + (byShapeMatched + byNameMatched - out.size()));
    }
    return new Attached(out, notes);
  }

  /** The trace's kernel name as ncu shows it: ncu demangles C++ names, and shows extern "C" names as they are. */
  private static String ncuName(String traced, Map<String, List<Profiled>> byName) {
    if (byName.containsKey(traced)) {
      return traced;
    }
    int paren = traced.indexOf('(');
    String bare = paren > 0 ? traced.substring(0, paren) : traced;
    for (String n : byName.keySet()) {
      int p = n.indexOf('(');
      if ((p > 0 ? n.substring(0, p) : n).equals(bare)) {
        return n;
      }
    }
    return traced;
  }

  private static List<String> first(TreeSet<String> s, int n) {
    List<String> out = new ArrayList<>();
    for (String x : s) {
      if (out.size() == n) {
        out.add("… (" + (s.size() - n) + " more)");
        break;
      }
      out.add(x);
    }
    return out;
  }

  private static long[] median(List<Profiled> ps) {
    double[] r = ps.stream().mapToDouble(Profiled::bytesRead).toArray();
    double[] w = ps.stream().mapToDouble(Profiled::bytesWritten).toArray();
    return new long[] {Math.round(Sample.median(r)), Math.round(Sample.median(w))};
  }

  private static String key(String name, Dim3 grid, Dim3 block) {
    return name + "|" + grid + "|" + block;
  }

  /** "(512, 1, 1)" → a {@link Dim3}; anything else → {@link Dim3#ONE}. */
  static Dim3 dim(String s) {
    String t = s.strip();
    if (t.startsWith("(") && t.endsWith(")")) {
      String[] p = t.substring(1, t.length() - 1).split(",");
      if (p.length == 3) {
        try {
          return new Dim3(Integer.parseInt(p[0].strip()), Integer.parseInt(p[1].strip()),
              Integer.parseInt(p[2].strip()));
        } catch (IllegalArgumentException e) {
          return Dim3.ONE;
        }
      }
    }
    return Dim3.ONE;
  }

  /** A metric value in bytes (or ns for a duration): ncu's units, with thousands separators allowed. */
  static double value(Path csv, int line, String raw, String unit, boolean duration) {
    String v = raw.strip().replace(",", "").replace(" ", "");
    double x;
    try {
      x = Double.parseDouble(v);
    } catch (NumberFormatException e) {
      throw new NcuFormatException(csv + ":" + line + ": value '" + raw + "' is not a number");
    }
    if (!Double.isFinite(x) || x < 0) {
      throw new NcuFormatException(csv + ":" + line + ": value '" + raw + "' is not a finite non-negative number");
    }
    String u = unit.strip().toLowerCase(Locale.ROOT);
    double scale = duration ? switch (u) {
      case "nsecond", "ns" -> 1;
      case "usecond", "us" -> 1e3;
      case "msecond", "ms" -> 1e6;
      case "second", "s" -> 1e9;
      default -> Double.NaN;
    } : switch (u) {
      case "byte", "b" -> 1;
      case "kbyte", "kb" -> 1e3;
      case "mbyte", "mb" -> 1e6;
      case "gbyte", "gb" -> 1e9;
      case "tbyte", "tb" -> 1e12;
      case "kibyte", "kib" -> 1024;
      case "mibyte", "mib" -> 1024.0 * 1024;
      case "gibyte", "gib" -> 1024.0 * 1024 * 1024;
      default -> Double.NaN;
    };
    if (Double.isNaN(scale)) {
      throw new NcuFormatException(csv + ":" + line + ": unknown unit '" + unit + "' for "
          + (duration ? DURATION : "a byte count"));
    }
    return x * scale;
  }
}
