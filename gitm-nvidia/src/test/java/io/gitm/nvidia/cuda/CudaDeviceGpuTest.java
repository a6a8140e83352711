package io.gitm.nvidia.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.gitm.device.Blas;
import io.gitm.device.Device;
import io.gitm.device.DeviceInfo;
import io.gitm.device.DeviceMemory;
import io.gitm.device.DeviceRequest;
import io.gitm.device.Event;
import io.gitm.device.GraphExec;
import io.gitm.device.HostMemory;
import io.gitm.device.HostMemoryKind;
import io.gitm.device.Kernel;
import io.gitm.device.LaunchConfig;
import io.gitm.device.MathMode;
import io.gitm.device.MemInfo;
import io.gitm.device.MemPool;
import io.gitm.device.Module;
import io.gitm.device.OutOfDeviceMemoryException;
import io.gitm.device.SchedulingMode;
import io.gitm.device.Stream;
import io.gitm.nvidia.ffm.NativeLibraries;
import io.gitm.trace.Dim3;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("gpu")
class CudaDeviceGpuTest {

  private static float[] random(int n, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    float[] x = new float[n];
    for (int i = 0; i < n; i++) {
      x[i] = (float) (r.nextDouble() * 2 - 1);
    }
    return x;
  }

  private static void put(HostMemory h, float[] x) {
    ByteBuffer b = h.buffer();
    for (int i = 0; i < x.length; i++) {
      b.putFloat(4 * i, x[i]);
    }
  }

  private static float[] get(HostMemory h, int n) {
    ByteBuffer b = h.buffer();
    float[] x = new float[n];
    for (int i = 0; i < n; i++) {
      x[i] = b.getFloat(4 * i);
    }
    return x;
  }

  private static DeviceMemory upload(Device d, float[] x) {
    DeviceMemory m = d.malloc(4L * x.length);
    try (HostMemory h = d.allocHost(4L * x.length, HostMemoryKind.PINNED)) {
      put(h, x);
      d.copy(m, 0, h, 0, 4L * x.length);
    }
    return m;
  }

  private static float[] download(Device d, DeviceMemory m, int n) {
    try (HostMemory h = d.allocHost(4L * n, HostMemoryKind.PINNED)) {
      d.copy(h, 0, m, 0, 4L * n);
      return get(h, n);
    }
  }

  @Test
  void opensDeviceAndDescribesIt() {
    try (Device d = Gpu.open()) {
      DeviceInfo i = d.info();
      System.out.println("[gpu] " + i);
      assertThat(i.backend()).isEqualTo("nvidia");
      assertThat(i.name()).isNotBlank();
      assertThat(i.uuid()).startsWith("GPU-").hasSize(40);
      assertThat(i.computeCapability()).matches("\\d+\\.\\d+");
      assertThat(i.multiprocessors()).isPositive();
      assertThat(i.totalMemoryBytes()).isPositive();
      assertThat(i.l2CacheBytes()).isPositive();
      assertThat(i.leastStreamPriority()).isGreaterThanOrEqualTo(i.greatestStreamPriority());
      MemInfo m = d.memInfo();
      assertThat(m.totalBytes()).isEqualTo(i.totalMemoryBytes());
      assertThat(m.freeBytes()).isPositive().isLessThanOrEqualTo(m.totalBytes());
    }
  }

  @Test
  void schedulingModeIsAcceptedWhenOpening() {
    Gpu.require();
    try (Device d = new CudaProvider().open(new DeviceRequest(0, SchedulingMode.BLOCKING_SYNC, Map.of()))) {
      d.synchronize();
    }
  }

