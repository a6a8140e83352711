package io.gitm.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.gitm.device.DeviceException;
import io.gitm.device.DeviceMemory;
import io.gitm.device.HostMemory;
import io.gitm.device.HostMemoryKind;
import io.gitm.device.Kernel;
import io.gitm.device.LaunchConfig;
import io.gitm.device.MathMode;
import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;

class EmulationTest {

  @Test
  void saxpyOutputIsReal() {
    SimDevice d = Fixtures.open("", 1, 0.02);
    int n = 10_000;
    HostMemory hx = d.allocHost(4L * n, HostMemoryKind.PINNED);
    HostMemory hy = d.allocHost(4L * n, HostMemoryKind.PAGEABLE);
    for (int i = 0; i < n; i++) {
      hx.buffer().putFloat(4 * i, i);
      hy.buffer().putFloat(4 * i, 1);
    }
    DeviceMemory x = d.malloc(4L * n);
    DeviceMemory y = d.mallocAsync(4L * n, d.defaultStream());
    d.copyAsync(x, 0, hx, 0, 4L * n, d.defaultStream());
    d.copy(y, 0, hy, 0, 4L * n);
    Kernel k = d.load(Fixtures.MODULE).kernel("saxpy");
    d.launch(k, LaunchConfig.cover(n, 256), d.defaultStream(), y, x, 2.0f, n);
    HostMemory out = d.allocHost(4L * n, HostMemoryKind.PINNED);
    d.copy(out, 0, y, 0, 4L * n);
    ByteBuffer b = out.buffer();
    for (int i = 0; i < n; i++) {
      assertThat(b.getFloat(4 * i)).isEqualTo(2.0f * i + 1);
    }
  }

  @Test
  void sgemmComputesTheProductAndReducedPrecisionChangesTheDigits() {
    int m = 17;
    int n = 9;
    int k = 33;
    Random r = new Random(3);
    float[] a = new float[m * k];
    float[] b = new float[k * n];
    for (int i = 0; i < a.length; i++) {
      a[i] = r.nextFloat() - 0.5f;
    }
    for (int i = 0; i < b.length; i++) {
      b[i] = r.nextFloat() - 0.5f;
    }
    float[] fp32 = gemm(MathMode.DEFAULT, a, b, m, n, k);
    float[] bf16 = gemm(MathMode.BF16, a, b, m, n, k);
    boolean differs = false;
    for (int j = 0; j < n; j++) {
      for (int i = 0; i < m; i++) {
        double ref = 0;
        for (int p = 0; p < k; p++) {
          ref += (double) a[i + p * m] * b[p + j * k];
        }
        assertThat((double) fp32[i + j * m]).isCloseTo(ref, within(1e-5));
        assertThat((double) bf16[i + j * m]).isCloseTo(ref, within(5e-2));
        differs |= bf16[i + j * m] != fp32[i + j * m];
      }
    }
    assertThat(differs).isTrue();
  }

  private static float[] gemm(MathMode mode, float[] a, float[] b, int m, int n, int k) {
    SimDevice d = Fixtures.open("");
    DeviceMemory da = upload(d, a);
    DeviceMemory db = upload(d, b);
    DeviceMemory dc = d.malloc(4L * m * n);
    d.blas().setMathMode(mode);
    d.blas().sgemm(d.defaultStream(), false, false, m, n, k, 1f, da, m, db, k, 0f, dc, m);
    HostMemory h = d.allocHost(4L * m * n, HostMemoryKind.PINNED);
    d.copy(h, 0, dc, 0, 4L * m * n);
    float[] c = new float[m * n];
    h.buffer().asFloatBuffer().get(c);
    return c;
  }

  private static DeviceMemory upload(SimDevice d, float[] v) {
    HostMemory h = d.allocHost(4L * v.length, HostMemoryKind.PINNED);
    h.buffer().asFloatBuffer().put(v);
    DeviceMemory m = d.malloc(4L * v.length);
    d.copy(m, 0, h, 0, 4L * v.length);
    return m;
  }

  @Test
  void graphReplayRunsTheEmulationAgain() {
    SimDevice d = Fixtures.open("");
    int n = 256;
    DeviceMemory x = d.malloc(4L * n);
    DeviceMemory y = d.malloc(4L * n);
    d.memsetAsync(y, 0, 0, 4L * n, d.defaultStream());
    HostMemory ones = d.allocHost(4L * n, HostMemoryKind.PINNED);
    for (int i = 0; i < n; i++) {
      ones.buffer().putFloat(4 * i, 1f);
    }
    d.copy(x, 0, ones, 0, 4L * n);
    Kernel k = d.load(Fixtures.MODULE).kernel("saxpy");
    var s = d.createStream(0);
    d.beginCapture(s);
    d.launch(k, LaunchConfig.cover(n, 128), s, y, x, 1f, n);
    var g = d.endCapture(s);
    for (int i = 0; i < 3; i++) {
      d.launchGraph(g, s);
    }
    s.synchronize();
    HostMemory out = d.allocHost(4L * n, HostMemoryKind.PINNED);
    d.copy(out, 0, y, 0, 4L * n);
    assertThat(out.buffer().getFloat(4 * 7)).isEqualTo(3f);
  }

  @Test
  void badCallsFailWithOneLineCudaErrors() {
    SimDevice d = Fixtures.open("");
    DeviceMemory m = d.malloc(64);
    HostMemory h = d.allocHost(32, HostMemoryKind.PINNED);
    assertThatThrownBy(() -> d.copy(m, 0, h, 0, 64)).isInstanceOf(DeviceException.class)
        .hasMessageContaining("CUDA_ERROR_INVALID_VALUE").hasMessageNotContaining("\n");
    Kernel k = d.load(Fixtures.MODULE).kernel("saxpy");
    assertThatThrownBy(() -> d.launch(k, LaunchConfig.cover(8, 2048), d.defaultStream(), m, m, 1f, 8))
        .hasMessageContaining("1024 threads");
    assertThatThrownBy(() -> d.load(Fixtures.MODULE).kernel("nope")).hasMessageContaining("CUDA_ERROR_NOT_FOUND");
    m.close();
    assertThatThrownBy(() -> d.launch(k, LaunchConfig.cover(8, 32), d.defaultStream(), m, m, 1f, 8))
        .hasMessageContaining("after free");
    assertThatThrownBy(() -> d.malloc(200_000_000_000L)).hasMessageContaining("CUDA_ERROR_OUT_OF_MEMORY");
    var s = d.createStream(0);
    HostMemory pageable = d.allocHost(64, HostMemoryKind.PAGEABLE);
    DeviceMemory m2 = d.malloc(64);
    d.beginCapture(s);
    assertThatThrownBy(() -> d.copyAsync(m2, 0, pageable, 0, 64, s))
        .hasMessageContaining("CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED");
    assertThatThrownBy(d::synchronize).hasMessageContaining("capturing");
  }
}
