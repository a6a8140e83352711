package io.gitm.tracer;

import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.ApiKinds;
import io.gitm.trace.ClockDomain;
import io.gitm.trace.CopyKind;
import io.gitm.trace.CopyRecord;
import io.gitm.trace.DeviceKind;
import io.gitm.trace.Dim3;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.MarkerRecord;
import io.gitm.trace.MemoryKind;
import io.gitm.trace.MemsetRecord;
import io.gitm.trace.OverheadKind;
import io.gitm.trace.OverheadRecord;
import io.gitm.trace.SyncKind;
import io.gitm.trace.SyncRecord;
import io.gitm.trace.TraceDevice;
import io.gitm.trace.TraceMeta;
import io.gitm.trace.TraceRecord;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.core.exc.UnexpectedEndOfInputException;
import tools.jackson.core.json.JsonFactory;

/**
 * Imports a PyTorch profiler (Kineto) trace — Chrome trace-event JSON, plain or gzipped — into a {@code .gtrace} file,
 * so that gitm can analyse jobs it did not run.
 *
 * <p>Complete ({@code "ph": "X"}) events become records by category: {@code kernel} → kernel; {@code gpu_memcpy} →
 * copy (direction and memory kinds from the name, e.g. {@code "Memcpy HtoD (Pageable -> Device)"}); {@code gpu_memset}
 * → memset; {@code cuda_runtime} and {@code cuda_driver} → API call (kind from the function name, correlation id from
 * {@code args.correlation}, thread from {@code tid}); {@code cuda_sync} → synchronization; {@code user_annotation}
 * (e.g. {@code ProfilerStep#3}) → marker; {@code overhead} → tracer overhead. Device, stream, correlation, grid, block,
 * registers and shared memory come from {@code args}; the device table from {@code deviceProperties}. The older
 * categories {@code Kernel}, {@code Memcpy}, {@code Memset}, {@code Runtime} and {@code Driver} are accepted too.
 * Other events (CPU ops, Python functions, flows, metadata, instants) are counted as ignored.
 *
 * <p>Time: {@code ts} and {@code dur} are microseconds (the trace-event format's unit, with up to three decimals, read
 * exactly); {@code displayTimeUnit} only changes how viewers display them. When {@code baseTimeNanoseconds} is present
 * (newer Kineto versions), {@code ts} is relative to it and the imported times are Unix-epoch nanoseconds; without it,
 * timestamps of 10^18 ns or more are taken as Unix-epoch times (older Kineto wrote absolute epoch microseconds), smaller
 * ones as a host monotonic clock. A file whose timestamps cannot be microseconds (they would not fit in 64-bit
 * nanoseconds) was written in nanoseconds by some other tool and is read so ({@link TimeUnit#AUTO}, the default); a
 * file of small nanosecond timestamps cannot be told apart and needs {@link TimeUnit#NANOSECONDS}. Kineto reports a kernel's shared memory as one sum: it is stored as static shared
 * memory with dynamic 0. Kineto does not record memset values: they are stored as 0.
 *
 * <p>A field that is missing gets its documented "unknown" value (-1 for registers and shared memory, 0 for a
 * correlation id, a 1x1x1 grid or block) and is counted in {@link Result#missing()}; an event without {@code ts}
 * is skipped and counted. The file is read twice with a streaming parser: first to check it whole and to find its
 * devices and clock, then to write; a malformed or truncated file gives a {@link KinetoFormatException} naming the
 * line and column, and nothing is written (the writer's temporary file is deleted). The one exception is the one the
 * trace-event format makes: a file in its JSON Array Format ({@code [ {...}, {...},}) may end without its closing
 * bracket after a whole event (early Kineto wrote such files); it imports, with the meta attribute
 * {@code kineto.unterminatedArray}.
 */
