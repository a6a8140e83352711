package io.gitm.sim;

import io.gitm.device.DeviceMemory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Optional;

/**
 * Device memory backed by a little-endian heap buffer, made when first touched (a copy, memset or kernel argument),
 * so untouched allocations cost no host memory; freed memory (pooled or plain) hands its buffer to the next
 * allocation of the same size (CUDA leaves new allocations' contents undefined).
 */
final class SimMemory implements DeviceMemory {
  final SimDevice device;
  final long bytes;
  final boolean pooled;
  private ByteBuffer data;
  boolean freed;

  SimMemory(SimDevice device, long bytes, boolean pooled) {
    this.device = device;
    this.bytes = bytes;
    this.pooled = pooled;
  }

  ByteBuffer data() {
    if (data == null) {
      data = device.buffer((int) bytes);
    }
    return data;
  }

  /** Gives the backing buffer back for reuse. */
  ByteBuffer release() {
    ByteBuffer b = data;
    data = null;
    return b;
  }

  @Override
  public boolean pooled() {
    return pooled;
  }

  @Override
  public Optional<ByteBuffer> hostView() {
    if (freed) {
      return Optional.empty();
    }
    return Optional.of(data().asReadOnlyBuffer().order(ByteOrder.LITTLE_ENDIAN).clear());
  }

  @Override
  public long bytes() {
    return bytes;
  }

  @Override
  public void close() {
    device.free(this, pooled ? "cuMemFreeAsync" : "cuMemFree_v2");
  }
}
