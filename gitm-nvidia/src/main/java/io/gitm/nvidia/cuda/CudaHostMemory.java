package io.gitm.nvidia.cuda;

import static io.gitm.nvidia.cuda.Cu.check;

import io.gitm.device.HostMemory;
import io.gitm.device.HostMemoryKind;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;

/** Host memory: pinned ({@code cuMemHostAlloc}, freed with {@code cuMemFreeHost}) or pageable (an off-heap arena). */
final class CudaHostMemory implements HostMemory {
  private final CudaDevice device;
  private final MemorySegment segment;
  private final Arena arena;
  private final HostMemoryKind kind;
  private final AtomicBoolean closed = new AtomicBoolean();

  CudaHostMemory(CudaDevice device, MemorySegment segment, Arena arena, HostMemoryKind kind) {
    this.device = device;
    this.segment = segment;
    this.arena = arena;
    this.kind = kind;
  }

  CudaDevice device() {
    return device;
  }

  MemorySegment segment() {
    if (closed.get()) {
      throw new IllegalStateException(kind + " host memory was freed");
    }
    return segment;
  }

  @Override
  public HostMemoryKind kind() {
    return kind;
  }

  @Override
  public ByteBuffer buffer() {
    return CudaDevice.view(segment());
  }

  @Override
  public long bytes() {
    return segment.byteSize();
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    device.untrack(this);
    if (arena != null) {
      arena.close();
    } else {
      if (!device.isClosed()) {
        device.enter();
      }
      check(Cu.cuMemFreeHost, Cu.call(Cu.cuMemFreeHost, segment));
    }
  }
}