public final class KinetoImporter {
  private static final JsonFactory JSON = JsonFactory.builder().build();
  private static final Pattern MEMCPY = Pattern.compile("(?i)memcpy\\s+(\\w+)\\s*(?:\\((.*?)\\s*->\\s*(.*?)\\))?.*");
  private static final Pattern PAREN = Pattern.compile(".*\\((.*)\\).*");
  private static final Pattern TRAILING_INT = Pattern.compile(".*?(-?\\d+)\\s*$");
  /** Epoch nanoseconds are at least this large (2001-09-09); monotonic clocks stay far below it. */
  private static final long EPOCH_THRESHOLD_NS = 1_000_000_000_000_000_000L;

  private KinetoImporter() {}

  /** The unit of {@code ts} and {@code dur} in the input. */
  public enum TimeUnit {
    /**
     * Microseconds, unless a timestamp read as microseconds would not fit in 64-bit nanoseconds (past the year 2262):
     * then the file was written in nanoseconds, and it is read so.
     */
    AUTO(3),
    /** The trace-event format's unit; what Kineto writes. */
    MICROSECONDS(3),
    /** For tools that write nanoseconds despite the format. */
    NANOSECONDS(0);

    private final int digits;

    TimeUnit(int digits) {
      this.digits = digits;
    }
  }

  /** How one pass reads times: decimal digits to shift, and whether an overflow is noted instead of failing. */
  private static final class Times {
    final int digits;
    final boolean probe;
    boolean overflowed;

    Times(int digits, boolean probe) {
      this.digits = digits;
      this.probe = probe;
    }
  }

  /**
   * What an import produced.
   *
   * @param records records written, by type (as {@link TraceSummary#RECORD_TYPES} names them), only types that occur
   * @param missing fields that were missing, as "category: field" → number of events
   * @param ignored events not imported, as "ph P" or "cat C" → number of events
   * @param skipped events of an imported category that could not be imported (no {@code ts}), by reason
   */
  public record Result(Path output, TraceMeta meta, long events, SortedMap<String, Long> records,
      SortedMap<String, Long> missing, SortedMap<String, Long> ignored, SortedMap<String, Long> skipped) {
    public long recordCount() {
      return records.values().stream().mapToLong(Long::longValue).sum();
    }

    /**
     * What the import changed or could not take, one sentence each, for a caller that analyses the imported trace:
     * negative or missing durations (imported as 0), other missing fields (stored as unknown), skipped events, a
     * file that ends without closing its array, and a time unit detected as nanoseconds.
     */
    public List<String> notes() {
      List<String> out = new ArrayList<>();
      missing.forEach((key, n) -> {
        int at = key.indexOf(": ");
        String cat = at < 0 ? "" : key.substring(0, at);
        String field = at < 0 ? key : key.substring(at + 2);
        out.add(switch (field) {
          case "dur (negative)" -> n + " " + cat + " event(s) have a negative dur (they end before they start):"
              + " imported with duration 0";
          case "dur" -> n + " " + cat + " event(s) have no dur: imported with duration 0";
          default -> n + " " + cat + " event(s) lack " + field + ": stored as unknown";
        });
      });
      skipped.forEach((why, n) -> out.add(n + " event(s) skipped (" + why + ")"));
      if ("true".equals(meta.attributes().get("kineto.unterminatedArray"))) {
        out.add("the file ends without closing its event array (accepted by the trace-event format): it may have"
            + " been cut short");
      }
      String unit = meta.attributes().getOrDefault("kineto.timeUnit", "");
      if (unit.contains("detected")) {
        out.add("times read as nanoseconds " + unit.substring(unit.indexOf('(')));
      }
      return out;
    }
  }

  /** Imports {@code json} into {@code gtrace}, with the time unit found as {@link TimeUnit#AUTO} finds it. */
  public static Result importTrace(Path json, Path gtrace) throws IOException {
    return importTrace(json, gtrace, TimeUnit.AUTO);
  }

