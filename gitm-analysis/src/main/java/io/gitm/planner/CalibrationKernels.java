package io.gitm.planner;

import io.gitm.device.KernelArgs;
import io.gitm.device.KernelDef;
import io.gitm.device.KernelModule;
import io.gitm.device.LaunchConfig;
import io.gitm.trace.Precision;
import io.gitm.trace.Work;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * The kernels of {@code calibrate.cu}: {@code gitm_copy(dst, src, n4)} copies {@code n4} 16-byte elements (one read
 * and one write of each), {@code gitm_empty(int)} does nothing and measures launch cost. Each has its work model and a
 * host emulation with the same effect, for the simulated device.
 */
final class CalibrationKernels {
  static final String COPY = "gitm_copy";
  static final String EMPTY = "gitm_empty";

  static final KernelModule MODULE = new KernelModule("calibrate", "/kernels/calibrate.cu", List.of(
      new KernelDef(COPY, CalibrationKernels::copyWork, CalibrationKernels::copy),
      new KernelDef(EMPTY, (c, a) -> Work.NONE, (c, a) -> {
      })));

  private CalibrationKernels() {
  }

  static Work copyWork(LaunchConfig config, Object[] args) {
    long n4 = ((Number) args[2]).longValue();
    return new Work(0, Precision.FP32, 16 * n4, 16 * n4);
  }

  static void copy(LaunchConfig config, KernelArgs args) {
    long bytes = 16 * args.i64(2);
    ByteBuffer dst = args.memory(0).duplicate();
    ByteBuffer src = args.memory(1).duplicate();
    if (bytes > dst.capacity() || bytes > src.capacity()) {
      throw new IllegalArgumentException("gitm_copy of " + bytes + " B overruns its buffers");
    }
    src.position(0).limit((int) bytes);
    dst.position(0);
    dst.put(src);
  }
}
