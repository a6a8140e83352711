package io.gitm.device;

import io.gitm.trace.Work;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;

/**
 * One kernel of a {@link KernelModule}: its entry point in the CUDA source, the work one launch does (a function
 * of the launch and its arguments, which are {@link DeviceMemory}, {@link Integer}, {@link Long}, {@link Float} or
 * {@link Double}), and a host emulation with the same effect on memory as the CUDA code, which the simulated device
 * runs so that a workload's output is real there too.
 */
public record KernelDef(String entry, BiFunction<LaunchConfig, Object[], Work> work,
    BiConsumer<LaunchConfig, KernelArgs> emulation) {
  public KernelDef {
    if (entry == null || entry.isEmpty()) {
      throw new IllegalArgumentException("kernel without an entry point");
    }
    if (work == null || emulation == null) {
      throw new IllegalArgumentException("kernel " + entry + " needs a work model and an emulation");
    }
  }
}