  /** Imports {@code json} into {@code gtrace}; a bad input leaves {@code gtrace} as it was. */
  public static Result importTrace(Path json, Path gtrace, TimeUnit unit) throws IOException {
    Scan scan = new Scan();
    Times probe = new Times(unit.digits, unit == TimeUnit.AUTO);
    Header header = parse(json, probe, scan::accept);
    TimeUnit resolved = unit == TimeUnit.AUTO ? TimeUnit.MICROSECONDS : unit;
    if (probe.overflowed) {
      resolved = TimeUnit.NANOSECONDS;
      scan = new Scan();
      header = parse(json, new Times(resolved.digits, false), scan::accept);
    }
    TraceMeta meta = meta(json, header, scan, resolved, probe.overflowed);
    Converter converter = new Converter(meta.clock() == ClockDomain.UNIX_EPOCH ? header.baseNs : 0);
    TraceWriter writer = TraceWriter.create(gtrace, meta);
    try {
      converter.writer = writer;
      parse(json, new Times(resolved.digits, false), converter::accept);
      writer.close();
    } catch (IOException | RuntimeException e) {
      writer.abort();
      throw e;
    }
    return new Result(gtrace, meta, scan.events, Collections.unmodifiableSortedMap(converter.records),
        Collections.unmodifiableSortedMap(converter.missing), Collections.unmodifiableSortedMap(scan.ignored),
        Collections.unmodifiableSortedMap(converter.skipped));
  }

  private static TraceMeta meta(Path json, Header h, Scan scan, TimeUnit unit, boolean detected) {
    SortedSet<Integer> ids = new TreeSet<>(scan.devices);
    ids.addAll(h.deviceNames.keySet());
    List<TraceDevice> devices = new ArrayList<>();
    for (int id : ids) {
      devices.add(new TraceDevice(id, h.deviceNames.getOrDefault(id, ""), "", DeviceKind.REAL));
    }
    boolean absolute = h.baseNs > 0 || (scan.events > 0 && scan.minTsNs != Long.MAX_VALUE
        && scan.minTsNs >= EPOCH_THRESHOLD_NS);
    Map<String, String> attributes = new TreeMap<>(h.attributes);
    attributes.put("importedFrom", String.valueOf(json.getFileName()));
    attributes.put("kineto.timeUnit", (unit == TimeUnit.NANOSECONDS ? "ns" : "us")
        + (detected ? " (detected: the times do not fit as microseconds)" : ""));
    return new TraceMeta("kineto", absolute ? ClockDomain.UNIX_EPOCH : ClockDomain.HOST_MONOTONIC, devices,
        attributes);
  }

  /** One trace event, with the fields the importer reads; reused from event to event. */
  static final class Event {
    String ph;
    String cat;
    String name;
    boolean hasTs;
    long tsNs;
    boolean hasDur;
    long durNs;
    boolean hasPid;
    long pid;
    boolean hasTid;
    long tid;
    boolean hasDevice;
    long device;
    boolean hasInDevice;
    long inDevice;
    boolean hasStream;
    long stream;
    boolean hasCorrelation;
    long correlation;
    boolean hasRegisters;
    long registers;
    boolean hasShared;
    long shared;
    boolean hasBytes;
    long bytes;
    int[] grid;
    int[] block;
    String syncKind;
    /** What {@link #type()} returns, computed once per event by {@link #classify()}. */
    String type;
    int line;
    int column;

    void reset() {
      ph = cat = name = syncKind = null;
      hasTs = hasDur = hasPid = hasTid = hasDevice = hasInDevice = hasStream = hasCorrelation = false;
      hasRegisters = hasShared = hasBytes = false;
      grid = block = null;
      type = null;
    }

    /** The kind of record this event becomes, or null when it is not imported. */
    String type() {
      return type;
    }

    void classify() {
      type = typeOf(ph, cat);
    }

    private static String typeOf(String ph, String cat) {
      if (!"X".equals(ph) || cat == null) {
        return null;
      }
      return switch (cat.toLowerCase(Locale.ROOT)) {
        case "kernel" -> "kernel";
        case "gpu_memcpy", "memcpy" -> "copy";
        case "gpu_memset", "memset" -> "memset";
        case "cuda_runtime", "cuda_driver", "runtime", "driver" -> "api";
        case "cuda_sync" -> "sync";
        case "user_annotation" -> "marker";
        case "overhead" -> "overhead";
        default -> null;
      };
    }

