package io.gitm.tracer;

import static io.gitm.tracer.KinetoParser.fits;

import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.ApiKinds;
import io.gitm.trace.CollectiveRecord;
import io.gitm.trace.CopyKind;
import io.gitm.trace.CopyRecord;
import io.gitm.trace.Dim3;
import io.gitm.trace.HostOpRecord;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.MarkerRecord;
import io.gitm.trace.MemoryKind;
import io.gitm.trace.MemsetRecord;
import io.gitm.trace.OverheadKind;
import io.gitm.trace.OverheadRecord;
import io.gitm.trace.SyncKind;
import io.gitm.trace.SyncRecord;
import io.gitm.trace.TraceRecord;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Record building from Kineto events, in the importer's two passes: {@link Scan} counts the events and finds the
 * devices, the earliest time and what will be ignored; {@link Converter} turns each imported event into its trace
 * record, noting every field it had to fill with its "unknown" value, and writes it.
 */
final class KinetoRecords {
  private static final Pattern MEMCPY = Pattern.compile("(?i)memcpy\\s+(\\w+)\\s*(?:\\((.*?)\\s*->\\s*(.*?)\\))?.*");
  private static final Pattern PAREN = Pattern.compile(".*\\((.*)\\).*");
  /** The step annotation PyTorch's profiler writes ({@code ProfilerStep#3}); a {@code cpu_op} in PyTorch 1.x. */
  private static final Pattern PROFILER_STEP = Pattern.compile("ProfilerStep#\\d+");

  private KinetoRecords() {}

  /**
   * The first pass: counts events, finds devices, the earliest time, what will be ignored and how many device
   * operations (kernels, copies, memsets with a timestamp) there are.
   */
  static final class Scan {
    final SortedSet<Integer> devices = new TreeSet<>();
    final SortedMap<String, Long> ignored = new TreeMap<>();
    /** Events by {@link #key}, imported or not: what the trace holds. */
    final SortedMap<String, Long> seen = new TreeMap<>();
    long events;
    long deviceOps;
    long minTsNs = Long.MAX_VALUE;

    void accept(KinetoEvent e) {
      events++;
      String key = key(e);
      seen.merge(key, 1L, Long::sum);
      String type = e.type();
      if (type == null) {
        ignored.merge(key, 1L, Long::sum);
        return;
      }
      if (e.hasTs) {
        minTsNs = Math.min(minTsNs, e.tsNs);
        if (e.deviceOperation()) {
          deviceOps++;
        }
      }
      if (e.onDevice()) {
        Long d = e.deviceId();
        if (d != null && fits(d)) {
          devices.add((int) (long) d);
        }
      }
    }

    /** How an event is counted: {@code cat C} for a complete event, else {@code ph P}. */
    static String key(KinetoEvent e) {
      return !"X".equals(e.ph) ? "ph " + e.ph : "cat " + e.cat;
    }
  }

  /** The second pass: turns events into records and writes them. */
  static final class Converter {
    final long baseNs;
    final SortedMap<String, Long> records = new TreeMap<>();
    final SortedMap<String, Long> missing = new TreeMap<>();
    final SortedMap<String, Long> skipped = new TreeMap<>();
    /** Ids that do not fit the trace model, as "category: field = value" → number of events. */
    final SortedMap<String, Long> mapped = new TreeMap<>();
    TraceWriter writer;

    Converter(long baseNs) {
      this.baseNs = baseNs;
    }

    void accept(KinetoEvent e) {
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
        throw new UncheckedIOException(
            new KinetoFormatException(e.line, e.column, "trace event cannot be imported: " + why));
      }
      write(r, type);
      if ("hostop".equals(type) && PROFILER_STEP.matcher(name).matches()) {
        write(new MarkerRecord(name, thread(e), r.startNs(), r.endNs()), "marker");
      }
      if (e.collective != null && ("hostop".equals(type) || "kernel".equals(type))) {
        write(collective(e, r), "collective");
      }
    }

    private void write(TraceRecord r, String type) {
      try {
        writer.write(r);
      } catch (IOException ex) {
        throw new UncheckedIOException(ex);
      }
      records.merge(type, 1L, Long::sum);
    }

