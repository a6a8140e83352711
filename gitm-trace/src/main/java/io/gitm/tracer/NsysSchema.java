package io.gitm.tracer;

import io.gitm.trace.CopyKind;
import io.gitm.trace.MemoryKind;
import io.gitm.trace.SyncKind;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What an Nsight Systems SQLite export holds, read before its rows: its tables and their columns, the schema and
 * product versions it states, the enum tables that name copy kinds, memory kinds and synchronization types, the time
 * its session started, and its GPUs.
 *
 * <p>Two layouts are known. Schema 2.x (Nsight Systems 2020.x to 2021.2) states its version in
 * {@code EXPORT_META_DATA}, describes GPUs in {@code TARGET_INFO_CUDA_GPU} keyed by {@code deviceId} and has no
 * {@code ENUM_*} tables (the CUPTI enum values are stored as numbers). Schema 3.x (2021.3 and later) states it in
 * {@code META_DATA_EXPORT} (some releases kept {@code EXPORT_META_DATA}), describes GPUs in {@code TARGET_INFO_GPU}
 * keyed by {@code id}, maps each process's CUDA device ids to them in {@code TARGET_INFO_CUDA_DEVICE}, and names the
 * enum values in {@code ENUM_CUDA_MEMCPY_OPER}, {@code ENUM_CUDA_MEM_KIND} and {@code ENUM_CUPTI_SYNC_TYPE}. Which
 * table holds what is found from the tables present, not from the version number, so an export in between reads too.
 */
final class NsysSchema {
  /** The schema major versions this reader supports. */
  static final Set<Integer> SUPPORTED_MAJORS = Set.of(2, 3);

  /** Tables whose presence marks an nsys export. */
  private static final List<String> MARKS = List.of("StringIds", "META_DATA_EXPORT", "EXPORT_META_DATA",
      "NVTX_EVENTS", "TARGET_INFO_GPU", "TARGET_INFO_CUDA_GPU");

  /** CUPTI's CUpti_ActivityMemcpyKind, by value. */
  private static final List<String> CUPTI_COPY_KINDS =
      List.of("UNKNOWN", "HTOD", "DTOH", "HTOA", "ATOH", "ATOA", "ATOD", "DTOA", "DTOD", "HTOH", "PTOP");
  /** CUPTI's CUpti_ActivityMemoryKind, by value. */
  private static final List<String> CUPTI_MEMORY_KINDS =
      List.of("UNKNOWN", "PAGEABLE", "PINNED", "DEVICE", "ARRAY", "MANAGED", "DEVICE_STATIC", "MANAGED_STATIC");
  /** CUPTI's CUpti_ActivitySynchronizationType, by value. */
  private static final List<String> CUPTI_SYNC_TYPES =
      List.of("UNKNOWN", "EVENT_SYNCHRONIZE", "STREAM_WAIT_EVENT", "STREAM_SYNCHRONIZE", "CONTEXT_SYNCHRONIZE");

  /** One GPU of the export's target, as its TARGET_INFO tables describe it; absent numbers are -1, texts "". */
  record Gpu(String name, String uuid, long totalMemoryBytes, long memoryBandwidthBytesPerSecond,
      int smCount, long clockRateHz, String computeCapability, String busLocation, String chipName) {}

  final Map<String, Set<String>> columns;
  final String schemaVersion;
  final String productVersion;
  final long sessionStartEpochNs;
  final Map<Long, CopyKind> copyKinds;
  final Map<Long, MemoryKind> memoryKinds;
  final Map<Long, SyncKind> syncKinds;
  final SortedMap<Integer, Gpu> gpus;

  private NsysSchema(Map<String, Set<String>> columns, String schemaVersion, String productVersion,
      long sessionStartEpochNs, Map<Long, CopyKind> copyKinds, Map<Long, MemoryKind> memoryKinds,
      Map<Long, SyncKind> syncKinds, SortedMap<Integer, Gpu> gpus) {
    this.columns = columns;
    this.schemaVersion = schemaVersion;
    this.productVersion = productVersion;
    this.sessionStartEpochNs = sessionStartEpochNs;
    this.copyKinds = copyKinds;
    this.memoryKinds = memoryKinds;
    this.syncKinds = syncKinds;
    this.gpus = gpus;
  }

