package io.gitm.nvidia.cublas;

import static io.gitm.nvidia.ffm.Native.C_INT;
import static io.gitm.nvidia.ffm.Native.C_POINTER;

import io.gitm.device.Blas;
import io.gitm.device.DeviceMemory;
import io.gitm.device.MathMode;
import io.gitm.device.Stream;
import io.gitm.nvidia.ffm.ErrorCodes;
import io.gitm.nvidia.ffm.Native;
import io.gitm.nvidia.ffm.NativeFunction;
import io.gitm.nvidia.ffm.NativeLibraries;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.LongUnaryOperator;
import java.util.function.ToLongFunction;
import org.jspecify.annotations.Nullable;

/**
 * {@link Blas} on cuBLAS: one handle, {@code cublasGemmEx} on {@code CUDA_R_32F} matrices with the compute type of the
 * math mode in force ({@link #computeType}). The stream and device pointers are resolved by the functions the owning
 * device passes in, so this package knows nothing of the device's classes. Not thread-safe: cuBLAS handles are not.
 *
 * <p>Each stream the handle computes on gets a workspace of its own ({@link #WORKSPACE_BYTES}, allocated by the
 * owning device the first time the stream is used or {@link #prepare prepared}) set with {@code cublasSetWorkspace}
 * after every {@code cublasSetStream} (which resets it): cuBLAS then never allocates while a stream is being captured
 * into a graph, and two streams never share scratch memory. Where {@code cublasSetWorkspace_v2} is missing, cuBLAS's
 * own default workspace is used.
 */
public final class CublasBlas implements Blas, AutoCloseable {
  static final int CUBLAS_OP_N = 0;
  static final int CUBLAS_OP_T = 1;
  static final int CUDA_R_32F = 0;
  static final int CUBLAS_COMPUTE_32F = 68;
  static final int CUBLAS_COMPUTE_32F_FAST_16BF = 75;
  static final int CUBLAS_COMPUTE_32F_FAST_TF32 = 77;
  static final int CUBLAS_GEMM_DEFAULT = -1;
  /** A stream's workspace: 32 MiB, cuBLAS's recommendation for Hopper (more than other architectures use). */
  public static final long WORKSPACE_BYTES = 32L << 20;

