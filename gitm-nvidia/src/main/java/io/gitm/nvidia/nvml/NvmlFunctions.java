package io.gitm.nvidia.nvml;

import static io.gitm.nvidia.ffm.Native.C_INT;
import static io.gitm.nvidia.ffm.Native.C_POINTER;

import io.gitm.nvidia.ffm.NativeFunction;
import io.gitm.nvidia.ffm.NativeLibrary;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.ValueLayout;
import java.util.function.Supplier;

/**
 * The NVML functions gitm calls, declared from NVIDIA's NVML API reference, bound to one library: the process's
 * libnvidia-ml ({@link Nvml#LIB}), or a stand-in that tests load from a path. Each resolves on first use.
 */
final class NvmlFunctions {
  final NativeFunction init;
  final NativeFunction systemGetDriverVersion;
  final NativeFunction systemGetCudaDriverVersion;
  final NativeFunction deviceGetCount;
  final NativeFunction deviceGetHandleByIndex;
  final NativeFunction deviceGetHandleByUUID;
  final NativeFunction deviceGetName;
  final NativeFunction deviceGetUUID;
  final NativeFunction deviceGetUtilizationRates;
  final NativeFunction deviceGetMemoryInfo;
  final NativeFunction deviceGetPowerUsage;
  final NativeFunction deviceGetEnforcedPowerLimit;
  final NativeFunction deviceGetClockInfo;
  final NativeFunction deviceGetTemperature;
  final NativeFunction deviceGetClockEventReasons;
  final NativeFunction deviceGetFieldValues;
  final NativeFunction deviceGetTotalEccErrors;
  final NativeFunction deviceGetRetiredPages;
  final NativeFunction deviceGetRemappedRows;
  final NativeFunction deviceGetComputeRunningProcesses;
  final NativeFunction deviceGetProcessUtilization;

  NvmlFunctions(Supplier<NativeLibrary> library) {
    init = fn(library, r(), "nvmlInit_v2", "nvmlInit");
    systemGetDriverVersion = fn(library, r(C_POINTER, C_INT), "nvmlSystemGetDriverVersion");
    systemGetCudaDriverVersion =
        fn(library, r(C_POINTER), "nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion");
    deviceGetCount = fn(library, r(C_POINTER), "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount");
    deviceGetHandleByIndex =
        fn(library, r(C_INT, C_POINTER), "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex");
    deviceGetHandleByUUID = fn(library, r(C_POINTER, C_POINTER), "nvmlDeviceGetHandleByUUID");
    deviceGetName = fn(library, r(C_POINTER, C_POINTER, C_INT), "nvmlDeviceGetName");
    deviceGetUUID = fn(library, r(C_POINTER, C_POINTER, C_INT), "nvmlDeviceGetUUID");
    deviceGetUtilizationRates = fn(library, r(C_POINTER, C_POINTER), "nvmlDeviceGetUtilizationRates");
    deviceGetMemoryInfo = fn(library, r(C_POINTER, C_POINTER), "nvmlDeviceGetMemoryInfo");
    deviceGetPowerUsage = fn(library, r(C_POINTER, C_POINTER), "nvmlDeviceGetPowerUsage");
    deviceGetEnforcedPowerLimit = fn(library, r(C_POINTER, C_POINTER), "nvmlDeviceGetEnforcedPowerLimit");
    deviceGetClockInfo = fn(library, r(C_POINTER, C_INT, C_POINTER), "nvmlDeviceGetClockInfo");
    deviceGetTemperature = fn(library, r(C_POINTER, C_INT, C_POINTER), "nvmlDeviceGetTemperature");
    deviceGetClockEventReasons = fn(library, r(C_POINTER, C_POINTER), "nvmlDeviceGetCurrentClocksEventReasons",
        "nvmlDeviceGetCurrentClocksThrottleReasons");
    deviceGetFieldValues = fn(library, r(C_POINTER, C_INT, C_POINTER), "nvmlDeviceGetFieldValues");
    deviceGetTotalEccErrors = fn(library, r(C_POINTER, C_INT, C_INT, C_POINTER), "nvmlDeviceGetTotalEccErrors");
    deviceGetRetiredPages = fn(library, r(C_POINTER, C_INT, C_POINTER, C_POINTER), "nvmlDeviceGetRetiredPages");
    deviceGetRemappedRows =
        fn(library, r(C_POINTER, C_POINTER, C_POINTER, C_POINTER, C_POINTER), "nvmlDeviceGetRemappedRows");
    deviceGetComputeRunningProcesses = fn(library, r(C_POINTER, C_POINTER, C_POINTER),
        "nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2");
    deviceGetProcessUtilization = fn(library, r(C_POINTER, C_POINTER, C_POINTER, ValueLayout.JAVA_LONG),
        "nvmlDeviceGetProcessUtilization");
  }

  private static NativeFunction fn(Supplier<NativeLibrary> library, FunctionDescriptor d, String... names) {
    return new NativeFunction(library, d, names);
  }

  private static FunctionDescriptor r(MemoryLayout... args) {
    return FunctionDescriptor.of(C_INT, args);
  }
}
