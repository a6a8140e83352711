package io.gitm.nvidia.nvml;

import io.gitm.device.DeviceException;
import io.gitm.nvidia.ffm.ErrorCodes;
import io.gitm.nvidia.ffm.Native;
import io.gitm.nvidia.ffm.NativeFunction;
import io.gitm.nvidia.ffm.NativeLibraries;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Optional;

/**
 * NVML's constants and struct layouts, declared from NVIDIA's NVML API reference (there is no nvml.h on these
 * machines), and the process-wide entry points. {@code nvmlDevice_t} is an address. NVML is initialised once per
 * process and left initialised.
 */
public final class Nvml {
  private Nvml() {
  }

  static final int SUCCESS = 0;
  static final int ERROR_NOT_SUPPORTED = 3;
  static final int ERROR_NO_PERMISSION = 4;
  static final int ERROR_NOT_FOUND = 6;
  static final int ERROR_INSUFFICIENT_SIZE = 7;
  static final int ERROR_FUNCTION_NOT_FOUND = 13;
  static final int ERROR_NO_DATA = 21;
  static final int ERROR_DEPRECATED = 26;

  // nvmlClockType_t
  static final int CLOCK_GRAPHICS = 0;
  static final int CLOCK_SM = 1;
  static final int CLOCK_MEM = 2;
  static final int TEMPERATURE_GPU = 0;
  // nvmlMemoryErrorType_t, nvmlEccCounterType_t
  static final int MEMORY_ERROR_CORRECTED = 0;
  static final int MEMORY_ERROR_UNCORRECTED = 1;
  static final int VOLATILE_ECC = 0;
  static final int AGGREGATE_ECC = 1;
  // nvmlPageRetirementCause_t
  static final int PAGE_RETIREMENT_MULTIPLE_SINGLE_BIT = 0;
  static final int PAGE_RETIREMENT_DOUBLE_BIT = 1;
  // field ids (nvml.h NVML_FI_*)
  static final int FI_DEV_NVLINK_THROUGHPUT_DATA_TX = 138;
  static final int FI_DEV_NVLINK_THROUGHPUT_DATA_RX = 139;
  static final int FI_DEV_PCIE_COUNT_TX_BYTES = 197;
  static final int FI_DEV_PCIE_COUNT_RX_BYTES = 198;
  /** scopeId asking for the sum over all NVLink links. */
  static final int SCOPE_ALL_LINKS = 0xFFFFFFFF;
  // nvmlValueType_t
  static final int VALUE_DOUBLE = 0;
  static final int VALUE_UNSIGNED_INT = 1;
  static final int VALUE_UNSIGNED_LONG = 2;
  static final int VALUE_UNSIGNED_LONG_LONG = 3;
  static final int VALUE_SIGNED_LONG_LONG = 4;
  static final int VALUE_SIGNED_INT = 5;
  static final int VALUE_UNSIGNED_SHORT = 6;

  /** {@code nvmlUtilization_t}: unsigned int gpu, memory. */
  static final long UTILIZATION_SIZE = 8;
  /** {@code nvmlMemory_t} (v1): unsigned long long total, free, used. */
  static final long MEMORY_SIZE = 24;
  /**
   * {@code nvmlFieldValue_t}: unsigned int fieldId (0), unsigned int scopeId (4), long long timestamp (8, us),
   * long long latencyUsec (16), nvmlValueType_t valueType (24), nvmlReturn_t nvmlReturn (28), nvmlValue_t value
   * (32, an 8-byte union); 40 bytes.
   */
  static final long FIELD_VALUE_SIZE = 40;
  static final long FV_FIELD_ID = 0;
  static final long FV_SCOPE_ID = 4;
  static final long FV_TIMESTAMP = 8;
  static final long FV_VALUE_TYPE = 24;
  static final long FV_RETURN = 28;
  static final long FV_VALUE = 32;
  /**
   * {@code nvmlProcessInfo_t} (the struct of the _v2/_v3 running-process queries): unsigned int pid (0), unsigned long
   * long usedGpuMemory (8), unsigned int gpuInstanceId (16), unsigned int computeInstanceId (20); 24 bytes.
   */
  static final long PROCESS_INFO_SIZE = 24;
  /**
   * {@code nvmlProcessUtilizationSample_t}: unsigned int pid (0), unsigned long long timeStamp (8), unsigned int
   * smUtil (16), memUtil (20), encUtil (24), decUtil (28); 32 bytes.
   */
  static final long PROCESS_UTIL_SIZE = 32;
  /** NVML_DEVICE_UUID_V2_BUFFER_SIZE, NVML_DEVICE_NAME_V2_BUFFER_SIZE, NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE. */
  static final int UUID_BUFFER = 96;
  static final int NAME_BUFFER = 96;
  static final int DRIVER_VERSION_BUFFER = 80;

