package io.gitm.sim;

import io.gitm.device.Buffer;
import io.gitm.device.DeviceException;
import io.gitm.device.DeviceMemory;
import io.gitm.device.Kernel;
import io.gitm.device.KernelDef;
import io.gitm.device.KernelModule;
import io.gitm.device.LaunchConfig;
import io.gitm.device.Module;
import io.gitm.device.Stream;
import io.gitm.trace.ApiKind;
import io.gitm.trace.SyncKind;
import io.gitm.trace.SyncRecord;
import io.gitm.trace.Work;

/**
 * Kernel launches on the simulated device: a launch is checked as the driver would (block size, shared memory,
 * arguments), emulated in Java at once so its outputs are real, and timed on its stream from its declared work. The
 * host-side faults that follow a launch (launch-bound gaps, synchronous stalls) are injected here.
 */
final class Launcher {
  /** Host time of loading a module (model assumption). */
  private static final double MODULE_LOAD_NS = 100_000;

  private final SimContext ctx;
  private final SimSpec spec;
  private final SimScheduler scheduler;
  private final Allocator allocator;
  private long launches;

  Launcher(SimContext ctx, SimScheduler scheduler, Allocator allocator) {
    this.ctx = ctx;
    this.spec = ctx.spec;
    this.scheduler = scheduler;
    this.allocator = allocator;
  }

  Module load(KernelModule module) {
    ctx.check();
    if (module == null) {
      throw new IllegalArgumentException("no kernel module to load");
    }
    long t0 = ctx.host;
    ctx.host += ctx.hostCost(MODULE_LOAD_NS);
    ctx.api(ApiKind.OTHER, "cuModuleLoadData", ctx.nextCorrelation(), t0);
    return new SimModule(ctx.device, module);
  }

  void launch(Kernel kernel, LaunchConfig config, Stream stream, Object... args) {
    ctx.check();
    SimStream s = scheduler.stream(stream, "cuLaunchKernel");
    if (!(kernel instanceof SimKernel k) || k.module.device != ctx.device) {
      throw new DeviceException("cuLaunchKernel", 400, "CUDA_ERROR_INVALID_HANDLE", "not a kernel of this device");
    }
    if (config == null) {
      throw new IllegalArgumentException("launch of " + k.def.entry() + " without a launch config");
    }
    Object[] a = args == null ? new Object[0] : s.capture != null ? args.clone() : args;
    validateLaunch(k, config, a);
    Work w = work(k.def, config, a);
    long t0 = ctx.host;
    long corr = ctx.nextCorrelation();
    ctx.host += ctx.hostCost(spec.hardware().launchLatencyNs());
    if (s.capture != null) {
      // A graph node's work is taken again at each replay: data-dependent work (a chain sized from what earlier
      // nodes wrote) sees that replay's data, as the emulation does.
      s.capture.add((target, c) -> {
        Work now = work(k.def, config, a);
        emulate(k.def, config, a);
        scheduler.enqueueKernel(k.def.entry(), config, now, target, c, -1, k.carveout);
      });
      ctx.api(ApiKind.LAUNCH, "cuLaunchKernel", corr, t0);
      return;
    }
    emulate(k.def, config, a);
    scheduler.admit(s);
    scheduler.enqueueKernel(k.def.entry(), config, w, s, corr, -1, k.carveout, k.memo);
    ctx.api(ApiKind.LAUNCH, "cuLaunchKernel", corr, t0);
    afterLaunch();
  }

  /** A GEMM from {@link SimBlas}: emulated by {@code effect}, timed from its work. */
  void launchGemm(String name, LaunchConfig config, Work w, Stream stream, Runnable effect) {
    ctx.check();
    SimStream s = scheduler.stream(stream, "cublasSgemm_v2");
    long t0 = ctx.host;
    long corr = ctx.nextCorrelation();
    ctx.host += ctx.hostCost(spec.hardware().launchLatencyNs());
    if (s.capture != null) {
      s.capture.add((target, c) -> {
        effect.run();
        scheduler.enqueueKernel(name, config, w, target, c, -1, -1);
      });
      ctx.api(ApiKind.LAUNCH, "cuLaunchKernel", corr, t0);
      return;
    }
    effect.run();
    scheduler.admit(s);
    scheduler.enqueueKernel(name, config, w, s, corr, -1, -1);
    ctx.api(ApiKind.LAUNCH, "cuLaunchKernel", corr, t0);
    afterLaunch();
  }

  /** Host-side faults that follow a launch: launch-bound gaps and synchronous stalls. */
  void afterLaunch() {
    launches++;
    InjectedFault gap = ctx.fault("launch-bound");
    if (gap != null) {
      ctx.host += ctx.hostCost(gap.param("gapUs") * 1000);
    }
    InjectedFault stall = ctx.fault("sync-stall");
    if (stall != null && launches % (long) stall.param("every") == 0) {
      long t0 = ctx.host;
      long corr = ctx.nextCorrelation();
      ctx.host += ctx.hostCost(spec.copyApiNs());
      scheduler.waitDevice();
      if (ctx.tracer.on()) {
        ctx.tracer.emit(new SyncRecord(SyncKind.CONTEXT, SimDevice.DEVICE, -1, corr, t0, ctx.host));
      }
      ctx.api(ApiKind.SYNC, "cuCtxSynchronize", corr, t0);
    }
  }

