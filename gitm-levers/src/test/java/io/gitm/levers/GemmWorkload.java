package io.gitm.levers;

import io.gitm.device.Device;
import io.gitm.device.DeviceMemory;
import io.gitm.device.HostMemory;
import io.gitm.device.HostMemoryKind;
import io.gitm.device.MathMode;
import io.gitm.workload.ExecutionConfig;
import io.gitm.workload.IterationResult;
import io.gitm.workload.Knob;
import io.gitm.workload.OutputDigest;
import io.gitm.workload.Workload;
import io.gitm.workload.WorkloadSpec;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * A small GEMM job for the math-mode levers: each step multiplies two seeded 96x96 FP32 matrices with
 * {@code device.blas()} in the configured math mode and reads the product back. Output: the SHA-256 of the products'
 * bytes, and each product's sum.
 */
final class GemmWorkload implements Workload {
  static final int N = 96;
  static final int STEPS = 4;

  @Override
  public WorkloadSpec spec() {
    return new WorkloadSpec("gemm-test", "seeded FP32 GEMMs", List.of(), Set.of(Knob.MATH_MODE), Map.of(), 1e-2,
        "flop/s", true);
  }

  @Override
  public Session open(Device device, ExecutionConfig config, Path dataDir) {
    return new Session() {
      final DeviceMemory a = device.malloc(4L * N * N);
      final DeviceMemory b = device.malloc(4L * N * N);
      final DeviceMemory c = device.malloc(4L * N * N);
      final HostMemory host = device.allocHost(4L * N * N, HostMemoryKind.PAGEABLE);
      final MessageDigest sha = sha();
      final double[] sums = new double[STEPS];
      final SplittableRandom rng = new SplittableRandom(5);
      int done;

      @Override
      public IterationResult step() {
        long t0 = device.clock().nanos();
        fill(a);
        fill(b);
        device.blas().setMathMode(config.mathMode());
        device.blas().sgemm(device.defaultStream(), false, false, N, N, N, 1f, a, N, b, N, 0f, c, N);
        device.copy(host, 0, c, 0, 4L * N * N);
        device.synchronize();
        ByteBuffer out = host.buffer().duplicate().order(ByteOrder.LITTLE_ENDIAN);
        double sum = 0;
        for (int i = 0; i < N * N; i++) {
          float v = out.getFloat(4 * i);
          sum += v;
          sha.update(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putFloat(v).array());
        }
        sums[done++] = sum;
        return new IterationResult(device.clock().nanos() - t0, 2L * N * N * N, Map.of());
      }

      private void fill(DeviceMemory m) {
        ByteBuffer h = host.buffer().duplicate().order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < N * N; i++) {
          h.putFloat(4 * i, (float) (rng.nextDouble() * 2 - 1));
        }
        device.copy(m, 0, host, 0, 4L * N * N);
      }

      @Override
      public boolean hasNext() {
        return done < STEPS;
      }

      @Override
      public OutputDigest output() {
        try {
          MessageDigest copy = (MessageDigest) sha.clone();
          return new OutputDigest(HexFormat.of().formatHex(copy.digest()), java.util.Arrays.copyOf(sums, done));
        } catch (CloneNotSupportedException e) {
          throw new IllegalStateException(e);
        }
      }

      @Override
      public void close() {
        host.close();
        a.close();
        b.close();
        c.close();
      }
    };
  }

  private static MessageDigest sha() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
