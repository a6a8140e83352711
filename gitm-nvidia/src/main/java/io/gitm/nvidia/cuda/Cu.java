package io.gitm.nvidia.cuda;

import static io.gitm.nvidia.ffm.Native.C_FLOAT;
import static io.gitm.nvidia.ffm.Native.C_INT;
import static io.gitm.nvidia.ffm.Native.C_LONG_LONG;
import static io.gitm.nvidia.ffm.Native.C_POINTER;
import static io.gitm.nvidia.ffm.Native.C_SIZE_T;

import io.gitm.nvidia.ffm.ErrorCodes;
import io.gitm.nvidia.ffm.Native;
import io.gitm.nvidia.ffm.NativeFunction;
import io.gitm.nvidia.ffm.NativeLibraries;
import io.gitm.nvidia.ffm.NativeLibrary;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.ValueLayout;

/**
 * The CUDA driver API functions gitm calls, by their exported (versioned) names as cuda.h of CUDA 13.0 maps them,
 * and the constants it passes, checked against cuda.h by {@code HeaderConstantsTest}. Handles resolve on first use;
 * {@code CUdeviceptr} and {@code size_t} are {@code long}, handles ({@code CUcontext}, {@code CUstream}, ...) are
 * addresses.
 */
final class Cu {
  private Cu() {
  }

  static NativeLibrary library() {
    return NativeLibraries.find("cuda");
  }

  private static NativeFunction fn(FunctionDescriptor d, String... names) {
    return new NativeFunction(Cu::library, d, names);
  }

  private static FunctionDescriptor r(MemoryLayout... args) {
    return FunctionDescriptor.of(C_INT, args);
  }

  // CUctx_flags
  static final int CU_CTX_SCHED_AUTO = 0x00;
  static final int CU_CTX_SCHED_SPIN = 0x01;
  static final int CU_CTX_SCHED_YIELD = 0x02;
  static final int CU_CTX_SCHED_BLOCKING_SYNC = 0x04;
  static final int CU_STREAM_NON_BLOCKING = 0x1;
  static final int CU_EVENT_DEFAULT = 0x0;
  static final int CU_EVENT_DISABLE_TIMING = 0x2;
  // CUdevice_attribute
  static final int CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13;
  static final int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
  static final int CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38;
  static final int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
  static final int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
  static final int CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97;
  static final int CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE = 108;
  static final int CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE = 109;
  static final int CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED = 115;
  // CUfunction_attribute
  static final int CU_FUNC_ATTRIBUTE_NUM_REGS = 4;
  static final int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
  static final int CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT = 9;
  // CUlimit
  static final int CU_LIMIT_PERSISTING_L2_CACHE_SIZE = 0x06;
  // CUmemPool_attribute
  static final int CU_MEMPOOL_ATTR_RELEASE_THRESHOLD = 4;
  static final int CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT = 5;
  static final int CU_MEMPOOL_ATTR_USED_MEM_CURRENT = 7;
  // CUlaunchAttributeID / CUstreamAttrID
  static final int CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW = 1;
  // CUaccessProperty
  static final int CU_ACCESS_PROPERTY_NORMAL = 0;
  static final int CU_ACCESS_PROPERTY_STREAMING = 1;
  static final int CU_ACCESS_PROPERTY_PERSISTING = 2;
  // CUstreamCaptureMode
  static final int CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1;
  static final int CUDA_ERROR_NOT_READY = 600;

  /** {@code CUaccessPolicyWindow}: base_ptr, num_bytes, hitRatio, hitProp, missProp (32 bytes). */
  static final long ACCESS_POLICY_WINDOW_SIZE = 32;
  static final long APW_BASE_PTR = 0;
  static final long APW_NUM_BYTES = 8;
  static final long APW_HIT_RATIO = 16;
  static final long APW_HIT_PROP = 20;
  static final long APW_MISS_PROP = 24;
  /** {@code CUlaunchAttributeValue} / {@code CUstreamAttrValue}: a 64-byte union. */
  static final long LAUNCH_ATTRIBUTE_VALUE_SIZE = 64;
  /** {@code CUuuid}: 16 bytes. */
  static final long UUID_SIZE = 16;

