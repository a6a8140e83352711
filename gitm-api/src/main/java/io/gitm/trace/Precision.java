package io.gitm.trace;

/** The arithmetic a kernel's flops are done in; the roofline takes the matching ceiling. */
public enum Precision {
  FP64, FP32, TF32, FP16, BF16, INT32
}
