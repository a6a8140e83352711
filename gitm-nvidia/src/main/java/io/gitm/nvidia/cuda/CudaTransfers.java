package io.gitm.nvidia.cuda;

import static io.gitm.nvidia.cuda.Cu.check;

import io.gitm.device.Buffer;
import io.gitm.device.DeviceMemory;
import io.gitm.device.HostMemory;
import io.gitm.device.Stream;
import io.gitm.nvidia.ffm.Native;
import java.lang.foreign.MemorySegment;

/**
 * The copies and memsets of one device: between its memory and host memory in either direction, within its memory,
 * and between host buffers, synchronous or ordered on a stream. Ranges are checked before any call.
 */
final class CudaTransfers {
  private final CudaDevice device;

  CudaTransfers(CudaDevice device) {
    this.device = device;
  }

  void copy(Buffer dst, long dstOffset, Buffer src, long srcOffset, long bytes) {
    bounds(dst, dstOffset, bytes, "destination");
    bounds(src, srcOffset, bytes, "source");
    if (bytes == 0) {
      return;
    }
    device.enter();
    try {
      if (dst instanceof DeviceMemory dd && src instanceof HostMemory hs) {
        int rc = (int) Cu.cuMemcpyHtoD.handle().invoke(device.memory(dd).address() + dstOffset,
            host(hs).asSlice(srcOffset, bytes), bytes);
        check(Cu.cuMemcpyHtoD, rc);
      } else if (dst instanceof HostMemory hd && src instanceof DeviceMemory ds) {
        int rc = (int) Cu.cuMemcpyDtoH.handle().invoke(host(hd).asSlice(dstOffset, bytes), device.memory(ds).address()
            + srcOffset, bytes);
        check(Cu.cuMemcpyDtoH, rc);
      } else if (dst instanceof DeviceMemory dd && src instanceof DeviceMemory ds) {
        int rc = (int) Cu.cuMemcpyDtoD.handle().invoke(device.memory(dd).address() + dstOffset,
            device.memory(ds).address() + srcOffset, bytes);
        check(Cu.cuMemcpyDtoD, rc);
        check(Cu.cuStreamSynchronize, (int) Cu.cuStreamSynchronize.handle().invoke(MemorySegment.NULL));
      } else {
        MemorySegment.copy(host((HostMemory) src), srcOffset, host((HostMemory) dst), dstOffset, bytes);
      }
    } catch (Throwable t) {
      throw Native.rethrow(t);
    }
  }

  void copyAsync(Buffer dst, long dstOffset, Buffer src, long srcOffset, long bytes, Stream stream) {
    bounds(dst, dstOffset, bytes, "destination");
    bounds(src, srcOffset, bytes, "source");
    MemorySegment s = device.stream(stream).handle();
    if (bytes == 0) {
      return;
    }
    device.enter();
    try {
      if (dst instanceof DeviceMemory dd && src instanceof HostMemory hs) {
        int rc = (int) Cu.cuMemcpyHtoDAsync.handle().invoke(device.memory(dd).address() + dstOffset,
            host(hs).asSlice(srcOffset, bytes), bytes, s);
        check(Cu.cuMemcpyHtoDAsync, rc);
      } else if (dst instanceof HostMemory hd && src instanceof DeviceMemory ds) {
        int rc = (int) Cu.cuMemcpyDtoHAsync.handle().invoke(host(hd).asSlice(dstOffset, bytes),
            device.memory(ds).address() + srcOffset, bytes, s);
        check(Cu.cuMemcpyDtoHAsync, rc);
      } else if (dst instanceof DeviceMemory dd && src instanceof DeviceMemory ds) {
        int rc = (int) Cu.cuMemcpyDtoDAsync.handle().invoke(device.memory(dd).address() + dstOffset,
            device.memory(ds).address() + srcOffset, bytes, s);
        check(Cu.cuMemcpyDtoDAsync, rc);
      } else {
        stream.synchronize();
        MemorySegment.copy(host((HostMemory) src), srcOffset, host((HostMemory) dst), dstOffset, bytes);
      }
    } catch (Throwable t) {
      throw Native.rethrow(t);
    }
  }

  void memsetAsync(DeviceMemory dst, long offset, int byteValue, long bytes, Stream stream) {
    bounds(dst, offset, bytes, "destination");
    MemorySegment s = device.stream(stream).handle();
    device.enter();
    try {
      int rc = (int) Cu.cuMemsetD8Async.handle().invoke(device.memory(dst).address() + offset, (byte) byteValue,
          bytes, s);
      check(Cu.cuMemsetD8Async, rc);
    } catch (Throwable t) {
      throw Native.rethrow(t);
    }
  }

  private MemorySegment host(HostMemory h) {
    if (h instanceof CudaHostMemory ch && ch.device() == device) {
      return ch.segment();
    }
    throw new IllegalArgumentException("host memory was not allocated on this device: " + h);
  }

  static void bounds(Buffer b, long offset, long bytes, String what) {
    if (b == null) {
      throw new IllegalArgumentException(what + " buffer is null");
    }
    if (offset < 0 || bytes < 0 || offset > b.bytes() - bytes) {
      throw new IllegalArgumentException(what + ": range [" + offset + ", " + offset + "+" + bytes
          + ") outside a buffer of " + b.bytes() + " B");
    }
  }
}
