package io.gitm.nvidia.cuda;

import static io.gitm.nvidia.cuda.Cu.call;
import static io.gitm.nvidia.cuda.Cu.check;
import static io.gitm.nvidia.cuda.CudaDriver.attribute;

import io.gitm.api.Ticker;
import io.gitm.device.Blas;
import io.gitm.device.Buffer;
import io.gitm.device.Device;
import io.gitm.device.DeviceInfo;
import io.gitm.device.DeviceMemory;
import io.gitm.device.DeviceRequest;
import io.gitm.device.Event;
import io.gitm.device.EventTracer;
import io.gitm.device.GraphExec;
import io.gitm.device.HostMemory;
import io.gitm.device.HostMemoryKind;
import io.gitm.device.Kernel;
import io.gitm.device.KernelModule;
import io.gitm.device.LaunchConfig;
import io.gitm.device.MemInfo;
import io.gitm.device.MemPool;
import io.gitm.device.Module;
import io.gitm.device.StateSampler;
import io.gitm.device.Stream;
import io.gitm.device.UnsupportedFeatureException;
import io.gitm.nvidia.cublas.CublasBlas;
import io.gitm.nvidia.cupti.CuptiStreams;
import io.gitm.nvidia.cupti.CuptiTracer;
import io.gitm.nvidia.ffm.ErrorCodes;
import io.gitm.nvidia.ffm.Native;
import io.gitm.nvidia.nvml.NvmlSampler;
import io.gitm.trace.DeviceKind;
import io.gitm.trace.TraceDevice;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One CUDA device opened through the driver API on its primary context. Every resource made through it is tracked
 * and freed when the device closes; the primary context is then released, and the persisting-L2 limit and the
 * default pool's release threshold are put back as they were.
 */
final class CudaDevice implements Device {
  /** The context current on each thread, so that switching costs one call only when it changes. */
  private static final ThreadLocal<long[]> CURRENT = ThreadLocal.withInitial(() -> new long[1]);

  private final int cuDevice;
  private final MemorySegment context;
  private final DeviceInfo info;
  private final Set<AutoCloseable> resources = Collections.newSetFromMap(new ConcurrentHashMap<>());
  private final AtomicBoolean closed = new AtomicBoolean();
  private final CudaStream defaultStream;
  private final long originalPersistingL2;
  private final int maxPersistingL2;
  private final int maxAccessWindow;
  private volatile Pool pool;
  private volatile CublasBlas blas;
  private volatile StateSampler sampler;
  private final EventTracer tracer;
  private final CudaTransfers transfers = new CudaTransfers(this);
  private final CudaLaunches launches = new CudaLaunches(this);

  private CudaDevice(int cuDevice, MemorySegment context, DeviceInfo info) {
    this.cuDevice = cuDevice;
    this.context = context;
    this.info = info;
    this.defaultStream = new CudaStream(this, MemorySegment.NULL, CuptiStreams.idOf(context, MemorySegment.NULL)
        .orElseGet(CudaDevice::legacyStreamId), 0, false);
    this.originalPersistingL2 = limit(Cu.CU_LIMIT_PERSISTING_L2_CACHE_SIZE);
    this.maxPersistingL2 = attribute(cuDevice, Cu.CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE);
    this.maxAccessWindow = attribute(cuDevice, Cu.CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE);
    this.tracer = CuptiTracer.create(List.of(new TraceDevice(info.ordinal(), info.name(), info.uuid(),
        DeviceKind.REAL)));
  }

  /**
   * The legacy default stream's id as the driver gives it ({@code cuStreamGetId} on the NULL stream of the current
   * context, e.g. 7), where CUPTI cannot say what it will report ({@code CuptiStreams}); 0 where neither can.
   */
  private static int legacyStreamId() {
    if (!Cu.cuStreamGetId.available()) {
      return 0;
    }
    try (Arena a = Arena.ofConfined()) {
      MemorySegment id = a.allocate(ValueLayout.JAVA_LONG);
      return call(Cu.cuStreamGetId, MemorySegment.NULL, id) == 0 ? (int) id.get(ValueLayout.JAVA_LONG, 0) : 0;
    }
  }

