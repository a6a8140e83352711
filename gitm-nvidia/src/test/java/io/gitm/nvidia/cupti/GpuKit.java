package io.gitm.nvidia.cupti;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.gitm.nvidia.ffm.NativeLibraries;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Device 0's primary context with the test kernels (src/test/cuda/cupti_test.cu, as the committed PTX) loaded,
 * for the GPU tests and the tracing-overhead benchmark.
 */
final class GpuKit implements AutoCloseable {
  final Driver driver;
  final Arena arena = Arena.ofShared();
  final MemorySegment axpb;
  final MemorySegment sgemm;

  private GpuKit(Driver d) throws IOException {
    this.driver = d;
    d.usePrimaryContext(0);
    String ptx;
    try (InputStream in = GpuKit.class.getResourceAsStream("/cupti/cupti_test.ptx")) {
      if (in == null) {
        throw new IllegalStateException("test resource /cupti/cupti_test.ptx missing");
      }
      ptx = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    MemorySegment module = d.loadPtx(ptx);
    axpb = d.function(module, "gitm_axpb");
    sgemm = d.function(module, "gitm_sgemm");
  }

  /** Why no GPU test can run here, or empty when one can (a driver, a device and CUPTI). */
  static Optional<String> unusableReason() {
    if (NativeLibraries.tryFind("cuda").isEmpty()) {
      return Optional.of("no NVIDIA driver (libcuda.so.1) on this machine");
    }
    try {
      if (Driver.instance().deviceCount() == 0) {
        return Optional.of("the NVIDIA driver sees no device");
      }
      Cupti.instance();
    } catch (RuntimeException e) {
      return Optional.of("GPU or CUPTI not usable: " + e.getMessage());
    }
    return Optional.empty();
  }

  static GpuKit open() throws IOException {
    return new GpuKit(Driver.instance());
  }

  /** The argument block of {@code gitm_axpb(x, n, a, b)}: a void*[4] pointing at each value. */
  MemorySegment axpbArgs(long x, int n, float a, float b) {
    MemorySegment vals = arena.allocate(32, 8);
    vals.set(JAVA_LONG, 0, x);
    vals.set(JAVA_INT, 8, n);
    vals.set(JAVA_FLOAT, 12, a);
    vals.set(JAVA_FLOAT, 16, b);
    MemorySegment params = arena.allocate(ADDRESS, 4);
    params.setAtIndex(ADDRESS, 0, vals.asSlice(0));
    params.setAtIndex(ADDRESS, 1, vals.asSlice(8));
    params.setAtIndex(ADDRESS, 2, vals.asSlice(12));
    params.setAtIndex(ADDRESS, 3, vals.asSlice(16));
    return params;
  }

  /** The argument block of {@code gitm_sgemm(A, B, C, n)}. */
  MemorySegment sgemmArgs(long a, long b, long c, int n) {
    MemorySegment vals = arena.allocate(32, 8);
    vals.set(JAVA_LONG, 0, a);
    vals.set(JAVA_LONG, 8, b);
    vals.set(JAVA_LONG, 16, c);
    vals.set(JAVA_INT, 24, n);
    MemorySegment params = arena.allocate(ADDRESS, 4);
    for (int i = 0; i < 4; i++) {
      params.setAtIndex(ADDRESS, i, vals.asSlice(8L * i));
    }
    return params;
  }

  /** Launches {@code gitm_sgemm} for n x n matrices (n a multiple of 32). */
  void sgemm(MemorySegment args, int n, MemorySegment stream) {
    driver.launch(sgemm, (n / 32) * (n / 32), 1024, stream, args);
  }

  @Override
  public void close() {
    arena.close();
  }
}
