package io.gitm.sim;

import io.gitm.device.DeviceException;
import io.gitm.device.Kernel;
import io.gitm.device.KernelDef;
import io.gitm.device.LaunchConfig;

/**
 * A kernel of a loaded module: its definition, its attributes (shared-memory carve-out, dynamic shared limit), the
 * last launch shape that passed the resource checks, and the memo of its last timing.
 */
final class SimKernel implements Kernel {
  final SimModule module;
  final KernelDef def;
  volatile int carveout = -1;
  volatile int maxDynamicShared = 48 * 1024;
  volatile LaunchConfig fitted;
  final TimingMemo memo = new TimingMemo();

  SimKernel(SimModule module, KernelDef def) {
    this.module = module;
    this.def = def;
  }

  @Override
  public KernelDef def() {
    return def;
  }

  @Override
  public int registersPerThread() {
    return KernelTiming.ASSUMED_REGISTERS;
  }

  @Override
  public void setPreferredSharedCarveout(int percent) {
    if (percent < -1 || percent > 100) {
      throw new DeviceException("cuFuncSetAttribute", 1, "CUDA_ERROR_INVALID_VALUE", "carve-out " + percent + "%");
    }
    module.device.query("cuFuncSetAttribute");
    carveout = percent;
    fitted = null;
  }

  @Override
  public void setMaxDynamicSharedBytes(int bytes) {
    int max = module.device.spec().sharedPerSm() - KernelTiming.RESERVED_SHARED_PER_BLOCK;
    if (bytes < 0 || bytes > max) {
      throw new DeviceException("cuFuncSetAttribute", 1, "CUDA_ERROR_INVALID_VALUE",
          "dynamic shared memory " + bytes + " outside 0.." + max);
    }
    maxDynamicShared = bytes;
    fitted = null;
  }

  /** Whether {@code c} is the last launch shape that passed the resource checks under the present attributes. */
  boolean fits(LaunchConfig c) {
    return c.equals(fitted);
  }
}
