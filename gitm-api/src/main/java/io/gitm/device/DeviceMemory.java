package io.gitm.device;

/** Device memory from {@link Device#malloc} or a pool ({@link Device#mallocAsync}). */
public non-sealed interface DeviceMemory extends Buffer {
  /** True when the memory came from a stream-ordered pool. */
  boolean pooled();
}
