package io.gitm.nvidia.cuda;

import static io.gitm.nvidia.cuda.Cu.check;

import io.gitm.device.Event;
import io.gitm.device.Stream;
import io.gitm.nvidia.ffm.Native;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicBoolean;

/** A CUDA event. */
final class CudaEvent implements Event {
  private final CudaDevice device;
  private final MemorySegment handle;
  private final AtomicBoolean closed = new AtomicBoolean();

  CudaEvent(CudaDevice device, MemorySegment handle) {
    this.device = device;
    this.handle = handle;
  }

  CudaDevice device() {
    return device;
  }

  MemorySegment handle() {
    if (closed.get()) {
      throw new IllegalStateException("event is closed");
    }
    return handle;
  }

  @Override
  public void record(Stream stream) {
    MemorySegment s = device.stream(stream).handle();
    MemorySegment h = handle();
    device.enter();
    try {
      check(Cu.cuEventRecord, (int) Cu.cuEventRecord.handle().invoke(h, s));
    } catch (Throwable t) {
      throw Native.rethrow(t);
    }
  }

  @Override
  public void synchronize() {
    MemorySegment h = handle();
    device.enter();
    check(Cu.cuEventSynchronize, Cu.call(Cu.cuEventSynchronize, h));
  }

  @Override
  public float elapsedMillisSince(Event start) {
    if (!(start instanceof CudaEvent s) || s.device != device) {
      throw new IllegalArgumentException("start event was not made on this device");
    }
    device.enter();
    try (Arena a = Arena.ofConfined()) {
      MemorySegment ms = a.allocate(ValueLayout.JAVA_FLOAT);
      check(Cu.cuEventElapsedTime, Cu.call(Cu.cuEventElapsedTime, ms, s.handle(), handle()));
      return ms.get(ValueLayout.JAVA_FLOAT, 0);
    }
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    device.untrack(this);
    if (!device.isClosed()) {
      device.enter();
    }
    check(Cu.cuEventDestroy, Cu.call(Cu.cuEventDestroy, handle));
  }
}
