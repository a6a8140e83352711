package io.gitm.nvidia.cublas;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.device.MathMode;
import org.junit.jupiter.api.Test;

/** cublasComputeType_t values from cublas_api.h (CUDA 13.0); that header is not on the build machine. */
class CublasComputeTypeTest {
  @Test
  void eachMathModeMapsToItsCublasComputeType() {
    assertThat(CublasBlas.computeType(MathMode.DEFAULT)).isEqualTo(68);
    assertThat(CublasBlas.computeType(MathMode.TF32)).isEqualTo(77);
    assertThat(CublasBlas.computeType(MathMode.BF16)).isEqualTo(75);
  }

  @Test
  void gemmUsesFp32DataAndTheDefaultAlgorithm() {
    assertThat(CublasBlas.CUDA_R_32F).isZero();
    assertThat(CublasBlas.CUBLAS_GEMM_DEFAULT).isEqualTo(-1);
    assertThat(CublasBlas.CUBLAS_OP_N).isZero();
    assertThat(CublasBlas.CUBLAS_OP_T).isEqualTo(1);
  }
}