  /** The functions of the process's libnvidia-ml (found by {@link NativeLibraries}). */
  static final NvmlFunctions LIB = new NvmlFunctions(() -> NativeLibraries.find("nvidia-ml"));

  private static volatile DeviceException initFailure;
  private static volatile boolean initialised;

  static int call(NativeFunction f, Object... args) {
    try {
      return (int) f.handle().invokeWithArguments(args);
    } catch (Throwable t) {
      throw Native.rethrow(t);
    }
  }

  /** Initialises NVML once; a failure (no library, no driver) is remembered and raised again. */
  public static synchronized void init() {
    if (initialised) {
      return;
    }
    if (initFailure != null) {
      throw initFailure;
    }
    try {
      ErrorCodes.checkNvml(LIB.init.name(), call(LIB.init));
      initialised = true;
    } catch (DeviceException e) {
      initFailure = e;
      throw e;
    }
  }

  /** The driver's version string (e.g. 580.159.04), empty when NVML is not usable. */
  public static Optional<String> driverVersion() {
    try {
      init();
      try (Arena a = Arena.ofConfined()) {
        MemorySegment b = a.allocate(DRIVER_VERSION_BUFFER);
        return call(LIB.systemGetDriverVersion, b, DRIVER_VERSION_BUFFER) == SUCCESS ? Optional.of(Native.cString(b))
            : Optional.empty();
      }
    } catch (DeviceException e) {
      return Optional.empty();
    }
  }

  /** The CUDA version the driver supports, as major.minor. */
  public static String cudaDriverVersion() {
    init();
    try (Arena a = Arena.ofConfined()) {
      MemorySegment v = a.allocate(ValueLayout.JAVA_INT);
      ErrorCodes.checkNvml(LIB.systemGetCudaDriverVersion.name(), call(LIB.systemGetCudaDriverVersion, v));
      int x = v.get(ValueLayout.JAVA_INT, 0);
      return (x / 1000) + "." + (x % 1000) / 10;
    }
  }

  public static int deviceCount() {
    init();
    try (Arena a = Arena.ofConfined()) {
      MemorySegment n = a.allocate(ValueLayout.JAVA_INT);
      ErrorCodes.checkNvml(LIB.deviceGetCount.name(), call(LIB.deviceGetCount, n));
      return n.get(ValueLayout.JAVA_INT, 0);
    }
  }

  static MemorySegment handleByIndex(int index) {
    init();
    return handleByIndex(LIB, index);
  }

  /** The handle of device {@code index} from {@code lib}, which must be initialised. */
  static MemorySegment handleByIndex(NvmlFunctions lib, int index) {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment h = a.allocate(ValueLayout.ADDRESS);
      ErrorCodes.checkNvml(lib.deviceGetHandleByIndex.name(), call(lib.deviceGetHandleByIndex, index, h));
      return h.get(ValueLayout.ADDRESS, 0);
    }
  }

  static MemorySegment handleByUuid(String uuid) {
    init();
    try (Arena a = Arena.ofConfined()) {
      MemorySegment h = a.allocate(ValueLayout.ADDRESS);
      ErrorCodes.checkNvml(LIB.deviceGetHandleByUUID.name(),
          call(LIB.deviceGetHandleByUUID, a.allocateFrom(uuid), h));
      return h.get(ValueLayout.ADDRESS, 0);
    }
  }

  static String text(NativeFunction f, MemorySegment device, int size) {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment b = a.allocate(size);
      ErrorCodes.checkNvml(f.name(), call(f, device, b, size));
      return Native.cString(b);
    }
  }
}
