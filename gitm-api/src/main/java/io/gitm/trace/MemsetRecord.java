package io.gitm.trace;

/** One memset executed by a device. */
public record MemsetRecord(long bytes, int value, MemoryKind memoryKind, int device, int stream, long correlationId,
    long startNs, long endNs) implements TraceRecord {
  public MemsetRecord {
    if (bytes < 0) {
      throw new IllegalArgumentException("negative memset size " + bytes);
    }
    TraceRecord.checkInterval(startNs, endNs);
    memoryKind = memoryKind == null ? MemoryKind.UNKNOWN : memoryKind;
  }
}
