package io.gitm.nvidia.cupti;

import io.gitm.device.DeviceException;

/** A failed CUPTI call: the function, the {@code CUptiResult} code and its name. */
public final class CuptiException extends DeviceException {
  CuptiException(String function, int code, String detail) {
    super(function, code, name(code), detail);
  }

  /**
   * Whether the failure means this process may not trace the GPU here (insufficient privileges, a virtualized,
   * MIG, WSL or confidential-computing device, another profiler attached): callers go on with state telemetry.
   */
  public boolean profilingNotPermitted() {
    return notPermitted(code());
  }

  static boolean notPermitted(int code) {
    return switch (code) {
      case 23, 33, 35, 36, 39, 40, 41, 42, 43, 44, 45 -> true;
      default -> false;
    };
  }

  /** The {@code CUptiResult} enumerator name of {@code code} ({@code cupti_result.h}, CUDA 13.0). */
  static String name(int code) {
    return switch (code) {
      case 0 -> "CUPTI_SUCCESS";
      case 1 -> "CUPTI_ERROR_INVALID_PARAMETER";
      case 2 -> "CUPTI_ERROR_INVALID_DEVICE";
      case 3 -> "CUPTI_ERROR_INVALID_CONTEXT";
      case 4 -> "CUPTI_ERROR_INVALID_EVENT_DOMAIN_ID";
      case 5 -> "CUPTI_ERROR_INVALID_EVENT_ID";
      case 6 -> "CUPTI_ERROR_INVALID_EVENT_NAME";
      case 7 -> "CUPTI_ERROR_INVALID_OPERATION";
      case 8 -> "CUPTI_ERROR_OUT_OF_MEMORY";
      case 9 -> "CUPTI_ERROR_HARDWARE";
      case 10 -> "CUPTI_ERROR_PARAMETER_SIZE_NOT_SUFFICIENT";
      case 11 -> "CUPTI_ERROR_API_NOT_IMPLEMENTED";
      case 12 -> "CUPTI_ERROR_MAX_LIMIT_REACHED";
      case 13 -> "CUPTI_ERROR_NOT_READY";
      case 14 -> "CUPTI_ERROR_NOT_COMPATIBLE";
      case 15 -> "CUPTI_ERROR_NOT_INITIALIZED";
      case 16 -> "CUPTI_ERROR_INVALID_METRIC_ID";
      case 17 -> "CUPTI_ERROR_INVALID_METRIC_NAME";
      case 18 -> "CUPTI_ERROR_QUEUE_EMPTY";
      case 19 -> "CUPTI_ERROR_INVALID_HANDLE";
      case 20 -> "CUPTI_ERROR_INVALID_STREAM";
      case 21 -> "CUPTI_ERROR_INVALID_KIND";
      case 22 -> "CUPTI_ERROR_INVALID_EVENT_VALUE";
      case 23 -> "CUPTI_ERROR_DISABLED";
      case 24 -> "CUPTI_ERROR_INVALID_MODULE";
      case 25 -> "CUPTI_ERROR_INVALID_METRIC_VALUE";
      case 26 -> "CUPTI_ERROR_HARDWARE_BUSY";
      case 27 -> "CUPTI_ERROR_NOT_SUPPORTED";
      case 28 -> "CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED";
      case 29 -> "CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED_ON_DEVICE";
      case 30 -> "CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED_ON_NON_P2P_DEVICES";
      case 31 -> "CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED_WITH_MPS";
      case 32 -> "CUPTI_ERROR_CDP_TRACING_NOT_SUPPORTED";
      case 33 -> "CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED";
      case 34 -> "CUPTI_ERROR_CUDA_COMPILER_NOT_COMPATIBLE";
      case 35 -> "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES";
      case 36 -> "CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED";
      case 37 -> "CUPTI_ERROR_OPENACC_UNDEFINED_ROUTINE";
      case 38 -> "CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED";
      case 39 -> "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED";
      case 40 -> "CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES";
      case 41 -> "CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED";
      case 42 -> "CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED";
      case 43 -> "CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED";
      case 44 -> "CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED";
      case 45 -> "CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED";
      case 46 -> "CUPTI_ERROR_INVALID_CHIP_NAME";
      case 999 -> "CUPTI_ERROR_UNKNOWN";
      default -> "CUPTI_ERROR_" + code;
    };
  }
}
