package io.gitm.nvidia.cuda;

import io.gitm.device.Device;
import io.gitm.device.DeviceProvider;
import io.gitm.device.DeviceRequest;
import io.gitm.device.KernelArgs;
import io.gitm.device.KernelDef;
import io.gitm.device.KernelModule;
import io.gitm.device.LaunchConfig;
import io.gitm.trace.Precision;
import io.gitm.trace.Work;
import java.util.List;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Assumptions;

/** Shared by the GPU tests: opens device 0 or skips the test, saying why; the self-test kernel modules. */
final class Gpu {
  private Gpu() {
  }

  /** Aborts (skips) the calling test when no CUDA device is usable, with the probe's reason. */
  static DeviceProvider.Probe require() {
    DeviceProvider.Probe p = new CudaProvider().probe();
    Assumptions.assumeTrue(p.usable(), () -> "no GPU usable: " + p.reason());
    return p;
  }

  static Device open() {
    require();
    return new CudaProvider().open(DeviceRequest.first());
  }

  private static final BiConsumer<LaunchConfig, KernelArgs> HOST_ONLY = (c, a) -> {
    throw new UnsupportedOperationException("the self-test kernels run on the GPU only");
  };

  /** nvidia_selftest.cu, built to PTX by nvcc at build time. */
  static final KernelModule SELFTEST = new KernelModule("nvidia_selftest", "/kernels/nvidia_selftest.cu", List.of(
      new KernelDef("gitm_saxpy", (c, a) -> new Work(2.0 * ((Integer) a[3]), Precision.FP32, 8L * (Integer) a[3],
          4L * (Integer) a[3]), HOST_ONLY),
      new KernelDef("gitm_add_shared", (c, a) -> Work.NONE, HOST_ONLY)));

  /** nvrtc_only.cu: a test resource with no PTX next to it, so loading it goes through NVRTC. */
  static final KernelModule NVRTC_ONLY = new KernelModule("nvrtc_only", "/kernels/nvrtc_only.cu", List.of(
      new KernelDef("gitm_scale", (c, a) -> Work.NONE, HOST_ONLY)));
}