  static CudaDevice open(DeviceRequest request) {
    CudaDriver.init();
    int count = CudaDriver.deviceCount();
    if (request.ordinal() >= count) {
      throw new IllegalArgumentException("no CUDA device " + request.ordinal() + ": " + count + " present");
    }
    try (Arena a = Arena.ofConfined()) {
      MemorySegment dev = a.allocate(ValueLayout.JAVA_INT);
      check(Cu.cuDeviceGet, call(Cu.cuDeviceGet, dev, request.ordinal()));
      int d = dev.get(ValueLayout.JAVA_INT, 0);
      int flags = switch (request.scheduling()) {
        case AUTO -> Cu.CU_CTX_SCHED_AUTO;
        case SPIN -> Cu.CU_CTX_SCHED_SPIN;
        case YIELD -> Cu.CU_CTX_SCHED_YIELD;
        case BLOCKING_SYNC -> Cu.CU_CTX_SCHED_BLOCKING_SYNC;
      };
      if (flags != Cu.CU_CTX_SCHED_AUTO) {
        int rc = call(Cu.cuDevicePrimaryCtxSetFlags, d, flags);
        if (rc != 0) {
          throw ErrorCodes.cuda(Cu.cuDevicePrimaryCtxSetFlags.name(), rc, "scheduling mode "
              + request.scheduling() + " on device " + request.ordinal()
              + " (the mode is fixed while the primary context is active in this process)");
        }
      }
      MemorySegment pctx = a.allocate(ValueLayout.ADDRESS);
      check(Cu.cuDevicePrimaryCtxRetain, call(Cu.cuDevicePrimaryCtxRetain, pctx, d));
      MemorySegment ctx = pctx.get(ValueLayout.ADDRESS, 0);
      try {
        makeCurrent(ctx);
        DeviceInfo info = CudaDriver.describe(request.ordinal(), d, a);
        return new CudaDevice(d, ctx, info);
      } catch (RuntimeException e) {
        call(Cu.cuDevicePrimaryCtxRelease, d);
        throw e;
      }
    }
  }

  private static void makeCurrent(MemorySegment ctx) {
    long[] cur = CURRENT.get();
    if (cur[0] != ctx.address()) {
      check(Cu.cuCtxSetCurrent, call(Cu.cuCtxSetCurrent, ctx));
      cur[0] = ctx.address();
    }
  }

  /** Makes this device's context current on the calling thread; fails once the device is closed. */
  void enter() {
    if (closed.get()) {
      throw new IllegalStateException("device " + info.ordinal() + " (" + info.name() + ") is closed");
    }
    makeCurrent(context);
  }

  void track(AutoCloseable r) {
    resources.add(r);
  }

  void untrack(AutoCloseable r) {
    resources.remove(r);
  }

  /** The resources open on this device now, in no particular order. */
  List<AutoCloseable> resources() {
    return List.copyOf(resources);
  }

  boolean isClosed() {
    return closed.get();
  }

