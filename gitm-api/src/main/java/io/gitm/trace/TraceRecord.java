package io.gitm.trace;

/**
 * One event or sample of a trace. Times are nanoseconds in the trace's {@link ClockDomain}; an interval record
 * has {@code startNs <= endNs}, a point record has them equal.
 */
public sealed interface TraceRecord
    permits KernelRecord, CopyRecord, MemsetRecord, SyncRecord, ApiCallRecord, OverheadRecord, StateSample,
    MarkerRecord, WorkRecord, TrafficRecord, HostOpRecord, CollectiveRecord {

  long startNs();

  long endNs();

  default long durationNs() {
    return endNs() - startNs();
  }

  /** Checks the interval; used by every interval record's constructor. */
  static void checkInterval(long startNs, long endNs) {
    if (endNs < startNs) {
      throw new IllegalArgumentException("interval ends before it starts: " + startNs + " > " + endNs);
    }
  }
}