    boolean onDevice() {
      String t = type();
      return "kernel".equals(t) || "copy".equals(t) || "memset".equals(t) || "sync".equals(t);
    }

    /** The device of a device-side event: args.device, else args.inDevice (peer copies), else pid. */
    Long deviceId() {
      if (hasDevice) {
        return device;
      }
      if (hasInDevice) {
        return inDevice;
      }
      return hasPid ? pid : null;
    }
  }

  /** The top-level fields of the trace other than its events. */
  private static final class Header {
    long baseNs;
    boolean hasEvents;
    final SortedMap<Integer, String> deviceNames = new TreeMap<>();
    final SortedMap<String, String> attributes = new TreeMap<>();
  }

  /** The first pass: counts events, finds devices, the earliest time and what will be ignored. */
  private static final class Scan {
    final SortedSet<Integer> devices = new TreeSet<>();
    final SortedMap<String, Long> ignored = new TreeMap<>();
    long events;
    long minTsNs = Long.MAX_VALUE;

    void accept(Event e) {
      events++;
      String type = e.type();
      if (type == null) {
        ignored.merge(!"X".equals(e.ph) ? "ph " + e.ph : "cat " + e.cat, 1L, Long::sum);
        return;
      }
      if (e.hasTs) {
        minTsNs = Math.min(minTsNs, e.tsNs);
      }
      if (e.onDevice()) {
        Long d = e.deviceId();
        if (d != null) {
          devices.add(narrow(d, "device"));
        }
      }
    }
  }

  /** The second pass: turns events into records and writes them. */
  private static final class Converter {
    final long baseNs;
    final SortedMap<String, Long> records = new TreeMap<>();
    final SortedMap<String, Long> missing = new TreeMap<>();
    final SortedMap<String, Long> skipped = new TreeMap<>();
    TraceWriter writer;

    Converter(long baseNs) {
      this.baseNs = baseNs;
    }

    void accept(Event e) {
      String type = e.type();
      if (type == null) {
        return;
      }
      String cat = e.cat;
      if (!e.hasTs) {
        skipped.merge(cat + ": no ts", 1L, Long::sum);
        return;
      }
      long dur = 0;
      if (!e.hasDur) {
        missing(cat, "dur");
      } else if (e.durNs < 0) {
        missing(cat, "dur (negative)");
      } else {
        dur = e.durNs;
      }
      String name = e.name;
      if (name == null || name.isEmpty()) {
        missing(cat, "name");
        name = "";
      }
      TraceRecord r;
      try {
        long start = Math.addExact(baseNs, e.tsNs);
        r = record(e, type, name, start, Math.addExact(start, dur));
      } catch (ArithmeticException | IllegalArgumentException ex) {
        String why = ex instanceof ArithmeticException ? "its time is out of range" : ex.getMessage();
        throw new java.io.UncheckedIOException(
            new KinetoFormatException(e.line, e.column, "trace event cannot be imported: " + why));
      }
      try {
        writer.write(r);
      } catch (IOException ex) {
        throw new java.io.UncheckedIOException(ex);
      }
      records.merge(type, 1L, Long::sum);
    }

    private TraceRecord record(Event e, String type, String name, long start, long end) {
      String cat = e.cat;
      return switch (type) {
        case "kernel" -> new KernelRecord(name.isEmpty() ? "(unnamed kernel)" : name, device(e), stream(e),
            correlation(e), start, end, dim(e, e.grid, "grid"), dim(e, e.block, "block"),
            e.hasRegisters ? narrow(e.registers, "registers per thread") : missingInt(cat, "args.registers per thread"),
            e.hasShared ? narrow(e.shared, "shared memory") : missingInt(cat, "args.shared memory"), e.hasShared ? 0 : -1);
        case "copy" -> copy(e, name, start, end);
        case "memset" -> new MemsetRecord(bytes(e), 0, memoryKindInParens(e, name), device(e), stream(e),
            correlation(e), start, end);
        case "api" -> new ApiCallRecord(ApiKinds.of(name), name, thread(e), correlation(e), start, end);
        case "sync" -> new SyncRecord(syncKind(e, name), device(e), stream(e), correlation(e), start, end);
        case "marker" -> new MarkerRecord(name, thread(e), start, end);
        case "overhead" -> new OverheadRecord(overheadKind(name), thread(e), start, end);
        default -> throw new IllegalStateException("unhandled type " + type);
      };
    }

