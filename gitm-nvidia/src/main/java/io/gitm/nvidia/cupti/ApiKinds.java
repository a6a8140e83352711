package io.gitm.nvidia.cupti;

import io.gitm.trace.ApiKind;

/**
 * Classifies a driver or runtime API function by its name, as {@code cuptiGetCallbackName} gives it (with
 * version suffixes such as {@code _v2} or {@code _v3020}). {@code gitm_inject.c} has the same rules in C.
 */
final class ApiKinds {
  private ApiKinds() {
  }

  static ApiKind classify(String name) {
    if (name == null || name.isEmpty()) {
      return ApiKind.OTHER;
    }
    String n = name;
    if (n.startsWith("cuLaunch") || n.startsWith("cudaLaunch") || n.startsWith("cuGraphLaunch")
        || n.startsWith("cudaGraphLaunch")) {
      return ApiKind.LAUNCH;
    }
    if (n.startsWith("cuMemcpy") || n.startsWith("cudaMemcpy")) {
      return ApiKind.COPY;
    }
    if (n.startsWith("cuMemset") || n.startsWith("cudaMemset")) {
      return ApiKind.MEMSET;
    }
    if (n.startsWith("cuMemAlloc") || n.startsWith("cuMemHostAlloc") || n.startsWith("cuMemCreate")
        || n.startsWith("cudaMalloc") || n.startsWith("cudaHostAlloc")) {
      return ApiKind.ALLOC;
    }
    if (n.startsWith("cuMemFree") || n.startsWith("cuMemRelease") || n.startsWith("cudaFree")) {
      return ApiKind.FREE;
    }
    if (n.startsWith("cuCtxSynchronize") || n.startsWith("cuStreamSynchronize") || n.startsWith("cuEventSynchronize")
        || n.startsWith("cuStreamWaitEvent") || n.startsWith("cudaDeviceSynchronize")
        || n.startsWith("cudaStreamSynchronize") || n.startsWith("cudaEventSynchronize")
        || n.startsWith("cudaStreamWaitEvent") || n.startsWith("cudaThreadSynchronize")) {
      return ApiKind.SYNC;
    }
    return ApiKind.OTHER;
  }
}
