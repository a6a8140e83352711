package io.gitm.device;

import io.gitm.trace.Precision;
import io.gitm.trace.Work;

/** cuBLAS-style GEMM on FP32 matrices in column-major order: C = alpha * op(A) * op(B) + beta * C. */
public interface Blas {
  /** The math mode in force for later GEMMs; settable from outside the workload. */
  MathMode mathMode();

  void setMathMode(MathMode mode);

  void sgemm(Stream stream, boolean transA, boolean transB, int m, int n, int k, float alpha, DeviceMemory a,
      int lda, DeviceMemory b, int ldb, float beta, DeviceMemory c, int ldc);

  /** The work of one such GEMM, for the planner. */
  static Work work(int m, int n, int k, float beta, MathMode mode) {
    Precision p = switch (mode) {
      case DEFAULT -> Precision.FP32;
      case TF32 -> Precision.TF32;
      case BF16 -> Precision.BF16;
    };
    long read = 4L * ((long) m * k + (long) k * n + (beta != 0 ? (long) m * n : 0));
    return new Work(2.0 * m * n * k, p, read, 4L * m * n);
  }
}