  private void validateLaunch(SimKernel k, LaunchConfig c, Object[] a) {
    String e = k.def.entry();
    if (c.block().volume() > 1024) {
      throw new DeviceException("cuLaunchKernel", 1, "CUDA_ERROR_INVALID_VALUE",
          e + ": block " + c.block() + " has more than 1024 threads");
    }
    if (c == k.fitted || k.fits(c)) {
      validateArgs(e, a);
      return;
    }
    if (c.dynamicSharedBytes() > k.maxDynamicShared) {
      throw new DeviceException("cuLaunchKernel", 1, "CUDA_ERROR_INVALID_VALUE", e + ": " + c.dynamicSharedBytes()
          + " bytes of dynamic shared memory over the kernel's limit of " + k.maxDynamicShared);
    }
    if (KernelTiming.residentBlocks(spec, (int) c.block().volume(), KernelTiming.ASSUMED_REGISTERS,
        c.dynamicSharedBytes(), k.carveout) == 0) {
      throw new DeviceException("cuLaunchKernel", 701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
          e + ": one block of " + c.block() + " does not fit on a multiprocessor");
    }
    k.fitted = c;
    validateArgs(e, a);
  }

  private void validateArgs(String e, Object[] a) {
    for (int i = 0; i < a.length; i++) {
      Object x = a[i];
      if (x instanceof Buffer b) {
        allocator.memory(b, "cuLaunchKernel");
      } else if (!(x instanceof Integer || x instanceof Long || x instanceof Float || x instanceof Double)) {
        throw new DeviceException("cuLaunchKernel", 1, "CUDA_ERROR_INVALID_VALUE", e + ": argument " + i
            + " is " + (x == null ? "null" : x.getClass().getSimpleName())
            + "; use DeviceMemory, Integer, Long, Float or Double");
      }
    }
  }

  private static Work work(KernelDef def, LaunchConfig c, Object[] a) {
    try {
      Work w = def.work().apply(c, a);
      return w == null ? Work.NONE : w;
    } catch (RuntimeException ex) {
      throw new DeviceException("cuLaunchKernel", 1, "CUDA_ERROR_INVALID_VALUE",
          def.entry() + ": work model failed: " + ex.getMessage());
    }
  }

  private static void emulate(KernelDef def, LaunchConfig c, Object[] a) {
    try {
      def.emulation().accept(c, new LaunchArgs(a));
    } catch (DeviceException ex) {
      throw ex;
    } catch (RuntimeException ex) {
      throw new DeviceException("cuLaunchKernel", 719, "CUDA_ERROR_LAUNCH_FAILED",
          def.entry() + ": emulation failed: " + ex);
    }
  }

  // ------------------------------------------------------------------ occupancy and stream attributes

  int maxActiveBlocksPerMultiprocessor(Kernel kernel, int blockSize, int dynamicSharedBytes) {
    if (blockSize <= 0 || blockSize > 1024 || dynamicSharedBytes < 0) {
      throw new DeviceException("cuOccupancyMaxActiveBlocksPerMultiprocessor", 1, "CUDA_ERROR_INVALID_VALUE",
          "block size " + blockSize + ", shared " + dynamicSharedBytes);
    }
    int carve = kernel instanceof SimKernel k ? k.carveout : -1;
    ctx.device.query("cuOccupancyMaxActiveBlocksPerMultiprocessor");
    return KernelTiming.residentBlocks(spec, blockSize, KernelTiming.ASSUMED_REGISTERS, dynamicSharedBytes, carve);
  }

  /** The block size of the most resident warps per multiprocessor (the largest on a tie). */
  int suggestedBlockSize(Kernel kernel, int dynamicSharedBytes) {
    if (dynamicSharedBytes < 0) {
      throw new DeviceException("cuOccupancyMaxPotentialBlockSize", 1, "CUDA_ERROR_INVALID_VALUE",
          "negative shared memory " + dynamicSharedBytes);
    }
    int carve = kernel instanceof SimKernel k ? k.carveout : -1;
    ctx.device.query("cuOccupancyMaxPotentialBlockSize");
    int best = 32;
    int bestWarps = -1;
    for (int b = 1024; b >= 32; b -= 32) {
      int warps = KernelTiming.residentBlocks(spec, b, KernelTiming.ASSUMED_REGISTERS, dynamicSharedBytes, carve)
          * (b / 32);
      if (warps > bestWarps) {
        bestWarps = warps;
        best = b;
      }
    }
    return best;
  }

  void setL2AccessWindow(Stream stream, DeviceMemory memory, long offset, long bytes, float hitRatio) {
    ctx.check();
    SimStream s = scheduler.stream(stream, "cuStreamSetAttribute");
    if (bytes == 0) {
      s.l2Window = null;
      ctx.query("cuStreamSetAttribute");
      return;
    }
    SimMemory m = allocator.memory(memory, "cuStreamSetAttribute");
    if (offset < 0 || bytes < 0 || offset + bytes > m.bytes || hitRatio < 0 || hitRatio > 1) {
      throw new DeviceException("cuStreamSetAttribute", 1, "CUDA_ERROR_INVALID_VALUE",
          "L2 window of " + bytes + " bytes at " + offset + " with hit ratio " + hitRatio);
    }
    long t0 = ctx.host;
    ctx.host += ctx.hostCost(spec.copyApiNs());
    s.l2Window = new SimStream.L2Window(bytes, hitRatio);
    ctx.api(ApiKind.OTHER, "cuStreamSetAttribute", ctx.nextCorrelation(), t0);
  }
}
