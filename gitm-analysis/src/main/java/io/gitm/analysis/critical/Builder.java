package io.gitm.analysis.critical;

import io.gitm.trace.SyncKind;
import io.gitm.trace.SyncRecord;
import java.util.Arrays;

/**
 * Adds the edges of the critical-path graph (docs/trace-analysis.md, "The critical path"), each family in one pass
 * over events sorted by thread or stream and time: O(n log n) in the number of events.
 */
final class Builder {
  private final Events ev;
  private final PathGraph g;
  private final long gapThresholdNs;
  private final boolean inferSyncs;

  Builder(Events ev, long gapThresholdNs, boolean inferSyncs) {
    this.ev = ev;
    this.g = new PathGraph(ev);
    this.gapThresholdNs = gapThresholdNs;
    this.inferSyncs = inferSyncs;
  }

  PathGraph build() {
    int[] host = sorted(false);
    hostEdges(host);
    int[] device = sorted(true);
    deviceEdges(device);
    syncEdges(device);
    return g;
  }

  /** Host or device events by lane, then start, then longest first (a parent before its children). */
  private int[] sorted(boolean device) {
    int count = 0;
    for (int i = 0; i < ev.n; i++) {
      if ((ev.type[i] == Events.DEVICE) == device) {
        count++;
      }
    }
    int[] idx = new int[count];
    for (int i = 0, k = 0; i < ev.n; i++) {
      if ((ev.type[i] == Events.DEVICE) == device) {
        idx[k++] = i;
      }
    }
    IndexSort.sort(idx, (a, b) -> {
      int c = Long.compare(ev.lane[a], ev.lane[b]);
      if (c == 0) {
        c = Long.compare(ev.start[a], ev.start[b]);
      }
      return c != 0 ? c : Long.compare(ev.end[b], ev.end[a]);
    });
    return idx;
  }

  /**
   * Each thread's operations and calls as a call tree walked depth first: an edge from the last node to each start
   * and end, charged to the enclosing event; between two top-level events an untimed dependency; the end of a
   * blocking call is reached through a synchronization instead of its own time.
   */
  private void hostEdges(int[] host) {
    int[] stack = new int[64];
    int depth = 0;
    int last = -1;
    for (int k = 0; k < host.length; k++) {
      int e = host[k];
      boolean newThread = k == 0 || ev.lane[host[k - 1]] != ev.lane[e];
      while (depth > 0 && (newThread || ev.end[stack[depth - 1]] <= ev.start[e]
          || ev.end[stack[depth - 1]] < ev.end[e])) {
        last = exit(stack[--depth], last);
      }
      if (newThread) {
        last = -1;
      }
      if (last >= 0) {
        g.add(last, 2 * e, depth == 0 ? Edge.DEPENDENCY : Edge.HOST_OP, depth == 0 ? e : stack[depth - 1]);
      }
      last = 2 * e;
      if (depth == stack.length) {
        stack = Arrays.copyOf(stack, depth * 2);
      }
      stack[depth++] = e;
    }
    while (depth > 0) {
      last = exit(stack[--depth], last);
    }
  }

  private int exit(int e, int last) {
    g.add(last, 2 * e + 1, ev.blocking[e] ? Edge.SYNC : Edge.HOST_OP, e);
    return 2 * e + 1;
  }

  /**
   * Each stream's work in start order: its own execution; then either a launch edge, when the stream was empty at the
   * launch (the launch found no work queued and the previous work had ended) and nothing was launched before the
   * work started, or an idle edge from the previous work when the gap is below the threshold.
   */
  private void deviceEdges(int[] device) {
    for (int from = 0, to; from < device.length; from = to) {
      to = from + 1;
      while (to < device.length && ev.lane[device[to]] == ev.lane[device[from]]) {
        to++;
      }
      Queue q = new Queue(device, from, to);
      for (int k = from; k < to; k++) {
        int w = device[k];
        int call = ev.launch[w];
        g.add(2 * w, 2 * w + 1, Edge.KERNEL, w);
        int prev = k > from ? device[k - 1] : -1;
        boolean empty = q.length(ev.start[call], false) == 1 && q.length(ev.start[w], true) == 0;
        if (empty && (prev < 0 || ev.end[prev] < ev.start[call])) {
          g.add(2 * call, 2 * w, Edge.LAUNCH, call);
        } else if (prev >= 0 && ev.start[w] - ev.end[prev] < gapThresholdNs) {
          g.add(2 * prev + 1, 2 * w, Edge.IDLE, w);
        }
      }
    }
  }

