package io.gitm.nvidia.cupti;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.gitm.device.DeviceException;
import io.gitm.nvidia.ffm.NativeLibraries;
import io.gitm.nvidia.ffm.NativeLibrary;
import io.gitm.trace.DeviceKind;
import io.gitm.trace.TraceDevice;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;

/**
 * The few CUDA driver API calls the tracer needs for its device table, and that its GPU tests and the tracing
 * overhead benchmark use to launch work ({@code libcuda.so.1}, as {@link NativeLibraries#find} finds it). Every
 * non-zero {@code CUresult} becomes a {@link DeviceException} with the function, the code and the driver's name for
 * it.
 */
final class Driver {
  private static volatile Driver instance;

  private final MethodHandle cuInit;
  private final MethodHandle cuDriverGetVersion;
  private final MethodHandle cuDeviceGetCount;
  private final MethodHandle cuDeviceGet;
  private final MethodHandle cuDeviceGetName;
  private final MethodHandle cuDeviceGetUuid;
  private final MethodHandle cuGetErrorName;
  private final MethodHandle cuDevicePrimaryCtxRetain;
  private final MethodHandle cuCtxSetCurrent;
  private final MethodHandle cuModuleLoadData;
  private final MethodHandle cuModuleGetFunction;
  private final MethodHandle cuMemAlloc;
  private final MethodHandle cuMemFree;
  private final MethodHandle cuMemAllocHost;
  private final MethodHandle cuMemFreeHost;
  private final MethodHandle cuMemcpyHtoD;
  private final MethodHandle cuMemcpyDtoH;
  private final MethodHandle cuMemsetD8;
  private final MethodHandle cuLaunchKernel;
  private final MethodHandle cuCtxSynchronize;
  private final MethodHandle cuStreamCreate;
  private final MethodHandle cuStreamSynchronize;

