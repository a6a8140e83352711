package io.gitm.tracer;

import io.gitm.trace.ClockDomain;
import io.gitm.trace.DeviceKind;
import io.gitm.trace.TraceDevice;
import io.gitm.trace.TraceMeta;
import io.gitm.tracer.KinetoParser.Header;
import io.gitm.tracer.KinetoParser.Times;
import io.gitm.tracer.KinetoRecords.Converter;
import io.gitm.tracer.KinetoRecords.Scan;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Imports a PyTorch profiler (Kineto) trace — Chrome trace-event JSON, plain or gzipped — into a {@code .gtrace}
 * file, so that gitm can analyse jobs it did not run.
 *
 * <p>Complete ({@code "ph": "X"}) events become records by category: {@code kernel} → kernel; {@code gpu_memcpy} →
 * copy (direction and memory kinds from the name, e.g. {@code "Memcpy HtoD (Pageable -> Device)"}); {@code gpu_memset}
 * → memset; {@code cuda_runtime} and {@code cuda_driver} → API call (kind from the function name, correlation id
 * from {@code args.correlation}, thread from {@code tid}); {@code cuda_sync} → synchronization;
 * {@code user_annotation} (e.g. {@code ProfilerStep#3}) → marker; {@code overhead} → tracer overhead;
 * {@code cpu_op} → host operation (thread from {@code tid}, {@code args."External id"}), and a {@code cpu_op} named
 * {@code ProfilerStep#N} (PyTorch 1.x writes the step so) → a marker as well. The collective metadata PyTorch writes
 * on {@code record_param_comms} operations and on the NCCL kernels they launch ({@code "Collective name"},
 * {@code "In msg nelems"}, {@code "Out msg nelems"}, {@code "Group size"}, {@code dtype},
 * {@code "Process Group Name"}, {@code "Process Group Description"}, {@code "Process Group Ranks"}) → a collective
 * record beside the host operation or kernel. Device, stream, correlation, grid, block, registers and shared memory
 * come from {@code args}; the device table from {@code deviceProperties}. The older categories {@code Kernel},
 * {@code Memcpy}, {@code Memset}, {@code Runtime} and {@code Driver} are accepted too, and so are PyTorch 1.8's steps,
 * {@code Operator} events named {@code ProfilerStep#N} (markers), and {@code args."correlation id"} for
 * {@code args.correlation}. Other events (Python functions, flows, metadata, instants, CUPTI profiler ranges, other
 * accelerators' categories) are counted by category or phase in {@link Result#ignored()} and in the meta attributes
 * {@code kineto.notImported.KEY}, each with what it is ({@link #whyNotImported}).
 *
 * <p>Ids: a device, stream, register or shared-memory figure outside 0 to 2^31-1 (Kineto writes CUPTI's uint32 -1,
 * 4294967295, as the stream of a context or device synchronization) is imported as -1, the model's "none" or
 * "unknown", and counted in {@link Result#mapped()}; a grid or block dimension out of that range is missing.
 *
 * <p>Time: {@code ts} and {@code dur} are microseconds (the trace-event format's unit, with up to three decimals, read
 * exactly); {@code displayTimeUnit} only changes how viewers display them. When {@code baseTimeNanoseconds} is present
 * (newer Kineto versions), {@code ts} is relative to it and the imported times are Unix-epoch nanoseconds; without it,
 * timestamps of 10^18 ns or more are taken as Unix-epoch times (older Kineto wrote absolute epoch microseconds),
 * smaller ones as a host monotonic clock. A file whose timestamps cannot be microseconds (they would not fit in 64-bit
 * nanoseconds) was written in nanoseconds by some other tool and is read so ({@link TimeUnit#AUTO}, the default);
 * a file of small nanosecond timestamps cannot be told apart and needs {@link TimeUnit#NANOSECONDS}. Kineto reports
 * a kernel's shared memory as one sum: it is stored as static shared memory with dynamic 0. Kineto does not record
 * memset values: they are stored as 0.
 *
 * <p>A field that is missing gets its documented "unknown" value (-1 for registers and shared memory, 0 for a
 * correlation id, a 1x1x1 grid or block) and is counted in {@link Result#missing()}; an event without {@code ts}
 * is skipped and counted. The file is read twice with a streaming parser: first to check it whole and to find its
 * devices and clock, then to write; a malformed or truncated file gives a {@link KinetoFormatException} naming the
 * line and column, and nothing is written (the writer's temporary file is deleted). So is a trace without a single
 * device operation (a kernel, memcpy or memset with a timestamp): the exception says which events the trace holds and
 * why none is usable (a CPU-only profile, CUPTI profiler ranges, another accelerator). The one exception is the one the
 * trace-event format makes: a file in its JSON Array Format ({@code [ {...}, {...},}) may end without its closing
 * bracket after a whole event (early Kineto wrote such files); it imports, with the meta attribute
 * {@code kineto.unterminatedArray}.
 */
public final class KinetoImporter {
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

  /**
   * What an import produced.
   *
   * @param records records written, by type (as {@link TraceSummary#RECORD_TYPES} names them), only types that occur
   * @param missing fields that were missing, as "category: field" → number of events
   * @param ignored events not imported, as "ph P" or "cat C" → number of events ({@link #whyNotImported} says what
   *     they are)
   * @param skipped events of an imported category that could not be imported (no {@code ts}), by reason
   * @param mapped ids that do not fit the trace model (uint32 -1, -1, or beyond 32 bits), imported as -1 ("none"),
   *     as "category: field = value" → number of events
   */
  public record Result(Path output, TraceMeta meta, long events, SortedMap<String, Long> records,
      SortedMap<String, Long> missing, SortedMap<String, Long> ignored, SortedMap<String, Long> skipped,
      SortedMap<String, Long> mapped) {
    public long recordCount() {
      return records.values().stream().mapToLong(Long::longValue).sum();
    }

    /**
     * What the import changed or could not take, one sentence each, for a caller that analyses the imported trace:
     * negative or missing durations (imported as 0), other missing fields (stored as unknown), ids mapped to "none",
     * skipped events, a file that ends without closing its array, and a time unit detected as nanoseconds.
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
      mapped.forEach((key, n) -> out.add(mappedNote(key, n)));
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

  /** The meta attribute prefix under which the events not imported are counted, by their key. */
  public static final String NOT_IMPORTED = "kineto.notImported.";

  /** What the events counted under {@code key} in {@link Result#ignored()} are, and why they are not imported. */
  public static String whyNotImported(String key) {
    return KinetoCategories.why(key);
  }

  /** A note for an id mapped to "none": {@code key} is "category: field = value". */
  static String mappedNote(String key, long n) {
    int at = key.indexOf(": ");
    int eq = key.lastIndexOf(" = ");
    String cat = at < 0 ? "" : key.substring(0, at);
    String field = at < 0 || eq < at ? key : key.substring(at + 2, eq);
    String value = eq < 0 ? "" : key.substring(eq + 3);
    String what = switch (value) {
      case "4294967295" -> field.equals("args.stream") && cat.equals("cuda_sync")
          ? "uint32 -1: a context or device synchronization has no stream" : "uint32 -1, CUPTI's invalid value";
      case "-1" -> "-1: none";
      default -> "it does not fit a 32-bit id";
    };
    boolean count = field.contains("registers") || field.contains("shared");
    return n + " " + cat + " event(s) have " + field + " = " + value + " (" + what + "): imported as -1 ("
        + (count ? "unknown" : "none") + ")";
  }

  /** Imports {@code json} into {@code gtrace}, with the time unit found as {@link TimeUnit#AUTO} finds it. */
  public static Result importTrace(Path json, Path gtrace) throws IOException {
    return importTrace(json, gtrace, TimeUnit.AUTO);
  }

  /** Imports {@code json} into {@code gtrace}; a bad input leaves {@code gtrace} as it was. */
  public static Result importTrace(Path json, Path gtrace, TimeUnit unit) throws IOException {
    Scan scan = new Scan();
    Times probe = new Times(unit.digits, unit == TimeUnit.AUTO);
    Header header = KinetoParser.parse(json, probe, scan::accept);
    TimeUnit resolved = unit == TimeUnit.AUTO ? TimeUnit.MICROSECONDS : unit;
    if (probe.overflowed) {
      resolved = TimeUnit.NANOSECONDS;
      scan = new Scan();
      header = KinetoParser.parse(json, new Times(resolved.digits, false), scan::accept);
    }
    if (scan.deviceOps == 0) {
      throw new KinetoFormatException(-1, -1, "no device operations to import (no kernel, memcpy or memset event with"
          + " a timestamp): " + KinetoCategories.noDeviceOperations(scan.seen, scan.events) + "; the trace holds "
          + (scan.seen.isEmpty() ? "nothing" : counts(scan.seen)));
    }
    TraceMeta meta = meta(json, header, scan, resolved, probe.overflowed);
    Converter converter = new Converter(meta.clock() == ClockDomain.UNIX_EPOCH ? header.baseNs : 0);
    TraceWriter writer = TraceWriter.create(gtrace, meta);
    try {
      converter.writer = writer;
      KinetoParser.parse(json, new Times(resolved.digits, false), converter::accept);
      writer.close();
    } catch (IOException | RuntimeException e) {
      writer.abort();
      throw e;
    }
    return new Result(gtrace, meta, scan.events, Collections.unmodifiableSortedMap(converter.records),
        Collections.unmodifiableSortedMap(converter.missing), Collections.unmodifiableSortedMap(scan.ignored),
        Collections.unmodifiableSortedMap(converter.skipped), Collections.unmodifiableSortedMap(converter.mapped));
  }

  private static String counts(Map<String, Long> m) {
    StringBuilder sb = new StringBuilder();
    m.forEach((k, n) -> sb.append(sb.isEmpty() ? "" : ", ").append(k).append(' ').append(n));
    return sb.toString();
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
    scan.ignored.forEach((key, n) -> attributes.put(NOT_IMPORTED + key, Long.toString(n)));
    attributes.put("kineto.timeUnit", (unit == TimeUnit.NANOSECONDS ? "ns" : "us")
        + (detected ? " (detected: the times do not fit as microseconds)" : ""));
    return new TraceMeta("kineto", absolute ? ClockDomain.UNIX_EPOCH : ClockDomain.HOST_MONOTONIC, devices,
        attributes);
  }
}
