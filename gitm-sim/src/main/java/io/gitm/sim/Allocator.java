package io.gitm.sim;

import io.gitm.device.Buffer;
import io.gitm.device.DeviceException;
import io.gitm.device.DeviceMemory;
import io.gitm.device.HostMemory;
import io.gitm.device.HostMemoryKind;
import io.gitm.device.MemInfo;
import io.gitm.device.OutOfDeviceMemoryException;
import io.gitm.device.Stream;
import io.gitm.trace.ApiKind;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;

/**
 * The simulated device's memory and its allocator model: plain allocations synchronize the device and cost the
 * driver's mapping time, stream-ordered ones are served from the {@link SimPool}; pinned host memory costs as much
 * as device memory. Every allocation is backed by a heap buffer of at most 2 GiB, and freed buffers are reused.
 */
final class Allocator {
  static final long MiB = 1L << 20;
  private static final long MAX_BACKED = Integer.MAX_VALUE - 8;
  /** The bytes of recycled backing buffers kept at most. */
  private static final long RECYCLE_LIMIT = 256L << 20;

  private final SimContext ctx;
  private final SimSpec spec;
  private final SimScheduler scheduler;
  final SimPool pool;
  /** Bytes held by plain (not pooled) allocations. */
  private long plainBytes;
  /** Recycled backing buffers of freed memory, by size; bounded by {@link #RECYCLE_LIMIT} bytes. */
  private final Map<Integer, ArrayList<ByteBuffer>> recycled = new HashMap<>();
  private long recycledBytes;

  Allocator(SimContext ctx, SimScheduler scheduler, SimPool pool) {
    this.ctx = ctx;
    this.spec = ctx.spec;
    this.scheduler = scheduler;
    this.pool = pool;
  }

  /** {@code b} as live device memory of this device; {@code function} names the call that fails otherwise. */
  SimMemory memory(Buffer b, String function) {
    if (b instanceof SimMemory m && m.device == ctx.device) {
      if (m.freed) {
        throw new DeviceException(function, 1, "CUDA_ERROR_INVALID_VALUE", "device memory used after free");
      }
      return m;
    }
    throw new DeviceException(function, 400, "CUDA_ERROR_INVALID_HANDLE", "not memory of this simulated device");
  }

  /** {@code b} as live host memory of the simulated device. */
  static SimHostMemory hostMemory(Buffer b, String function) {
    if (b instanceof SimHostMemory m) {
      if (m.freed) {
        throw new DeviceException(function, 1, "CUDA_ERROR_INVALID_VALUE", "host memory used after free");
      }
      return m;
    }
    throw new DeviceException(function, 400, "CUDA_ERROR_INVALID_HANDLE", "not host memory of the simulated device");
  }

  /** Checks that {@code bytes} more fit in device memory; pooled requests may use the pool's free reservation. */
  private void reserve(long bytes, String function, boolean pooled) {
    if (bytes <= 0) {
      throw new DeviceException(function, 1, "CUDA_ERROR_INVALID_VALUE", "allocation of " + bytes + " bytes");
    }
    if (bytes > MAX_BACKED) {
      throw new OutOfDeviceMemoryException(function, 2, "CUDA_ERROR_OUT_OF_MEMORY", "the simulated device backs "
          + "each allocation with a host buffer of at most 2 GiB; asked for " + bytes + " bytes");
    }
    long needed = pooled ? plainBytes + Math.max(pool.reserved, pool.used + bytes) : plainBytes + pool.reserved + bytes;
    if (needed > spec.hardware().memoryBytes()) {
      throw new OutOfDeviceMemoryException(function, 2, "CUDA_ERROR_OUT_OF_MEMORY", bytes + " bytes asked, "
          + (spec.hardware().memoryBytes() - plainBytes - pool.reserved) + " free");
    }
  }

  /** The modeled host time of mapping {@code bytes} of device memory, slowed by an allocator-churn fault. */
  double mallocCost(long bytes) {
    InjectedFault churn = ctx.fault("allocator-churn");
    double f = churn == null ? 1 : churn.param("factor");
    return (spec.mallocNs() + spec.mallocNsPerMiB() * ((double) bytes / MiB)) * f;
  }

  /** {@code cuMemAlloc}: synchronizes the device, then maps memory. */
  private void plainAlloc(long bytes) {
    scheduler.waitDevice();
    ctx.host += ctx.hostCost(mallocCost(bytes));
  }