    private CopyRecord copy(Event e, String name, long start, long end) {
      CopyKind kind = null;
      MemoryKind src = null;
      MemoryKind dst = null;
      Matcher m = MEMCPY.matcher(name);
      if (m.matches()) {
        kind = Names.parseCopyKind(m.group(1));
        if (m.group(2) != null) {
          src = Names.parseMemoryKind(m.group(2));
          dst = Names.parseMemoryKind(m.group(3));
        }
      }
      if (kind == null) {
        missing(e.cat, "copy kind in name");
      }
      if (src == null || dst == null) {
        missing(e.cat, "memory kinds in name");
      }
      return new CopyRecord(kind, bytes(e), src, dst, device(e), stream(e), correlation(e), start, end);
    }

    private MemoryKind memoryKindInParens(Event e, String name) {
      Matcher m = PAREN.matcher(name);
      MemoryKind k = m.matches() ? Names.parseMemoryKind(m.group(1)) : null;
      if (k == null) {
        missing(e.cat, "memory kind in name");
      }
      return k;
    }

    private SyncKind syncKind(Event e, String name) {
      SyncKind k = e.syncKind != null ? Names.parseSyncKind(e.syncKind) : null;
      if (k == null) {
        k = Names.parseSyncKind(name);
      }
      if (k == null) {
        missing(e.cat, "sync kind");
      }
      return k;
    }

    private static OverheadKind overheadKind(String name) {
      return switch (name.strip().toLowerCase(Locale.ROOT)) {
        case "buffer flush", "cupti buffer flush" -> OverheadKind.BUFFER_FLUSH;
        case "instrumentation", "cupti instrumentation" -> OverheadKind.INSTRUMENTATION;
        case "resource", "cupti resource" -> OverheadKind.RESOURCE;
        default -> OverheadKind.OTHER;
      };
    }

    private int device(Event e) {
      Long d = e.deviceId();
      if (!e.hasDevice && !e.hasInDevice) {
        missing(e.cat, "args.device");
      }
      return d == null ? 0 : narrow(d, "device");
    }

    private int stream(Event e) {
      if (e.hasStream) {
        return narrow(e.stream, "stream");
      }
      missing(e.cat, "args.stream");
      return e.hasTid ? narrow(e.tid, "tid") : -1;
    }

    private long correlation(Event e) {
      if (e.hasCorrelation) {
        return e.correlation;
      }
      missing(e.cat, "args.correlation");
      return 0;
    }

    private long bytes(Event e) {
      if (e.hasBytes && e.bytes >= 0) {
        return e.bytes;
      }
      missing(e.cat, "args.bytes");
      return 0;
    }

    private long thread(Event e) {
      if (e.hasTid) {
        return e.tid;
      }
      missing(e.cat, "tid");
      return 0;
    }

    private Dim3 dim(Event e, int[] d, String what) {
      if (d == null || d.length != 3 || d[0] < 0 || d[1] < 0 || d[2] < 0) {
        missing(e.cat, "args." + what);
        return null;
      }
      return new Dim3(d[0], d[1], d[2]);
    }

    private int missingInt(String cat, String field) {
      missing(cat, field);
      return -1;
    }

    private void missing(String cat, String field) {
      missing.merge(cat + ": " + field, 1L, Long::sum);
    }
  }

