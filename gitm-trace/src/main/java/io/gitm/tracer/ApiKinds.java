package io.gitm.tracer;

import io.gitm.trace.ApiKind;

/** The {@link ApiKind} of a CUDA runtime or driver API function, from its name. */
final class ApiKinds {
  private ApiKinds() {}

  /**
   * Classifies {@code cudaLaunchKernel}, {@code cuLaunchKernel}, {@code cudaGraphLaunch} → LAUNCH; {@code cudaMalloc*},
   * {@code cudaHostAlloc}, {@code cuMemAlloc*} → ALLOC; {@code cudaFree*}, {@code cuMemFree*} → FREE;
   * {@code cudaMemcpy*}, {@code cuMemcpy*}, {@code cudaMemPrefetchAsync} → COPY; {@code cudaMemset*},
   * {@code cuMemset*} → MEMSET; stream, device, context and event synchronization and {@code cudaStreamWaitEvent} →
   * SYNC; everything else → OTHER. Per-thread-stream suffixes ({@code _ptsz}, {@code _ptds}) and driver versions
   * ({@code _v2}) are ignored.
   */
  static ApiKind of(String name) {
    String n = strip(name);
    if (n.startsWith("cudaLaunch") || n.startsWith("cuLaunch") || n.equals("cudaGraphLaunch")
        || n.equals("cuGraphLaunch")) {
      return n.contains("HostFunc") ? ApiKind.OTHER : ApiKind.LAUNCH;
    }
    if (n.startsWith("cudaMalloc") || n.equals("cudaHostAlloc") || n.startsWith("cuMemAlloc")
        || n.equals("cuMemHostAlloc") || n.equals("cuMemCreate")) {
      return ApiKind.ALLOC;
    }
    if (n.startsWith("cudaFree") || n.startsWith("cuMemFree") || n.equals("cuMemRelease")) {
      return ApiKind.FREE;
    }
    if (n.startsWith("cudaMemcpy") || n.startsWith("cuMemcpy") || n.startsWith("cudaMemPrefetch")
        || n.startsWith("cuMemPrefetch")) {
      return ApiKind.COPY;
    }
    if (n.startsWith("cudaMemset") || n.startsWith("cuMemset") || n.startsWith("cuMemsetD")) {
      return ApiKind.MEMSET;
    }
    if (n.endsWith("Synchronize") || n.equals("cudaStreamWaitEvent") || n.equals("cuStreamWaitEvent")) {
      return ApiKind.SYNC;
    }
    return ApiKind.OTHER;
  }

  private static String strip(String name) {
    String n = name == null ? "" : name.strip();
    for (boolean changed = true; changed; ) {
      changed = false;
      for (String suffix : new String[] {"_ptsz", "_ptds"}) {
        if (n.endsWith(suffix)) {
          n = n.substring(0, n.length() - suffix.length());
          changed = true;
        }
      }
      int v = n.lastIndexOf("_v");
      if (v > 0 && v + 2 < n.length() && n.substring(v + 2).chars().allMatch(Character::isDigit)) {
        n = n.substring(0, v);
        changed = true;
      }
    }
    return n;
  }
}
