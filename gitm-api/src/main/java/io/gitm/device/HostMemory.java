package io.gitm.device;

import java.nio.ByteBuffer;

/** Host memory, pinned or pageable, that the job reads and writes through a little-endian {@link ByteBuffer}. */
public non-sealed interface HostMemory extends Buffer {
  HostMemoryKind kind();

  /** A view of the whole buffer (little-endian, position 0); writes through it are what copies read. */
  ByteBuffer buffer();
}
