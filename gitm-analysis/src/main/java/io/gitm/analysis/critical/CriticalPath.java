package io.gitm.analysis.critical;

import io.gitm.trace.MarkerRecord;
import io.gitm.trace.TraceRecord;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The critical path of a window of a trace, as HTA's critical-path analysis defines it (docs/trace-analysis.md, "The
 * critical path"): a graph whose nodes are the starts and ends of host operations, API calls and device work, whose
 * edges are nesting on a thread, launches, execution, idle gaps on a stream and synchronizations, and its longest
 * path. Needs the host operations of an imported profiler trace ({@code HostOpRecord}) for the host side; without
 * them, API calls alone make it.
 */
public final class CriticalPath {
  /** HTA's threshold for a gap between two operations of a stream to count as idle on the path: 1.5 ms. */
  public static final long GAP_THRESHOLD_NS = 1_500_000;
  /** Items listed in {@link Result#top()}. */
  public static final int TOP = 10;

  private CriticalPath() {}

  /**
   * How the graph is built.
   *
   * @param inferSyncs whether a blocking call without a recorded synchronization gets a synchronization edge from the
   *     device work that ended last while it waited (HTA adds none)
   */
  public record Options(long gapThresholdNs, boolean inferSyncs) {
    /** HTA's graph. */
    public static final Options HTA = new Options(GAP_THRESHOLD_NS, false);
    /** gitm's default: HTA's, with inferred synchronizations. */
    public static final Options DEFAULT = new Options(GAP_THRESHOLD_NS, true);
  }

  /** Time on the path charged to one name of one edge kind (an operator, a kernel, a launch call). */
  public record Item(String name, Edge kind, long count, long ns) {}

  /**
   * A critical path.
   *
   * @param fromNs the window's start (host events and launches starting from it are in the graph)
   * @param toNs the window's end
   * @param startNs the time of the path's first node
   * @param endNs the time of the path's last node
   * @param lengthNs the sum of the weights of its edges
   * @param byKind the weight on the path by kind of edge, every kind listed
   * @param edgesByKind the path's edges by kind, every kind listed
   * @param top the names with the most time on the path, most first, at most {@link #TOP}
   * @param events the events of the graph
   * @param graphEdges the edges of the graph
   */
  public record Result(long fromNs, long toNs, long startNs, long endNs, long lengthNs, Map<Edge, Long> byKind,
      Map<Edge, Integer> edgesByKind, List<Item> top, int events, int graphEdges) {
    /** The share of the length that edges of {@code kind} make, 0 for an empty path. */
    public double share(Edge kind) {
      return lengthNs == 0 ? 0 : (double) byKind.getOrDefault(kind, 0L) / lengthNs;
    }
  }

  /**
   * The critical path of the window {@code [fromNs, toNs]} clipped to the records' own extent (first start to last
   * end), so that an open-ended window ({@code Long.MIN_VALUE..Long.MAX_VALUE}, the whole trace) has the trace's
   * bounds; with {@link Options#DEFAULT}.
   */
  public static Result clipped(List<TraceRecord> records, long fromNs, long toNs) {
    long first = Long.MAX_VALUE;
    long last = Long.MIN_VALUE;
    for (TraceRecord r : records) {
      first = Math.min(first, r.startNs());
      last = Math.max(last, r.endNs());
    }
    if (records.isEmpty()) {
      first = last = 0;
    }
    long from = Math.max(first, fromNs);
    long to = Math.min(last, toNs);
    return of(records, from, Math.max(from, to));
  }

  /** The critical path of the window {@code [fromNs, toNs]} of {@code records}, with {@link Options#DEFAULT}. */
  public static Result of(List<TraceRecord> records, long fromNs, long toNs) {
    return of(records, fromNs, toNs, Options.DEFAULT);
  }

  /** The critical path of the window {@code [fromNs, toNs]} of {@code records}; empty when it holds no events. */
  public static Result of(List<TraceRecord> records, long fromNs, long toNs, Options options) {
    Events ev = Events.of(records, fromNs, toNs);
    PathGraph g = new Builder(ev, options.gapThresholdNs(), options.inferSyncs()).build();
    int[] path = g.longestPath();
    if (path == null) {
      throw new IllegalStateException("the critical-path graph has a cycle");
    }
    Map<Edge, Long> byKind = new EnumMap<>(Edge.class);
    Map<Edge, Integer> counts = new EnumMap<>(Edge.class);
    for (Edge k : Edge.values()) {
      byKind.put(k, 0L);
      counts.put(k, 0);
    }
    Map<String, long[]> items = new HashMap<>();
    long length = 0;
    for (int e : path) {
      long w = g.weight(e);
      Edge k = g.kind(e);
      length += w;
      byKind.merge(k, w, Long::sum);
      counts.merge(k, 1, Integer::sum);
      if (w > 0) {
        long[] x = items.computeIfAbsent(k.ordinal() + "\u0000" + ev.name[g.owner[e]], s -> new long[2]);
        x[0]++;
        x[1] += w;
      }
    }
    long start = path.length == 0 ? fromNs : ev.ts(g.from[path[0]]);
    long end = path.length == 0 ? fromNs : ev.ts(g.to[path[path.length - 1]]);
    return new Result(fromNs, toNs, start, end, length, Collections.unmodifiableMap(byKind),
        Collections.unmodifiableMap(counts), top(items), ev.n, g.edges);
  }

  private static List<Item> top(Map<String, long[]> items) {
    List<Item> out = new ArrayList<>();
    items.forEach((key, x) -> {
      int at = key.indexOf('\u0000');
      out.add(new Item(key.substring(at + 1), Edge.values()[Integer.parseInt(key.substring(0, at))], x[0], x[1]));
    });
    out.sort(Comparator.comparingLong(Item::ns).reversed().thenComparing(Item::name));
    return List.copyOf(out.subList(0, Math.min(TOP, out.size())));
  }

  /**
   * The window HTA analyses by default: from the start of the first {@code ProfilerStep#N} marker to the end of the
   * last but one (every step but the last, partial one); the whole trace when there are fewer than two steps.
   */
  public static long[] stepWindow(List<TraceRecord> records) {
    List<MarkerRecord> steps = new ArrayList<>();
    long first = Long.MAX_VALUE;
    long last = Long.MIN_VALUE;
    for (TraceRecord r : records) {
      first = Math.min(first, r.startNs());
      last = Math.max(last, r.endNs());
      if (r instanceof MarkerRecord m && m.name().startsWith("ProfilerStep#")) {
        steps.add(m);
      }
    }
    if (records.isEmpty()) {
      return new long[] {0, 0};
    }
    if (steps.size() < 2) {
      return new long[] {first, last};
    }
    steps.sort(Comparator.comparingLong(MarkerRecord::startNs));
    long end = Long.MIN_VALUE;
    for (MarkerRecord m : steps.subList(0, steps.size() - 1)) {
      end = Math.max(end, m.endNs());
    }
    return new long[] {steps.getFirst().startNs(), end};
  }
}