    /** The collective metadata of a {@code record_param_comms} operation or of the NCCL kernel it launched. */
    private CollectiveRecord collective(KinetoEvent e, TraceRecord r) {
      boolean kernel = r instanceof KernelRecord;
      int groupSize = e.groupSize < 0 ? -1 : id(e, "args.Group size", e.groupSize);
      return new CollectiveRecord(e.collective, e.dtype, e.inElements, e.outElements, groupSize, e.groupName,
          e.groupDescription, e.groupRanks, kernel ? ((KernelRecord) r).device() : -1, kernel ? -1 : thread(e),
          e.hasExternalId ? e.externalId : 0, kernel ? ((KernelRecord) r).correlationId() : 0, r.startNs(), r.endNs());
    }

    private TraceRecord record(KinetoEvent e, String type, String name, long start, long end) {
      String cat = e.cat;
      return switch (type) {
        case "kernel" -> new KernelRecord(name.isEmpty() ? "(unnamed kernel)" : name, device(e), stream(e),
            correlation(e), start, end, dim(e, e.grid, "grid"), dim(e, e.block, "block"),
            e.hasRegisters ? id(e, "args.registers per thread", e.registers)
                : missingInt(cat, "args.registers per thread"),
            e.hasShared ? id(e, "args.shared memory", e.shared) : missingInt(cat, "args.shared memory"),
            e.hasShared && fits(e.shared) ? 0 : -1);
        case "copy" -> copy(e, name, start, end);
        case "memset" -> new MemsetRecord(bytes(e), 0, memoryKindInParens(e, name), device(e), stream(e),
            correlation(e), start, end);
        case "api" -> new ApiCallRecord(ApiKinds.of(name), name, thread(e), correlation(e), start, end);
        case "sync" -> new SyncRecord(syncKind(e, name), device(e), stream(e), correlation(e), start, end);
        case "marker" -> new MarkerRecord(name, thread(e), start, end);
        case "hostop" -> new HostOpRecord(name, thread(e), externalId(e), start, end);
        case "overhead" -> new OverheadRecord(overheadKind(name), thread(e), start, end);
        default -> throw new IllegalStateException("unhandled type " + type);
      };
    }

    private CopyRecord copy(KinetoEvent e, String name, long start, long end) {
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

    private MemoryKind memoryKindInParens(KinetoEvent e, String name) {
      Matcher m = PAREN.matcher(name);
      MemoryKind k = m.matches() ? Names.parseMemoryKind(m.group(1)) : null;
      if (k == null) {
        missing(e.cat, "memory kind in name");
      }
      return k;
    }

    private SyncKind syncKind(KinetoEvent e, String name) {
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

    private int device(KinetoEvent e) {
      Long d = e.deviceId();
      if (!e.hasDevice && !e.hasInDevice) {
        missing(e.cat, "args.device");
      }
      if (d == null) {
        return 0;
      }
      return id(e, e.hasDevice ? "args.device" : e.hasInDevice ? "args.inDevice" : "pid", d);
    }

    private int stream(KinetoEvent e) {
      if (e.hasStream) {
        return id(e, "args.stream", e.stream);
      }
      missing(e.cat, "args.stream");
      return e.hasTid ? id(e, "tid", e.tid) : -1;
    }

    /**
     * An id or count of the trace model's 32-bit fields; a value outside 0 to 2^31-1 (Kineto writes CUPTI's
     * uint32 -1, 4294967295, as the stream of a context or device synchronization, and -1 elsewhere) becomes -1,
     * the model's "none" or "unknown", and is counted in {@link #mapped}.
     */
    private int id(KinetoEvent e, String field, long v) {
      if (fits(v)) {
        return (int) v;
      }
      mapped.merge(e.cat + ": " + field + " = " + v, 1L, Long::sum);
      return -1;
    }

    private long correlation(KinetoEvent e) {
      if (e.hasCorrelation) {
        return e.correlation;
      }
      missing(e.cat, "args.correlation");
      return 0;
    }

    private long externalId(KinetoEvent e) {
      if (e.hasExternalId) {
        return e.externalId;
      }
      missing(e.cat, "args.External id");
      return 0;
    }

    private long bytes(KinetoEvent e) {
      if (e.hasBytes && e.bytes >= 0) {
        return e.bytes;
      }
      missing(e.cat, "args.bytes");
      return 0;
    }

    private long thread(KinetoEvent e) {
      if (e.hasTid) {
        return e.tid;
      }
      missing(e.cat, "tid");
      return 0;
    }

    private Dim3 dim(KinetoEvent e, int[] d, String what) {
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
}