  static final NativeFunction cuInit = fn(r(C_INT), "cuInit");
  static final NativeFunction cuDriverGetVersion = fn(r(C_POINTER), "cuDriverGetVersion");
  static final NativeFunction cuDeviceGetCount = fn(r(C_POINTER), "cuDeviceGetCount");
  static final NativeFunction cuDeviceGet = fn(r(C_POINTER, C_INT), "cuDeviceGet");
  static final NativeFunction cuDeviceGetName = fn(r(C_POINTER, C_INT, C_INT), "cuDeviceGetName");
  static final NativeFunction cuDeviceGetUuid = fn(r(C_POINTER, C_INT), "cuDeviceGetUuid_v2", "cuDeviceGetUuid");
  static final NativeFunction cuDeviceTotalMem = fn(r(C_POINTER, C_INT), "cuDeviceTotalMem_v2");
  static final NativeFunction cuDeviceGetAttribute = fn(r(C_POINTER, C_INT, C_INT), "cuDeviceGetAttribute");
  static final NativeFunction cuDevicePrimaryCtxRetain = fn(r(C_POINTER, C_INT), "cuDevicePrimaryCtxRetain");
  static final NativeFunction cuDevicePrimaryCtxRelease = fn(r(C_INT), "cuDevicePrimaryCtxRelease_v2");
  static final NativeFunction cuDevicePrimaryCtxSetFlags = fn(r(C_INT, C_INT), "cuDevicePrimaryCtxSetFlags_v2");
  static final NativeFunction cuDevicePrimaryCtxGetState =
      fn(r(C_INT, C_POINTER, C_POINTER), "cuDevicePrimaryCtxGetState");
  static final NativeFunction cuCtxSetCurrent = fn(r(C_POINTER), "cuCtxSetCurrent");
  static final NativeFunction cuCtxSynchronize = fn(r(), "cuCtxSynchronize");
  static final NativeFunction cuCtxGetStreamPriorityRange =
      fn(r(C_POINTER, C_POINTER), "cuCtxGetStreamPriorityRange");
  static final NativeFunction cuCtxSetLimit = fn(r(C_INT, C_SIZE_T), "cuCtxSetLimit");
  static final NativeFunction cuCtxGetLimit = fn(r(C_POINTER, C_INT), "cuCtxGetLimit");
  static final NativeFunction cuCtxResetPersistingL2Cache = fn(r(), "cuCtxResetPersistingL2Cache");
  static final NativeFunction cuStreamCreateWithPriority =
      fn(r(C_POINTER, C_INT, C_INT), "cuStreamCreateWithPriority");
  static final NativeFunction cuStreamDestroy = fn(r(C_POINTER), "cuStreamDestroy_v2");
  static final NativeFunction cuStreamSynchronize = fn(r(C_POINTER), "cuStreamSynchronize");
  static final NativeFunction cuStreamWaitEvent = fn(r(C_POINTER, C_POINTER, C_INT), "cuStreamWaitEvent");
  static final NativeFunction cuStreamGetId = fn(r(C_POINTER, C_POINTER), "cuStreamGetId");
  static final NativeFunction cuStreamSetAttribute = fn(r(C_POINTER, C_INT, C_POINTER), "cuStreamSetAttribute");
  static final NativeFunction cuStreamBeginCapture = fn(r(C_POINTER, C_INT), "cuStreamBeginCapture_v2");
  static final NativeFunction cuStreamEndCapture = fn(r(C_POINTER, C_POINTER), "cuStreamEndCapture");
  static final NativeFunction cuGraphInstantiateWithFlags =
      fn(r(C_POINTER, C_POINTER, C_LONG_LONG), "cuGraphInstantiateWithFlags");
  static final NativeFunction cuGraphGetNodes = fn(r(C_POINTER, C_POINTER, C_POINTER), "cuGraphGetNodes");
  static final NativeFunction cuGraphLaunch = fn(r(C_POINTER, C_POINTER), "cuGraphLaunch");
  static final NativeFunction cuGraphExecDestroy = fn(r(C_POINTER), "cuGraphExecDestroy");
  static final NativeFunction cuGraphDestroy = fn(r(C_POINTER), "cuGraphDestroy");
  static final NativeFunction cuEventCreate = fn(r(C_POINTER, C_INT), "cuEventCreate");
  static final NativeFunction cuEventRecord = fn(r(C_POINTER, C_POINTER), "cuEventRecord");
  static final NativeFunction cuEventSynchronize = fn(r(C_POINTER), "cuEventSynchronize");
  static final NativeFunction cuEventElapsedTime =
      fn(r(C_POINTER, C_POINTER, C_POINTER), "cuEventElapsedTime_v2", "cuEventElapsedTime");
  static final NativeFunction cuEventDestroy = fn(r(C_POINTER), "cuEventDestroy_v2");
  static final NativeFunction cuMemAlloc = fn(r(C_POINTER, C_SIZE_T), "cuMemAlloc_v2");
  static final NativeFunction cuMemFree = fn(r(C_LONG_LONG), "cuMemFree_v2");
  static final NativeFunction cuMemAllocAsync = fn(r(C_POINTER, C_SIZE_T, C_POINTER), "cuMemAllocAsync");
  static final NativeFunction cuMemFreeAsync = fn(r(C_LONG_LONG, C_POINTER), "cuMemFreeAsync");
  static final NativeFunction cuDeviceGetDefaultMemPool = fn(r(C_POINTER, C_INT), "cuDeviceGetDefaultMemPool");
  static final NativeFunction cuMemPoolSetAttribute =
      fn(r(C_POINTER, C_INT, C_POINTER), "cuMemPoolSetAttribute");
  static final NativeFunction cuMemPoolGetAttribute =
      fn(r(C_POINTER, C_INT, C_POINTER), "cuMemPoolGetAttribute");
  static final NativeFunction cuMemPoolTrimTo = fn(r(C_POINTER, C_SIZE_T), "cuMemPoolTrimTo");
  static final NativeFunction cuMemHostAlloc = fn(r(C_POINTER, C_SIZE_T, C_INT), "cuMemHostAlloc");
  static final NativeFunction cuMemFreeHost = fn(r(C_POINTER), "cuMemFreeHost");
  static final NativeFunction cuMemcpyHtoD = fn(r(C_LONG_LONG, C_POINTER, C_SIZE_T), "cuMemcpyHtoD_v2");
  static final NativeFunction cuMemcpyDtoH = fn(r(C_POINTER, C_LONG_LONG, C_SIZE_T), "cuMemcpyDtoH_v2");
  static final NativeFunction cuMemcpyDtoD = fn(r(C_LONG_LONG, C_LONG_LONG, C_SIZE_T), "cuMemcpyDtoD_v2");
  static final NativeFunction cuMemcpyHtoDAsync =
      fn(r(C_LONG_LONG, C_POINTER, C_SIZE_T, C_POINTER), "cuMemcpyHtoDAsync_v2");
  static final NativeFunction cuMemcpyDtoHAsync =
      fn(r(C_POINTER, C_LONG_LONG, C_SIZE_T, C_POINTER), "cuMemcpyDtoHAsync_v2");
  static final NativeFunction cuMemcpyDtoDAsync =
      fn(r(C_LONG_LONG, C_LONG_LONG, C_SIZE_T, C_POINTER), "cuMemcpyDtoDAsync_v2");
  static final NativeFunction cuMemsetD8Async =
      fn(r(C_LONG_LONG, ValueLayout.JAVA_BYTE, C_SIZE_T, C_POINTER), "cuMemsetD8Async");
  static final NativeFunction cuMemGetInfo = fn(r(C_POINTER, C_POINTER), "cuMemGetInfo_v2");
  static final NativeFunction cuModuleLoadData = fn(r(C_POINTER, C_POINTER), "cuModuleLoadData");
  static final NativeFunction cuModuleUnload = fn(r(C_POINTER), "cuModuleUnload");
  static final NativeFunction cuModuleGetFunction = fn(r(C_POINTER, C_POINTER, C_POINTER), "cuModuleGetFunction");
  static final NativeFunction cuFuncGetAttribute = fn(r(C_POINTER, C_INT, C_POINTER), "cuFuncGetAttribute");
  static final NativeFunction cuFuncSetAttribute = fn(r(C_POINTER, C_INT, C_INT), "cuFuncSetAttribute");
  static final NativeFunction cuLaunchKernel = fn(r(C_POINTER, C_INT, C_INT, C_INT, C_INT, C_INT, C_INT, C_INT,
      C_POINTER, C_POINTER, C_POINTER), "cuLaunchKernel");
  static final NativeFunction cuOccupancyMaxActiveBlocksPerMultiprocessor =
      fn(r(C_POINTER, C_POINTER, C_INT, C_SIZE_T), "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  static final NativeFunction cuOccupancyMaxPotentialBlockSize = fn(
      r(C_POINTER, C_POINTER, C_POINTER, C_POINTER, C_SIZE_T, C_INT), "cuOccupancyMaxPotentialBlockSize");

  static void check(NativeFunction f, int code) {
    ErrorCodes.checkCuda(f.name(), code);
  }

  /** Calls a cold-path function with boxed arguments and returns its code. */
  static int call(NativeFunction f, Object... args) {
    try {
      return (int) f.handle().invokeWithArguments(args);
    } catch (Throwable t) {
      throw Native.rethrow(t);
    }
  }
}