  /**
   * Reads what the export holds, refusing a database that is no nsys export and an export of an unsupported schema
   * version.
   */
  static NsysSchema read(Connection c) throws SQLException, NsysFormatException {
    Map<String, Set<String>> columns = tables(c);
    if (MARKS.stream().noneMatch(columns::containsKey)
        && columns.keySet().stream().noneMatch(t -> t.startsWith("CUPTI_ACTIVITY_KIND_"))) {
      throw new NsysFormatException("a SQLite database, but not an Nsight Systems export: it has none of the tables"
          + " nsys export writes (StringIds, META_DATA_EXPORT, CUPTI_ACTIVITY_KIND_*, NVTX_EVENTS); its tables: "
          + (columns.isEmpty() ? "none" : String.join(", ", new TreeSet<>(columns.keySet()))));
    }
    Map<String, String> meta = new HashMap<>();
    for (String t : List.of("EXPORT_META_DATA", "META_DATA_EXPORT")) {
      if (has(columns, t, "name", "value")) {
        meta.putAll(nameValues(c, t));
      }
    }
    String version = meta.getOrDefault("EXPORT_SCHEMA_VERSION", "").strip();
    if (!version.isEmpty()) {
      int major = major(version);
      if (!SUPPORTED_MAJORS.contains(major)) {
        throw new NsysFormatException("an Nsight Systems export of schema version " + version
            + (meta.containsKey("EXPORT_PRODUCT_VERSION") ? " (nsys " + meta.get("EXPORT_PRODUCT_VERSION") + ")" : "")
            + ", which gitm does not read: it reads schema versions 2.x and 3.x");
      }
    }
    return new NsysSchema(columns, version, meta.getOrDefault("EXPORT_PRODUCT_VERSION", "").strip(),
        sessionStart(c, columns), enumeration(c, columns, "ENUM_CUDA_MEMCPY_OPER", CUPTI_COPY_KINDS,
            NsysSchema::copyKind), enumeration(c, columns, "ENUM_CUDA_MEM_KIND", CUPTI_MEMORY_KINDS,
            NsysSchema::memoryKind), enumeration(c, columns, "ENUM_CUPTI_SYNC_TYPE", CUPTI_SYNC_TYPES,
            NsysSchema::syncKind), gpus(c, columns));
  }

  boolean has(String table, String... cols) {
    return has(columns, table, cols);
  }

  /** {@code alias.column} when the table has the column, else SQL NULL (the reader counts it as missing). */
  String column(String table, String alias, String column) {
    return has(table, column) ? alias + "." + column : "NULL";
  }

  /** The first of {@code candidates} the table has, or empty. */
  Optional<String> firstColumn(String table, String... candidates) {
    for (String col : candidates) {
      if (has(table, col)) {
        return Optional.of(col);
      }
    }
    return Optional.empty();
  }

  private static boolean has(Map<String, Set<String>> columns, String table, String... cols) {
    Set<String> cs = columns.get(table);
    if (cs == null) {
      return false;
    }
    for (String col : cols) {
      if (!cs.contains(col.toLowerCase(Locale.ROOT))) {
        return false;
      }
    }
    return true;
  }