  private static final NativeFunction CREATE = fn(FunctionDescriptor.of(C_INT, C_POINTER), "cublasCreate_v2");
  private static final NativeFunction DESTROY = fn(FunctionDescriptor.of(C_INT, C_POINTER), "cublasDestroy_v2");
  private static final NativeFunction SET_STREAM =
      fn(FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER), "cublasSetStream_v2");
  private static final NativeFunction GET_VERSION =
      fn(FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER), "cublasGetVersion_v2");
  private static final NativeFunction GEMM_EX = fn(FunctionDescriptor.of(C_INT,
      C_POINTER, C_INT, C_INT, C_INT, C_INT, C_INT, // handle, transa, transb, m, n, k
      C_POINTER, C_POINTER, C_INT, C_INT, // alpha, A, Atype, lda
      C_POINTER, C_INT, C_INT, // B, Btype, ldb
      C_POINTER, C_POINTER, C_INT, C_INT, // beta, C, Ctype, ldc
      C_INT, C_INT), "cublasGemmEx"); // computeType, algo
  private static final NativeFunction SET_WORKSPACE =
      fn(FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, Native.C_SIZE_T), "cublasSetWorkspace_v2");

  private static NativeFunction fn(FunctionDescriptor d, String name) {
    return new NativeFunction(() -> NativeLibraries.find("cublas"), d, name);
  }

  private final Function<Stream, MemorySegment> streams;
  private final ToLongFunction<DeviceMemory> pointers;
  private final LongUnaryOperator allocateWorkspace;
  private final Map<MemorySegment, Long> workspaces = new HashMap<>();
  private final MemorySegment handle;
  private final Arena scalars = Arena.ofShared();
  private final MemorySegment alphaBeta = scalars.allocate(8, 8);
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile MathMode mode = MathMode.DEFAULT;
  private @Nullable MemorySegment boundStream;

  /**
   * Creates the cuBLAS handle; the calling thread must have the device's context current. {@code allocateWorkspace}
   * returns the device address of a new allocation of the given bytes that lives as long as the device.
   */
  public CublasBlas(Function<Stream, MemorySegment> streams, ToLongFunction<DeviceMemory> pointers,
      LongUnaryOperator allocateWorkspace) {
    this.streams = streams;
    this.pointers = pointers;
    this.allocateWorkspace = allocateWorkspace;
    try (Arena a = Arena.ofConfined()) {
      MemorySegment p = a.allocate(ValueLayout.ADDRESS);
      ErrorCodes.checkCublas("cublasCreate_v2", call(CREATE, p));
      this.handle = p.get(ValueLayout.ADDRESS, 0);
    }
  }

  /** cuBLAS's version number (e.g. 130000 and up for 13.0), or -1 when unreadable. */
  public int version() {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment v = a.allocate(ValueLayout.JAVA_INT);
      return call(GET_VERSION, handle, v) == 0 ? v.get(ValueLayout.JAVA_INT, 0) : -1;
    }
  }

  /** The {@code cublasComputeType_t} used for FP32 data in {@code mode}. */
  static int computeType(MathMode mode) {
    return switch (mode) {
      case DEFAULT -> CUBLAS_COMPUTE_32F;
      case TF32 -> CUBLAS_COMPUTE_32F_FAST_TF32;
      case BF16 -> CUBLAS_COMPUTE_32F_FAST_16BF;
    };
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

  @Override
  public synchronized void sgemm(Stream stream, boolean transA, boolean transB, int m, int n, int k, float alpha,
      DeviceMemory a, int lda, DeviceMemory b, int ldb, float beta, DeviceMemory c, int ldc) {
    if (closed.get()) {
      throw new IllegalStateException("cuBLAS handle is closed");
    }
    if (m <= 0 || n <= 0 || k <= 0) {
      throw new IllegalArgumentException("GEMM dimensions must be positive: m=" + m + " n=" + n + " k=" + k);
    }
    int rowsA = transA ? k : m;
    int rowsB = transB ? n : k;
    if (lda < Math.max(1, rowsA) || ldb < Math.max(1, rowsB) || ldc < Math.max(1, m)) {
      throw new IllegalArgumentException("GEMM leading dimensions too small: lda=" + lda + " (>= " + rowsA
          + "), ldb=" + ldb + " (>= " + rowsB + "), ldc=" + ldc + " (>= " + m + ")");
    }
    need(a, (long) lda * (transA ? m : k), "A");
    need(b, (long) ldb * (transB ? k : n), "B");
    need(c, (long) ldc * n, "C");
    MemorySegment s = streams.apply(stream);
    try {
      bind(s);
      alphaBeta.set(ValueLayout.JAVA_FLOAT, 0, alpha);
      alphaBeta.set(ValueLayout.JAVA_FLOAT, 4, beta);
      int rc = (int) GEMM_EX.handle().invoke(handle, transA ? CUBLAS_OP_T : CUBLAS_OP_N,
          transB ? CUBLAS_OP_T : CUBLAS_OP_N, m, n, k, alphaBeta.asSlice(0, 4), MemorySegment.ofAddress(
              pointers.applyAsLong(a)), CUDA_R_32F, lda, MemorySegment.ofAddress(pointers.applyAsLong(b)), CUDA_R_32F,
          ldb, alphaBeta.asSlice(4, 4), MemorySegment.ofAddress(pointers.applyAsLong(c)), CUDA_R_32F, ldc,
          computeType(mode), CUBLAS_GEMM_DEFAULT);
      ErrorCodes.checkCublas("cublasGemmEx", rc);
    } catch (Throwable t) {
      throw Native.rethrow(t);
    }
  }

  /**
   * Allocates {@code stream}'s workspace now if it has none: called before the stream is captured into a graph,
   * since allocating device memory during a capture invalidates it.
   */
  public synchronized void prepare(Stream stream) {
    if (closed.get()) {
      throw new IllegalStateException("cuBLAS handle is closed");
    }
    workspace(streams.apply(stream));
  }

  private long workspace(MemorySegment s) {
    if (!SET_WORKSPACE.available()) {
      return 0;
    }
    return workspaces.computeIfAbsent(s, x -> allocateWorkspace.applyAsLong(WORKSPACE_BYTES));
  }

  /** Makes {@code s} the handle's stream, with its own workspace (cublasSetStream resets the workspace). */
  private void bind(MemorySegment s) throws Throwable {
    if (boundStream != null && boundStream.equals(s)) {
      return;
    }
    long ws = workspace(s);
    ErrorCodes.checkCublas("cublasSetStream_v2", (int) SET_STREAM.handle().invoke(handle, s));
    boundStream = s;
    if (ws != 0) {
      ErrorCodes.checkCublas("cublasSetWorkspace_v2", (int) SET_WORKSPACE.handle().invoke(handle,
          MemorySegment.ofAddress(ws), WORKSPACE_BYTES));
    }
  }

  private static void need(DeviceMemory m, long floats, String name) {
    if (m.bytes() < 4 * floats) {
      throw new IllegalArgumentException("GEMM matrix " + name + " needs " + 4 * floats + " B, buffer has "
          + m.bytes() + " B");
    }
  }

  private static int call(NativeFunction f, Object... args) {
    try {
      return (int) f.handle().invokeWithArguments(args);
    } catch (Throwable t) {
      throw Native.rethrow(t);
    }
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      try {
        ErrorCodes.checkCublas("cublasDestroy_v2", call(DESTROY, handle));
      } finally {
        scalars.close();
      }
    }
  }
}
