package io.gitm.sim;

import io.gitm.device.Buffer;
import io.gitm.device.DeviceException;
import io.gitm.device.DeviceMemory;
import io.gitm.device.HostMemoryKind;
import io.gitm.device.Stream;
import io.gitm.trace.ApiKind;
import io.gitm.trace.CopyKind;
import io.gitm.trace.MemoryKind;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Copies and memsets on the simulated device: the bytes move at once, in host-submission order, and the operation
 * is timed on its stream and copy engine. A copy from or to pageable host memory makes the host wait for it.
 */
final class Transfers {
  private final SimContext ctx;
  private final SimSpec spec;
  private final SimScheduler scheduler;
  private final Allocator allocator;

  Transfers(SimContext ctx, SimScheduler scheduler, Allocator allocator) {
    this.ctx = ctx;
    this.spec = ctx.spec;
    this.scheduler = scheduler;
    this.allocator = allocator;
  }

  /** The direction of a copy and the memory kinds of its two sides. */
  private record Route(CopyKind kind, MemoryKind src, MemoryKind dst) {
  }

  /** The memory kind a copy's host side really has: pinned memory is pageable under the pageable-copies fault. */
  private MemoryKind hostKind(SimHostMemory m) {
    if (m.kind == HostMemoryKind.PAGEABLE || ctx.faultActive("pageable-copies")) {
      return MemoryKind.PAGEABLE;
    }
    return MemoryKind.PINNED;
  }

  private Route route(Buffer dst, long dstOffset, Buffer src, long srcOffset, long bytes, String function) {
    if (bytes < 0 || dstOffset < 0 || srcOffset < 0 || dstOffset + bytes > dst.bytes()
        || srcOffset + bytes > src.bytes()) {
      throw new DeviceException(function, 1, "CUDA_ERROR_INVALID_VALUE", "copy of " + bytes + " bytes at "
          + srcOffset + " -> " + dstOffset + " overruns a " + src.bytes() + " / " + dst.bytes() + " byte buffer");
    }
    MemoryKind s = src instanceof DeviceMemory ? MemoryKind.DEVICE : hostKind(Allocator.hostMemory(src, function));
    MemoryKind d = dst instanceof DeviceMemory ? MemoryKind.DEVICE : hostKind(Allocator.hostMemory(dst, function));
    if (src instanceof DeviceMemory) {
      allocator.memory(src, function);
    }
    if (dst instanceof DeviceMemory) {
      allocator.memory(dst, function);
    }
    CopyKind k = s == MemoryKind.DEVICE ? (d == MemoryKind.DEVICE ? CopyKind.DTOD : CopyKind.DTOH)
        : (d == MemoryKind.DEVICE ? CopyKind.HTOD : CopyKind.HTOH);
    return new Route(k, s, d);
  }

  private static ByteBuffer data(Buffer b) {
    return b instanceof SimMemory m ? m.data() : ((SimHostMemory) b).data;
  }

  private static void moveBytes(Buffer dst, long dstOffset, Buffer src, long srcOffset, long bytes) {
    if (bytes == 0) {
      return;
    }
    // every backing buffer is a heap buffer (ByteBuffer.allocate); arraycopy copies overlapping ranges as memmove
    ByteBuffer s = data(src);
    ByteBuffer d = data(dst);
    System.arraycopy(s.array(), s.arrayOffset() + (int) srcOffset, d.array(), d.arrayOffset() + (int) dstOffset,
        (int) bytes);
  }

  /** {@code cuMemcpy}: a copy on the default stream that the host waits for. */
  void copy(Buffer dst, long dstOffset, Buffer src, long srcOffset, long bytes) {
    ctx.check();
    scheduler.requireNotCapturing("cuMemcpy");
    Route r = route(dst, dstOffset, src, srcOffset, bytes, "cuMemcpy");
    long t0 = ctx.host;
    long corr = ctx.nextCorrelation();
    ctx.host += ctx.hostCost(spec.copyApiNs());
    moveBytes(dst, dstOffset, src, srcOffset, bytes);
    SimStream s = scheduler.defaultStream;
    scheduler.admit(s);
    scheduler.enqueueCopy(r.kind(), bytes, r.src(), r.dst(), s, corr, true);
    ctx.api(ApiKind.COPY, "cuMemcpy", corr, t0);
  }

  /** {@code cuMemcpyAsync}: queued on {@code stream}, or captured into its graph. */
  void copyAsync(Buffer dst, long dstOffset, Buffer src, long srcOffset, long bytes, Stream stream) {
    ctx.check();
    SimStream s = scheduler.stream(stream, "cuMemcpyAsync");
    Route r = route(dst, dstOffset, src, srcOffset, bytes, "cuMemcpyAsync");
    boolean pageable = r.src() == MemoryKind.PAGEABLE || r.dst() == MemoryKind.PAGEABLE;
    if (s.capture != null) {
      if (pageable) {
        throw new DeviceException("cuMemcpyAsync", 900, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED",
            "a copy from or to pageable host memory cannot be captured into a graph");
      }
      long t0 = ctx.host;
      ctx.host += ctx.hostCost(spec.copyApiNs());
      ctx.api(ApiKind.COPY, "cuMemcpyAsync", ctx.nextCorrelation(), t0);
      s.capture.add((target, corr) -> {
        moveBytes(dst, dstOffset, src, srcOffset, bytes);
        scheduler.enqueueCopy(r.kind(), bytes, r.src(), r.dst(), target, corr, false);
      });
      return;
    }
    long t0 = ctx.host;
    long corr = ctx.nextCorrelation();
    ctx.host += ctx.hostCost(spec.copyApiNs());
    moveBytes(dst, dstOffset, src, srcOffset, bytes);
    scheduler.admit(s);
    scheduler.enqueueCopy(r.kind(), bytes, r.src(), r.dst(), s, corr, pageable || r.kind() == CopyKind.HTOH);
    ctx.api(ApiKind.COPY, "cuMemcpyAsync", corr, t0);
  }

  /** {@code cuMemsetD8Async}: the bytes are set at once (or at each replay of a captured graph). */
  void memsetAsync(DeviceMemory dst, long offset, int byteValue, long bytes, Stream stream) {
    ctx.check();
    SimStream s = scheduler.stream(stream, "cuMemsetD8Async");
    SimMemory m = allocator.memory(dst, "cuMemsetD8Async");
    if (offset < 0 || bytes < 0 || offset + bytes > m.bytes) {
      throw new DeviceException("cuMemsetD8Async", 1, "CUDA_ERROR_INVALID_VALUE",
          "memset of " + bytes + " bytes at " + offset + " overruns a " + m.bytes + " byte buffer");
    }
    long t0 = ctx.host;
    long corr = ctx.nextCorrelation();
    ctx.host += ctx.hostCost(spec.copyApiNs());
    Runnable effect = () -> Arrays.fill(m.data().array(), (int) offset, (int) (offset + bytes), (byte) byteValue);
    if (s.capture != null) {
      s.capture.add((target, c) -> {
        effect.run();
        scheduler.enqueueMemset(bytes, byteValue, target, c);
      });
    } else {
      effect.run();
      scheduler.admit(s);
      scheduler.enqueueMemset(bytes, byteValue, s, corr);
    }
    ctx.api(ApiKind.MEMSET, "cuMemsetD8Async", corr, t0);
  }
}
