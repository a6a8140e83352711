package io.gitm.tracer;

import io.gitm.trace.ClockDomain;
import io.gitm.trace.DeviceKind;
import io.gitm.trace.TraceDevice;
import io.gitm.trace.TraceMeta;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteOpenMode;

/**
 * Imports an Nsight Systems export ({@code nsys export --type sqlite}, schema versions 2.x and 3.x) into a
 * {@code .gtrace} file: kernels, memory copies and memsets, CUDA runtime and driver calls, synchronizations and NVTX
 * ranges become records ({@link NsysRows} says how each table maps), and the GPUs of {@code TARGET_INFO_GPU} (or
 * {@code TARGET_INFO_CUDA_GPU}) the trace's devices, with their memory, bandwidth, SM count, clock and compute
 * capability as meta attributes {@code nsys.gpu.<device>.*}. Tables the export lacks are simply absent.
 *
 * <p>Time: nsys stores nanoseconds since the session's start; when the export states that start
 * ({@code TARGET_INFO_SESSION_START_TIME.utcEpochNs}) the imported times are Unix-epoch nanoseconds, else they stay
 * session-relative (clock {@code HOST_MONOTONIC}, attribute {@code nsys.timeBase}).
 *
 * <p>The database is opened read-only through SQLite itself (xerial's driver) and read a row at a time; the trace is
 * written as it is read, so memory stays bounded by the table of distinct strings whatever the export's size. A file
 * that is not SQLite, a corrupt or truncated one, a database of another program and an export of an unsupported
 * schema version give a {@link NsysFormatException}, and nothing is written.
 */
public final class NsysImporter {
  /** The 16 bytes every SQLite 3 database file starts with. */
  private static final byte[] MAGIC = "SQLite format 3\0".getBytes(StandardCharsets.US_ASCII);

  private NsysImporter() {}

  /**
   * What an import produced.
   *
   * @param rows rows read from the imported tables
   * @param records records written, by type (as {@link TraceSummary#RECORD_TYPES} names them), only types that occur
   * @param missing fields that were missing or not usable, as "TABLE: column" → number of rows
   * @param ignored rows not imported, as "TABLE" → number of rows (tables gitm does not read, NVTX marks)
   * @param skipped rows of an imported table that could not be imported, by reason
   */
  public record Result(Path output, TraceMeta meta, String schemaVersion, String productVersion, long rows,
      SortedMap<String, Long> records, SortedMap<String, Long> missing, SortedMap<String, Long> ignored,
      SortedMap<String, Long> skipped) {
    public long recordCount() {
      return records.values().stream().mapToLong(Long::longValue).sum();
    }

    /** What the import changed or could not take, one sentence each, for a caller that analyses the trace. */
    public List<String> notes() {
      List<String> out = new ArrayList<>();
      if (schemaVersion.isEmpty()) {
        out.add("the export states no schema version: read as the tables it has");
      }
      missing.forEach((key, n) -> out.add(n + " row(s) of " + key.replace(": ", " lack a usable ")
          + ": stored as unknown"));
      skipped.forEach((why, n) -> out.add(n + " row(s) skipped (" + why + ")"));
      if (!records.containsKey("kernel") && !records.containsKey("copy") && !records.containsKey("memset")) {
        out.add("the export holds no GPU kernels, copies or memsets (was it recorded with --trace=cuda?)");
      }
      if (meta.clock() != ClockDomain.UNIX_EPOCH) {
        out.add("the export states no session start: times are nanoseconds from the session's start");
      }
      return out;
    }
  }

  /** Whether {@code file} starts with the SQLite database header (what an nsys export is). */
  public static boolean isSqlite(Path file) throws IOException {
    byte[] head = new byte[MAGIC.length];
    int n;
    try (InputStream in = Files.newInputStream(file)) {
      n = in.readNBytes(head, 0, head.length);
    }
    return n == MAGIC.length && Arrays.equals(head, MAGIC);
  }

  /** Imports the export {@code sqlite} into {@code gtrace}; a bad input leaves {@code gtrace} as it was. */
  public static Result importTrace(Path sqlite, Path gtrace) throws IOException {
    if (!Files.isRegularFile(sqlite)) {
      throw new NoSuchFileException(sqlite.toString());
    }
    if (!isSqlite(sqlite)) {
      throw new NsysFormatException("not a SQLite database (it does not start with the SQLite header), so not an"
          + " Nsight Systems export: export the report with 'nsys export --type sqlite'");
    }
    try (Connection c = open(sqlite)) {
      NsysSchema schema = NsysSchema.read(c);
      TraceMeta meta = meta(c, sqlite, schema);
      SortedMap<String, Long> ignored = ignored(c, schema);
      NsysRows rows = new NsysRows(schema);
      TraceWriter writer = TraceWriter.create(gtrace, meta);
      try {
        rows.read(c, writer::write);
        writer.close();
      } catch (IOException | SQLException | RuntimeException e) {
        writer.abort();
        throw e;
      }
      return new Result(gtrace, meta, schema.schemaVersion, schema.productVersion, rows.rows,
          Collections.unmodifiableSortedMap(rows.records), Collections.unmodifiableSortedMap(rows.missing),
          Collections.unmodifiableSortedMap(ignored), Collections.unmodifiableSortedMap(rows.skipped));
    } catch (SQLException e) {
      throw new NsysFormatException("cannot be read as an Nsight Systems export: " + sqliteMessage(e), e);
    }
  }