  private static Map<String, Set<String>> tables(Connection c) throws SQLException {
    Map<String, Set<String>> out = new LinkedHashMap<>();
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")) {
      while (rs.next()) {
        out.put(rs.getString(1), new TreeSet<>());
      }
    }
    for (Map.Entry<String, Set<String>> e : out.entrySet()) {
      try (PreparedStatement ps = c.prepareStatement("SELECT name FROM pragma_table_info(?)")) {
        ps.setString(1, e.getKey());
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            e.getValue().add(rs.getString(1).toLowerCase(Locale.ROOT));
          }
        }
      }
    }
    return out;
  }

  private static Map<String, String> nameValues(Connection c, String table) throws SQLException {
    Map<String, String> out = new HashMap<>();
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT name, value FROM " + table)) {
      while (rs.next()) {
        String name = rs.getString(1);
        String value = rs.getString(2);
        if (name != null && value != null) {
          out.putIfAbsent(name, value);
        }
      }
    }
    return out;
  }

  /** The major number of a version such as {@code 3.11.1}; -1 when it has none. */
  static int major(String version) {
    int end = 0;
    while (end < version.length() && Character.isDigit(version.charAt(end))) {
      end++;
    }
    if (end == 0 || end > 6) {
      return -1;
    }
    return Integer.parseInt(version.substring(0, end));
  }

  private static long sessionStart(Connection c, Map<String, Set<String>> columns) throws SQLException {
    if (!has(columns, "TARGET_INFO_SESSION_START_TIME", "utcEpochNs")) {
      return 0;
    }
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME LIMIT 1")) {
      if (rs.next()) {
        long v = rs.getLong(1);
        return rs.wasNull() || v < 0 ? 0 : v;
      }
    }
    return 0;
  }

  /** A value name ({@code HTOD}, {@code DEVICE_STATIC}) as a model value; null when it names none. */
  private interface Parser<T> {
    T parse(String name);
  }

  /**
   * An enum table's values, each read from its {@code name} (the CUPTI name after its prefix) or else its
   * {@code label}; CUPTI's own numbering where the export has no such table or a value is not in it.
   */
  private static <T> Map<Long, T> enumeration(Connection c, Map<String, Set<String>> columns, String table,
      List<String> cupti, Parser<T> parser) throws SQLException {
    Map<Long, T> out = new HashMap<>();
    for (int i = 0; i < cupti.size(); i++) {
      T v = parser.parse(cupti.get(i));
      if (v != null) {
        out.put((long) i, v);
      }
    }
    if (!has(columns, table, "id")) {
      return out;
    }
    String name = has(columns, table, "name") ? "name" : "NULL";
    String label = has(columns, table, "label") ? "label" : "NULL";
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT id, " + name + ", " + label + " FROM " + table)) {
      while (rs.next()) {
        long id = rs.getLong(1);
        T v = parseEither(parser, rs.getString(2), rs.getString(3));
        if (v != null) {
          out.put(id, v);
        }
      }
    }
    return out;
  }

  private static <T> T parseEither(Parser<T> parser, String name, String label) {
    for (String s : new String[] {name, label}) {
      if (s == null || s.isBlank()) {
        continue;
      }
      String u = s.strip().toUpperCase(Locale.ROOT);
      for (String prefix : List.of("CUDA_MEMCPY_KIND_", "CUDA_MEMOPR_MEMORY_KIND_", "CUPTI_ACTIVITY_MEMORY_KIND_",
          "CUPTI_ACTIVITY_MEMCPY_KIND_", "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_", "MEMORY_KIND_", "SYNC_TYPE_")) {
        int at = u.lastIndexOf(prefix);
        if (at >= 0) {
          u = u.substring(at + prefix.length());
          break;
        }
      }
      T v = parser.parse(u.replace('-', '_').replace(' ', '_'));
      if (v != null) {
        return v;
      }
    }
    return null;
  }

  private static CopyKind copyKind(String s) {
    return switch (s) {
      case "HOST_TO_DEVICE", "HOST_TO_ARRAY" -> CopyKind.HTOD;
      case "DEVICE_TO_HOST", "ARRAY_TO_HOST" -> CopyKind.DTOH;
      case "DEVICE_TO_DEVICE", "ARRAY_TO_ARRAY", "ARRAY_TO_DEVICE", "DEVICE_TO_ARRAY" -> CopyKind.DTOD;
      case "HOST_TO_HOST" -> CopyKind.HTOH;
      case "PEER_TO_PEER" -> CopyKind.PTOP;
      default -> Names.parseCopyKind(s);
    };
  }

  private static MemoryKind memoryKind(String s) {
    return Names.parseMemoryKind(s.replace('_', ' '));
  }

  private static SyncKind syncKind(String s) {
    return switch (s) {
      case "UNKNOWN" -> SyncKind.UNKNOWN;
      case "EVENT_SYNC", "EVENT_SYNCHRONIZE" -> SyncKind.EVENT;
      case "STREAM_WAIT_EVENT" -> SyncKind.STREAM_WAIT_EVENT;
      case "STREAM_SYNC", "STREAM_SYNCHRONIZE" -> SyncKind.STREAM;
      case "CONTEXT_SYNC", "CONTEXT_SYNCHRONIZE" -> SyncKind.CONTEXT;
      default -> null;
    };
  }

  /**
   * The GPUs by the device id the activity tables use: {@code TARGET_INFO_GPU} rows through
   * {@code TARGET_INFO_CUDA_DEVICE}'s CUDA id when that maps each CUDA id to one GPU, else by their own id; or
   * {@code TARGET_INFO_CUDA_GPU} rows by {@code deviceId}.
   */
  private static SortedMap<Integer, Gpu> gpus(Connection c, Map<String, Set<String>> columns) throws SQLException {
    SortedMap<Integer, Gpu> out = new TreeMap<>();
    if (has(columns, "TARGET_INFO_GPU", "id")) {
      Map<Long, Integer> cudaIdOf = cudaIds(c, columns);
      readGpus(c, columns, "TARGET_INFO_GPU", "id", (id, g) -> out.put(cudaIdOf.getOrDefault(id, id.intValue()), g));
    } else if (has(columns, "TARGET_INFO_CUDA_GPU", "deviceId")) {
      readGpus(c, columns, "TARGET_INFO_CUDA_GPU", "deviceId", (id, g) -> out.put(id.intValue(), g));
    }
    return out;
  }

  /** GPU id → CUDA device id, for the GPUs that every process saw under one CUDA id. */
  private static Map<Long, Integer> cudaIds(Connection c, Map<String, Set<String>> columns) throws SQLException {
    Map<Long, Integer> out = new HashMap<>();
    if (!has(columns, "TARGET_INFO_CUDA_DEVICE", "gpuId", "cudaId")) {
      return out;
    }
    Map<Long, SortedSet<Integer>> seen = new HashMap<>();
    Map<Integer, SortedSet<Long>> gpusOfCudaId = new HashMap<>();
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT DISTINCT gpuId, cudaId FROM TARGET_INFO_CUDA_DEVICE")) {
      while (rs.next()) {
        long gpu = rs.getLong(1);
        int cuda = rs.getInt(2);
        seen.computeIfAbsent(gpu, k -> new TreeSet<>()).add(cuda);
        gpusOfCudaId.computeIfAbsent(cuda, k -> new TreeSet<>()).add(gpu);
      }
    }
    seen.forEach((gpu, cudas) -> {
      if (cudas.size() == 1 && gpusOfCudaId.get(cudas.first()).size() == 1) {
        out.put(gpu, cudas.first());
      }
    });
    return out;
  }

  private interface GpuSink {
    void accept(Long id, Gpu gpu);
  }

  private static void readGpus(Connection c, Map<String, Set<String>> columns, String table, String key, GpuSink sink)
      throws SQLException {
    String[][] wanted = {
        {"name"}, {"uuid"}, {"totalMemory", "globalMemorySize"}, {"memoryBandwidth", "globalMemoryBandwidth"},
        {"smCount", "numMultiprocessors"}, {"clockRate", "coreClockRate"}, {"computeMajor", "computeCapabilityMajor"},
        {"computeMinor", "computeCapabilityMinor"}, {"busLocation"}, {"chipName"}};
    StringBuilder sql = new StringBuilder("SELECT ").append(key);
    for (String[] names : wanted) {
      String col = "NULL";
      for (String n : names) {
        if (has(columns, table, n)) {
          col = n;
          break;
        }
      }
      sql.append(", ").append(col);
    }
    sql.append(" FROM ").append(table).append(" ORDER BY ").append(key);
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql.toString())) {
      while (rs.next()) {
        long id = rs.getLong(1);
        String major = rs.getString(8);
        String minor = rs.getString(9);
        sink.accept(id, new Gpu(text(rs, 2), text(rs, 3), number(rs, 4), number(rs, 5),
            (int) number(rs, 6), number(rs, 7), major == null || minor == null ? "" : major + "." + minor,
            text(rs, 10), text(rs, 11)));
      }
    }
  }

  private static String text(ResultSet rs, int col) throws SQLException {
    String s = rs.getString(col);
    return s == null ? "" : s.strip();
  }

  private static long number(ResultSet rs, int col) throws SQLException {
    long v = rs.getLong(col);
    return rs.wasNull() || v < 0 ? -1 : v;
  }
}
