package io.gitm.nvidia.ffm;

import io.gitm.device.OutOfDeviceMemoryException;
import java.util.Map;

/**
 * The error-code tables of the four NVIDIA libraries ({@code CUresult}, {@code nvmlReturn_t},
 * {@code cublasStatus_t}, {@code nvrtcResult}) and the checks that turn a non-zero code into a typed exception:
 * an out-of-memory code becomes {@link OutOfDeviceMemoryException}, any other a {@link CudaException},
 * {@link NvmlException}, {@link CublasException} or {@link NvrtcException} carrying the function, code and name.
 */
public final class ErrorCodes {
  private ErrorCodes() {
  }

  /** nvml.h's {@code nvmlReturn_t}. */
  static final Map<Integer, String> NVML = Map.ofEntries(
      Map.entry(0, "NVML_SUCCESS"),
      Map.entry(1, "NVML_ERROR_UNINITIALIZED"),
      Map.entry(2, "NVML_ERROR_INVALID_ARGUMENT"),
      Map.entry(3, "NVML_ERROR_NOT_SUPPORTED"),
      Map.entry(4, "NVML_ERROR_NO_PERMISSION"),
      Map.entry(5, "NVML_ERROR_ALREADY_INITIALIZED"),
      Map.entry(6, "NVML_ERROR_NOT_FOUND"),
      Map.entry(7, "NVML_ERROR_INSUFFICIENT_SIZE"),
      Map.entry(8, "NVML_ERROR_INSUFFICIENT_POWER"),
      Map.entry(9, "NVML_ERROR_DRIVER_NOT_LOADED"),
      Map.entry(10, "NVML_ERROR_TIMEOUT"),
      Map.entry(11, "NVML_ERROR_IRQ_ISSUE"),
      Map.entry(12, "NVML_ERROR_LIBRARY_NOT_FOUND"),
      Map.entry(13, "NVML_ERROR_FUNCTION_NOT_FOUND"),
      Map.entry(14, "NVML_ERROR_CORRUPTED_INFOROM"),
      Map.entry(15, "NVML_ERROR_GPU_IS_LOST"),
      Map.entry(16, "NVML_ERROR_RESET_REQUIRED"),
      Map.entry(17, "NVML_ERROR_OPERATING_SYSTEM"),
      Map.entry(18, "NVML_ERROR_LIB_RM_VERSION_MISMATCH"),
      Map.entry(19, "NVML_ERROR_IN_USE"),
      Map.entry(20, "NVML_ERROR_MEMORY"),
      Map.entry(21, "NVML_ERROR_NO_DATA"),
      Map.entry(22, "NVML_ERROR_VGPU_ECC_NOT_SUPPORTED"),
      Map.entry(23, "NVML_ERROR_INSUFFICIENT_RESOURCES"),
      Map.entry(24, "NVML_ERROR_FREQ_NOT_SUPPORTED"),
      Map.entry(25, "NVML_ERROR_ARGUMENT_VERSION_MISMATCH"),
      Map.entry(26, "NVML_ERROR_DEPRECATED"),
      Map.entry(27, "NVML_ERROR_NOT_READY"),
      Map.entry(28, "NVML_ERROR_GPU_NOT_FOUND"),
      Map.entry(29, "NVML_ERROR_INVALID_STATE"),
      Map.entry(999, "NVML_ERROR_UNKNOWN"));

  /** cublas_api.h's {@code cublasStatus_t}. */
  static final Map<Integer, String> CUBLAS = Map.ofEntries(
      Map.entry(0, "CUBLAS_STATUS_SUCCESS"),
      Map.entry(1, "CUBLAS_STATUS_NOT_INITIALIZED"),
      Map.entry(3, "CUBLAS_STATUS_ALLOC_FAILED"),
      Map.entry(7, "CUBLAS_STATUS_INVALID_VALUE"),
      Map.entry(8, "CUBLAS_STATUS_ARCH_MISMATCH"),
      Map.entry(11, "CUBLAS_STATUS_MAPPING_ERROR"),
      Map.entry(13, "CUBLAS_STATUS_EXECUTION_FAILED"),
      Map.entry(14, "CUBLAS_STATUS_INTERNAL_ERROR"),
      Map.entry(15, "CUBLAS_STATUS_NOT_SUPPORTED"),
      Map.entry(16, "CUBLAS_STATUS_LICENSE_ERROR"));

