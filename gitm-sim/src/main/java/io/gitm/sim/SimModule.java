package io.gitm.sim;

import io.gitm.device.DeviceException;
import io.gitm.device.Kernel;
import io.gitm.device.KernelDef;
import io.gitm.device.KernelModule;
import io.gitm.device.Module;
import java.util.LinkedHashMap;
import java.util.Map;

/** A kernel module loaded on the simulated device: its kernels, one handle per entry. */
final class SimModule implements Module {
  final SimDevice device;
  final KernelModule source;
  private final Map<String, SimKernel> kernels = new LinkedHashMap<>();

  SimModule(SimDevice device, KernelModule source) {
    this.device = device;
    this.source = source;
  }

  @Override
  public KernelModule source() {
    return source;
  }

  @Override
  public synchronized Kernel kernel(String entry) {
    KernelDef def = source.kernel(entry).orElseThrow(() -> new DeviceException("cuModuleGetFunction", 500,
        "CUDA_ERROR_NOT_FOUND", "module " + source.name() + " has no kernel '" + entry + "'"));
    device.query("cuModuleGetFunction");
    return kernels.computeIfAbsent(entry, e -> new SimKernel(this, def));
  }

  @Override
  public void close() {
  }
}
