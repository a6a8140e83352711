package io.gitm.nvidia.cuda;

import static io.gitm.nvidia.cuda.Cu.call;
import static io.gitm.nvidia.cuda.Cu.check;

import io.gitm.device.DeviceInfo;
import io.gitm.nvidia.ffm.Native;
import io.gitm.nvidia.nvml.Nvml;
import io.gitm.trace.DeviceKind;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;

/**
 * What the CUDA driver says before any device is opened: whether it initializes, how many devices it sees, the CUDA
 * version it supports, and each device's description. No call here needs a context.
 */
final class CudaDriver {
  private CudaDriver() {
  }

  static void init() {
    check(Cu.cuInit, call(Cu.cuInit, 0));
  }

  static int deviceCount() {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment n = a.allocate(ValueLayout.JAVA_INT);
      check(Cu.cuDeviceGetCount, call(Cu.cuDeviceGetCount, n));
      return n.get(ValueLayout.JAVA_INT, 0);
    }
  }

  /** The driver's CUDA version as {@code major.minor} (e.g. 13.0). */
  static String driverCudaVersion() {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment v = a.allocate(ValueLayout.JAVA_INT);
      check(Cu.cuDriverGetVersion, call(Cu.cuDriverGetVersion, v));
      int x = v.get(ValueLayout.JAVA_INT, 0);
      return (x / 1000) + "." + (x % 1000) / 10;
    }
  }

  /** Name, UUID, compute capability, multiprocessors, memory and L2 of device {@code d}, without a context. */
  static DeviceInfo describe(int ordinal, int d, Arena a) {
    MemorySegment name = a.allocate(256);
    check(Cu.cuDeviceGetName, call(Cu.cuDeviceGetName, name, 256, d));
    MemorySegment uuid = a.allocate(Cu.UUID_SIZE);
    check(Cu.cuDeviceGetUuid, call(Cu.cuDeviceGetUuid, uuid, d));
    MemorySegment total = a.allocate(ValueLayout.JAVA_LONG);
    check(Cu.cuDeviceTotalMem, call(Cu.cuDeviceTotalMem, total, d));
    int major = attribute(d, Cu.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    int minor = attribute(d, Cu.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    int least = 0;
    int greatest = 0;
    MemorySegment lo = a.allocate(ValueLayout.JAVA_INT);
    MemorySegment hi = a.allocate(ValueLayout.JAVA_INT);
    if (call(Cu.cuCtxGetStreamPriorityRange, lo, hi) == 0) {
      least = lo.get(ValueLayout.JAVA_INT, 0);
      greatest = hi.get(ValueLayout.JAVA_INT, 0);
    }
    String uuidText = formatUuid(uuid.toArray(ValueLayout.JAVA_BYTE));
    String driver = Nvml.driverVersion().orElse("CUDA " + driverCudaVersion());
    return new DeviceInfo("nvidia", DeviceKind.REAL, ordinal, Native.cString(name), uuidText, major + "." + minor,
        attribute(d, Cu.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT), total.get(ValueLayout.JAVA_LONG, 0),
        attribute(d, Cu.CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE), driver, least, greatest);
  }

  /** NVIDIA's text form of a device UUID: {@code GPU-} then 8-4-4-4-12 hex digits. */
  static String formatUuid(byte[] b) {
    String h = HexFormat.of().formatHex(b);
    return "GPU-" + h.substring(0, 8) + "-" + h.substring(8, 12) + "-" + h.substring(12, 16) + "-"
        + h.substring(16, 20) + "-" + h.substring(20, 32);
  }

  static int attribute(int d, int attr) {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment v = a.allocate(ValueLayout.JAVA_INT);
      check(Cu.cuDeviceGetAttribute, call(Cu.cuDeviceGetAttribute, v, attr, d));
      return v.get(ValueLayout.JAVA_INT, 0);
    }
  }
}