  @Test
  void pinnedAndPageableRoundTripsAreByteExact() {
    try (Device d = Gpu.open()) {
      int n = 1 << 20;
      byte[] data = new byte[n];
      new SplittableRandom(7).nextBytes(data);
      for (HostMemoryKind kind : HostMemoryKind.values()) {
        try (HostMemory src = d.allocHost(n, kind); HostMemory dst = d.allocHost(n, kind);
            DeviceMemory dev = d.malloc(n)) {
          assertThat(src.kind()).isEqualTo(kind);
          src.buffer().put(data);
          d.copy(dev, 0, src, 0, n);
          d.copy(dst, 0, dev, 0, n);
          byte[] back = new byte[n];
          dst.buffer().get(back);
          assertThat(back).as(kind + " round trip").isEqualTo(data);
        }
      }
    }
  }

  @Test
  void asyncCopiesAndMemsetOnAPriorityStreamAreOrdered() {
    try (Device d = Gpu.open()) {
      int n = 1 << 16;
      try (Stream s = d.createStream(d.info().greatestStreamPriority());
          HostMemory h = d.allocHost(n, HostMemoryKind.PINNED); DeviceMemory a = d.malloc(n);
          DeviceMemory b = d.malloc(n)) {
        assertThat(s.priority()).isEqualTo(d.info().greatestStreamPriority());
        d.memsetAsync(a, 0, 0x5A, n, s);
        d.memsetAsync(a, n / 2, 0x11, n / 2, s);
        d.copyAsync(b, 0, a, 0, n, s);
        d.copyAsync(h, 0, b, 0, n, s);
        s.synchronize();
        ByteBuffer buf = h.buffer();
        assertThat(buf.get(0)).isEqualTo((byte) 0x5A);
        assertThat(buf.get(n / 2 - 1)).isEqualTo((byte) 0x5A);
        assertThat(buf.get(n / 2)).isEqualTo((byte) 0x11);
        assertThat(buf.get(n - 1)).isEqualTo((byte) 0x11);
      }
    }
  }

  @Test
  void streamPriorityOutsideTheRangeIsRejected() {
    try (Device d = Gpu.open()) {
      assertThatThrownBy(() -> d.createStream(d.info().greatestStreamPriority() - 1))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("outside");
    }
  }

  @Test
  void saxpyFromBuildTimePtxMatchesTheCpu() {
    try (Device d = Gpu.open(); Module m = d.load(Gpu.SELFTEST)) {
      assertThat(((CudaModule) m).origin()).endsWith(".ptx");
      int n = 100_003;
      float[] x = random(n, 1);
      float[] y = random(n, 2);
      try (DeviceMemory dx = upload(d, x); DeviceMemory dy = upload(d, y)) {
        Kernel k = m.kernel("gitm_saxpy");
        assertThat(k.registersPerThread()).isPositive();
        d.launch(k, LaunchConfig.cover(n, 256), d.defaultStream(), dy, dx, 3.0f, n);
        float[] out = download(d, dy, n);
        for (int i = 0; i < n; i++) {
          assertThat(out[i]).as("element %d", i).isCloseTo(3.0f * x[i] + y[i], within(1e-5f));
        }
      }
    }
  }

  @Test
  void sourceOnlyModuleIsCompiledWithNvrtc() {
    Gpu.require();
    Assumptions.assumeTrue(NativeLibraries.tryFind("nvrtc").isPresent(), "libnvrtc not found here");
    try (Device d = Gpu.open(); Module m = d.load(Gpu.NVRTC_ONLY)) {
      assertThat(((CudaModule) m).origin()).contains("NVRTC");
      int n = 1000;
      float[] y = random(n, 3);
      try (DeviceMemory dy = upload(d, y)) {
        d.launch(m.kernel("gitm_scale"), LaunchConfig.cover(n, 128), d.defaultStream(), dy, 0.5f, n);
        float[] out = download(d, dy, n);
        for (int i = 0; i < n; i++) {
          assertThat(out[i]).isEqualTo(0.5f * y[i]);
        }
      }
    }
  }

