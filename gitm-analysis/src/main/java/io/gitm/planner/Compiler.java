package io.gitm.planner;

import io.gitm.sim.SimDevice;
import io.gitm.sim.SimSpec;
import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.ApiKind;
import io.gitm.trace.SyncKind;
import io.gitm.trace.SyncRecord;
import io.gitm.trace.TraceMeta;
import io.gitm.trace.TraceRecord;
import io.gitm.workload.ExecutionConfig;
import io.gitm.workload.Workload;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The behavioural compiler: what a workload should cost on a device under an execution config, predicted before it
 * runs there. The workload's own host program is executed on the simulated device built from the hardware spec (the
 * calibrated ceilings of the target device, or a preset): every launch declares its work, so the device operations,
 * their time bounds at the ceilings, the bytes they move, the host's own work between API calls, and the
 * dependencies that follow from stream order, event waits and host synchronizations come out of the program itself,
 * not out of an observation of the job on the device. {@link Planner#predict} turns the simulated trace into the
 * {@link Graph}; this class adds the host work and the dependency edges.
 */
public final class Compiler {
  /** Host gaps between API calls shorter than this are call overhead, not host work. */
  static final long HOST_WORK_MIN_NS = 1_000;

  private Compiler() {}

  /** Why one device operation waits for another. */
  public enum Because {
    /** The two are consecutive on one stream. */
    STREAM_ORDER,
    /** The later one's stream waits for an event recorded after the earlier one. */
    EVENT_WAIT,
    /** The host waited for the earlier one before it issued the later one. */
    HOST_SYNC
  }

  /** {@code to} cannot start before {@code from} ends (indices into the graph's nodes). */
  public record Dependency(int from, int to, Because because) {}

  /** The host's own work: a blocking API call, or computation between calls. */
  public record HostWork(String name, long startNs, long endNs, boolean blocking) {
    public long durationNs() {
      return endNs - startNs;
    }
  }

  /**
   * The predicted graph of {@code iterations} iterations.
   *
   * @param spanNs the predicted time of those iterations (first device operation or host call to the last end)
   */
  public record Compiled(TraceMeta meta, Graph graph, List<HostWork> host, List<Dependency> dependencies,
      int iterations, long spanNs) {
    public Compiled {
      host = List.copyOf(host);
      dependencies = List.copyOf(dependencies);
    }

    public long perIterationNs() {
      return spanNs / Math.max(1, iterations);
    }
  }

  /**
   * Runs {@code iterations} steps of {@code workload} under {@code config} on a simulated device of {@code hw} (seed
   * 1, no fault) and compiles its graph; the workload's input is read or generated under {@code dataDir}.
   *
   * @throws IllegalArgumentException when {@code iterations} is below 1, or the workload runs out of input first
   */
  public static Compiled predictGraph(Workload workload, ExecutionConfig config, SimSpec hw, Path dataDir,
      int iterations) {
    if (iterations < 1) {
      throw new IllegalArgumentException("iterations must be 1 or more, got " + iterations);
    }
    List<TraceRecord> rs = new ArrayList<>();
    TraceMeta meta;
    try (SimDevice d = SimDevice.open(hw, 1, "")) {
      try (Workload.Session s = workload.open(d, config, dataDir)) {
        s.step(); // the first iteration pays one-time costs; the prediction is of the steady ones
        d.synchronize();
        d.tracer().start(rs::add);
        meta = d.tracer().meta();
        for (int i = 0; i < iterations; i++) {
          if (!s.hasNext()) {
            throw new IllegalArgumentException(workload.spec().name() + " ran out of input after " + (i + 1)
                + " iterations (the first is not predicted): ask for " + (i == 0 ? "a larger input"
                : "at most " + i + " with --iterations, or give a larger input"));
          }
          s.step();
        }
        d.synchronize();
        d.tracer().stop();
      }
    }
    return compile(meta, rs, hw, iterations);
  }

  /** Compiles a trace of the simulated device (or any trace): the graph, the host's work and the dependencies. */
  static Compiled compile(TraceMeta meta, List<TraceRecord> rs, SimSpec hw, int iterations) {
    Graph g = Planner.predict(rs, hw.hardware());
    List<ApiCallRecord> calls = new ArrayList<>();
    List<SyncRecord> waits = new ArrayList<>();
    long first = Long.MAX_VALUE;
    long last = Long.MIN_VALUE;
    for (TraceRecord r : rs) {
      switch (r) {
        case ApiCallRecord a -> calls.add(a);
        case SyncRecord s when s.kind() == SyncKind.STREAM_WAIT_EVENT -> waits.add(s);
        default -> {
        }
      }
      if (r instanceof ApiCallRecord || r instanceof io.gitm.trace.KernelRecord || r instanceof io.gitm.trace.CopyRecord
          || r instanceof io.gitm.trace.MemsetRecord) {
        first = Math.min(first, r.startNs());
        last = Math.max(last, r.endNs());
      }
    }
    calls.sort(Comparator.comparingLong(ApiCallRecord::startNs));
    List<HostWork> host = new ArrayList<>();
    for (int i = 0; i < calls.size(); i++) {
      ApiCallRecord a = calls.get(i);
      boolean blocking = a.kind() == ApiKind.SYNC || a.kind() == ApiKind.ALLOC || a.kind() == ApiKind.FREE
          || (a.kind() == ApiKind.COPY && !a.name().contains("Async"));
      if (blocking) {
        host.add(new HostWork(a.name(), a.startNs(), a.endNs(), true));
      }
      if (i + 1 < calls.size() && a.threadId() == calls.get(i + 1).threadId()) {
        long gap = calls.get(i + 1).startNs() - a.endNs();
        if (gap >= HOST_WORK_MIN_NS) {
          host.add(new HostWork("host work", a.endNs(), calls.get(i + 1).startNs(), false));
        }
      }
    }
    List<Graph.Node> nodes = g.nodes();
    List<Dependency> deps = new ArrayList<>();
    Map<Long, Integer> lastOnStream = new HashMap<>();
    for (Graph.Node n : nodes) {
      long key = ((long) n.device() << 32) | (n.stream() & 0xffffffffL);
      Integer prev = lastOnStream.put(key, n.index());
      if (prev != null) {
        deps.add(new Dependency(prev, n.index(), Because.STREAM_ORDER));
      }
    }
    // nodes by end time, to find the last one that ended before a wait or a host synchronization
    List<Graph.Node> byEnd = new ArrayList<>(nodes);
    byEnd.sort(Comparator.comparingLong(Graph.Node::endNs));
    long[] ends = byEnd.stream().mapToLong(Graph.Node::endNs).toArray();
    for (SyncRecord w : waits) {
      Graph.Node before = lastEndedBy(byEnd, ends, w.startNs(), w.stream());
      Graph.Node after = firstOnStreamAfter(nodes, w.device(), w.stream(), w.endNs());
      if (before != null && after != null) {
        deps.add(new Dependency(before.index(), after.index(), Because.EVENT_WAIT));
      }
    }
    for (ApiCallRecord a : calls) {
      if (a.kind() != ApiKind.SYNC) {
        continue;
      }
      Graph.Node before = lastEndedBy(byEnd, ends, a.endNs(), Integer.MIN_VALUE);
      Graph.Node after = firstLaunchedAfter(nodes, a.endNs());
      if (before != null && after != null && before.index() != after.index()) {
        deps.add(new Dependency(before.index(), after.index(), Because.HOST_SYNC));
      }
    }
    deps.sort(Comparator.comparingInt(Dependency::to).thenComparingInt(Dependency::from));
    return new Compiled(meta, g, host, deps, iterations, first == Long.MAX_VALUE ? 0 : last - first);
  }

  /** The node (on a stream other than {@code notStream}) that ended last at or before {@code t}. */
  private static Graph.Node lastEndedBy(List<Graph.Node> byEnd, long[] ends, long t, int notStream) {
    int i = java.util.Arrays.binarySearch(ends, t);
    i = i >= 0 ? i : -i - 2;
    while (i >= 0 && i < byEnd.size() && ends[i] > t) {
      i--;
    }
    for (; i >= 0; i--) {
      if (byEnd.get(i).stream() != notStream) {
        return byEnd.get(i);
      }
    }
    return null;
  }

  private static Graph.Node firstOnStreamAfter(List<Graph.Node> nodes, int device, int stream, long t) {
    for (Graph.Node n : nodes) {
      if (n.device() == device && n.stream() == stream && n.startNs() >= t) {
        return n;
      }
    }
    return null;
  }

  private static Graph.Node firstLaunchedAfter(List<Graph.Node> nodes, long t) {
    for (Graph.Node n : nodes) {
      if (n.launchNs() >= t) {
        return n;
      }
    }
    return null;
  }
}
