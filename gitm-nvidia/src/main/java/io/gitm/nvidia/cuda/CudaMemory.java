package io.gitm.nvidia.cuda;

import static io.gitm.nvidia.cuda.Cu.check;

import io.gitm.device.DeviceMemory;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Device memory at {@code address} ({@code CUdeviceptr}). Closing frees it: plain memory with {@code cuMemFree}; pooled
 * memory, which other streams may still be using, after a context synchronize with {@code cuMemFreeAsync} on the
 * default stream (the fast path for pooled memory is {@code Device.freeAsync}).
 */
final class CudaMemory implements DeviceMemory {
  private final CudaDevice device;
  private final long address;
  private final long bytes;
  private final boolean pooled;
  private final AtomicBoolean freed = new AtomicBoolean();

  CudaMemory(CudaDevice device, long address, long bytes, boolean pooled) {
    this.device = device;
    this.address = address;
    this.bytes = bytes;
    this.pooled = pooled;
  }

  CudaDevice device() {
    return device;
  }

  long address() {
    return address;
  }

  void requireLive() {
    if (freed.get()) {
      throw new IllegalStateException("device memory at 0x" + Long.toHexString(address) + " was freed");
    }
  }

  /** Marks the memory freed; true the first time only. */
  boolean markFreed() {
    return freed.compareAndSet(false, true);
  }

  @Override
  public long bytes() {
    return bytes;
  }

  @Override
  public boolean pooled() {
    return pooled;
  }

  @Override
  public void close() {
    if (!markFreed()) {
      return;
    }
    device.untrack(this);
    if (!device.isClosed()) {
      device.enter();
    }
    if (pooled) {
      check(Cu.cuCtxSynchronize, Cu.call(Cu.cuCtxSynchronize));
      check(Cu.cuMemFreeAsync, Cu.call(Cu.cuMemFreeAsync, address, java.lang.foreign.MemorySegment.NULL));
    } else {
      check(Cu.cuMemFree, Cu.call(Cu.cuMemFree, address));
    }
  }

  @Override
  public String toString() {
    return "CudaMemory[0x" + Long.toHexString(address) + ", " + bytes + " B" + (pooled ? ", pooled" : "") + "]";
  }
}
