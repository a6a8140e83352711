package io.gitm.sim;

import io.gitm.device.Blas;
import io.gitm.device.DeviceException;
import io.gitm.device.DeviceMemory;
import io.gitm.device.LaunchConfig;
import io.gitm.device.MathMode;
import io.gitm.device.Stream;
import io.gitm.trace.Dim3;
import io.gitm.trace.Work;
import java.nio.ByteBuffer;

/**
 * cuBLAS-style SGEMM on the simulated device: computed in Java (column-major, inputs rounded to the math mode's
 * precision, FP32 accumulation) and timed from {@link Blas#work} as one kernel of 128x128 output tiles.
 */
final class SimBlas implements Blas {
  private final SimDevice device;
  private volatile MathMode mode = MathMode.DEFAULT;

  SimBlas(SimDevice device) {
    this.device = device;
  }

  @Override
  public MathMode mathMode() {
    return mode;
  }

  @Override
  public void setMathMode(MathMode mode) {
    if (mode == null) {
      throw new IllegalArgumentException("math mode is required");
    }
    this.mode = mode;
  }

  static String kernelName(MathMode m) {
    return switch (m) {
      case DEFAULT -> "sim_sgemm_128x128_fp32";
      case TF32 -> "sim_sgemm_128x128_tf32";
      case BF16 -> "sim_gemm_128x128_bf16";
    };
  }

  @Override
  public void sgemm(Stream stream, boolean transA, boolean transB, int m, int n, int k, float alpha, DeviceMemory a,
      int lda, DeviceMemory b, int ldb, float beta, DeviceMemory c, int ldc) {
    if (m <= 0 || n <= 0 || k <= 0) {
      throw new DeviceException("cublasSgemm_v2", 7, "CUBLAS_STATUS_INVALID_VALUE",
          "m, n, k = " + m + ", " + n + ", " + k);
    }
    int aRows = transA ? k : m;
    int aCols = transA ? m : k;
    int bRows = transB ? n : k;
    int bCols = transB ? k : n;
    check(a, lda, aRows, aCols, "A");
    check(b, ldb, bRows, bCols, "B");
    check(c, ldc, m, n, "C");
    MathMode mm = mode;
    Work w = Blas.work(m, n, k, beta, mm);
    LaunchConfig cfg = new LaunchConfig(new Dim3((m + 127) / 128, (n + 127) / 128, 1), Dim3.of(256), 0);
    SimMemory ma = (SimMemory) a;
    SimMemory mb = (SimMemory) b;
    SimMemory mc = (SimMemory) c;
    Runnable effect = () -> gemm(transA, transB, m, n, k, alpha, ma.data(), lda, mb.data(), ldb, beta, mc.data(), ldc,
        mm);
    device.launchGemm(kernelName(mm), cfg, w, stream, effect);
  }

  private static void check(DeviceMemory x, int ld, int rows, int cols, String what) {
    if (!(x instanceof SimMemory)) {
      throw new DeviceException("cublasSgemm_v2", 7, "CUBLAS_STATUS_INVALID_VALUE",
          what + " is not simulated device memory");
    }
    if (ld < Math.max(1, rows) || (long) ld * (cols - 1) + rows > x.bytes() / 4) {
      throw new DeviceException("cublasSgemm_v2", 7, "CUBLAS_STATUS_INVALID_VALUE", what + " (" + rows + "x" + cols
          + ", ld " + ld + ") does not fit its " + x.bytes() + " byte buffer");
    }
  }

  private static void gemm(boolean ta, boolean tb, int m, int n, int k, float alpha, ByteBuffer a, int lda,
      ByteBuffer b, int ldb, float beta, ByteBuffer c, int ldc, MathMode mode) {
    float[] col = new float[k];
    for (int j = 0; j < n; j++) {
      for (int p = 0; p < k; p++) {
        int idx = tb ? j + p * ldb : p + j * ldb;
        col[p] = roundFor(mode, b.getFloat(idx * 4));
      }
      for (int i = 0; i < m; i++) {
        float acc = 0;
        for (int p = 0; p < k; p++) {
          int idx = ta ? p + i * lda : i + p * lda;
          acc += roundFor(mode, a.getFloat(idx * 4)) * col[p];
        }
        int ci = (i + j * ldc) * 4;
        float old = beta == 0 ? 0 : c.getFloat(ci);
        c.putFloat(ci, alpha * acc + beta * old);
      }
    }
  }

  /** Rounds an FP32 value to the precision a math mode feeds the tensor cores (TF32: 10, BF16: 7 mantissa bits). */
  static float roundFor(MathMode mode, float v) {
    int drop = switch (mode) {
      case DEFAULT -> 0;
      case TF32 -> 13;
      case BF16 -> 16;
    };
    if (drop == 0 || !Float.isFinite(v)) {
      return v;
    }
    int bits = Float.floatToRawIntBits(v);
    int half = 1 << (drop - 1);
    int lsb = (bits >>> drop) & 1;
    bits = (bits + half - 1 + lsb) & ~((1 << drop) - 1);
    return Float.intBitsToFloat(bits);
  }
}
