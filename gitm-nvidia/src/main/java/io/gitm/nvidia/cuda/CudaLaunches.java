package io.gitm.nvidia.cuda;

import static io.gitm.nvidia.cuda.Cu.call;
import static io.gitm.nvidia.cuda.Cu.check;

import io.gitm.device.DeviceMemory;
import io.gitm.device.GraphExec;
import io.gitm.device.Kernel;
import io.gitm.device.KernelDef;
import io.gitm.device.LaunchConfig;
import io.gitm.device.Stream;
import io.gitm.nvidia.cublas.CublasBlas;
import io.gitm.nvidia.cupti.CuptiTracer;
import io.gitm.nvidia.ffm.ErrorCodes;
import io.gitm.nvidia.ffm.Native;
import io.gitm.nvidia.ffm.NativeLibraries;
import io.gitm.trace.Work;
import io.gitm.trace.WorkRecord;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The kernel launches of one device, and its graphs: stream capture, instantiation and graph launches. A launch
 * marshals its arguments into a per-thread block and hands its declared work to a running CUPTI session.
 */
final class CudaLaunches {
  /** The most arguments a kernel launch takes. */
  static final int MAX_ARGS = 64;
  /** Per thread: {@link #MAX_ARGS} argument pointers, then the argument values they point at. */
  private static final ThreadLocal<MemorySegment> LAUNCH_SCRATCH =
      ThreadLocal.withInitial(() -> Arena.global().allocate(16L * MAX_ARGS, 16));

  private final CudaDevice device;

  CudaLaunches(CudaDevice device) {
    this.device = device;
  }

  void launch(Kernel kernel, LaunchConfig config, Stream stream, Object... args) {
    if (!(kernel instanceof CudaModule.CudaKernel k) || k.module().device() != device) {
      throw new IllegalArgumentException("kernel " + kernel.def().entry() + " was not loaded on this device");
    }
    if (args.length > MAX_ARGS) {
      throw new IllegalArgumentException("kernel " + kernel.def().entry() + ": " + args.length + " arguments, at most "
          + MAX_ARGS);
    }
    MemorySegment s = device.stream(stream).handle();
    device.enter();
    MemorySegment scratch = LAUNCH_SCRATCH.get();
    long values = 8L * MAX_ARGS;
    for (int i = 0; i < args.length; i++) {
      long at = values + 8L * i;
      switch (args[i]) {
        case DeviceMemory m -> scratch.set(ValueLayout.JAVA_LONG, at, device.memory(m).address());
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
        throw ErrorCodes.cuda("cuLaunchKernel", rc, kernel.def().entry() + " " + config.grid()
            + " x " + config.block() + ", " + config.dynamicSharedBytes() + " B shared");
      }
    } catch (Throwable t) {
      throw Native.rethrow(t);
    }
    recordWork(kernel.def(), config, device.stream(stream), args);
  }

  /**
   * Hands the launch's declared work to a running CUPTI session (matched to the kernel's execution by order on its
   * stream). Launches captured into a graph are left out: their executions come at each replay. A work model that
   * cannot evaluate here (e.g. it reads device memory through a host view only the simulator has) is left out too.
   */
  private void recordWork(KernelDef def, LaunchConfig config, CudaStream s, Object[] args) {
    if (!(device.tracer() instanceof CuptiTracer ct) || !ct.running() || s.capturing) {
      return;
    }
    Work w;
    try {
      w = def.work().apply(config, args);
    } catch (RuntimeException e) {
      return;
    }
    if (w != null) {
      ct.annotate(WorkRecord.of(def.entry(), device.info().ordinal(), s.id(), 0, device.clock().nanos(), w));
    }
  }

  void beginCapture(Stream stream) {
    CudaStream s = device.stream(stream);
    if (s.handle().equals(MemorySegment.NULL)) {
      throw new IllegalArgumentException("the legacy default stream cannot be captured; capture a created stream");
    }
    device.enter();
    prepareBlasForCapture();
    check(Cu.cuStreamBeginCapture, call(Cu.cuStreamBeginCapture, s.handle(), Cu.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
    s.capturing = true;
  }

  /**
   * Creates the cuBLAS handle and every created stream's workspace before a capture begins: cublasCreate and the
   * workspace allocations call cuMemAlloc, which invalidates a capture in progress
   * (CUDA_ERROR_STREAM_CAPTURE_INVALIDATED at its end) when a captured GEMM is the first on its handle or stream.
   * Without cuBLAS there is nothing to prepare.
   */
  private void prepareBlasForCapture() {
    if (NativeLibraries.tryFind("cublas").isEmpty()) {
      return;
    }
    CublasBlas b = (CublasBlas) device.blas();
    for (AutoCloseable r : device.resources()) {
      if (r instanceof CudaStream cs && !cs.handle().equals(MemorySegment.NULL)) {
        b.prepare(cs);
      }
    }
  }

  GraphExec endCapture(Stream stream) {
    CudaStream s = device.stream(stream);
    device.enter();
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
        CudaGraph g = new CudaGraph(device, pe.get(ValueLayout.ADDRESS, 0), (int) n.get(ValueLayout.JAVA_LONG, 0));
        device.track(g);
        return g;
      } finally {
        call(Cu.cuGraphDestroy, graph);
      }
    }
  }

  void launchGraph(GraphExec graph, Stream stream) {
    if (!(graph instanceof CudaGraph g) || g.device() != device) {
      throw new IllegalArgumentException("graph was not made on this device");
    }
    MemorySegment s = device.stream(stream).handle();
    device.enter();
    try {
      check(Cu.cuGraphLaunch, (int) Cu.cuGraphLaunch.handle().invoke(g.handle(), s));
    } catch (Throwable t) {
      throw Native.rethrow(t);
    }
  }
}
