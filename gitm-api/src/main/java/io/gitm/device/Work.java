package io.gitm.device;

/**
 * What one launch of a kernel does: {@code flops} operations in {@code precision}, and the bytes it must read
 * from and write to device memory. The planner predicts from it and the simulated device times from it.
 */
public record Work(double flops, Precision precision, long bytesRead, long bytesWritten) {
  public static final Work NONE = new Work(0, Precision.FP32, 0, 0);

  public Work {
    if (flops < 0 || bytesRead < 0 || bytesWritten < 0 || Double.isNaN(flops)) {
      throw new IllegalArgumentException("negative work: " + flops + " flops, " + bytesRead + "/" + bytesWritten + " B");
    }
    precision = precision == null ? Precision.FP32 : precision;
  }

  public long bytes() {
    return bytesRead + bytesWritten;
  }

  /** Flops per byte moved; infinite when no bytes move. */
  public double arithmeticIntensity() {
    return bytes() == 0 ? Double.POSITIVE_INFINITY : flops / bytes();
  }
}