  private static Connection open(Path sqlite) throws SQLException {
    SQLiteConfig config = new SQLiteConfig();
    config.setReadOnly(true);
    config.setOpenMode(SQLiteOpenMode.READONLY);
    config.setSharedCache(false);
    return config.createConnection("jdbc:sqlite:" + sqlite.toAbsolutePath());
  }

  /** SQLite's own words ("file is not a database", "database disk image is malformed"), on one line. */
  private static String sqliteMessage(SQLException e) {
    String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    int at = m.indexOf("] ");
    if (m.startsWith("[") && at > 0) {
      m = m.substring(at + 2);
    }
    return m.replaceAll("\\s+", " ").strip();
  }

  private static TraceMeta meta(Connection c, Path sqlite, NsysSchema schema) throws SQLException {
    SortedSet<Integer> ids = new TreeSet<>(schema.gpus.keySet());
    for (String t : List.of("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
        "CUPTI_ACTIVITY_KIND_MEMSET")) {
      if (schema.has(t, "deviceId")) {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT DISTINCT deviceId FROM " + t)) {
          while (rs.next()) {
            long d = rs.getLong(1);
            if (!rs.wasNull() && d >= 0 && d <= Integer.MAX_VALUE) {
              ids.add((int) d);
            }
          }
        }
      }
    }
    List<TraceDevice> devices = new ArrayList<>();
    Map<String, String> attributes = new TreeMap<>();
    for (int id : ids) {
      NsysSchema.Gpu g = schema.gpus.get(id);
      devices.add(new TraceDevice(id, g == null ? "" : g.name(), g == null ? "" : g.uuid(), DeviceKind.REAL));
      if (g != null) {
        gpuAttributes(attributes, "nsys.gpu." + id + ".", g);
      }
    }
    attributes.put("importedFrom", String.valueOf(sqlite.getFileName()));
    attributes.put("nsys.schemaVersion", schema.schemaVersion.isEmpty() ? "unknown" : schema.schemaVersion);
    if (!schema.productVersion.isEmpty()) {
      attributes.put("nsys.version", schema.productVersion);
    }
    boolean epoch = schema.sessionStartEpochNs > 0;
    attributes.put("nsys.timeBase", epoch ? "session start " + schema.sessionStartEpochNs + " ns after the Unix epoch"
        : "the session's start (not stated in the export)");
    return new TraceMeta("nsys", epoch ? ClockDomain.UNIX_EPOCH : ClockDomain.HOST_MONOTONIC, devices, attributes);
  }

  private static void gpuAttributes(Map<String, String> a, String p, NsysSchema.Gpu g) {
    putIf(a, p + "totalMemoryBytes", g.totalMemoryBytes());
    putIf(a, p + "memoryBandwidthBytesPerSecond", g.memoryBandwidthBytesPerSecond());
    putIf(a, p + "smCount", g.smCount());
    putIf(a, p + "clockRateHz", g.clockRateHz());
    if (!g.computeCapability().isEmpty()) {
      a.put(p + "computeCapability", g.computeCapability());
    }
    if (!g.busLocation().isEmpty()) {
      a.put(p + "busLocation", g.busLocation());
    }
    if (!g.chipName().isEmpty()) {
      a.put(p + "chipName", g.chipName());
    }
  }

  private static void putIf(Map<String, String> a, String key, long v) {
    if (v >= 0) {
      a.put(key, Long.toString(v));
    }
  }

  /** Rows gitm does not import: NVTX events without an end (marks), and activity tables it does not read. */
  private static SortedMap<String, Long> ignored(Connection c, NsysSchema schema) throws SQLException {
    SortedMap<String, Long> out = new TreeMap<>();
    if (schema.has("NVTX_EVENTS", "end")) {
      long n = count(c, "SELECT COUNT(*) FROM NVTX_EVENTS WHERE end IS NULL");
      if (n > 0) {
        out.put("NVTX_EVENTS (marks and other events without an end)", n);
      }
    }
    for (String t : schema.columns.keySet()) {
      if (t.startsWith("CUPTI_ACTIVITY_KIND_") && !NsysRows.TABLES.contains(t)) {
        long n = count(c, "SELECT COUNT(*) FROM \"" + t.replace("\"", "\"\"") + "\"");
        if (n > 0) {
          out.put(t, n);
        }
      }
    }
    return out;
  }

  private static long count(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      return rs.next() ? rs.getLong(1) : 0;
    }
  }
}
