package io.gitm.nvidia.cuda;

import static io.gitm.nvidia.cuda.Cu.check;

import io.gitm.device.MemPool;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** The device's default stream-ordered memory pool; its release threshold is put back when the device closes. */
final class Pool implements MemPool {
  private final CudaDevice device;
  private final MemorySegment handle;
  private final long originalThreshold;

  Pool(CudaDevice device, MemorySegment handle) {
    this.device = device;
    this.handle = handle;
    this.originalThreshold = get(Cu.CU_MEMPOOL_ATTR_RELEASE_THRESHOLD);
  }

  private long get(int attr) {
    device.enter();
    try (Arena a = Arena.ofConfined()) {
      MemorySegment v = a.allocate(ValueLayout.JAVA_LONG);
      check(Cu.cuMemPoolGetAttribute, Cu.call(Cu.cuMemPoolGetAttribute, handle, attr, v));
      return v.get(ValueLayout.JAVA_LONG, 0);
    }
  }

  private void set(int attr, long value) {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment v = a.allocate(ValueLayout.JAVA_LONG);
      v.set(ValueLayout.JAVA_LONG, 0, value);
      check(Cu.cuMemPoolSetAttribute, Cu.call(Cu.cuMemPoolSetAttribute, handle, attr, v));
    }
  }

  @Override
  public long releaseThreshold() {
    return get(Cu.CU_MEMPOOL_ATTR_RELEASE_THRESHOLD);
  }

  @Override
  public void setReleaseThreshold(long bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("negative release threshold " + bytes);
    }
    device.enter();
    set(Cu.CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, bytes);
  }

  @Override
  public long reservedBytes() {
    return get(Cu.CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT);
  }

  /** Bytes handed out from the pool and not yet freed. */
  long usedBytes() {
    return get(Cu.CU_MEMPOOL_ATTR_USED_MEM_CURRENT);
  }

  /** Restores the original threshold and returns unused reserved memory to the system (device synchronized). */
  void restore() {
    set(Cu.CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, originalThreshold);
    check(Cu.cuMemPoolTrimTo, Cu.call(Cu.cuMemPoolTrimTo, handle, 0L));
  }
}
