package io.gitm.sim;

import io.gitm.device.DeviceException;
import io.gitm.device.Event;
import io.gitm.device.Stream;
import java.util.List;

/** A stream of the simulated device: a FIFO queue whose tail is when its last queued operation ends. */
final class SimStream implements Stream {
  /** Work captured into a graph, replayed onto a target stream under one correlation id. */
  @FunctionalInterface
  interface Node {
    void replay(SimStream target, long correlation);
  }

  /** An L2 persisting window: bytes and hit ratio. */
  record L2Window(long bytes, float hitRatio) {
  }

  final SimDevice device;
  final int id;
  final int priority;
  /** End times of queued operations not yet known to be done, oldest first (the launch queue), as a ring. */
  private final long[] pending;
  private final int mask;
  private final int depth;
  private int head;
  private int count;
  long tail;
  List<Node> capture;
  L2Window l2Window;
  boolean destroyed;

  SimStream(SimDevice device, int id, int priority, int queueDepth) {
    this.device = device;
    this.id = id;
    this.priority = priority;
    this.depth = queueDepth;
    this.pending = new long[Integer.highestOneBit(Math.max(1, queueDepth - 1)) << 1];
    this.mask = pending.length - 1;
  }

  /**
   * Forgets queued operations done by {@code host}; while the queue is still full, the host waits for the oldest.
   * Returns the host time after waiting.
   */
  long admit(long host) {
    long h = host;
    while (count > 0 && pending[head] <= h) {
      head = (head + 1) & mask;
      count--;
    }
    while (count >= depth) {
      h = Math.max(h, pending[head]);
      head = (head + 1) & mask;
      count--;
    }
    return h;
  }

  /** Records a queued operation ending at {@code end}; the caller has admitted it. */
  void queued(long end) {
    if (count == pending.length) {
      head = (head + 1) & mask;
      count--;
    }
    pending[(head + count) & mask] = end;
    count++;
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
    device.synchronize(this);
  }

  @Override
  public void waitEvent(Event event) {
    if (!(event instanceof SimEvent e)) {
      throw new DeviceException("cuStreamWaitEvent", 400, "CUDA_ERROR_INVALID_HANDLE", "not a simulated event");
    }
    device.waitEvent(this, e);
  }

  @Override
  public void close() {
    device.destroy(this);
  }
}
