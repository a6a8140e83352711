package io.gitm.device;

import java.nio.ByteBuffer;
import java.util.Optional;

/** Device memory from {@link Device#malloc} or a pool ({@link Device#mallocAsync}). */
public non-sealed interface DeviceMemory extends Buffer {
  /** True when the memory came from a stream-ordered pool. */
  boolean pooled();

  /**
   * The contents as the host can read them without a copy: a read-only little-endian view over the whole memory,
   * holding what every operation submitted before it wrote. Present on a device that keeps device memory in host
   * memory (the simulated device, whose kernels are emulated in submission order); empty on a real GPU. A kernel's
   * work model may read it to size data-dependent work (e.g. the longest per-thread chain of a skewed batch).
   */
  default Optional<ByteBuffer> hostView() {
    return Optional.empty();
  }
}
