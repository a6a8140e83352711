package io.gitm.device;

import java.util.List;
import java.util.Optional;

/**
 * A CUDA C translation unit shipped as a class-path resource ({@code sourceResource}, e.g.
 * {@code /kernels/lob.cu}), with the kernels it defines. Real backends load its PTX (built by nvcc at build time,
 * resource {@code sourceResource} with {@code .ptx} in place of {@code .cu}) or compile it with NVRTC.
 */
public record KernelModule(String name, String sourceResource, List<KernelDef> kernels) {
  public KernelModule {
    kernels = List.copyOf(kernels);
  }

  public Optional<KernelDef> kernel(String entry) {
    return kernels.stream().filter(k -> k.entry().equals(entry)).findFirst();
  }

  /** The resource path of the PTX built from the source. */
  public String ptxResource() {
    return sourceResource.replaceFirst("\\.cu$", ".ptx");
  }
}