  DeviceMemory malloc(long bytes) {
    ctx.check();
    long t0 = ctx.host;
    long corr = ctx.nextCorrelation();
    reserve(bytes, "cuMemAlloc_v2", false);
    plainAlloc(bytes);
    plainBytes += bytes;
    ctx.api(ApiKind.ALLOC, "cuMemAlloc_v2", corr, t0);
    return new SimMemory(ctx.device, bytes, false);
  }

  DeviceMemory mallocAsync(long bytes, Stream stream) {
    ctx.check();
    scheduler.stream(stream, "cuMemAllocAsync");
    long t0 = ctx.host;
    long corr = ctx.nextCorrelation();
    reserve(bytes, "cuMemAllocAsync", true);
    if (ctx.faultActive("allocator-churn")) {
      plainAlloc(bytes);
      pool.used += bytes;
      pool.reserved = Math.max(pool.reserved, pool.used);
    } else {
      ctx.host += ctx.hostCost(pool.alloc(bytes));
    }
    ctx.api(ApiKind.ALLOC, "cuMemAllocAsync", corr, t0);
    return new SimMemory(ctx.device, bytes, true);
  }

  void freeAsync(DeviceMemory memory, Stream stream) {
    ctx.check();
    SimMemory m = memory(memory, "cuMemFreeAsync");
    scheduler.stream(stream, "cuMemFreeAsync");
    free(m, "cuMemFreeAsync");
  }

  /** Frees {@code m} once: a plain free synchronizes the device, a pooled one returns its bytes to the pool. */
  void free(SimMemory m, String function) {
    if (m.freed || ctx.closed) {
      return;
    }
    long t0 = ctx.host;
    long corr = ctx.nextCorrelation();
    m.freed = true;
    if (m.pooled) {
      recycle(m);
      pool.used -= m.bytes;
      if (ctx.faultActive("allocator-churn")) {
        scheduler.waitDevice();
        ctx.host += ctx.hostCost(spec.freeNs() * ctx.fault("allocator-churn").param("factor"));
        pool.reserved = pool.used;
      } else {
        ctx.host += ctx.hostCost(spec.copyApiNs());
      }
    } else {
      scheduler.waitDevice();
      ctx.host += ctx.hostCost(spec.freeNs());
      plainBytes -= m.bytes;
      recycle(m);
    }
    ctx.api(ApiKind.FREE, m.pooled ? function : "cuMemFree_v2", corr, t0);
  }

  HostMemory allocHost(long bytes, HostMemoryKind kind) {
    ctx.check();
    if (bytes <= 0 || bytes > MAX_BACKED) {
      throw new DeviceException("cuMemHostAlloc", 1, "CUDA_ERROR_INVALID_VALUE",
          "host allocation of " + bytes + " bytes (the simulated device backs at most 2 GiB per buffer)");
    }
    if (kind == null) {
      throw new IllegalArgumentException("host memory kind is required");
    }
    if (kind == HostMemoryKind.PINNED) {
      long t0 = ctx.host;
      ctx.host += ctx.hostCost(spec.mallocNs() + spec.mallocNsPerMiB() * ((double) bytes / MiB));
      ctx.api(ApiKind.ALLOC, "cuMemHostAlloc", ctx.nextCorrelation(), t0);
    }
    return new SimHostMemory(ctx.device, bytes, kind);
  }

  void freeHost(SimHostMemory m) {
    if (m.freed || ctx.closed) {
      m.freed = true;
      return;
    }
    m.freed = true;
    if (m.kind == HostMemoryKind.PINNED) {
      long t0 = ctx.host;
      scheduler.waitDevice();
      ctx.host += ctx.hostCost(spec.freeNs());
      ctx.api(ApiKind.FREE, "cuMemFreeHost", ctx.nextCorrelation(), t0);
    }
  }

  /** Free and total device memory: the pool's whole reservation counts as used. */
  MemInfo memInfo() {
    long total = spec.hardware().memoryBytes();
    return new MemInfo(total - plainBytes - pool.reserved, total);
  }

  /** A backing buffer of {@code bytes}: a recycled one of that size, else a new zeroed one. */
  ByteBuffer buffer(int bytes) {
    ArrayList<ByteBuffer> l = recycled.get(bytes);
    if (l != null && !l.isEmpty()) {
      recycledBytes -= bytes;
      return l.removeLast();
    }
    return ByteBuffer.allocate(bytes).order(ByteOrder.LITTLE_ENDIAN);
  }

  private void recycle(SimMemory m) {
    ByteBuffer b = m.release();
    if (b != null && recycledBytes + m.bytes <= RECYCLE_LIMIT) {
      recycled.computeIfAbsent((int) m.bytes, k -> new ArrayList<>()).add(b);
      recycledBytes += m.bytes;
    }
  }
}
