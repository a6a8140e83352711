package io.gitm.nvidia.ffm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gitm.device.DeviceException;
import io.gitm.device.OutOfDeviceMemoryException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class ErrorCodesTest {

  @Test
  void everyCuResultInCudaHeaderIsMappedToItsName() throws IOException {
    Path header = Path.of("/usr/local/cuda/include/cuda.h");
    assumeTrue(Files.isReadable(header), "no CUDA toolkit header at " + header + " to compare against");
    String text = Files.readString(header);
    String body = text.substring(text.indexOf("typedef enum cudaError_enum"), text.indexOf("} CUresult;"));
    Matcher m = Pattern.compile("(?m)^\\s+(CUDA_(?:SUCCESS|ERROR_[A-Z0-9_]+))\\s*=\\s*(\\d+)").matcher(body);
    Map<Integer, String> expected = new HashMap<>();
    while (m.find()) {
      expected.put(Integer.parseInt(m.group(2)), m.group(1));
    }
    assertThat(expected).hasSizeGreaterThan(90);
    assertThat(CuResultNames.NAMES).containsExactlyInAnyOrderEntriesOf(expected);
  }

  @Test
  void cudaOutOfMemoryBecomesOutOfDeviceMemoryException() {
    assertThatThrownBy(() -> ErrorCodes.checkCuda("cuMemAlloc_v2", 2))
        .isInstanceOf(OutOfDeviceMemoryException.class)
        .hasMessageContaining("cuMemAlloc_v2")
        .hasMessageContaining("CUDA_ERROR_OUT_OF_MEMORY (2)");
  }

  @Test
  void cudaErrorCarriesFunctionCodeAndName() {
    assertThatThrownBy(() -> ErrorCodes.checkCuda("cuLaunchKernel", 700))
        .isInstanceOfSatisfying(CudaException.class, e -> {
          assertThat(e.function()).isEqualTo("cuLaunchKernel");
          assertThat(e.code()).isEqualTo(700);
          assertThat(e.codeName()).isEqualTo("CUDA_ERROR_ILLEGAL_ADDRESS");
        });
  }

  @Test
  void successIsNotAnError() {
    ErrorCodes.checkCuda("cuInit", 0);
    ErrorCodes.checkNvml("nvmlInit_v2", 0);
    ErrorCodes.checkCublas("cublasCreate_v2", 0);
    ErrorCodes.checkNvrtc("nvrtcCompileProgram", 0, null);
  }

  @Test
  void unknownCodesGetAnUnrecognizedNameNotACrash() {
    assertThat(ErrorCodes.cudaName(123456)).isEqualTo("CUDA_ERROR_UNRECOGNIZED_123456");
    assertThat(ErrorCodes.nvmlName(77)).isEqualTo("NVML_ERROR_UNRECOGNIZED_77");
    assertThat(ErrorCodes.cublasName(2)).isEqualTo("CUBLAS_STATUS_UNRECOGNIZED_2");
    assertThat(ErrorCodes.nvrtcName(99)).isEqualTo("NVRTC_ERROR_UNRECOGNIZED_99");
  }

  @Test
  void nvmlErrorsAreNvmlExceptionsWithNames() {
    assertThatThrownBy(() -> ErrorCodes.checkNvml("nvmlDeviceGetPowerUsage", 3))
        .isInstanceOf(NvmlException.class)
        .hasMessageContaining("NVML_ERROR_NOT_SUPPORTED (3)");
    assertThat(ErrorCodes.nvmlName(999)).isEqualTo("NVML_ERROR_UNKNOWN");
    assertThat(ErrorCodes.nvmlName(15)).isEqualTo("NVML_ERROR_GPU_IS_LOST");
  }

  @Test
  void cublasAllocFailureIsOutOfMemoryAndOtherStatusesAreCublasExceptions() {
    assertThatThrownBy(() -> ErrorCodes.checkCublas("cublasCreate_v2", 3))
        .isInstanceOf(OutOfDeviceMemoryException.class).hasMessageContaining("CUBLAS_STATUS_ALLOC_FAILED");
    assertThatThrownBy(() -> ErrorCodes.checkCublas("cublasGemmEx", 15))
        .isInstanceOf(CublasException.class).hasMessageContaining("CUBLAS_STATUS_NOT_SUPPORTED (15)");
  }

  @Test
  void nvrtcCompilationErrorCarriesTheLog() {
    assertThatThrownBy(() -> ErrorCodes.checkNvrtc("nvrtcCompileProgram", 6, "x.cu(3): error: expected a ;"))
        .isInstanceOf(NvrtcException.class)
        .hasMessageContaining("NVRTC_ERROR_COMPILATION (6)")
        .hasMessageContaining("expected a ;");
    assertThatThrownBy(() -> ErrorCodes.checkNvrtc("nvrtcCreateProgram", 1, null))
        .isInstanceOf(OutOfDeviceMemoryException.class);
  }

  @Test
  void allTypedExceptionsAreDeviceExceptions() {
    assertThat(new CudaException("f", 1, "n", null)).isInstanceOf(DeviceException.class);
    assertThat(new NvmlException("f", 1, "n", null)).isInstanceOf(DeviceException.class);
    assertThat(new CublasException("f", 1, "n", null)).isInstanceOf(DeviceException.class);
    assertThat(new NvrtcException("f", 1, "n", null)).isInstanceOf(DeviceException.class);
  }
}
