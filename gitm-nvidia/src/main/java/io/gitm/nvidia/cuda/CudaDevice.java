package io.gitm.nvidia.cuda;

import static io.gitm.nvidia.cuda.Cu.check;

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
import io.gitm.nvidia.cublas.CublasBlas;
import io.gitm.nvidia.cuda.nvrtc.Nvrtc;
import io.gitm.nvidia.ffm.Native;
import io.gitm.nvidia.ffm.NativeFunction;
import io.gitm.nvidia.nvml.Nvml;
import io.gitm.nvidia.nvml.NvmlSampler;
import io.gitm.trace.DeviceKind;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
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
  private static final int MAX_ARGS = 64;
  private static final ThreadLocal<MemorySegment> LAUNCH_SCRATCH =
      ThreadLocal.withInitial(() -> Arena.global().allocate(16L * MAX_ARGS, 16));

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

  private CudaDevice(int cuDevice, MemorySegment context, DeviceInfo info) {
    this.cuDevice = cuDevice;
    this.context = context;
    this.info = info;
    this.defaultStream = new CudaStream(this, MemorySegment.NULL, io.gitm.nvidia.cupti.CuptiStreams.idOf(context,
        MemorySegment.NULL).orElseGet(CudaDevice::legacyStreamId), 0, false);
    this.originalPersistingL2 = limit(Cu.CU_LIMIT_PERSISTING_L2_CACHE_SIZE);
    this.maxPersistingL2 = attribute(cuDevice, Cu.CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE);
    this.maxAccessWindow = attribute(cuDevice, Cu.CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE);
    this.tracer = io.gitm.nvidia.cupti.CuptiTracer.create(java.util.List.of(new io.gitm.trace.TraceDevice(
        info.ordinal(), info.name(), info.uuid(), io.gitm.trace.DeviceKind.REAL)));
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
    init();
    int count = deviceCount();
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
          throw io.gitm.nvidia.ffm.ErrorCodes.cuda(Cu.cuDevicePrimaryCtxSetFlags.name(), rc, "scheduling mode "
              + request.scheduling() + " on device " + request.ordinal()
              + " (the mode is fixed while the primary context is active in this process)");
        }
      }
      MemorySegment pctx = a.allocate(ValueLayout.ADDRESS);
      check(Cu.cuDevicePrimaryCtxRetain, call(Cu.cuDevicePrimaryCtxRetain, pctx, d));
      MemorySegment ctx = pctx.get(ValueLayout.ADDRESS, 0);
      try {
        makeCurrent(ctx);
        DeviceInfo info = describe(request.ordinal(), d, a);
        return new CudaDevice(d, ctx, info);
      } catch (RuntimeException e) {
        call(Cu.cuDevicePrimaryCtxRelease, d);
        throw e;
      }
    }
  }

  static void init() {
    check(Cu.cuInit, call(Cu.cuInit, 0));
  }

  static int deviceCount() {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment n = a.allocate(ValueLayout.JAVA_INT);
      check(Cu.cuDeviceGetCount, call(Cu.cuDeviceGetCount, n));
      return n.get(ValueLayout.JAVA_INT, 0);
    }
  }

  /** The driver's CUDA version as {@code major.minor} (e.g. 13.0). */
  static String driverCudaVersion() {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment v = a.allocate(ValueLayout.JAVA_INT);
      check(Cu.cuDriverGetVersion, call(Cu.cuDriverGetVersion, v));
      int x = v.get(ValueLayout.JAVA_INT, 0);
      return (x / 1000) + "." + (x % 1000) / 10;
    }
  }

  /** Name, UUID, compute capability, multiprocessors, memory and L2 of device {@code d}, without a context. */
  static DeviceInfo describe(int ordinal, int d, Arena a) {
    MemorySegment name = a.allocate(256);
    check(Cu.cuDeviceGetName, call(Cu.cuDeviceGetName, name, 256, d));
    MemorySegment uuid = a.allocate(Cu.UUID_SIZE);
    check(Cu.cuDeviceGetUuid, call(Cu.cuDeviceGetUuid, uuid, d));
    MemorySegment total = a.allocate(ValueLayout.JAVA_LONG);
    check(Cu.cuDeviceTotalMem, call(Cu.cuDeviceTotalMem, total, d));
    int major = attribute(d, Cu.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    int minor = attribute(d, Cu.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    int least = 0;
    int greatest = 0;
    MemorySegment lo = a.allocate(ValueLayout.JAVA_INT);
    MemorySegment hi = a.allocate(ValueLayout.JAVA_INT);
    if (call(Cu.cuCtxGetStreamPriorityRange, lo, hi) == 0) {
      least = lo.get(ValueLayout.JAVA_INT, 0);
      greatest = hi.get(ValueLayout.JAVA_INT, 0);
    }
    String uuidText = formatUuid(uuid.toArray(ValueLayout.JAVA_BYTE));
    String driver = Nvml.driverVersion().orElse("CUDA " + driverCudaVersion());
    return new DeviceInfo("nvidia", DeviceKind.REAL, ordinal, Native.cString(name), uuidText, major + "." + minor,
        attribute(d, Cu.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT), total.get(ValueLayout.JAVA_LONG, 0),
        attribute(d, Cu.CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE), driver, least, greatest);
  }

  /** NVIDIA's text form of a device UUID: {@code GPU-} then 8-4-4-4-12 hex digits. */
  static String formatUuid(byte[] b) {
    String h = HexFormat.of().formatHex(b);
    return "GPU-" + h.substring(0, 8) + "-" + h.substring(8, 12) + "-" + h.substring(12, 16) + "-"
        + h.substring(16, 20) + "-" + h.substring(20, 32);
  }

  static int attribute(int d, int attr) {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment v = a.allocate(ValueLayout.JAVA_INT);
      check(Cu.cuDeviceGetAttribute, call(Cu.cuDeviceGetAttribute, v, attr, d));
      return v.get(ValueLayout.JAVA_INT, 0);
    }
  }

  /** Calls a cold-path function with boxed arguments and returns its code. */
  static int call(NativeFunction f, Object... args) {
    try {
      return (int) f.handle().invokeWithArguments(args);
    } catch (Throwable t) {
      throw Native.rethrow(t);
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
      int sid = io.gitm.nvidia.cupti.CuptiStreams.idOf(context, h).orElseGet(() -> call(Cu.cuStreamGetId, h, id) == 0
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
    bounds(dst, dstOffset, bytes, "destination");
    bounds(src, srcOffset, bytes, "source");
    if (bytes == 0) {
      return;
    }
    enter();
    try {
      if (dst instanceof DeviceMemory dd && src instanceof HostMemory hs) {
        int rc = (int) Cu.cuMemcpyHtoD.handle().invoke(memory(dd).address() + dstOffset, host(hs).asSlice(srcOffset,
            bytes), bytes);
        check(Cu.cuMemcpyHtoD, rc);
      } else if (dst instanceof HostMemory hd && src instanceof DeviceMemory ds) {
        int rc = (int) Cu.cuMemcpyDtoH.handle().invoke(host(hd).asSlice(dstOffset, bytes), memory(ds).address()
            + srcOffset, bytes);
        check(Cu.cuMemcpyDtoH, rc);
      } else if (dst instanceof DeviceMemory dd && src instanceof DeviceMemory ds) {
        int rc = (int) Cu.cuMemcpyDtoD.handle().invoke(memory(dd).address() + dstOffset, memory(ds).address()
            + srcOffset, bytes);
        check(Cu.cuMemcpyDtoD, rc);
        check(Cu.cuStreamSynchronize, (int) Cu.cuStreamSynchronize.handle().invoke(MemorySegment.NULL));
      } else {
        MemorySegment.copy(host((HostMemory) src), srcOffset, host((HostMemory) dst), dstOffset, bytes);
      }
    } catch (Throwable t) {
      throw Native.rethrow(t);
    }
  }

  @Override
  public void copyAsync(Buffer dst, long dstOffset, Buffer src, long srcOffset, long bytes, Stream stream) {
    bounds(dst, dstOffset, bytes, "destination");
    bounds(src, srcOffset, bytes, "source");
    MemorySegment s = stream(stream).handle();
    if (bytes == 0) {
      return;
    }
    enter();
    try {
      if (dst instanceof DeviceMemory dd && src instanceof HostMemory hs) {
        int rc = (int) Cu.cuMemcpyHtoDAsync.handle().invoke(memory(dd).address() + dstOffset,
            host(hs).asSlice(srcOffset, bytes), bytes, s);
        check(Cu.cuMemcpyHtoDAsync, rc);
      } else if (dst instanceof HostMemory hd && src instanceof DeviceMemory ds) {
        int rc = (int) Cu.cuMemcpyDtoHAsync.handle().invoke(host(hd).asSlice(dstOffset, bytes),
            memory(ds).address() + srcOffset, bytes, s);
        check(Cu.cuMemcpyDtoHAsync, rc);
      } else if (dst instanceof DeviceMemory dd && src instanceof DeviceMemory ds) {
        int rc = (int) Cu.cuMemcpyDtoDAsync.handle().invoke(memory(dd).address() + dstOffset,
            memory(ds).address() + srcOffset, bytes, s);
        check(Cu.cuMemcpyDtoDAsync, rc);
      } else {
        stream.synchronize();
        MemorySegment.copy(host((HostMemory) src), srcOffset, host((HostMemory) dst), dstOffset, bytes);
      }
    } catch (Throwable t) {
      throw Native.rethrow(t);
    }
  }

  @Override
  public void memsetAsync(DeviceMemory dst, long offset, int byteValue, long bytes, Stream stream) {
    bounds(dst, offset, bytes, "destination");
    MemorySegment s = stream(stream).handle();
    enter();
    try {
      int rc = (int) Cu.cuMemsetD8Async.handle().invoke(memory(dst).address() + offset, (byte) byteValue, bytes, s);
      check(Cu.cuMemsetD8Async, rc);
    } catch (Throwable t) {
      throw Native.rethrow(t);
    }
  }

  @Override
  public Module load(KernelModule module) {
    enter();
    String ptx = resource(module.ptxResource());
    String origin = module.ptxResource();
    if (ptx == null) {
      String source = resource(module.sourceResource());
      if (source == null) {
        throw new IllegalArgumentException("kernel module " + module.name() + ": neither " + module.ptxResource()
            + " nor " + module.sourceResource() + " is on the class path");
      }
      String arch = "compute_" + info.computeCapability().replace(".", "");
      ptx = Nvrtc.compile(source, module.sourceResource(), arch);
      origin = module.sourceResource() + " (NVRTC, " + arch + ")";
    }
    try (Arena a = Arena.ofConfined()) {
      MemorySegment p = a.allocate(ValueLayout.ADDRESS);
      MemorySegment image = a.allocateFrom(ptx);
      int rc = call(Cu.cuModuleLoadData, p, image);
      if (rc != 0) {
        throw io.gitm.nvidia.ffm.ErrorCodes.cuda("cuModuleLoadData", rc, "module " + module.name() + " from "
            + origin);
      }
      CudaModule m = new CudaModule(this, module, p.get(ValueLayout.ADDRESS, 0), origin);
      track(m);
      return m;
    }
  }

  private static String resource(String path) {
    String p = path.startsWith("/") ? path.substring(1) : path;
    List<ClassLoader> loaders = new ArrayList<>();
    if (Thread.currentThread().getContextClassLoader() != null) {
      loaders.add(Thread.currentThread().getContextClassLoader());
    }
    loaders.add(CudaDevice.class.getClassLoader());
    loaders.add(ClassLoader.getSystemClassLoader());
    for (ClassLoader cl : loaders) {
      try (InputStream in = cl.getResourceAsStream(p)) {
        if (in != null) {
          return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read resource " + path, e);
      }
    }
    return null;
  }

  @Override
  public void launch(Kernel kernel, LaunchConfig config, Stream stream, Object... args) {
    if (!(kernel instanceof CudaModule.CudaKernel k) || k.module().device() != this) {
      throw new IllegalArgumentException("kernel " + kernel.def().entry() + " was not loaded on this device");
    }
    if (args.length > MAX_ARGS) {
      throw new IllegalArgumentException("kernel " + kernel.def().entry() + ": " + args.length + " arguments, at most "
          + MAX_ARGS);
    }
    MemorySegment s = stream(stream).handle();
    enter();
    MemorySegment scratch = LAUNCH_SCRATCH.get();
    long values = 8L * MAX_ARGS;
    for (int i = 0; i < args.length; i++) {
      long at = values + 8L * i;
      switch (args[i]) {
        case DeviceMemory m -> scratch.set(ValueLayout.JAVA_LONG, at, memory(m).address());
        case Integer v -> scratch.set(ValueLayout.JAVA_INT, at, v);
        case Long v -> scratch.set(ValueLayout.JAVA_LONG, at, v);
        case Float v -> scratch.set(ValueLayout.JAVA_FLOAT, at, v);
        case Double v -> scratch.set(ValueLayout.JAVA_DOUBLE, at, v);
        case null -> throw new IllegalArgumentException("kernel " + kernel.def().entry() + ": argument " + i
            + " is null");
        default -> throw new IllegalArgumentException("kernel " + kernel.def().entry() + ": argument " + i
            + " is a " + args[i].getClass().getSimpleName() + "; expected DeviceMemory, Integer, Long, Float or"
            + " Double");
      }
      scratch.set(ValueLayout.ADDRESS, 8L * i, scratch.asSlice(at));
    }
    try {
      int rc = (int) Cu.cuLaunchKernel.handle().invoke(k.function(), config.grid().x(), config.grid().y(),
          config.grid().z(), config.block().x(), config.block().y(), config.block().z(),
          config.dynamicSharedBytes(), s, args.length == 0 ? MemorySegment.NULL : scratch, MemorySegment.NULL);
      if (rc != 0) {
        throw io.gitm.nvidia.ffm.ErrorCodes.cuda("cuLaunchKernel", rc, kernel.def().entry() + " " + config.grid()
            + " x " + config.block() + ", " + config.dynamicSharedBytes() + " B shared");
      }
    } catch (Throwable t) {
      throw Native.rethrow(t);
    }
    recordWork(kernel.def(), config, stream(stream), args);
  }

  /**
   * Hands the launch's declared work to a running CUPTI session (matched to the kernel's execution by order on its
   * stream). Launches captured into a graph are left out: their executions come at each replay. A work model that
   * cannot evaluate here (e.g. it reads device memory through a host view only the simulator has) is left out too.
   */
  private void recordWork(io.gitm.device.KernelDef def, LaunchConfig config, CudaStream s, Object[] args) {
    if (!(tracer instanceof io.gitm.nvidia.cupti.CuptiTracer ct) || !ct.running() || s.capturing) {
      return;
    }
    io.gitm.trace.Work w;
    try {
      w = def.work().apply(config, args);
    } catch (RuntimeException e) {
      return;
    }
    if (w != null) {
      ct.annotate(io.gitm.trace.WorkRecord.of(def.entry(), info.ordinal(), s.id(), 0, clock().nanos(), w));
    }
  }

  @Override
  public void beginCapture(Stream stream) {
    CudaStream s = stream(stream);
    if (s.handle().equals(MemorySegment.NULL)) {
      throw new IllegalArgumentException("the legacy default stream cannot be captured; capture a created stream");
    }
    enter();
    prepareBlasForCapture();
    check(Cu.cuStreamBeginCapture, call(Cu.cuStreamBeginCapture, s.handle(), Cu.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
    s.capturing = true;
  }

  /**
   * Creates the cuBLAS handle and every created stream's workspace before a capture begins: cublasCreate and the
   * workspace allocations call cuMemAlloc, which invalidates a capture in progress (CUDA_ERROR_STREAM_CAPTURE_INVALIDATED
   * at its end) when a captured GEMM is the first on its handle or stream. Without cuBLAS there is nothing to prepare.
   */
  private void prepareBlasForCapture() {
    if (io.gitm.nvidia.ffm.NativeLibraries.tryFind("cublas").isEmpty()) {
      return;
    }
    CublasBlas b = (CublasBlas) blas();
    for (AutoCloseable r : List.copyOf(resources)) {
      if (r instanceof CudaStream cs && !cs.handle().equals(MemorySegment.NULL)) {
        b.prepare(cs);
      }
    }
  }

  @Override
  public GraphExec endCapture(Stream stream) {
    CudaStream s = stream(stream);
    enter();
    try (Arena a = Arena.ofConfined()) {
      MemorySegment pg = a.allocate(ValueLayout.ADDRESS);
      s.capturing = false;
      check(Cu.cuStreamEndCapture, call(Cu.cuStreamEndCapture, s.handle(), pg));
      MemorySegment graph = pg.get(ValueLayout.ADDRESS, 0);
      try {
        MemorySegment n = a.allocate(ValueLayout.JAVA_LONG);
        check(Cu.cuGraphGetNodes, call(Cu.cuGraphGetNodes, graph, MemorySegment.NULL, n));
        MemorySegment pe = a.allocate(ValueLayout.ADDRESS);
        check(Cu.cuGraphInstantiateWithFlags, call(Cu.cuGraphInstantiateWithFlags, pe, graph, 0L));
        CudaGraph g = new CudaGraph(this, pe.get(ValueLayout.ADDRESS, 0), (int) n.get(ValueLayout.JAVA_LONG, 0));
        track(g);
        return g;
      } finally {
        call(Cu.cuGraphDestroy, graph);
      }
    }
  }

  @Override
  public void launchGraph(GraphExec graph, Stream stream) {
    if (!(graph instanceof CudaGraph g) || g.device() != this) {
      throw new IllegalArgumentException("graph was not made on this device");
    }
    MemorySegment s = stream(stream).handle();
    enter();
    try {
      check(Cu.cuGraphLaunch, (int) Cu.cuGraphLaunch.handle().invoke(g.handle(), s));
    } catch (Throwable t) {
      throw Native.rethrow(t);
    }
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
        bounds(memory, offset, bytes, "L2 window");
        if (maxAccessWindow <= 0 || maxPersistingL2 <= 0) {
          throw new io.gitm.device.UnsupportedFeatureException("cuStreamSetAttribute",
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

  private MemorySegment host(HostMemory h) {
    if (h instanceof CudaHostMemory ch && ch.device() == this) {
      return ch.segment();
    }
    throw new IllegalArgumentException("host memory was not allocated on this device: " + h);
  }

  private static void positive(long bytes, String what) {
    if (bytes <= 0) {
      throw new IllegalArgumentException(what + ": size must be positive, got " + bytes);
    }
  }

  private static void bounds(Buffer b, long offset, long bytes, String what) {
    if (b == null) {
      throw new IllegalArgumentException(what + " buffer is null");
    }
    if (offset < 0 || bytes < 0 || offset > b.bytes() - bytes) {
      throw new IllegalArgumentException(what + ": range [" + offset + ", " + offset + "+" + bytes
          + ") outside a buffer of " + b.bytes() + " B");
    }
  }

  static ByteBuffer view(MemorySegment s) {
    return s.asByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
  }
}