  @Test
  void nvrtcCompileErrorsCarryTheCompilerLog() {
    Gpu.require();
    Assumptions.assumeTrue(NativeLibraries.tryFind("nvrtc").isPresent(), "libnvrtc not found here");
    assertThatThrownBy(() -> io.gitm.nvidia.cuda.nvrtc.Nvrtc.compile("#error gitm self-test\n", "bad.cu", "compute_90"))
        .isInstanceOf(io.gitm.nvidia.ffm.NvrtcException.class)
        .hasMessageContaining("NVRTC_ERROR_COMPILATION")
        .hasMessageContaining("bad.cu")
        .hasMessageContaining("error");
  }

  @Test
  void eventsTimeWorkOnAStream() {
    try (Device d = Gpu.open(); Module m = d.load(Gpu.SELFTEST); Event a = d.createEvent(true);
        Event b = d.createEvent(true)) {
      int n = 1 << 24;
      try (DeviceMemory x = d.malloc(4L * n); DeviceMemory y = d.malloc(4L * n)) {
        a.record(d.defaultStream());
        for (int i = 0; i < 10; i++) {
          d.launch(m.kernel("gitm_saxpy"), LaunchConfig.cover(n, 256), d.defaultStream(), y, x, 1.0f, n);
        }
        b.record(d.defaultStream());
        b.synchronize();
        float ms = b.elapsedMillisSince(a);
        System.out.printf("[gpu] 10 saxpy over 2^24 floats: %.3f ms (%.0f GB/s)%n", ms, 10 * 12.0 * n / ms / 1e6);
        assertThat(ms).isPositive();
      }
    }
  }

  @Test
  void poolAllocationIsStreamOrderedAndItsThresholdSettable() {
    try (Device d = Gpu.open(); Stream s = d.createStream(0)) {
      MemPool pool = d.defaultPool();
      long before = pool.releaseThreshold();
      pool.setReleaseThreshold(64L << 20);
      assertThat(pool.releaseThreshold()).isEqualTo(64L << 20);
      int n = 1 << 20;
      DeviceMemory m = d.mallocAsync(n, s);
      assertThat(m.pooled()).isTrue();
      try (HostMemory h = d.allocHost(n, HostMemoryKind.PINNED)) {
        d.memsetAsync(m, 0, 7, n, s);
        d.copyAsync(h, 0, m, 0, n, s);
        s.synchronize();
        assertThat(h.buffer().get(n - 1)).isEqualTo((byte) 7);
      }
      assertThat(pool.reservedBytes()).isGreaterThanOrEqualTo(n);
      d.freeAsync(m, s);
      s.synchronize();
      assertThatThrownBy(() -> d.memsetAsync(m, 0, 0, 1, s)).isInstanceOf(IllegalStateException.class);
      pool.setReleaseThreshold(before);
    }
  }

  @Test
  void graphReplayGivesTheSameResultAsEagerLaunches() {
    try (Device d = Gpu.open(); Module m = d.load(Gpu.SELFTEST); Stream s = d.createStream(0)) {
      int n = 4096;
      float[] x = random(n, 4);
      float[] y = random(n, 5);
      Kernel k = m.kernel("gitm_saxpy");
      LaunchConfig cfg = LaunchConfig.cover(n, 128);
      try (DeviceMemory dx = upload(d, x); DeviceMemory eager = upload(d, y); DeviceMemory graphed = upload(d, y)) {
        for (int i = 0; i < 3; i++) {
          d.launch(k, cfg, s, eager, dx, 0.5f + i, n);
        }
        d.beginCapture(s);
        for (int i = 0; i < 3; i++) {
          d.launch(k, cfg, s, graphed, dx, 0.5f + i, n);
        }
        try (GraphExec g = d.endCapture(s)) {
          assertThat(g.nodes()).isEqualTo(3);
          d.launchGraph(g, s);
          s.synchronize();
          assertThat(download(d, graphed, n)).containsExactly(download(d, eager, n));
        }
      }
    }
  }

