package io.gitm.trace;

/** One memory copy executed by a device (or by the host on its behalf, for pageable staging). */
public record CopyRecord(CopyKind kind, long bytes, MemoryKind srcKind, MemoryKind dstKind, int device, int stream,
    long correlationId, long startNs, long endNs) implements TraceRecord {
  public CopyRecord {
    if (bytes < 0) {
      throw new IllegalArgumentException("negative copy size " + bytes);
    }
    TraceRecord.checkInterval(startNs, endNs);
    kind = kind == null ? CopyKind.UNKNOWN : kind;
    srcKind = srcKind == null ? MemoryKind.UNKNOWN : srcKind;
    dstKind = dstKind == null ? MemoryKind.UNKNOWN : dstKind;
  }
}
