package io.gitm.sim;

import io.gitm.device.HostMemory;
import io.gitm.device.HostMemoryKind;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Host memory of the simulated device: a little-endian heap buffer, pinned or pageable as allocated. */
final class SimHostMemory implements HostMemory {
  final SimDevice device;
  final long bytes;
  final HostMemoryKind kind;
  final ByteBuffer data;
  boolean freed;

  SimHostMemory(SimDevice device, long bytes, HostMemoryKind kind) {
    this.device = device;
    this.bytes = bytes;
    this.kind = kind;
    this.data = ByteBuffer.allocate((int) bytes).order(ByteOrder.LITTLE_ENDIAN);
  }

  @Override
  public HostMemoryKind kind() {
    return kind;
  }

  @Override
  public ByteBuffer buffer() {
    return data.duplicate().order(ByteOrder.LITTLE_ENDIAN).clear();
  }

  @Override
  public long bytes() {
    return bytes;
  }

  @Override
  public void close() {
    device.freeHost(this);
  }
}
