package io.gitm.device;

/**
 * How a GEMM on FP32 data computes: {@code DEFAULT} in full FP32; {@code TF32} and {@code BF16} on tensor cores with
 * reduced-precision inputs (numerics change: safety class B).
 */
public enum MathMode {
  DEFAULT, TF32, BF16
}