  /** nvrtc.h's {@code nvrtcResult}. */
  static final Map<Integer, String> NVRTC = Map.ofEntries(
      Map.entry(0, "NVRTC_SUCCESS"),
      Map.entry(1, "NVRTC_ERROR_OUT_OF_MEMORY"),
      Map.entry(2, "NVRTC_ERROR_PROGRAM_CREATION_FAILURE"),
      Map.entry(3, "NVRTC_ERROR_INVALID_INPUT"),
      Map.entry(4, "NVRTC_ERROR_INVALID_PROGRAM"),
      Map.entry(5, "NVRTC_ERROR_INVALID_OPTION"),
      Map.entry(6, "NVRTC_ERROR_COMPILATION"),
      Map.entry(7, "NVRTC_ERROR_BUILTIN_OPERATION_FAILURE"),
      Map.entry(8, "NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION"),
      Map.entry(9, "NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION"),
      Map.entry(10, "NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID"),
      Map.entry(11, "NVRTC_ERROR_INTERNAL_ERROR"),
      Map.entry(12, "NVRTC_ERROR_TIME_FILE_WRITE_FAILED"),
      Map.entry(13, "NVRTC_ERROR_NO_PCH_CREATE_ATTEMPTED"),
      Map.entry(14, "NVRTC_ERROR_PCH_CREATE_HEURISTIC_EXCEEDED"),
      Map.entry(15, "NVRTC_ERROR_PCH_CREATE"),
      Map.entry(16, "NVRTC_ERROR_CANCELLED"),
      Map.entry(17, "NVRTC_ERROR_TIME_TRACE_FILE_WRITE_FAILED"));

  static final int CUDA_ERROR_OUT_OF_MEMORY = 2;
  static final int CUBLAS_STATUS_ALLOC_FAILED = 3;
  static final int NVRTC_ERROR_OUT_OF_MEMORY = 1;

  public static String cudaName(int code) {
    return CuResultNames.NAMES.getOrDefault(code, "CUDA_ERROR_UNRECOGNIZED_" + code);
  }

  public static String nvmlName(int code) {
    return NVML.getOrDefault(code, "NVML_ERROR_UNRECOGNIZED_" + code);
  }

  public static String cublasName(int code) {
    return CUBLAS.getOrDefault(code, "CUBLAS_STATUS_UNRECOGNIZED_" + code);
  }

  public static String nvrtcName(int code) {
    return NVRTC.getOrDefault(code, "NVRTC_ERROR_UNRECOGNIZED_" + code);
  }

  /** Raises the typed exception for a non-zero {@code CUresult}. */
  public static void checkCuda(String function, int code) {
    if (code != 0) {
      throw cuda(function, code, null);
    }
  }

  public static RuntimeException cuda(String function, int code, String detail) {
    return code == CUDA_ERROR_OUT_OF_MEMORY
        ? new OutOfDeviceMemoryException(function, code, cudaName(code), detail)
        : new CudaException(function, code, cudaName(code), detail);
  }

  public static void checkNvml(String function, int code) {
    if (code != 0) {
      throw new NvmlException(function, code, nvmlName(code), null);
    }
  }

  public static void checkCublas(String function, int code) {
    if (code != 0) {
      throw code == CUBLAS_STATUS_ALLOC_FAILED
          ? new OutOfDeviceMemoryException(function, code, cublasName(code), null)
          : new CublasException(function, code, cublasName(code), null);
    }
  }

  public static void checkNvrtc(String function, int code, String detail) {
    if (code != 0) {
      throw code == NVRTC_ERROR_OUT_OF_MEMORY
          ? new OutOfDeviceMemoryException(function, code, nvrtcName(code), detail)
          : new NvrtcException(function, code, nvrtcName(code), detail);
    }
  }
}
