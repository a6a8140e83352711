package io.gitm.trace;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class KernelNamesTest {
  @Test
  void fp32GemmsAreToldFromTensorCoreGemmsByCublassKernelNames() {
    assertThat(KernelNames.fp32Gemm("ampere_sgemm_128x64_nn")).isTrue();
    assertThat(KernelNames.fp32Gemm(
        "sm90_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x"
            + "_cublas"))
        .isTrue();
    assertThat(KernelNames.fp32Gemm("sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32_cublas")).isFalse();
    assertThat(KernelNames.fp32Gemm("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n")).isFalse();
    assertThat(KernelNames.fp32Gemm("vectorized_elementwise_kernel")).isFalse();
    assertThat(KernelNames.fp32Gemm(null)).isFalse();
  }

  @Test
  void aGemmIsAnyKernelNamedSoAndNothingElse() {
    assertThat(KernelNames.gemm("sim_sgemm_128x128_fp32")).isTrue();
    assertThat(KernelNames.gemm("_ZN7cutlass7Kernel2I43cutlass_80_simt_sgemm_256x128_8x4_nn_align1EEvNT_6ParamsE"))
        .isTrue();
    assertThat(KernelNames.gemm("af2_attn_logits")).isFalse();
    assertThat(KernelNames.gemm(null)).isFalse();
  }
}
