package io.gitm.tracer;

import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.ApiKind;
import io.gitm.trace.CopyRecord;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.MemsetRecord;
import io.gitm.trace.TraceRecord;
import java.util.Arrays;
import java.util.BitSet;

/**
 * The correlation ids a trace can draw a flow for: those of a launch, copy or memset call and of device work both.
 * Each such id gets one flow, from its first call to its first device work, so that every flow end has its start.
 * Gathered on a first pass over the trace ({@link #see}), then read on the second; it holds a sorted array of ids and
 * two bits per id.
 */
final class FlowLinks {
  private long[] calls = new long[1024];
  private int callCount;
  private long[] work = new long[1024];
  private int workCount;
  private long[] linked;
  private BitSet started;
  private BitSet ended;

  /** Notes {@code r}'s correlation id when it can start or end a flow. */
  void see(TraceRecord r) {
    switch (r) {
      case ApiCallRecord a when startsFlow(a) -> calls = add(calls, callCount++, a.correlationId());
      case KernelRecord k when k.correlationId() != 0 -> work = add(work, workCount++, k.correlationId());
      case CopyRecord c when c.correlationId() != 0 -> work = add(work, workCount++, c.correlationId());
      case MemsetRecord m when m.correlationId() != 0 -> work = add(work, workCount++, m.correlationId());
      default -> {
        // no flow
      }
    }
  }

  /** Ends the first pass: the ids seen on both sides. */
  void seal() {
    long[] a = distinct(calls, callCount);
    long[] b = distinct(work, workCount);
    long[] both = new long[Math.min(a.length, b.length)];
    int n = 0;
    for (int i = 0, j = 0; i < a.length && j < b.length; ) {
      if (a[i] == b[j]) {
        both[n++] = a[i];
        i++;
        j++;
      } else if (a[i] < b[j]) {
        i++;
      } else {
        j++;
      }
    }
    linked = Arrays.copyOf(both, n);
    started = new BitSet(n);
    ended = new BitSet(n);
    calls = null;
    work = null;
  }

  /** Whether {@code a} is the call that starts its id's flow (true once per id). */
  boolean start(ApiCallRecord a) {
    return startsFlow(a) && first(a.correlationId(), started);
  }

  /**
   * Whether device work of {@code correlation} ends its flow (true once per id, and only for an id whose call is in
   * the trace, before or after the work).
   */
  boolean end(long correlation) {
    return correlation != 0 && first(correlation, ended);
  }

  private boolean first(long id, BitSet done) {
    int i = Arrays.binarySearch(linked, id);
    if (i < 0 || done.get(i)) {
      return false;
    }
    done.set(i);
    return true;
  }

  static boolean startsFlow(ApiCallRecord a) {
    ApiKind k = a.kind();
    return a.correlationId() != 0 && (k == ApiKind.LAUNCH || k == ApiKind.COPY || k == ApiKind.MEMSET);
  }

  private static long[] add(long[] to, int at, long id) {
    long[] a = at == to.length ? Arrays.copyOf(to, to.length * 2) : to;
    a[at] = id;
    return a;
  }

  private static long[] distinct(long[] a, int n) {
    long[] s = Arrays.copyOf(a, n);
    Arrays.sort(s);
    int k = 0;
    for (int i = 0; i < n; i++) {
      if (k == 0 || s[i] != s[k - 1]) {
        s[k++] = s[i];
      }
    }
    return Arrays.copyOf(s, k);
  }
}
