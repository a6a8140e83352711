package io.gitm.tracer;

import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.CollectiveRecord;
import io.gitm.trace.CopyKind;
import io.gitm.trace.CopyRecord;
import io.gitm.trace.HostOpRecord;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.MarkerRecord;
import io.gitm.trace.MemsetRecord;
import io.gitm.trace.OverheadRecord;
import io.gitm.trace.StateSample;
import io.gitm.trace.SyncRecord;
import io.gitm.trace.TraceDevice;
import io.gitm.trace.TraceMeta;
import io.gitm.trace.TraceRecord;
import io.gitm.trace.TraceSink;
import io.gitm.trace.TrafficRecord;
import io.gitm.trace.WorkRecord;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.UnaryOperator;

/**
 * What a trace holds, computed in one streaming pass: its meta, record counts by type, time span, the streams of each
 * device, copy volume by direction, and the kernels that took the most device time.
 *
 * @param recordCounts records by type ({@code kernel, copy, memset, sync, api, overhead, state, marker, work,
 *     traffic, hostop, collective}), all listed
 * @param firstNs the earliest start of any record, 0 for an empty trace
 * @param lastNs the latest end of any record, 0 for an empty trace
 * @param streamsByDevice the streams that kernels, copies, memsets or syncs ran on, by device index
 * @param hostThreads distinct host threads of API calls, host operations, markers and overhead
 *     intervals
 * @param copyBytes bytes copied by direction, only directions that occur
 * @param kernelNs total kernel time, summed over all kernels (concurrent kernels count separately)
 * @param topKernels kernels by name, by total time, largest first, at most the requested number
 */
public record TraceSummary(TraceMeta meta, long fileBytes, long blocks, long records, Map<String, Long> recordCounts,
    long firstNs, long lastNs, SortedMap<Integer, SortedSet<Integer>> streamsByDevice, int hostThreads,
    Map<CopyKind, Long> copyBytes, long kernelNs, List<KernelStat> topKernels) {

  /** The record type names, in the order {@link #recordCounts()} lists them. */
  public static final List<String> RECORD_TYPES =
      List.of("kernel", "copy", "memset", "sync", "api", "overhead", "state", "marker", "work", "traffic",
          "hostop", "collective");

  /** Time of all executions of one kernel (by name). */
  public record KernelStat(String name, long count, long totalNs, long minNs, long maxNs) {
    public double meanNs() {
      return count == 0 ? 0 : (double) totalNs / count;
    }
  }

  /** The span from the earliest start to the latest end, in nanoseconds. */
  public long spanNs() {
    return lastNs - firstNs;
  }

  /**
   * Reads the whole trace and summarizes it, keeping the {@code topKernels} kernels with the most total time; the
   * records are streamed, never held.
   */
  public static TraceSummary of(Path file, int topKernels) throws IOException {
    return of(file, topKernels, null);
  }

  /**
   * Summarizes the records {@code select} keeps of the trace's records (all of them read first, then chosen, as a
   * window of profiler steps needs the whole trace to place itself); every record when {@code select} is null.
   */
  public static TraceSummary of(Path file, int topKernels, UnaryOperator<List<TraceRecord>> select)
      throws IOException {
    if (topKernels < 0) {
      throw new IllegalArgumentException("negative number of top kernels: " + topKernels);
    }
    try (TraceReader reader = TraceReader.open(file)) {
      Collector c = new Collector();
      if (select == null) {
        reader.read(c);
      } else {
        List<TraceRecord> all = new ArrayList<>();
        reader.read(all::add);
        select.apply(all).forEach(c::accept);
      }
      return c.summary(reader, topKernels);
    }
  }

  /** Accumulates the summary one record at a time. */
  private static final class Collector implements TraceSink {
    private final long[] counts = new long[RECORD_TYPES.size()];
    private final SortedMap<Integer, SortedSet<Integer>> streams = new TreeMap<>();
    private final Set<Long> threads = new HashSet<>();
    private final Map<CopyKind, Long> copyBytes = new EnumMap<>(CopyKind.class);
    private final Map<String, long[]> kernels = new HashMap<>();
    private long first = Long.MAX_VALUE;
    private long last = Long.MIN_VALUE;
    private long kernelNs;

    @Override
    public void accept(TraceRecord r) {
      first = Math.min(first, r.startNs());
      last = Math.max(last, r.endNs());
      switch (r) {
        case KernelRecord k -> {
          counts[0]++;
          stream(k.device(), k.stream());
          long d = k.durationNs();
          kernelNs += d;
          long[] s = kernels.computeIfAbsent(k.name(), n -> new long[] {0, 0, Long.MAX_VALUE, Long.MIN_VALUE});
          s[0]++;
          s[1] += d;
          s[2] = Math.min(s[2], d);
          s[3] = Math.max(s[3], d);
        }
        case CopyRecord c -> {
          counts[1]++;
          stream(c.device(), c.stream());
          copyBytes.merge(c.kind(), c.bytes(), Long::sum);
        }
        case MemsetRecord m -> {
          counts[2]++;
          stream(m.device(), m.stream());
        }
        case SyncRecord s -> {
          counts[3]++;
          streams.computeIfAbsent(s.device(), d -> new TreeSet<>());
        }
        case ApiCallRecord a -> {
          counts[4]++;
          threads.add(a.threadId());
        }
        case OverheadRecord o -> {
          counts[5]++;
          threads.add(o.threadId());
        }
        case StateSample s -> {
          counts[6]++;
          streams.computeIfAbsent(s.device(), d -> new TreeSet<>());
        }
        case MarkerRecord m -> {
          counts[7]++;
          threads.add(m.threadId());
        }
        case WorkRecord w -> counts[8]++;
        case TrafficRecord t -> counts[9]++;
        case HostOpRecord h -> {
          counts[10]++;
          threads.add(h.threadId());
        }
        case CollectiveRecord c -> counts[11]++;
      }
    }

    private void stream(int device, int stream) {
      streams.computeIfAbsent(device, d -> new TreeSet<>()).add(stream);
    }

    TraceSummary summary(TraceReader reader, int top) {
      Map<String, Long> byType = new LinkedHashMap<>();
      long total = 0;
      for (int i = 0; i < counts.length; i++) {
        byType.put(RECORD_TYPES.get(i), counts[i]);
        total += counts[i];
      }
      for (TraceDevice d : reader.meta().devices()) {
        streams.computeIfAbsent(d.index(), i -> new TreeSet<>());
      }
      List<KernelStat> stats = new ArrayList<>(kernels.size());
      kernels.forEach((name, s) -> stats.add(new KernelStat(name, s[0], s[1], s[2], s[3])));
      stats.sort(Comparator.comparingLong(KernelStat::totalNs).reversed().thenComparing(KernelStat::name));
      boolean empty = total == 0;
      return new TraceSummary(reader.meta(), reader.fileSize(), reader.blocks(), total,
          Collections.unmodifiableMap(byType), empty ? 0 : first, empty ? 0 : last,
          Collections.unmodifiableSortedMap(streams), threads.size(), Collections.unmodifiableMap(copyBytes), kernelNs,
          List.copyOf(stats.subList(0, Math.min(top, stats.size()))));
    }
  }
}