  /**
   * Parses the whole file, handing each event to {@code events}; returns the top-level fields. Any JSON error, a
   * truncated file, or a malformed event is a {@link KinetoFormatException} naming the line and column.
   */
  private static Header parse(Path json, Times unit, Consumer<Event> events) throws IOException {
    JsonParser p = null;
    try (InputStream in = open(json)) {
      p = JSON.createParser(ObjectReadContext.empty(), in);
      return parse(p, unit, events);
    } catch (java.io.UncheckedIOException e) {
      throw e.getCause();
    } catch (JacksonException e) {
      TokenStreamLocation at = e.getLocation() != null && e.getLocation() != TokenStreamLocation.NA
          ? e.getLocation() : p != null ? p.currentLocation() : TokenStreamLocation.NA;
      String msg = e.getOriginalMessage() == null ? e.getClass().getSimpleName() : e.getOriginalMessage();
      if (endOfInput(e) || msg.contains("Unexpected end of ZLIB")) {
        msg = "the file is truncated: " + msg;
      }
      throw new KinetoFormatException(at.getLineNr(), at.getColumnNr(), firstLine(msg));
    } finally {
      if (p != null) {
        try {
          p.close();
        } catch (JacksonException ignored) {
          // the parse result or its error is what matters
        }
      }
    }
  }

  private static Header parse(JsonParser p, Times unit, Consumer<Event> events) throws IOException {
    Header h = new Header();
    Event e = new Event();
    JsonToken root = p.nextToken();
    if (root == JsonToken.START_ARRAY) {
      h.hasEvents = true;
      if (!events(p, unit, e, events, true)) {
        h.attributes.put("kineto.unterminatedArray", "true");
        return h;
      }
    } else if (root == JsonToken.START_OBJECT) {
      String field;
      while ((field = p.nextName()) != null) {
        JsonToken t = p.nextToken();
        switch (field) {
          case "traceEvents" -> {
            if (t != JsonToken.START_ARRAY) {
              throw error(p, "\"traceEvents\" is not an array");
            }
            h.hasEvents = true;
            events(p, unit, e, events, false);
          }
          case "deviceProperties" -> deviceProperties(p, h);
          case "baseTimeNanoseconds" -> {
            if (!t.isNumeric()) {
              throw error(p, "\"baseTimeNanoseconds\" is not a number");
            }
            h.baseNs = p.getValueAsLong();
            h.attributes.put("kineto.baseTimeNanoseconds", Long.toString(h.baseNs));
          }
          case "distributedInfo" -> scalars(p, "kineto.distributedInfo.", h.attributes);
          default -> {
            if (t.isScalarValue()) {
              h.attributes.put("kineto." + field, p.getString());
            } else {
              p.skipChildren();
            }
          }
        }
      }
      if (p.currentToken() != JsonToken.END_OBJECT) {
        throw error(p, "expected a field name");
      }
    } else if (root == null) {
      throw new KinetoFormatException(-1, -1, "not a Kineto/Chrome trace: the file is empty");
    } else {
      throw error(p, "not a Kineto/Chrome trace: the file does not hold a JSON object or array");
    }
    if (p.nextToken() != null) {
      throw error(p, "unexpected content after the end of the trace");
    }
    if (!h.hasEvents) {
      throw new KinetoFormatException(-1, -1, "not a Kineto/Chrome trace: no \"traceEvents\" array");
    }
    return h;
  }

  /**
   * Reads the events of the array at the current token; true when the array was closed. When {@code openEndAllowed}
   * (the JSON Array Format, whose closing bracket the trace-event format makes optional so that a crashed tracer's
   * output stays readable), input that ends right after a whole event, with or without a comma, ends the array: false.
   */
  private static boolean events(JsonParser p, Times unit, Event e, Consumer<Event> events, boolean openEndAllowed)
      throws IOException {
    while (true) {
      JsonToken t;
      try {
        t = p.nextToken();
      } catch (JacksonException end) {
        if (openEndAllowed && endOfInput(end)) {
          return false;
        }
        throw end;
      }
      if (t == JsonToken.END_ARRAY) {
        return true;
      }
      if (t == null) {
        if (openEndAllowed) {
          return false;
        }
        throw error(p, "the file is truncated inside \"traceEvents\"");
      }
      if (t != JsonToken.START_OBJECT) {
        throw error(p, "a trace event is not a JSON object");
      }
      e.reset();
      TokenStreamLocation at = p.currentTokenLocation();
      e.line = at.getLineNr();
      e.column = at.getColumnNr();
      event(p, unit, e);
      e.classify();
      events.accept(e);
    }
  }