  @Test
  void occupancyApiGivesPlausibleAnswers() {
    try (Device d = Gpu.open(); Module m = d.load(Gpu.SELFTEST)) {
      Kernel k = m.kernel("gitm_saxpy");
      int blocks = d.maxActiveBlocksPerMultiprocessor(k, 256, 0);
      int block = d.suggestedBlockSize(k, 0);
      System.out.println("[gpu] saxpy: " + blocks + " blocks of 256 per SM, suggested block " + block);
      assertThat(blocks).isBetween(1, 64);
      assertThat(block).isBetween(32, 1024);
      assertThat(block % 32).isZero();
    }
  }

  @Test
  void carveoutAndDynamicSharedMemoryAttributesTakeEffect() {
    try (Device d = Gpu.open(); Module m = d.load(Gpu.SELFTEST)) {
      CudaModule.CudaKernel k = (CudaModule.CudaKernel) m.kernel("gitm_add_shared");
      k.setPreferredSharedCarveout(50);
      assertThat(k.preferredSharedCarveout()).isEqualTo(50);
      k.setMaxDynamicSharedBytes(64 * 1024);
      assertThat(k.maxDynamicSharedBytes()).isEqualTo(64 * 1024);
      int n = 10_000;
      float[] y = random(n, 6);
      try (DeviceMemory dy = upload(d, y)) {
        LaunchConfig cfg = new LaunchConfig(Dim3.of((n + 255) / 256), Dim3.of(256), 64 * 1024);
        d.launch(k, cfg, d.defaultStream(), dy, 1.5, (long) n);
        float[] out = download(d, dy, n);
        for (int i = 0; i < n; i++) {
          assertThat(out[i]).isEqualTo(y[i] + 1.5f);
        }
      }
      assertThatThrownBy(() -> k.setPreferredSharedCarveout(101)).isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void l2AccessWindowCanBeSetAndCleared() {
    try (Device d = Gpu.open(); Stream s = d.createStream(0); DeviceMemory m = d.malloc(8L << 20)) {
      CudaDevice cd = (CudaDevice) d;
      d.setL2AccessWindow(s, m, 0, 4L << 20, 0.6f);
      assertThat(cd.persistingL2Limit()).isPositive();
      d.setL2AccessWindow(s, m, 0, 0, 0f);
      assertThatThrownBy(() -> d.setL2AccessWindow(s, m, 0, 1, 1.5f)).isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void persistingL2LimitIsPutBackWhenTheDeviceCloses() {
    try (Device keep = Gpu.open()) {
      long before = ((CudaDevice) keep).persistingL2Limit();
      try (Device d = Gpu.open(); Stream s = d.createStream(0); DeviceMemory m = d.malloc(8L << 20)) {
        d.setL2AccessWindow(s, m, 0, 4L << 20, 1f);
      }
      assertThat(((CudaDevice) keep).persistingL2Limit()).isEqualTo(before);
    }
  }

  @Test
  void gemmInEveryMathModeMatchesTheCpuWithinThatModesTolerance() {
    try (Device d = Gpu.open()) {
      int n = 384;
      float[] a = random(n * n, 10);
      float[] b = random(n * n, 11);
      double[] ref = new double[n * n];
      for (int j = 0; j < n; j++) {
        for (int p = 0; p < n; p++) {
          double bpj = b[p + j * n];
          for (int i = 0; i < n; i++) {
            ref[i + j * n] += a[i + p * n] * bpj;
          }
        }
      }
      Blas blas = d.blas();
      Map<MathMode, Double> bound = Map.of(MathMode.DEFAULT, 1e-5, MathMode.TF32, 5e-3, MathMode.BF16, 3e-2);
      try (DeviceMemory da = upload(d, a); DeviceMemory db = upload(d, b); DeviceMemory dc = d.malloc(4L * n * n)) {
        for (MathMode mode : MathMode.values()) {
          blas.setMathMode(mode);
          blas.sgemm(d.defaultStream(), false, false, n, n, n, 1f, da, n, db, n, 0f, dc, n);
          float[] c = download(d, dc, n * n);
          double err = 0;
          double norm = 0;
          for (int i = 0; i < c.length; i++) {
            err += (c[i] - ref[i]) * (c[i] - ref[i]);
            norm += ref[i] * ref[i];
          }
          double rel = Math.sqrt(err / norm);
          System.out.printf("[gpu] GEMM %d^3 %s: relative error %.3e%n", n, mode, rel);
          assertThat(rel).as(mode + " relative error").isLessThan(bound.get(mode));
        }
      }
      blas.setMathMode(MathMode.DEFAULT);
    }
  }

  /** Column-major C = A·B in double, A m×k, B k×n. */
  private static double[] gemmReference(float[] a, float[] b, int m, int n, int k) {
    double[] ref = new double[m * n];
    for (int j = 0; j < n; j++) {
      for (int p = 0; p < k; p++) {
        double bpj = b[p + j * k];
        for (int i = 0; i < m; i++) {
          ref[i + j * m] += a[i + p * m] * bpj;
        }
      }
    }
    return ref;
  }

  @Test
  void gemmsThatAreTheFirstOnTheirHandleAndStreamCanBeCapturedIntoAGraph() {
    // a tall-skinny GEMM (a detection head's shape) and one with a long k (split-K with a workspace), captured on a
    // device whose cuBLAS handle does not exist yet: creating it, or a workspace, inside the capture invalidates it
    int[][] shapes = {{8192, 16, 576}, {64, 64, 65536}};
    try (Device d = Gpu.open()) {
      Stream s = d.createStream(0);
      DeviceMemory[][] buffers = new DeviceMemory[shapes.length][];
      float[][][] inputs = new float[shapes.length][][];
      for (int i = 0; i < shapes.length; i++) {
        int m = shapes[i][0];
        int n = shapes[i][1];
        int k = shapes[i][2];
        inputs[i] = new float[][] {random(m * k, 20 + i), random(k * n, 30 + i)};
        buffers[i] = new DeviceMemory[] {upload(d, inputs[i][0]), upload(d, inputs[i][1]), d.malloc(4L * m * n)};
      }
      d.beginCapture(s);
      for (int i = 0; i < shapes.length; i++) {
        int m = shapes[i][0];
        int n = shapes[i][1];
        int k = shapes[i][2];
        d.blas().sgemm(s, false, false, m, n, k, 1f, buffers[i][0], m, buffers[i][1], k, 0f, buffers[i][2], m);
      }
      try (GraphExec g = d.endCapture(s)) {
        d.launchGraph(g, s);
        s.synchronize();
      }
      for (int i = 0; i < shapes.length; i++) {
        int m = shapes[i][0];
        int n = shapes[i][1];
        int k = shapes[i][2];
        double[] ref = gemmReference(inputs[i][0], inputs[i][1], m, n, k);
        float[] c = download(d, buffers[i][2], m * n);
        double err = 0;
        double norm = 0;
        for (int j = 0; j < c.length; j++) {
          err += (c[j] - ref[j]) * (c[j] - ref[j]);
          norm += ref[j] * ref[j];
        }
        assertThat(Math.sqrt(err / norm)).as("captured GEMM %dx%dx%d relative error", m, n, k).isLessThan(1e-5);
      }
    }
  }

  @Test
  void workDeclaredOnEitherStreamNamesTheStreamCuptiReportsItsKernelOn() {
    // the planner matches declared work to CUPTI's kernels by name and stream; the legacy default stream is not 0 there
    try (Device d = Gpu.open(); Module m = d.load(Gpu.SELFTEST); DeviceMemory x = d.malloc(4L * 4096)) {
      Stream created = d.createStream(0);
      java.util.List<io.gitm.trace.TraceRecord> records =
          java.util.Collections.synchronizedList(new java.util.ArrayList<>());
      Assumptions.assumeTrue(d.tracer().availability().usable(), () -> d.tracer().availability().reason());
      d.tracer().start(records::add);
      try {
        d.launch(m.kernel("gitm_saxpy"), LaunchConfig.cover(4096, 256), d.defaultStream(), x, x, 1f, 4096);
        d.launch(m.kernel("gitm_saxpy"), LaunchConfig.cover(4096, 256), created, x, x, 1f, 4096);
        d.synchronize();
      } finally {
        d.tracer().stop();
      }
      java.util.List<Integer> kernelStreams = records.stream()
          .filter(r -> r instanceof io.gitm.trace.KernelRecord k && k.name().equals("gitm_saxpy"))
          .map(r -> ((io.gitm.trace.KernelRecord) r).stream()).sorted().toList();
      java.util.List<Integer> workStreams = records.stream()
          .filter(r -> r instanceof io.gitm.trace.WorkRecord w && w.kernel().equals("gitm_saxpy"))
          .map(r -> ((io.gitm.trace.WorkRecord) r).stream()).sorted().toList();
      assertThat(kernelStreams).hasSize(2);
      assertThat(workStreams).isEqualTo(kernelStreams);
      assertThat(d.defaultStream().id()).isNotEqualTo(created.id());
    }
  }

  @Test
  void gemmRejectsBuffersTooSmallForTheShape() {
    try (Device d = Gpu.open(); DeviceMemory small = d.malloc(16)) {
      assertThatThrownBy(() -> d.blas().sgemm(d.defaultStream(), false, false, 8, 8, 8, 1f, small, 8, small, 8, 0f,
          small, 8)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("needs");
    }
  }

  @Test
  void askingForMoreMemoryThanExistsIsOutOfDeviceMemory() {
    try (Device d = Gpu.open()) {
      assertThatThrownBy(() -> d.malloc(d.info().totalMemoryBytes() * 4))
          .isInstanceOf(OutOfDeviceMemoryException.class).hasMessageContaining("CUDA_ERROR_OUT_OF_MEMORY");
    }
  }

  @Test
  void closingTheDeviceReturnsDeviceMemoryToWhereItWas() {
    try (Device keep = Gpu.open(); Module warm = keep.load(Gpu.SELFTEST)) {
      // load cuBLAS's and the module's code into the context first: that memory lives as long as the context
      try (DeviceMemory x = keep.malloc(4L * 64 * 64)) {
        keep.blas().sgemm(keep.defaultStream(), false, false, 64, 64, 64, 1f, x, 64, x, 64, 0f, x, 64);
        keep.launch(warm.kernel("gitm_saxpy"), LaunchConfig.cover(64, 64), keep.defaultStream(), x, x, 1f, 64);
        keep.synchronize();
      }
      MemInfo baseline = keep.memInfo();
      Device d = Gpu.open();
      Stream s = d.createStream(0);
      d.malloc(1L << 30);
      d.mallocAsync(256L << 20, s);
      d.allocHost(64L << 20, HostMemoryKind.PINNED);
      d.allocHost(64L << 20, HostMemoryKind.PAGEABLE);
      Module m = d.load(Gpu.SELFTEST);
      DeviceMemory y = d.malloc(4L * 128 * 128);
      d.blas().sgemm(s, false, false, 128, 128, 128, 1f, y, 128, y, 128, 0f, y, 128);
      d.beginCapture(s);
      d.launch(m.kernel("gitm_saxpy"), LaunchConfig.cover(128, 128), s, y, y, 1f, 128);
      d.endCapture(s);
      d.synchronize();
      assertThat(keep.memInfo().freeBytes()).isLessThan(baseline.freeBytes() - (1L << 30));
      d.close();
      long diff = baseline.freeBytes() - keep.memInfo().freeBytes();
      System.out.println("[gpu] device memory after close vs baseline: " + diff + " B more in use");
      assertThat(Math.abs(diff)).isLessThanOrEqualTo(4L << 20);
      assertThatThrownBy(() -> d.malloc(16)).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    }
  }
}
