package io.gitm.device;

/** Memory a copy can read or write: device memory or host memory. */
public sealed interface Buffer extends AutoCloseable permits DeviceMemory, HostMemory {
  long bytes();

  /** Frees the memory; closing twice is a no-op. */
  @Override
  void close();
}
