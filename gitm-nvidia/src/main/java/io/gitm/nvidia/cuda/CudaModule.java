package io.gitm.nvidia.cuda;

import static io.gitm.nvidia.cuda.Cu.call;
import static io.gitm.nvidia.cuda.Cu.check;

import io.gitm.device.Kernel;
import io.gitm.device.KernelDef;
import io.gitm.device.KernelModule;
import io.gitm.device.Module;
import io.gitm.nvidia.cuda.nvrtc.Nvrtc;
import io.gitm.nvidia.ffm.ErrorCodes;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/** A loaded {@code CUmodule} and the kernels looked up in it. */
final class CudaModule implements Module {
  private final CudaDevice device;
  private final KernelModule source;
  private final MemorySegment handle;
  private final String origin;
  private final Map<String, CudaKernel> kernels = new ConcurrentHashMap<>();
  private final AtomicBoolean closed = new AtomicBoolean();

  CudaModule(CudaDevice device, KernelModule source, MemorySegment handle, String origin) {
    this.device = device;
    this.source = source;
    this.handle = handle;
    this.origin = origin;
  }

  /** Loads {@code module} on {@code device}: its PTX resource, else its CUDA source compiled by NVRTC. */
  static CudaModule load(CudaDevice device, KernelModule module) {
    device.enter();
    String ptx = resource(module.ptxResource());
    String origin = module.ptxResource();
    if (ptx == null) {
      String source = resource(module.sourceResource());
      if (source == null) {
        throw new IllegalArgumentException("kernel module " + module.name() + ": neither " + module.ptxResource()
            + " nor " + module.sourceResource() + " is on the class path");
      }
      String arch = "compute_" + device.info().computeCapability().replace(".", "");
      ptx = Nvrtc.compile(source, module.sourceResource(), arch);
      origin = module.sourceResource() + " (NVRTC, " + arch + ")";
    }
    try (Arena a = Arena.ofConfined()) {
      MemorySegment p = a.allocate(ValueLayout.ADDRESS);
      MemorySegment image = a.allocateFrom(ptx);
      int rc = call(Cu.cuModuleLoadData, p, image);
      if (rc != 0) {
        throw ErrorCodes.cuda("cuModuleLoadData", rc, "module " + module.name() + " from "
            + origin);
      }
      CudaModule m = new CudaModule(device, module, p.get(ValueLayout.ADDRESS, 0), origin);
      device.track(m);
      return m;
    }
  }

  private static String resource(String path) {
    String p = path.startsWith("/") ? path.substring(1) : path;
    List<ClassLoader> loaders = new ArrayList<>();
    if (Thread.currentThread().getContextClassLoader() != null) {
      loaders.add(Thread.currentThread().getContextClassLoader());
    }
    loaders.add(CudaModule.class.getClassLoader());
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

  CudaDevice device() {
    return device;
  }

  /** Where the code came from: the PTX resource, or the source compiled by NVRTC. */
  String origin() {
    return origin;
  }

  @Override
  public KernelModule source() {
    return source;
  }

  @Override
  public Kernel kernel(String entry) {
    if (closed.get()) {
      throw new IllegalStateException("module " + source.name() + " is unloaded");
    }
    KernelDef def = source.kernel(entry).orElseThrow(() -> new IllegalArgumentException("module " + source.name()
        + " defines no kernel '" + entry + "'"));
    return kernels.computeIfAbsent(entry, e -> {
      device.enter();
      try (Arena a = Arena.ofConfined()) {
        MemorySegment f = a.allocate(ValueLayout.ADDRESS);
        int rc = call(Cu.cuModuleGetFunction, f, handle, a.allocateFrom(e));
        if (rc != 0) {
          throw ErrorCodes.cuda("cuModuleGetFunction", rc, "kernel '" + e + "' in " + origin
              + " (is it extern \"C\"?)");
        }
        return new CudaKernel(this, def, f.get(ValueLayout.ADDRESS, 0));
      }
    });
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
    check(Cu.cuModuleUnload, call(Cu.cuModuleUnload, handle));
  }

  /** A {@code CUfunction} of this module. */
  record CudaKernel(CudaModule module, KernelDef def, MemorySegment function) implements Kernel {
    private int attribute(int attr) {
      module.device.enter();
      try (Arena a = Arena.ofConfined()) {
        MemorySegment v = a.allocate(ValueLayout.JAVA_INT);
        check(Cu.cuFuncGetAttribute, call(Cu.cuFuncGetAttribute, v, attr, function));
        return v.get(ValueLayout.JAVA_INT, 0);
      }
    }

    private void setAttribute(int attr, int value) {
      module.device.enter();
      check(Cu.cuFuncSetAttribute, call(Cu.cuFuncSetAttribute, function, attr, value));
    }

    @Override
    public int registersPerThread() {
      return attribute(Cu.CU_FUNC_ATTRIBUTE_NUM_REGS);
    }

    @Override
    public void setPreferredSharedCarveout(int percent) {
      if (percent < 0 || percent > 100) {
        throw new IllegalArgumentException("shared-memory carve-out must be 0-100 percent, got " + percent);
      }
      setAttribute(Cu.CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, percent);
    }

    /** The preferred carve-out in force, percent (-1 when none was set). */
    int preferredSharedCarveout() {
      return attribute(Cu.CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT);
    }

    @Override
    public void setMaxDynamicSharedBytes(int bytes) {
      if (bytes < 0) {
        throw new IllegalArgumentException("negative dynamic shared memory " + bytes);
      }
      setAttribute(Cu.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes);
    }

    int maxDynamicSharedBytes() {
      return attribute(Cu.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
    }
  }
}
