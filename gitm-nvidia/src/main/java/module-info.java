/**
 * The NVIDIA backend (backend "nvidia"): bindings through {@code java.lang.foreign} to NVML, the CUDA driver API,
 * cuBLAS, NVRTC and CUPTI. Only the command line reads its telemetry and tracing types directly.
 */
module gitm.nvidia {
  requires static transitive org.jspecify;
  requires transitive gitm.api;

  exports io.gitm.nvidia.cupti to gitm.cli;
  exports io.gitm.nvidia.nvml to gitm.cli;

  provides io.gitm.device.DeviceProvider with io.gitm.nvidia.cuda.CudaProvider;
}
