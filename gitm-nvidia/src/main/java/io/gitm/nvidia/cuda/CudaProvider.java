package io.gitm.nvidia.cuda;

import io.gitm.api.Ticker;
import io.gitm.device.Device;
import io.gitm.device.DeviceException;
import io.gitm.device.DeviceInfo;
import io.gitm.device.DeviceProvider;
import io.gitm.device.DeviceRequest;
import io.gitm.device.DiagnosticCheck;
import io.gitm.device.DiagnosticCheck.Status;
import io.gitm.device.UnsupportedFeatureException;
import io.gitm.nvidia.cuda.nvrtc.Nvrtc;
import io.gitm.nvidia.cupti.CuptiTracer;
import io.gitm.nvidia.ffm.NativeLibraries;
import io.gitm.nvidia.ffm.NativeLibrary;
import io.gitm.nvidia.nvml.Nvml;
import io.gitm.nvidia.nvml.NvmlSampler;
import java.io.File;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The {@code nvidia} backend: CUDA devices through the driver API, state through NVML, GEMMs through cuBLAS.
 * {@link #probe()} opens libcuda and counts devices, nothing more; {@link #diagnostics()} checks libraries,
 * versions, devices and CUPTI's profiling permission. Every library is found as {@link NativeLibraries} finds it,
 * the CUPTI tracer's included, so a library this reports found is the one the backend loads.
 */
public final class CudaProvider implements DeviceProvider {
  /**
   * The check of CUPTI profiling permission for {@code gitm doctor}: loads CUPTI and starts and stops activity
   * tracing once, which is where the driver refuses an unprivileged process.
   */
  static DiagnosticCheck profilingCheck() {
    CuptiTracer t = CuptiTracer.create();
    Probe p = t.availability();
    if (!p.usable()) {
      return new DiagnosticCheck("profiling permission", Status.MISSING, p.reason(), p.fix());
    }
    try {
      t.start(r -> { });
      t.stop();
      return DiagnosticCheck.ok("profiling permission", "CUPTI activity tracing started and stopped ("
          + p.reason() + ")");
    } catch (RuntimeException e) {
      Probe after = t.availability();
      return new DiagnosticCheck("profiling permission", Status.FAILED, e.getMessage(), after.fix());
    }
  }

  @Override
  public String kind() {
    return "nvidia";
  }

  @Override
  public Probe probe() {
    try {
      NativeLibrary cuda = NativeLibraries.find("cuda");
      CudaDriver.init();
      int n = CudaDriver.deviceCount();
      if (n == 0) {
        return Probe.no("libcuda loaded (" + cuda.origin() + ") but no CUDA device is visible",
            "check CUDA_VISIBLE_DEVICES and nvidia-smi");
      }
      return Probe.ok(n + " CUDA device(s), driver CUDA " + CudaDriver.driverCudaVersion() + ", libcuda "
          + cuda.origin(), n);
    } catch (DeviceException e) {
      return Probe.no("CUDA not usable: " + e.getMessage(), "install the NVIDIA driver (libcuda.so.1) and check "
          + "nvidia-smi");
    } catch (RuntimeException | LinkageError e) {
      return Probe.no("CUDA probe failed: " + e, "install the NVIDIA driver and check nvidia-smi");
    }
  }

  /**
   * Opens a CUDA device. Device settings ({@link DeviceRequest#DEVICE_SETTINGS}: power limit, clocks) are refused:
   * gitm never changes a real card's settings; such levers run on the simulated device only.
   */
  @Override
  public Device open(DeviceRequest request) {
    DeviceRequest r = request == null ? DeviceRequest.first() : request;
    for (String k : r.options().keySet()) {
      if (DeviceRequest.DEVICE_SETTINGS.contains(k)) {
        throw new UnsupportedFeatureException("open", "the nvidia backend never changes a real card's"
            + " settings (asked " + k + "=" + r.options().get(k) + "); device-setting levers run on the simulated"
            + " device only");
      }
    }
    return CudaDevice.open(r);
  }

  @Override
  public List<DiagnosticCheck> diagnostics() {
    List<DiagnosticCheck> out = new ArrayList<>();
    for (String lib : List.of("cuda", "nvidia-ml", "cublas", "nvrtc", "cupti")) {
      out.add(library(lib));
    }
    try {
      Nvml.init();
      out.add(DiagnosticCheck.ok("NVML", "usable: driver " + Nvml.driverVersion().orElse("?") + ", CUDA "
          + Nvml.cudaDriverVersion() + ", " + Nvml.deviceCount() + " device(s)"));
      for (NvmlSampler s : NvmlSampler.all(Ticker.system())) {
        String unsupported = s.unsupportedReasons().isEmpty() ? "all fields supported"
            : "unsupported: " + s.unsupportedReasons().keySet();
        out.add(DiagnosticCheck.ok("NVML device " + s.index(), s.name() + " " + s.uuid() + "; " + unsupported));
      }
    } catch (DeviceException e) {
      out.add(new DiagnosticCheck("NVML", Status.FAILED, e.getMessage(), "install the NVIDIA driver"));
    }
    Probe p = probe();
    out.add(new DiagnosticCheck("CUDA driver API", p.usable() ? Status.OK : Status.MISSING, p.reason(), p.fix()));
    if (p.usable()) {
      for (int i = 0; i < p.deviceCount(); i++) {
        out.add(device(i));
      }
    }
    try {
      out.add(DiagnosticCheck.ok("NVRTC", "version " + Nvrtc.version()));
    } catch (DeviceException e) {
      out.add(new DiagnosticCheck("NVRTC", Status.MISSING, e.getMessage(),
          "only needed where kernels were not built to PTX with nvcc"));
    }
    out.add(onPath("ncu"));
    try {
      out.add(profilingCheck());
    } catch (RuntimeException e) {
      out.add(new DiagnosticCheck("profiling permission", Status.FAILED, e.toString(), ""));
    }
    return out;
  }

  private static DiagnosticCheck library(String name) {
    try {
      NativeLibrary lib = NativeLibraries.find(name);
      return DiagnosticCheck.ok("lib" + name, lib.origin() + (lib.viaLoaderPath() ? " (loader path)"
          : " (found by gitm; not on the loader path)"));
    } catch (DeviceException e) {
      return new DiagnosticCheck("lib" + name, Status.MISSING, e.getMessage(),
          "add its folder to LD_LIBRARY_PATH or GITM_CUDA_LIB");
    }
  }

  private static DiagnosticCheck device(int ordinal) {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment d = a.allocate(ValueLayout.JAVA_INT);
      Cu.check(Cu.cuDeviceGet, Cu.call(Cu.cuDeviceGet, d, ordinal));
      DeviceInfo i = CudaDriver.describe(ordinal, d.get(ValueLayout.JAVA_INT, 0), a);
      return DiagnosticCheck.ok("CUDA device " + ordinal, i.name() + ", " + i.uuid() + ", " + (i.totalMemoryBytes()
          >> 20) + " MiB, compute capability " + i.computeCapability() + ", " + i.multiprocessors() + " SMs, L2 "
          + (i.l2CacheBytes() >> 20) + " MiB, driver " + i.driverVersion());
    } catch (DeviceException e) {
      return new DiagnosticCheck("CUDA device " + ordinal, Status.FAILED, e.getMessage(), "");
    }
  }

  static DiagnosticCheck onPath(String tool) {
    Optional<Path> p = which(tool, System.getenv("PATH"));
    return p.map(x -> DiagnosticCheck.ok(tool, x.toString()))
        .orElseGet(() -> new DiagnosticCheck(tool, Status.MISSING, tool + " not on PATH",
            "install Nsight Compute (part of the CUDA toolkit) to measure bytes per kernel"));
  }

  static Optional<Path> which(String tool, String path) {
    if (path == null) {
      return Optional.empty();
    }
    for (String dir : path.split(File.pathSeparator)) {
      if (dir.isEmpty()) {
        continue;
      }
      Path f = Path.of(dir, tool);
      if (Files.isRegularFile(f) && Files.isExecutable(f)) {
        return Optional.of(f);
      }
    }
    return Optional.empty();
  }
}
