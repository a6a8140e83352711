package io.gitm.workloads.kit;

import io.gitm.device.KernelArgs;
import io.gitm.trace.Precision;
import io.gitm.trace.Work;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;

/**
 * What the kernels' work models and emulations read their launch arguments with: a work model sees the raw
 * arguments ({@code Object[]}), an emulation sees them as {@link KernelArgs}.
 */
public final class WorkModels {
  private WorkModels() {
  }

  /** Integer argument {@code k} of a launch. */
  public static int i(Object[] a, int k) {
    return (Integer) a[k];
  }

  /** FP32 work: {@code flops} operations, and the bytes read from and written to device memory. */
  public static Work fp32(double flops, long read, long written) {
    return new Work(flops, Precision.FP32, read, written);
  }

  /** Buffer argument {@code k} as floats. */
  public static FloatBuffer f(KernelArgs a, int k) {
    return a.memory(k).asFloatBuffer();
  }

  /** Buffer argument {@code k} as ints. */
  public static IntBuffer ints(KernelArgs a, int k) {
    return a.memory(k).asIntBuffer();
  }

  /** The whole of buffer argument {@code k} as floats (a copy: the emulations of the heavy kernels work on arrays). */
  public static float[] floats(KernelArgs a, int k) {
    FloatBuffer b = f(a, k);
    float[] out = new float[b.remaining()];
    b.get(out);
    return out;
  }
}
