package io.gitm.trace;

import java.util.Locale;

/** What a kernel's name tells about it, for kernels that declare no work of their own (library kernels). */
public final class KernelNames {
  private KernelNames() {}

  /**
   * Whether a kernel is an FP32 GEMM computed without tensor cores, by cuBLAS's naming: {@code sgemm} kernels
   * (e.g. {@code cutlass_80_simt_sgemm_256x128_8x4_nn_align1}) and the {@code xmma_gemm_f32f32_f32f32} family, but not
   * those whose inputs are TF32, BF16 or FP16, nor integer GEMMs.
   */
  public static boolean fp32Gemm(String name) {
    String n = name == null ? "" : name.toLowerCase(Locale.ROOT);
    if (!n.contains("gemm") || n.contains("tf32") || n.contains("bf16") || n.contains("f16") || n.contains("hgemm")
        || n.contains("i8")) {
      return false;
    }
    return n.contains("sgemm") || n.contains("f32f32_f32f32");
  }

  /**
   * Whether a kernel is a matrix product by its name ({@code gemm} anywhere: cuBLAS's and CUTLASS's kernels, the
   * simulator's {@code sim_sgemm_*}): what a cuBLAS math mode changes, unlike a workload's own FP32 kernels.
   */
  public static boolean gemm(String name) {
    return name != null && name.toLowerCase(Locale.ROOT).contains("gemm");
  }

  /**
   * Whether a kernel is a convolution by its name: cuDNN's ({@code conv}, {@code convolve}), and the implicit-GEMM
   * forward, data-gradient and weight-gradient kernels of cuDNN and CUTLASS ({@code fprop}, {@code dgrad},
   * {@code wgrad}).
   */
  public static boolean conv(String name) {
    if (name == null) {
      return false;
    }
    String n = name.toLowerCase(Locale.ROOT);
    return n.contains("conv") || n.contains("fprop") || n.contains("dgrad") || n.contains("wgrad");
  }
}
