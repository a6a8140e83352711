package io.gitm.device;

/** Free and total device memory, as {@code cuMemGetInfo} reports them. */
public record MemInfo(long freeBytes, long totalBytes) {
  public long usedBytes() {
    return totalBytes - freeBytes;
  }
}
