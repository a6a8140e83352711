package io.gitm.trace;

/** One synchronization: the interval during which the host (or a stream) waited. Stream is -1 when none. */
public record SyncRecord(SyncKind kind, int device, int stream, long correlationId, long startNs, long endNs)
    implements TraceRecord {
  public SyncRecord {
    TraceRecord.checkInterval(startNs, endNs);
    kind = kind == null ? SyncKind.UNKNOWN : kind;
  }
}