  /** One stream's queue length: launches made less work started, at a time (HTA's queue-length series). */
  private final class Queue {
    private final long[] launches;
    private final long[] starts;

    Queue(int[] device, int from, int to) {
      launches = new long[to - from];
      starts = new long[to - from];
      for (int i = from; i < to; i++) {
        launches[i - from] = ev.start[ev.launch[device[i]]];
        starts[i - from] = ev.start[device[i]];
      }
      Arrays.sort(launches);
      Arrays.sort(starts);
    }

    /** Launched less started by {@code t}; work starting at {@code t} counts as started when {@code atStart}. */
    long length(long t, boolean atStart) {
      return upTo(launches, t, true) - upTo(starts, t, atStart);
    }

    private static int upTo(long[] a, long t, boolean inclusive) {
      int lo = 0;
      int hi = a.length;
      while (lo < hi) {
        int mid = (lo + hi) >>> 1;
        if (inclusive ? a[mid] <= t : a[mid] < t) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      return lo;
    }
  }

  /**
   * Synchronization edges into the end of each blocking call: from the last work started on the synchronized streams
   * (the recorded context or stream synchronizations), else, when inferring, from the work that ended last while the
   * call waited.
   */
  private void syncEdges(int[] device) {
    long[] callOf = syncedCalls();
    int[] byEnd = device.clone();
    IndexSort.sort(byEnd, (a, b) -> Long.compare(ev.end[a], ev.end[b]));
    long[] ends = new long[byEnd.length];
    for (int i = 0; i < byEnd.length; i++) {
      ends[i] = ev.end[byEnd[i]];
    }
    for (int c = 0; c < ev.n; c++) {
      if (ev.type[c] != Events.CALL || !ev.blocking[c]) {
        continue;
      }
      if (inferSyncs && Arrays.binarySearch(callOf, c) < 0) {
        int i = Queue.upTo(ends, ev.end[c], true) - 1;
        if (i >= 0 && ends[i] >= ev.start[c]) {
          g.add(2 * byEnd[i] + 1, 2 * c + 1, Edge.SYNC, c);
        }
      }
    }
    int[] runs = laneRuns(device);
    for (SyncRecord s : ev.syncs) {
      int c = callFor(s);
      if (c >= 0) {
        recordedSync(device, runs, s, c);
      }
    }
  }

  /** Where each stream's run of {@code device} starts, and its length at the end. */
  private int[] laneRuns(int[] device) {
    int[] runs = new int[device.length + 1];
    int n = 0;
    for (int k = 0; k < device.length; k++) {
      if (k == 0 || ev.lane[device[k]] != ev.lane[device[k - 1]]) {
        runs[n++] = k;
      }
    }
    runs[n++] = device.length;
    return Arrays.copyOf(runs, n);
  }

  /** The calls that have a recorded synchronization, sorted. */
  private long[] syncedCalls() {
    long[] out = new long[ev.syncs.size()];
    int n = 0;
    for (SyncRecord s : ev.syncs) {
      int c = callFor(s);
      if (c >= 0) {
        out[n++] = c;
      }
    }
    long[] calls = Arrays.copyOf(out, n);
    Arrays.sort(calls);
    return calls;
  }

  private int callFor(SyncRecord s) {
    return ev.callByCorrelation(s.correlationId());
  }

  /**
   * Edges from the last work started by the synchronization's end on each stream it covers: a binary search in each
   * stream's run of {@code device} (sorted by stream, then start).
   */
  private void recordedSync(int[] device, int[] runs, SyncRecord s, int call) {
    for (int r = 0; r + 1 < runs.length; r++) {
      int from = runs[r];
      int to = runs[r + 1];
      long lane = ev.lane[device[from]];
      boolean covered = s.kind() == SyncKind.CONTEXT ? lane >>> 32 == s.device()
          : lane == ((long) s.device() << 32 | (s.stream() & 0xFFFFFFFFL));
      if (!covered) {
        continue;
      }
      int lo = from;
      int hi = to;
      while (lo < hi) {
        int mid = (lo + hi) >>> 1;
        if (ev.start[device[mid]] <= s.endNs()) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      if (lo > from) {
        g.add(2 * device[lo - 1] + 1, 2 * call + 1, Edge.SYNC, call);
      }
    }
  }
}