  private static void event(JsonParser p, Times unit, Event e) throws IOException {
    String field;
    while ((field = p.nextName()) != null) {
      JsonToken t = p.nextToken();
      switch (field) {
        case "ph" -> e.ph = string(p, t);
        case "cat" -> e.cat = string(p, t);
        case "name" -> e.name = string(p, t);
        case "ts" -> {
          e.tsNs = time(p, t, unit, e, "ts");
          e.hasTs = true;
        }
        case "dur" -> {
          e.durNs = time(p, t, unit, e, "dur");
          e.hasDur = true;
        }
        case "pid" -> {
          Long v = integer(p, t);
          e.hasPid = v != null;
          e.pid = v == null ? 0 : v;
        }
        case "tid" -> {
          Long v = integer(p, t);
          e.hasTid = v != null;
          e.tid = v == null ? 0 : v;
        }
        case "args" -> args(p, t, e);
        default -> p.skipChildren();
      }
    }
    if (p.currentToken() != JsonToken.END_OBJECT) {
      throw error(p, "expected a field name in a trace event");
    }
  }

  private static void args(JsonParser p, JsonToken t, Event e) throws IOException {
    if (t != JsonToken.START_OBJECT) {
      p.skipChildren();
      return;
    }
    String field;
    while ((field = p.nextName()) != null) {
      JsonToken v = p.nextToken();
      switch (field) {
        case "device" -> {
          Long x = integer(p, v);
          e.hasDevice = x != null;
          e.device = x == null ? 0 : x;
        }
        case "inDevice" -> {
          Long x = integer(p, v);
          e.hasInDevice = x != null;
          e.inDevice = x == null ? 0 : x;
        }
        case "stream" -> {
          Long x = integer(p, v);
          e.hasStream = x != null;
          e.stream = x == null ? 0 : x;
        }
        case "correlation" -> {
          Long x = integer(p, v);
          e.hasCorrelation = x != null;
          e.correlation = x == null ? 0 : x;
        }
        case "registers per thread" -> {
          Long x = integer(p, v);
          e.hasRegisters = x != null;
          e.registers = x == null ? 0 : x;
        }
        case "shared memory" -> {
          Long x = integer(p, v);
          e.hasShared = x != null;
          e.shared = x == null ? 0 : x;
        }
        case "bytes" -> {
          Long x = integer(p, v);
          e.hasBytes = x != null;
          e.bytes = x == null ? 0 : x;
        }
        case "grid" -> e.grid = triple(p, v);
        case "block" -> e.block = triple(p, v);
        case "cuda_sync_kind" -> e.syncKind = string(p, v);
        default -> p.skipChildren();
      }
    }
  }