  private Driver(NativeLibrary lib) {
    cuInit = lib.downcall("cuInit", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    cuDriverGetVersion = lib.downcall("cuDriverGetVersion", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    cuDeviceGetCount = lib.downcall("cuDeviceGetCount", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    cuDeviceGet = lib.downcall("cuDeviceGet", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    cuDeviceGetName = lib.downcall("cuDeviceGetName", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
    cuDeviceGetUuid = lib.downcall("cuDeviceGetUuid_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    cuGetErrorName = lib.downcall("cuGetErrorName", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
    cuDevicePrimaryCtxRetain = lib.downcall("cuDevicePrimaryCtxRetain",
        FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    cuCtxSetCurrent = lib.downcall("cuCtxSetCurrent", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    cuModuleLoadData = lib.downcall("cuModuleLoadData", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    cuModuleGetFunction = lib.downcall("cuModuleGetFunction",
        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    cuMemAlloc = lib.downcall("cuMemAlloc_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
    cuMemFree = lib.downcall("cuMemFree_v2", FunctionDescriptor.of(JAVA_INT, JAVA_LONG));
    cuMemAllocHost = lib.downcall("cuMemAllocHost_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
    cuMemFreeHost = lib.downcall("cuMemFreeHost", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    cuMemcpyHtoD = lib.downcall("cuMemcpyHtoD_v2", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS, JAVA_LONG));
    cuMemcpyDtoH = lib.downcall("cuMemcpyDtoH_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG));
    cuMemsetD8 = lib.downcall("cuMemsetD8_v2", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_BYTE, JAVA_LONG));
    cuLaunchKernel = lib.downcall("cuLaunchKernel", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT,
        JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    cuCtxSynchronize = lib.downcall("cuCtxSynchronize", FunctionDescriptor.of(JAVA_INT));
    cuStreamCreate = lib.downcall("cuStreamCreate", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    cuStreamSynchronize = lib.downcall("cuStreamSynchronize", FunctionDescriptor.of(JAVA_INT, ADDRESS));
  }

  /** The process's driver, opened and initialized ({@code cuInit(0)}) on first use. */
  static Driver instance() {
    Driver d = instance;
    if (d == null) {
      synchronized (Driver.class) {
        if (instance == null) {
          Driver nd = new Driver(NativeLibraries.find("cuda"));
          nd.check("cuInit", call(() -> (int) nd.cuInit.invokeExact(0)));
          instance = nd;
        }
        d = instance;
      }
    }
    return d;
  }

  @FunctionalInterface
  private interface Call {
    int run() throws Throwable;
  }

  @FunctionalInterface
  private interface PtrCall {
    int run(MemorySegment out) throws Throwable;
  }

  private static int call(Call c) {
    try {
      return c.run();
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  void check(String function, int rc) {
    if (rc != 0) {
      String name = "CUDA_ERROR_" + rc;
      try (Arena a = Arena.ofConfined()) {
        MemorySegment out = a.allocate(ADDRESS);
        if ((int) cuGetErrorName.invokeExact(rc, out) == 0) {
          name = out.get(ADDRESS, 0).reinterpret(256).getString(0);
        }
      } catch (Throwable t) {
        // keep the numeric name
      }
      throw new DeviceException(function, rc, name, "");
    }
  }

  private long outLong(String function, PtrCall c) {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment out = a.allocate(JAVA_LONG);
      check(function, call(() -> c.run(out)));
      return out.get(JAVA_LONG, 0);
    }
  }

  private MemorySegment outPtr(String function, PtrCall c) {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment out = a.allocate(ADDRESS);
      check(function, call(() -> c.run(out)));
      return out.get(ADDRESS, 0);
    }
  }

  private int outInt(String function, PtrCall c) {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment out = a.allocate(JAVA_INT);
      check(function, call(() -> c.run(out)));
      return out.get(JAVA_INT, 0);
    }
  }

  /** The CUDA version the driver supports, e.g. {@code 13.0}. */
  String cudaVersion() {
    int v = outInt("cuDriverGetVersion", o -> (int) cuDriverGetVersion.invokeExact(o));
    return (v / 1000) + "." + (v % 1000) / 10;
  }

  int deviceCount() {
    return outInt("cuDeviceGetCount", o -> (int) cuDeviceGetCount.invokeExact(o));
  }

  int device(int ordinal) {
    return outInt("cuDeviceGet", o -> (int) cuDeviceGet.invokeExact(o, ordinal));
  }

  /** Every device as the trace meta names it: ordinal, name, {@code GPU-xxxxxxxx-…} UUID, REAL. */
  List<TraceDevice> traceDevices() {
    List<TraceDevice> out = new ArrayList<>();
    int n = deviceCount();
    for (int i = 0; i < n; i++) {
      int dev = device(i);
      try (Arena a = Arena.ofConfined()) {
        MemorySegment name = a.allocate(256);
        check("cuDeviceGetName", call(() -> (int) cuDeviceGetName.invokeExact(name, 256, dev)));
        MemorySegment uuid = a.allocate(16);
        check("cuDeviceGetUuid_v2", call(() -> (int) cuDeviceGetUuid.invokeExact(uuid, dev)));
        out.add(new TraceDevice(i, name.getString(0), formatUuid(uuid.toArray(JAVA_BYTE)), DeviceKind.REAL));
      }
    }
    return out;
  }

  /** Formats 16 UUID bytes as nvidia-smi does: {@code GPU-8-4-4-4-12} lowercase hex digits. */
  static String formatUuid(byte[] b) {
    if (b.length != 16) {
      throw new IllegalArgumentException("a UUID has 16 bytes, got " + b.length);
    }
    StringBuilder s = new StringBuilder("GPU-");
    for (int i = 0; i < 16; i++) {
      if (i == 4 || i == 6 || i == 8 || i == 10) {
        s.append('-');
      }
      s.append(Character.forDigit((b[i] >> 4) & 0xf, 16)).append(Character.forDigit(b[i] & 0xf, 16));
    }
    return s.toString();
  }

  /** Retains device {@code ordinal}'s primary context and makes it current on this thread. */
  MemorySegment usePrimaryContext(int ordinal) {
    int dev = device(ordinal);
    MemorySegment ctx = outPtr("cuDevicePrimaryCtxRetain", o -> (int) cuDevicePrimaryCtxRetain.invokeExact(o, dev));
    check("cuCtxSetCurrent", call(() -> (int) cuCtxSetCurrent.invokeExact(ctx)));
    return ctx;
  }

  /** Loads PTX text (NUL-terminated here) and returns the module. */
  MemorySegment loadPtx(String ptx) {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment image = a.allocateFrom(ptx);
      return outPtr("cuModuleLoadData", o -> (int) cuModuleLoadData.invokeExact(o, image));
    }
  }

  MemorySegment function(MemorySegment module, String name) {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment n = a.allocateFrom(name);
      return outPtr("cuModuleGetFunction(" + name + ")", o -> (int) cuModuleGetFunction.invokeExact(o, module, n));
    }
  }

  long malloc(long bytes) {
    return outLong("cuMemAlloc_v2", o -> (int) cuMemAlloc.invokeExact(o, bytes));
  }

  void free(long dptr) {
    check("cuMemFree_v2", call(() -> (int) cuMemFree.invokeExact(dptr)));
  }

  /** Page-locked host memory of {@code bytes}, as a segment of that size. */
  MemorySegment mallocHost(long bytes) {
    return outPtr("cuMemAllocHost_v2", o -> (int) cuMemAllocHost.invokeExact(o, bytes)).reinterpret(bytes);
  }

  void freeHost(MemorySegment p) {
    check("cuMemFreeHost", call(() -> (int) cuMemFreeHost.invokeExact(p)));
  }

  void copyHtoD(long dst, MemorySegment src, long bytes) {
    check("cuMemcpyHtoD_v2", call(() -> (int) cuMemcpyHtoD.invokeExact(dst, src, bytes)));
  }

  void copyDtoH(MemorySegment dst, long src, long bytes) {
    check("cuMemcpyDtoH_v2", call(() -> (int) cuMemcpyDtoH.invokeExact(dst, src, bytes)));
  }

  void memsetD8(long dst, byte value, long count) {
    check("cuMemsetD8_v2", call(() -> (int) cuMemsetD8.invokeExact(dst, value, count)));
  }

  /** Launches {@code f}; {@code params} is a {@code void*[]} of pointers to each argument. */
  void launch(MemorySegment f, int gridX, int blockX, MemorySegment stream, MemorySegment params) {
    check("cuLaunchKernel", call(() -> (int) cuLaunchKernel.invokeExact(f, gridX, 1, 1, blockX, 1, 1, 0, stream,
        params, MemorySegment.NULL)));
  }

  void synchronize() {
    check("cuCtxSynchronize", call(() -> (int) cuCtxSynchronize.invokeExact()));
  }

  /** A new non-blocking stream ({@code CU_STREAM_NON_BLOCKING}). */
  MemorySegment createStream() {
    return outPtr("cuStreamCreate", o -> (int) cuStreamCreate.invokeExact(o, 1));
  }

  void synchronize(MemorySegment stream) {
    check("cuStreamSynchronize", call(() -> (int) cuStreamSynchronize.invokeExact(stream)));
  }
}
