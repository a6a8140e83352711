package io.gitm.analysis.critical;

import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.ApiKind;
import io.gitm.trace.CopyRecord;
import io.gitm.trace.HostOpRecord;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.MarkerRecord;
import io.gitm.trace.MemsetRecord;
import io.gitm.trace.SyncKind;
import io.gitm.trace.SyncRecord;
import io.gitm.trace.TraceRecord;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The events of one window as columns: host operations and API calls that start in the window with a positive
 * duration, and the device work (kernels, copies, memsets) whose launch call is one of them. Event {@code i} has
 * the graph nodes {@code 2i} (its start) and {@code 2i + 1} (its end).
 */
final class Events {
  static final byte HOST = 0;
  static final byte CALL = 1;
  static final byte DEVICE = 2;
  /** Bits of an event index in {@link #pack}; correlation ids get the other 35 (Kineto's and CUPTI's fit). */
  private static final int EVENT_BITS = 28;
  private static final long MAX_CORRELATION = 1L << (63 - EVENT_BITS);

  int n;
  long[] start;
  long[] end;
  byte[] type;
  /** The host thread of a host event, {@code device << 32 | stream} of device work. */
  long[] lane;
  /** For device work, the event of its launch call; for a call, -1. */
  int[] launch;
  boolean[] blocking;
  String[] name;
  /** Context and stream synchronizations the trace recorded, by the correlation id of their call. */
  final List<SyncRecord> syncs = new ArrayList<>();
  /** The calls with a correlation id, as {@link #pack}ed pairs sorted by id. */
  private long[] byCorr = new long[0];

  /** Builds the table of {@code records} in {@code [fromNs, toNs]} (the starts of host events and launches). */
  private Events(int capacity) {
    start = new long[capacity];
    end = new long[capacity];
    type = new byte[capacity];
    lane = new long[capacity];
    launch = new int[capacity];
    blocking = new boolean[capacity];
    name = new String[capacity];
  }

  static Events of(List<TraceRecord> records, long fromNs, long toNs) {
    int capacity = 16;
    for (TraceRecord r : records) {
      if (r instanceof HostOpRecord || r instanceof ApiCallRecord || r instanceof KernelRecord
          || r instanceof CopyRecord || r instanceof MemsetRecord) {
        capacity++;
      }
    }
    Events ev = new Events(capacity);
    long[] merge = backwardThread(records);
    long[] callCorr = new long[capacity];
    int calls = 0;
    for (TraceRecord r : records) {
      if (r.startNs() < fromNs || r.startNs() > toNs || r.durationNs() <= 0) {
        continue;
      }
      if (r instanceof HostOpRecord h) {
        ev.add(HOST, thread(merge, h.threadId()), -1, false, h.name(), h.startNs(), h.endNs());
      } else if (r instanceof ApiCallRecord a) {
        int i = ev.add(CALL, thread(merge, a.threadId()), -1, blocking(a), a.name(), a.startNs(), a.endNs());
        if (a.correlationId() > 0 && a.correlationId() < MAX_CORRELATION) {
          if (calls == callCorr.length) {
            callCorr = Arrays.copyOf(callCorr, calls * 2);
          }
          callCorr[calls++] = pack(a.correlationId(), i);
        }
      }
    }
    long[] byCorr = Arrays.copyOf(callCorr, calls);
    Arrays.sort(byCorr);
    ev.byCorr = byCorr;
    for (TraceRecord r : records) {
      switch (r) {
        case KernelRecord k -> ev.device(byCorr, k.correlationId(), k.device(), k.stream(), k.name(), k);
        case CopyRecord c -> ev.device(byCorr, c.correlationId(), c.device(), c.stream(), "copy", c);
        case MemsetRecord m -> ev.device(byCorr, m.correlationId(), m.device(), m.stream(), "memset", m);
        case SyncRecord s when s.kind() == SyncKind.CONTEXT || s.kind() == SyncKind.STREAM -> ev.syncs.add(s);
        default -> {
          // not an event of the graph
        }
      }
    }
    return ev;
  }