  private static void deviceProperties(JsonParser p, Header h) throws IOException {
    if (p.currentToken() != JsonToken.START_ARRAY) {
      p.skipChildren();
      return;
    }
    JsonToken t;
    while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
      if (t != JsonToken.START_OBJECT) {
        p.skipChildren();
        continue;
      }
      Map<String, String> props = new TreeMap<>();
      scalars(p, "", props);
      String id = props.get("id");
      Long index = id == null ? null : parseLong(id);
      if (index == null) {
        continue;
      }
      h.deviceNames.put(narrow(index, "deviceProperties.id"), props.getOrDefault("name", ""));
      props.forEach((k, v) -> {
        if (!k.equals("id")) {
          h.attributes.put("kineto.device." + index + "." + k, v);
        }
      });
    }
  }

  /** Reads the scalar fields of the object at the current token into {@code out} (prefixed); skips the rest. */
  private static void scalars(JsonParser p, String prefix, Map<String, String> out) throws IOException {
    if (p.currentToken() != JsonToken.START_OBJECT) {
      p.skipChildren();
      return;
    }
    String field;
    while ((field = p.nextName()) != null) {
      JsonToken v = p.nextToken();
      if (v.isScalarValue()) {
        out.put(prefix + field, p.getString());
      } else {
        p.skipChildren();
      }
    }
  }

  private static String string(JsonParser p, JsonToken t) throws IOException {
    if (t == JsonToken.VALUE_STRING) {
      return p.getString();
    }
    if (t.isScalarValue() && t != JsonToken.VALUE_NULL) {
      return p.getString();
    }
    p.skipChildren();
    return null;
  }

  /** An integer field: a JSON integer, a float (truncated), or a string ending in an integer ("stream 7"). */
  private static Long integer(JsonParser p, JsonToken t) throws IOException {
    switch (t) {
      case VALUE_NUMBER_INT -> {
        return p.getValueAsLong();
      }
      case VALUE_NUMBER_FLOAT -> {
        return (long) p.getDoubleValue();
      }
      case VALUE_STRING -> {
        Matcher m = TRAILING_INT.matcher(p.getString());
        return m.matches() ? parseLong(m.group(1)) : null;
      }
      default -> {
        p.skipChildren();
        return null;
      }
    }
  }

  private static int[] triple(JsonParser p, JsonToken t) throws IOException {
    if (t != JsonToken.START_ARRAY) {
      p.skipChildren();
      return null;
    }
    int[] v = new int[3];
    int n = 0;
    JsonToken x;
    while ((x = p.nextToken()) != JsonToken.END_ARRAY) {
      Long i = integer(p, x);
      if (i == null || n == 3) {
        n = 4;
        continue;
      }
      v[n++] = narrow(i, "grid/block dimension");
    }
    return n == 3 ? v : null;
  }

  /** A 32-bit field of the trace model; a value outside that range is a malformed trace, never silently cut. */
  static int narrow(long v, String field) {
    if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("args." + field + " = " + v + " does not fit the trace model's 32-bit field");
    }
    return (int) v;
  }

  /** A time field, exactly, in nanoseconds. */
  private static long time(JsonParser p, JsonToken t, Times unit, Event e, String field) throws IOException {
    BigDecimal d;
    try {
      d = switch (t) {
        case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> p.getDecimalValue();
        case VALUE_STRING -> new BigDecimal(p.getString().strip());
        default -> null;
      };
    } catch (NumberFormatException ex) {
      d = null;
    }
    if (d == null) {
      p.skipChildren();
      throw new KinetoFormatException(e.line, e.column, "trace event \"" + field + "\" is not a number");
    }
    try {
      return d.movePointRight(unit.digits).setScale(0, RoundingMode.HALF_EVEN).longValueExact();
    } catch (ArithmeticException ex) {
      if (unit.probe) {
        unit.overflowed = true;
        return 0;
      }
      throw new KinetoFormatException(e.line, e.column, "trace event \"" + field + "\" is out of range: " + d);
    }
  }

  /** Whether the parser failed because the input ended (Jackson reports some of these cases by message only). */
  private static boolean endOfInput(JacksonException e) {
    String msg = e.getOriginalMessage();
    return e instanceof UnexpectedEndOfInputException || (msg != null && msg.contains("end-of-input"));
  }

  private static Long parseLong(String s) {
    try {
      return Long.parseLong(s.strip());
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static KinetoFormatException error(JsonParser p, String detail) {
    TokenStreamLocation at = p.currentTokenLocation();
    return new KinetoFormatException(at.getLineNr(), at.getColumnNr(), detail);
  }

  private static String firstLine(String s) {
    int nl = s.indexOf('\n');
    return (nl < 0 ? s : s.substring(0, nl)).strip();
  }

  /** The file as a stream, gunzipped when it starts with the gzip magic. */
  private static InputStream open(Path json) throws IOException {
    InputStream in = new BufferedInputStream(Files.newInputStream(json), 1 << 16);
    in.mark(2);
    int b0 = in.read();
    int b1 = in.read();
    in.reset();
    if (b0 == 0x1f && b1 == 0x8b) {
      return new BufferedInputStream(new GZIPInputStream(in, 1 << 16), 1 << 16);
    }
    return in;
  }
}