  private long limit(int which) {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment v = a.allocate(ValueLayout.JAVA_LONG);
      return call(Cu.cuCtxGetLimit, v, which) == 0 ? v.get(ValueLayout.JAVA_LONG, 0) : -1;
    }
  }

  @Override
  public DeviceInfo info() {
    return info;
  }

  @Override
  public Ticker clock() {
    return Ticker.system();
  }

  @Override
  public Stream defaultStream() {
    return defaultStream;
  }

  @Override
  public Stream createStream(int priority) {
    enter();
    if (priority > info.leastStreamPriority() || priority < info.greatestStreamPriority()) {
      throw new IllegalArgumentException("stream priority " + priority + " outside the device's range "
          + info.greatestStreamPriority() + " (highest) to " + info.leastStreamPriority() + " (lowest)");
    }
    try (Arena a = Arena.ofConfined()) {
      MemorySegment p = a.allocate(ValueLayout.ADDRESS);
      check(Cu.cuStreamCreateWithPriority, call(Cu.cuStreamCreateWithPriority, p, Cu.CU_STREAM_NON_BLOCKING,
          priority));
      MemorySegment h = p.get(ValueLayout.ADDRESS, 0);
      MemorySegment id = a.allocate(ValueLayout.JAVA_LONG);
      int sid = CuptiStreams.idOf(context, h).orElseGet(() -> call(Cu.cuStreamGetId, h, id) == 0
          ? (int) id.get(ValueLayout.JAVA_LONG, 0) : (int) h.address());
      CudaStream s = new CudaStream(this, h, sid, priority, true);
      track(s);
      return s;
    }
  }

  @Override
  public Event createEvent(boolean timing) {
    enter();
    try (Arena a = Arena.ofConfined()) {
      MemorySegment p = a.allocate(ValueLayout.ADDRESS);
      check(Cu.cuEventCreate, call(Cu.cuEventCreate, p, timing ? Cu.CU_EVENT_DEFAULT : Cu.CU_EVENT_DISABLE_TIMING));
      CudaEvent e = new CudaEvent(this, p.get(ValueLayout.ADDRESS, 0));
      track(e);
      return e;
    }
  }

  @Override
  public DeviceMemory malloc(long bytes) {
    positive(bytes, "malloc");
    enter();
    try (Arena a = Arena.ofConfined()) {
      MemorySegment p = a.allocate(ValueLayout.JAVA_LONG);
      check(Cu.cuMemAlloc, call(Cu.cuMemAlloc, p, bytes));
      CudaMemory m = new CudaMemory(this, p.get(ValueLayout.JAVA_LONG, 0), bytes, false);
      track(m);
      return m;
    }
  }

  @Override
  public DeviceMemory mallocAsync(long bytes, Stream stream) {
    positive(bytes, "mallocAsync");
    enter();
    try (Arena a = Arena.ofConfined()) {
      MemorySegment p = a.allocate(ValueLayout.JAVA_LONG);
      check(Cu.cuMemAllocAsync, call(Cu.cuMemAllocAsync, p, bytes, stream(stream).handle()));
      CudaMemory m = new CudaMemory(this, p.get(ValueLayout.JAVA_LONG, 0), bytes, true);
      track(m);
      return m;
    }
  }

  @Override
  public void freeAsync(DeviceMemory memory, Stream stream) {
    CudaMemory m = memory(memory);
    enter();
    MemorySegment s = stream(stream).handle();
    if (m.markFreed()) {
      untrack(m);
      if (m.pooled()) {
        check(Cu.cuMemFreeAsync, call(Cu.cuMemFreeAsync, m.address(), s));
      } else {
        // plain memory has no stream-ordered free: wait for the stream's work, then free it
        check(Cu.cuStreamSynchronize, call(Cu.cuStreamSynchronize, s));
        check(Cu.cuMemFree, call(Cu.cuMemFree, m.address()));
      }
    }
  }

  @Override
  public MemPool defaultPool() {
    Pool p = pool;
    if (p == null) {
      synchronized (this) {
        if (pool == null) {
          enter();
          try (Arena a = Arena.ofConfined()) {
            MemorySegment h = a.allocate(ValueLayout.ADDRESS);
            check(Cu.cuDeviceGetDefaultMemPool, call(Cu.cuDeviceGetDefaultMemPool, h, cuDevice));
            pool = new Pool(this, h.get(ValueLayout.ADDRESS, 0));
          }
        }
        p = pool;
      }
    }
    return p;
  }

  @Override
  public HostMemory allocHost(long bytes, HostMemoryKind kind) {
    positive(bytes, "allocHost");
    HostMemory m;
    if (kind == HostMemoryKind.PINNED) {
      enter();
      try (Arena a = Arena.ofConfined()) {
        MemorySegment p = a.allocate(ValueLayout.ADDRESS);
        check(Cu.cuMemHostAlloc, call(Cu.cuMemHostAlloc, p, bytes, 0));
        m = new CudaHostMemory(this, p.get(ValueLayout.ADDRESS, 0).reinterpret(bytes), null, kind);
      }
    } else {
      Arena arena = Arena.ofShared();
      m = new CudaHostMemory(this, arena.allocate(bytes, 64), arena, kind);
    }
    track(m);
    return m;
  }

  @Override
  public void copy(Buffer dst, long dstOffset, Buffer src, long srcOffset, long bytes) {
    transfers.copy(dst, dstOffset, src, srcOffset, bytes);
  }

  @Override
  public void copyAsync(Buffer dst, long dstOffset, Buffer src, long srcOffset, long bytes, Stream stream) {
    transfers.copyAsync(dst, dstOffset, src, srcOffset, bytes, stream);
  }

  @Override
  public void memsetAsync(DeviceMemory dst, long offset, int byteValue, long bytes, Stream stream) {
    transfers.memsetAsync(dst, offset, byteValue, bytes, stream);
  }

  @Override
  public Module load(KernelModule module) {
    return CudaModule.load(this, module);
  }

  @Override
  public void launch(Kernel kernel, LaunchConfig config, Stream stream, Object... args) {
    launches.launch(kernel, config, stream, args);
  }

  @Override
  public void beginCapture(Stream stream) {
    launches.beginCapture(stream);
  }

  @Override
  public GraphExec endCapture(Stream stream) {
    return launches.endCapture(stream);
  }

  @Override
  public void launchGraph(GraphExec graph, Stream stream) {
    launches.launchGraph(graph, stream);
  }

  @Override
  public void synchronize() {
    enter();
    try {
      check(Cu.cuCtxSynchronize, (int) Cu.cuCtxSynchronize.handle().invoke());
    } catch (Throwable t) {
      throw Native.rethrow(t);
    }
  }

  @Override
  public MemInfo memInfo() {
    enter();
    try (Arena a = Arena.ofConfined()) {
      MemorySegment free = a.allocate(ValueLayout.JAVA_LONG);
      MemorySegment total = a.allocate(ValueLayout.JAVA_LONG);
      check(Cu.cuMemGetInfo, call(Cu.cuMemGetInfo, free, total));
      return new MemInfo(free.get(ValueLayout.JAVA_LONG, 0), total.get(ValueLayout.JAVA_LONG, 0));
    }
  }

  @Override
  public int maxActiveBlocksPerMultiprocessor(Kernel kernel, int blockSize, int dynamicSharedBytes) {
    CudaModule.CudaKernel k = kernel(kernel);
    enter();
    try (Arena a = Arena.ofConfined()) {
      MemorySegment n = a.allocate(ValueLayout.JAVA_INT);
      check(Cu.cuOccupancyMaxActiveBlocksPerMultiprocessor, call(Cu.cuOccupancyMaxActiveBlocksPerMultiprocessor, n,
          k.function(), blockSize, (long) dynamicSharedBytes));
      return n.get(ValueLayout.JAVA_INT, 0);
    }
  }

  @Override
  public int suggestedBlockSize(Kernel kernel, int dynamicSharedBytes) {
    CudaModule.CudaKernel k = kernel(kernel);
    enter();
    try (Arena a = Arena.ofConfined()) {
      MemorySegment minGrid = a.allocate(ValueLayout.JAVA_INT);
      MemorySegment block = a.allocate(ValueLayout.JAVA_INT);
      check(Cu.cuOccupancyMaxPotentialBlockSize, call(Cu.cuOccupancyMaxPotentialBlockSize, minGrid, block,
          k.function(), MemorySegment.NULL, (long) dynamicSharedBytes, 0));
      return block.get(ValueLayout.JAVA_INT, 0);
    }
  }

  @Override
  public void setL2AccessWindow(Stream stream, DeviceMemory memory, long offset, long bytes, float hitRatio) {
    CudaStream s = stream(stream);
    if (bytes < 0 || !(hitRatio >= 0f && hitRatio <= 1f)) {
      throw new IllegalArgumentException("L2 window: bytes " + bytes + " and hit ratio " + hitRatio
          + " must be >= 0 and in [0, 1]");
    }
    enter();
    try (Arena a = Arena.ofConfined()) {
      MemorySegment v = a.allocate(Cu.LAUNCH_ATTRIBUTE_VALUE_SIZE, 8);
      if (bytes > 0) {
        CudaTransfers.bounds(memory, offset, bytes, "L2 window");
        if (maxAccessWindow <= 0 || maxPersistingL2 <= 0) {
          throw new UnsupportedFeatureException("cuStreamSetAttribute",
              "device has no persisting L2 (max window " + maxAccessWindow + " B)");
        }
        if (bytes > maxAccessWindow) {
          throw new IllegalArgumentException("L2 window of " + bytes + " B exceeds the device's maximum of "
              + maxAccessWindow + " B");
        }
        long persist = Math.min(bytes, maxPersistingL2);
        if (limit(Cu.CU_LIMIT_PERSISTING_L2_CACHE_SIZE) < persist) {
          check(Cu.cuCtxSetLimit, call(Cu.cuCtxSetLimit, Cu.CU_LIMIT_PERSISTING_L2_CACHE_SIZE, persist));
        }
        v.set(ValueLayout.JAVA_LONG, Cu.APW_BASE_PTR, memory(memory).address() + offset);
        v.set(ValueLayout.JAVA_LONG, Cu.APW_NUM_BYTES, bytes);
        v.set(ValueLayout.JAVA_FLOAT, Cu.APW_HIT_RATIO, hitRatio);
        v.set(ValueLayout.JAVA_INT, Cu.APW_HIT_PROP, Cu.CU_ACCESS_PROPERTY_PERSISTING);
        v.set(ValueLayout.JAVA_INT, Cu.APW_MISS_PROP, Cu.CU_ACCESS_PROPERTY_STREAMING);
      }
      check(Cu.cuStreamSetAttribute, call(Cu.cuStreamSetAttribute, s.handle(),
          Cu.CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW, v));
      if (bytes == 0 && maxPersistingL2 > 0) {
        check(Cu.cuCtxResetPersistingL2Cache, call(Cu.cuCtxResetPersistingL2Cache));
      }
    }
  }

  /** The persisting-L2 limit in force now, bytes (for tests and the doctor). */
  long persistingL2Limit() {
    enter();
    return limit(Cu.CU_LIMIT_PERSISTING_L2_CACHE_SIZE);
  }

  @Override
  public Blas blas() {
    CublasBlas b = blas;
    if (b == null) {
      synchronized (this) {
        if (blas == null) {
          enter();
          blas = new CublasBlas(s -> stream(s).handle(), m -> memory(m).address(),
              bytes -> memory(malloc(bytes)).address());
          track(blas);
        }
        b = blas;
      }
    }
    enter();
    return b;
  }

  @Override
  public StateSampler sampler() {
    StateSampler s = sampler;
    if (s == null) {
      synchronized (this) {
        if (sampler == null) {
          sampler = NvmlSampler.forDevice(info.uuid(), info.ordinal(), Ticker.system());
        }
        s = sampler;
      }
    }
    return s;
  }

  @Override
  public EventTracer tracer() {
    return tracer;
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    makeCurrent(context);
    List<Throwable> errors = new ArrayList<>();
    try {
      call(Cu.cuCtxSynchronize);
    } catch (RuntimeException e) {
      errors.add(e);
    }
    List<AutoCloseable> order = new ArrayList<>(resources);
    order.sort((x, y) -> Integer.compare(rank(x), rank(y)));
    for (AutoCloseable r : order) {
      try {
        r.close();
      } catch (Exception e) {
        errors.add(e);
      }
    }
    resources.clear();
    try {
      call(Cu.cuCtxSynchronize);
      if (pool != null) {
        pool.restore();
      }
      if (originalPersistingL2 >= 0 && limit(Cu.CU_LIMIT_PERSISTING_L2_CACHE_SIZE) != originalPersistingL2) {
        call(Cu.cuCtxSetLimit, Cu.CU_LIMIT_PERSISTING_L2_CACHE_SIZE, originalPersistingL2);
      }
    } catch (RuntimeException e) {
      errors.add(e);
    }
    call(Cu.cuDevicePrimaryCtxRelease, cuDevice);
    CURRENT.get()[0] = 0;
    if (!errors.isEmpty()) {
      IllegalStateException e = new IllegalStateException("closing device " + info.ordinal() + ": "
          + errors.size() + " resource(s) failed to close; first: " + errors.getFirst().getMessage());
      errors.forEach(e::addSuppressed);
      throw e;
    }
  }

  /** Close order: graphs, cuBLAS and modules before the streams they use, memory last. */
  private static int rank(AutoCloseable r) {
    return switch (r) {
      case CudaGraph g -> 0;
      case CublasBlas b -> 1;
      case CudaEvent e -> 2;
      case CudaModule m -> 3;
      case CudaStream s -> 4;
      default -> 5;
    };
  }

  CudaStream stream(Stream s) {
    if (s instanceof CudaStream cs && cs.device() == this) {
      return cs;
    }
    throw new IllegalArgumentException("stream " + (s == null ? "null" : s.id()) + " was not made on this device");
  }

  CudaMemory memory(DeviceMemory m) {
    if (m instanceof CudaMemory cm && cm.device() == this) {
      cm.requireLive();
      return cm;
    }
    throw new IllegalArgumentException("device memory was not allocated on this device: " + m);
  }

  private CudaModule.CudaKernel kernel(Kernel k) {
    if (k instanceof CudaModule.CudaKernel ck && ck.module().device() == this) {
      return ck;
    }
    throw new IllegalArgumentException("kernel " + k.def().entry() + " was not loaded on this device");
  }

  private static void positive(long bytes, String what) {
    if (bytes <= 0) {
      throw new IllegalArgumentException(what + ": size must be positive, got " + bytes);
    }
  }

  static ByteBuffer view(MemorySegment s) {
    return s.asByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
  }
}
