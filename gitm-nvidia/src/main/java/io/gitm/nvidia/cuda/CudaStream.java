package io.gitm.nvidia.cuda;

import static io.gitm.nvidia.cuda.Cu.check;

import io.gitm.device.Event;
import io.gitm.device.Stream;
import io.gitm.nvidia.ffm.Native;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;

/** A CUDA stream; the default stream ({@code NULL} handle) is owned by the device and not destroyed. */
final class CudaStream implements Stream {
  private final CudaDevice device;
  private final MemorySegment handle;
  private final int id;
  private final int priority;
  private final boolean owned;
  private final AtomicBoolean closed = new AtomicBoolean();
  /** Whether work queued now is being captured into a graph (not run). */
  volatile boolean capturing;

  CudaStream(CudaDevice device, MemorySegment handle, int id, int priority, boolean owned) {
    this.device = device;
    this.handle = handle;
    this.id = id;
    this.priority = priority;
    this.owned = owned;
  }

  CudaDevice device() {
    return device;
  }

  MemorySegment handle() {
    if (closed.get()) {
      throw new IllegalStateException("stream " + id + " is closed");
    }
    return handle;
  }

  @Override
  public int id() {
    return id;
  }

  @Override
  public int priority() {
    return priority;
  }

  @Override
  public void synchronize() {
    MemorySegment h = handle();
    device.enter();
    try {
      check(Cu.cuStreamSynchronize, (int) Cu.cuStreamSynchronize.handle().invoke(h));
    } catch (Throwable t) {
      throw Native.rethrow(t);
    }
  }

  @Override
  public void waitEvent(Event event) {
    if (!(event instanceof CudaEvent e) || e.device() != device) {
      throw new IllegalArgumentException("event was not made on this stream's device");
    }
    MemorySegment h = handle();
    device.enter();
    check(Cu.cuStreamWaitEvent, Cu.call(Cu.cuStreamWaitEvent, h, e.handle(), 0));
  }

  @Override
  public void close() {
    if (!owned || !closed.compareAndSet(false, true)) {
      return;
    }
    device.untrack(this);
    if (!device.isClosed()) {
      device.enter();
    }
    check(Cu.cuStreamDestroy, Cu.call(Cu.cuStreamDestroy, handle));
  }

  @Override
  public String toString() {
    return "CudaStream[id=" + id + ", priority=" + priority + "]";
  }
}
