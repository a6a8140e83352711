package io.gitm.tracer;

import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.ApiKinds;
import io.gitm.trace.CopyKind;
import io.gitm.trace.CopyRecord;
import io.gitm.trace.Dim3;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.MarkerRecord;
import io.gitm.trace.MemoryKind;
import io.gitm.trace.MemsetRecord;
import io.gitm.trace.SyncKind;
import io.gitm.trace.SyncRecord;
import io.gitm.trace.TraceRecord;
import java.io.IOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The rows of an Nsight Systems export as trace records, in start order: one query per activity table, each ordered
 * by {@code start} and read a row at a time, merged by start (a table's rows before another's at equal starts, in
 * the order of {@link #TABLES}). Nothing is held but the current row of each table.
 *
 * <p>Per table: {@code CUPTI_ACTIVITY_KIND_KERNEL} → kernel (name from {@code demangledName}, else
 * {@code shortName}, through {@code StringIds}); {@code _MEMCPY} → copy; {@code _MEMSET} → memset; {@code _RUNTIME}
 * and {@code _DRIVER} → API call (name through {@code nameId}, kind by {@link ApiKinds}, thread from the low 24 bits
 * of {@code globalTid}); {@code _SYNCHRONIZATION} → synchronization; {@code NVTX_EVENTS} rows with an end → marker
 * (text from {@code text}, else {@code textId}). Times are the export's nanoseconds plus the session's start.
 */
final class NsysRows {
  /** The tables read, in the order that breaks ties of equal starts. */
  static final List<String> TABLES = List.of("NVTX_EVENTS", "CUPTI_ACTIVITY_KIND_RUNTIME",
      "CUPTI_ACTIVITY_KIND_DRIVER", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
      "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION");
  /** Rows the driver fetches at a time. */
  static final int FETCH_SIZE = 4096;
  private static final long THREAD_MASK = 0xFF_FFFFL;

  final SortedMap<String, Long> records = new TreeMap<>();
  final SortedMap<String, Long> missing = new TreeMap<>();
  final SortedMap<String, Long> skipped = new TreeMap<>();
  long rows;

  private final NsysSchema schema;
  private final long baseNs;
  /** The start of the record {@link #convert} returned last. */
  private long convertedStart;

  NsysRows(NsysSchema schema) {
    this.schema = schema;
    this.baseNs = schema.sessionStartEpochNs;
  }

  /** A consumer of records that may fail. */
  interface Sink {
    void accept(TraceRecord r) throws IOException;
  }

  /** Reads every imported table, merged in start order, into {@code sink}. */
  void read(Connection c, Sink sink) throws SQLException, IOException {
    List<Cursor> open = new ArrayList<>();
    try {
      PriorityQueue<Cursor> queue = new PriorityQueue<>(
          Comparator.comparingLong((Cursor k) -> k.start).thenComparingInt(k -> k.order));
      for (int i = 0; i < TABLES.size(); i++) {
        String table = TABLES.get(i);
        if (!schema.has(table, "start")) {
          continue;
        }
        Cursor k = new Cursor(i, table, c.createStatement());
        open.add(k);
        k.rs = k.statement.executeQuery(sql(table));
        k.rs.setFetchSize(FETCH_SIZE);
        if (k.advance()) {
          queue.add(k);
        }
      }
      while (!queue.isEmpty()) {
        Cursor k = queue.poll();
        sink.accept(k.record);
        records.merge(type(k.record), 1L, Long::sum);
        if (k.advance()) {
          queue.add(k);
        }
      }
    } finally {
      for (Cursor k : open) {
        k.statement.close();
      }
    }
  }

  /** One table's query and its current row as a record. */
  private final class Cursor {
    final int order;
    final String table;
    final Statement statement;
    ResultSet rs;
    TraceRecord record;
    long start;

    Cursor(int order, String table, Statement statement) {
      this.order = order;
      this.table = table;
      this.statement = statement;
    }

    /** Moves to the next importable row; false at the end. */
    boolean advance() throws SQLException {
      while (rs.next()) {
        rows++;
        TraceRecord r = convert(table, rs);
        if (r != null) {
          record = r;
          start = convertedStart;
          return true;
        }
      }
      return false;
    }
  }

  private static String type(TraceRecord r) {
    return switch (r) {
      case KernelRecord k -> "kernel";
      case CopyRecord c -> "copy";
      case MemsetRecord m -> "memset";
      case ApiCallRecord a -> "api";
      case SyncRecord s -> "sync";
      case MarkerRecord m -> "marker";
      default -> throw new IllegalStateException("unexpected record " + r);
    };
  }

  private String sql(String table) {
    String n = "LEFT JOIN StringIds ";
    boolean strings = schema.has("StringIds", "id", "value");
    return switch (table) {
      case "CUPTI_ACTIVITY_KIND_KERNEL" -> "SELECT t.start, t.end, " + cols(table, "deviceId", "streamId",
          "correlationId") + ", " + (strings && schema.has(table, "demangledName") ? "d.value" : "NULL") + ", "
          + (strings && schema.has(table, "shortName") ? "s.value" : "NULL") + ", " + cols(table, "gridX", "gridY",
          "gridZ", "blockX", "blockY", "blockZ", "registersPerThread", "staticSharedMemory", "dynamicSharedMemory")
          + " FROM " + table + " t" + (strings && schema.has(table, "demangledName")
              ? " " + n + "d ON d.id = t.demangledName" : "")
          + (strings && schema.has(table, "shortName") ? " " + n + "s ON s.id = t.shortName" : "")
          + " ORDER BY t.start";
      case "CUPTI_ACTIVITY_KIND_MEMCPY" -> "SELECT t.start, t.end, " + cols(table, "deviceId", "streamId",
          "correlationId", "bytes", "copyKind", "srcKind", "dstKind") + " FROM " + table + " t ORDER BY t.start";
      case "CUPTI_ACTIVITY_KIND_MEMSET" -> "SELECT t.start, t.end, " + cols(table, "deviceId", "streamId",
          "correlationId", "bytes", "value", "memKind") + " FROM " + table + " t ORDER BY t.start";
      case "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION" -> "SELECT t.start, t.end, " + cols(table, "deviceId", "streamId",
          "correlationId", "syncType") + " FROM " + table + " t ORDER BY t.start";
      case "NVTX_EVENTS" -> {
        String text = schema.column(table, "t", "text");
        if (strings && schema.has(table, "textId")) {
          text = "COALESCE(" + text + ", x.value)";
        }
        yield "SELECT t.start, t.end, " + schema.column(table, "t", "globalTid") + ", " + text + " FROM " + table
            + " t" + (strings && schema.has(table, "textId") ? " " + n + "x ON x.id = t.textId" : "")
            + " WHERE t.end IS NOT NULL ORDER BY t.start";
      }
      default -> "SELECT t.start, t.end, " + cols(table, "globalTid", "correlationId") + ", "
          + (strings && schema.has(table, "nameId") ? "x.value" : "NULL") + " FROM " + table + " t"
          + (strings && schema.has(table, "nameId") ? " " + n + "x ON x.id = t.nameId" : "") + " ORDER BY t.start";
    };
  }

  private String cols(String table, String... names) {
    StringBuilder sb = new StringBuilder();
    for (String c : names) {
      sb.append(sb.isEmpty() ? "" : ", ").append(schema.column(table, "t", c));
    }
    return sb.toString();
  }

  /** The record of the current row, or null when the row is skipped (counted). */
  private TraceRecord convert(String table, ResultSet rs) throws SQLException {
    long start = rs.getLong(1);
    if (rs.wasNull()) {
      skipped.merge(table + ": no start", 1L, Long::sum);
      return null;
    }
    long end = rs.getLong(2);
    if (rs.wasNull()) {
      missing(table, "end");
      end = start;
    } else if (end < start) {
      missing(table, "end (before start)");
      end = start;
    }
    long s;
    long e;
    try {
      s = Math.addExact(baseNs, start);
      e = Math.addExact(baseNs, end);
    } catch (ArithmeticException ex) {
      skipped.merge(table + ": time out of range", 1L, Long::sum);
      return null;
    }
    convertedStart = s;
    return switch (table) {
      case "CUPTI_ACTIVITY_KIND_KERNEL" -> kernel(table, rs, s, e);
      case "CUPTI_ACTIVITY_KIND_MEMCPY" -> new CopyRecord(copyKind(table, rs, 7), bytes(table, rs, 6),
          memoryKind(table, rs, 8, "srcKind"), memoryKind(table, rs, 9, "dstKind"), id(table, rs, 3, "deviceId"),
          id(table, rs, 4, "streamId"), correlation(table, rs, 5), s, e);
      case "CUPTI_ACTIVITY_KIND_MEMSET" -> new MemsetRecord(bytes(table, rs, 6), (int) optional(table, rs, 7,
          "value", 0), memoryKind(table, rs, 8, "memKind"), id(table, rs, 3, "deviceId"),
          id(table, rs, 4, "streamId"), correlation(table, rs, 5), s, e);
      case "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION" -> sync(table, rs, s, e);
      case "NVTX_EVENTS" -> new MarkerRecord(text(table, rs, 4, "text"), thread(table, rs, 3), s, e);
      default -> {
        String name = text(table, rs, 5, "nameId");
        yield new ApiCallRecord(ApiKinds.of(name), name, thread(table, rs, 3), correlation(table, rs, 4), s, e);
      }
    };
  }

  private KernelRecord kernel(String table, ResultSet rs, long s, long e) throws SQLException {
    String name = rs.getString(6);
    if (name == null || name.isEmpty()) {
      name = rs.getString(7);
    }
    if (name == null || name.isEmpty()) {
      missing(table, "demangledName/shortName");
      name = "(unnamed kernel)";
    }
    return new KernelRecord(name, id(table, rs, 3, "deviceId"), id(table, rs, 4, "streamId"),
        correlation(table, rs, 5), s, e, dim(table, rs, 8, "grid"), dim(table, rs, 11, "block"),
        (int) optional(table, rs, 14, "registersPerThread", -1),
        (int) optional(table, rs, 15, "staticSharedMemory", -1),
        (int) optional(table, rs, 16, "dynamicSharedMemory", -1));
  }

  private SyncRecord sync(String table, ResultSet rs, long s, long e) throws SQLException {
    long type = rs.getLong(6);
    SyncKind kind = rs.wasNull() ? null : schema.syncKinds.get(type);
    if (kind == null) {
      missing(table, "syncType");
    }
    long stream = rs.getLong(4);
    int st = rs.wasNull() || stream < 0 || stream > Integer.MAX_VALUE ? -1 : (int) stream;
    return new SyncRecord(kind, id(table, rs, 3, "deviceId"), st, correlation(table, rs, 5), s, e);
  }

  private CopyKind copyKind(String table, ResultSet rs, int col) throws SQLException {
    long v = rs.getLong(col);
    CopyKind k = rs.wasNull() ? null : schema.copyKinds.get(v);
    if (k == null) {
      missing(table, "copyKind");
    }
    return k;
  }

  private MemoryKind memoryKind(String table, ResultSet rs, int col, String what) throws SQLException {
    long v = rs.getLong(col);
    MemoryKind k = rs.wasNull() ? null : schema.memoryKinds.get(v);
    if (k == null) {
      missing(table, what);
    }
    return k;
  }

  /** A device or stream id; CUPTI's "none" ({@code 0xFFFFFFFF}) and other values past 32 bits are -1, counted. */
  private int id(String table, ResultSet rs, int col, String what) throws SQLException {
    long v = rs.getLong(col);
    if (rs.wasNull()) {
      missing(table, what);
      return -1;
    }
    if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
      missing(table, what + " (" + v + ", not an id: stored as -1)");
      return -1;
    }
    return (int) v;
  }

  private long correlation(String table, ResultSet rs, int col) throws SQLException {
    return optional(table, rs, col, "correlationId", 0);
  }

  private long bytes(String table, ResultSet rs, int col) throws SQLException {
    long v = rs.getLong(col);
    if (rs.wasNull() || v < 0) {
      missing(table, "bytes");
      return 0;
    }
    return v;
  }

  private long thread(String table, ResultSet rs, int col) throws SQLException {
    long v = rs.getLong(col);
    if (rs.wasNull()) {
      missing(table, "globalTid");
      return 0;
    }
    return v & THREAD_MASK;
  }

  private String text(String table, ResultSet rs, int col, String what) throws SQLException {
    String v = rs.getString(col);
    if (v == null) {
      missing(table, what);
      return "";
    }
    return v;
  }

  private long optional(String table, ResultSet rs, int col, String what, long unknown) throws SQLException {
    long v = rs.getLong(col);
    if (rs.wasNull()) {
      missing(table, what);
      return unknown;
    }
    return v;
  }

  private Dim3 dim(String table, ResultSet rs, int col, String what) throws SQLException {
    long x = rs.getLong(col);
    boolean nx = rs.wasNull();
    long y = rs.getLong(col + 1);
    boolean ny = rs.wasNull();
    long z = rs.getLong(col + 2);
    boolean nz = rs.wasNull();
    if (nx || ny || nz || x < 0 || y < 0 || z < 0 || x > Integer.MAX_VALUE || y > Integer.MAX_VALUE
        || z > Integer.MAX_VALUE) {
      missing(table, what);
      return null;
    }
    return new Dim3((int) x, (int) y, (int) z);
  }

  private void missing(String table, String field) {
    missing.merge(table + ": " + field, 1L, Long::sum);
  }
}
