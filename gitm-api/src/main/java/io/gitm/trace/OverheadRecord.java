package io.gitm.trace;

/** An interval of the tracer's own overhead on a host thread. */
public record OverheadRecord(OverheadKind kind, long threadId, long startNs, long endNs) implements TraceRecord {
  public OverheadRecord {
    TraceRecord.checkInterval(startNs, endNs);
    kind = kind == null ? OverheadKind.OTHER : kind;
  }
}
