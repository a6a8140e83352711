package io.gitm.nvidia.cublas;

/** Values of library_types.h and cublas_api.h the cuBLAS binding passes, visible to the header check. */
public final class CublasConstants {
  public static final int CUDA_R_32F = CublasBlas.CUDA_R_32F;
  public static final int CUBLAS_COMPUTE_32F = CublasBlas.CUBLAS_COMPUTE_32F;
  public static final int CUBLAS_COMPUTE_32F_FAST_TF32 = CublasBlas.CUBLAS_COMPUTE_32F_FAST_TF32;
  public static final int CUBLAS_COMPUTE_32F_FAST_16BF = CublasBlas.CUBLAS_COMPUTE_32F_FAST_16BF;

  private CublasConstants() {
  }
}
