package io.gitm.nvidia.cuda;

import static io.gitm.nvidia.cuda.Cu.check;

import io.gitm.device.GraphExec;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;

/** An instantiated CUDA graph ({@code CUgraphExec}). */
final class CudaGraph implements GraphExec {
  private final CudaDevice device;
  private final MemorySegment handle;
  private final int nodes;
  private final AtomicBoolean closed = new AtomicBoolean();

  CudaGraph(CudaDevice device, MemorySegment handle, int nodes) {
    this.device = device;
    this.handle = handle;
    this.nodes = nodes;
  }

  CudaDevice device() {
    return device;
  }

  MemorySegment handle() {
    if (closed.get()) {
      throw new IllegalStateException("graph is closed");
    }
    return handle;
  }

  @Override
  public int nodes() {
    return nodes;
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
    check(Cu.cuGraphExecDestroy, Cu.call(Cu.cuGraphExecDestroy, handle));
  }
}