  /**
   * The backward-pass thread and the forward-pass thread it is merged into, as HTA merges them (the one thread
   * whose operations or annotations name {@code autograd}, the one that names {@code forward}, when they differ), so
   * that the path can run from the forward pass into the backward pass; empty when there is no such pair.
   */
  private static long[] backwardThread(List<TraceRecord> records) {
    Set<Long> forward = new HashSet<>();
    Set<Long> backward = new HashSet<>();
    for (TraceRecord r : records) {
      String name;
      long thread;
      if (r instanceof HostOpRecord h) {
        name = h.name();
        thread = h.threadId();
      } else if (r instanceof MarkerRecord m) {
        name = m.name();
        thread = m.threadId();
      } else {
        continue;
      }
      if (name.contains("forward")) {
        forward.add(thread);
      }
      if (name.contains("autograd")) {
        backward.add(thread);
      }
    }
    if (forward.size() != 1 || backward.size() != 1 || forward.equals(backward)) {
      return new long[0];
    }
    return new long[] {backward.iterator().next(), forward.iterator().next()};
  }

  private static long thread(long[] merge, long thread) {
    return merge.length == 2 && thread == merge[0] ? merge[1] : thread;
  }

  /** A correlation id and an event index in one sortable long. */
  static long pack(long correlation, int event) {
    return correlation << EVENT_BITS | event;
  }

  /** The event of the call with {@code correlation}, -1 when none is in the window. */
  static int call(long[] byCorr, long correlation) {
    if (correlation <= 0 || correlation >= MAX_CORRELATION) {
      return -1;
    }
    int i = Arrays.binarySearch(byCorr, correlation << EVENT_BITS);
    i = i < 0 ? -i - 1 : i;
    return i < byCorr.length && byCorr[i] >>> EVENT_BITS == correlation
        ? (int) (byCorr[i] & ((1L << EVENT_BITS) - 1)) : -1;
  }

  /** The event of the call with {@code correlation}, -1 when none is in the window. */
  int callByCorrelation(long correlation) {
    return call(byCorr, correlation);
  }

  private void device(long[] byCorr, long correlation, int device, int stream, String what, TraceRecord r) {
    int call = call(byCorr, correlation);
    if (call >= 0 && r.durationNs() >= 0) {
      add(DEVICE, (long) device << 32 | (stream & 0xFFFFFFFFL), call, false, what, r.startNs(), r.endNs());
    }
  }

  private int add(byte t, long laneId, int launchOf, boolean blocks, String what, long s, long e) {
    if (n == start.length) {
      int c = n * 2;
      start = Arrays.copyOf(start, c);
      end = Arrays.copyOf(end, c);
      type = Arrays.copyOf(type, c);
      lane = Arrays.copyOf(lane, c);
      launch = Arrays.copyOf(launch, c);
      blocking = Arrays.copyOf(blocking, c);
      name = Arrays.copyOf(name, c);
    }
    start[n] = s;
    end[n] = e;
    type[n] = t;
    lane[n] = laneId;
    launch[n] = launchOf;
    blocking[n] = blocks;
    name[n] = what;
    return n++;
  }

  /**
   * Whether a call blocks the host until device work is done (HTA's list): device, stream and event synchronize,
   * an event query, a synchronous copy.
   */
  static boolean blocking(ApiCallRecord a) {
    String s = a.name();
    return (a.kind() == ApiKind.SYNC && !s.contains("WaitEvent")) || s.equals("cudaMemcpy") || s.equals("cuMemcpy")
        || s.startsWith("cudaEventQuery");
  }

  /** The node time of node {@code v}. */
  long ts(int v) {
    return (v & 1) == 0 ? start[v >> 1] : end[v >> 1];
  }
}
