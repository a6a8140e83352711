package io.gitm.trace;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** API functions are classed by name, as Kineto names them and as CUPTI does (with version suffixes). */
class ApiKindsTest {
  @ParameterizedTest(name = "{0} is {1}")
  @CsvSource({
      "cudaLaunchKernel, LAUNCH", "cudaLaunchKernel_ptsz, LAUNCH", "cudaLaunchKernelExC, LAUNCH",
      "cudaLaunchCooperativeKernel, LAUNCH", "cuLaunchKernel, LAUNCH", "cuLaunchKernelEx, LAUNCH",
      "cudaGraphLaunch, LAUNCH", "cudaGraphLaunch_ptsz, LAUNCH", "cudaLaunchHostFunc, OTHER",
      "cudaMalloc, ALLOC", "cudaMallocAsync, ALLOC", "cudaMallocHost, ALLOC", "cudaHostAlloc, ALLOC",
      "cudaMallocManaged, ALLOC", "cuMemAlloc_v2, ALLOC", "cudaMallocFromPoolAsync_ptsz, ALLOC",
      "cudaFree, FREE", "cudaFreeHost, FREE", "cudaFreeAsync, FREE", "cuMemFree_v2, FREE",
      "cudaMemcpy, COPY", "cudaMemcpyAsync, COPY", "cudaMemcpyAsync_ptsz, COPY", "cudaMemcpyPeerAsync, COPY",
      "cuMemcpyHtoD_v2, COPY", "cuMemcpyDtoHAsync_v2, COPY", "cudaMemPrefetchAsync, COPY",
      "cudaMemset, MEMSET", "cudaMemsetAsync, MEMSET", "cuMemsetD32_v2, MEMSET",
      "cudaStreamSynchronize, SYNC", "cudaDeviceSynchronize, SYNC", "cudaEventSynchronize, SYNC",
      "cudaStreamWaitEvent, SYNC", "cuCtxSynchronize, SYNC", "cuStreamSynchronize, SYNC",
      "cudaThreadSynchronize, SYNC", "cudaStreamSynchronize_ptsz, SYNC",
      "cudaGetDevice, OTHER", "cudaEventRecord, OTHER", "cudaStreamQuery, OTHER", "cudaFuncSetAttribute, OTHER",
      "cudaPeekAtLastError, OTHER", "'', OTHER"})
  void classifiesCudaFunctionsByName(String name, ApiKind kind) {
    assertThat(ApiKinds.of(name)).isEqualTo(kind);
  }

  @ParameterizedTest(name = "{0} is {1}")
  @CsvSource({
      "cuLaunchKernel, LAUNCH", "cuLaunchKernelEx, LAUNCH", "cudaLaunchKernel_v7000, LAUNCH", "cuGraphLaunch, LAUNCH",
      "cuMemAlloc_v2, ALLOC", "cuMemAllocAsync, ALLOC", "cuMemHostAlloc, ALLOC", "cudaMalloc_v3020, ALLOC",
      "cudaMallocHost_v3020, ALLOC", "cudaHostAlloc_v3020, ALLOC", "cuMemAllocHost_v2, ALLOC",
      "cuMemFree_v2, FREE", "cuMemFreeHost, FREE", "cudaFree_v3020, FREE", "cudaFreeAsync_v11020, FREE",
      "cuMemcpyHtoD_v2, COPY", "cuMemcpyAsync, COPY", "cudaMemcpyAsync_v3020, COPY", "cudaMemcpy2D_v3020, COPY",
      "cuMemsetD8_v2, MEMSET", "cudaMemsetAsync_v3020, MEMSET",
      "cuCtxSynchronize, SYNC", "cuStreamSynchronize, SYNC", "cuEventSynchronize, SYNC", "cuStreamWaitEvent, SYNC",
      "cudaDeviceSynchronize_v3020, SYNC", "cudaStreamSynchronize_v3020, SYNC",
      "cuMemGetInfo_v2, OTHER", "cuStreamQuery, OTHER", "cudaGetDevice_v3020, OTHER", "cuModuleLoadData, OTHER",
      "cuMemHostRegister_v2, OTHER", "'', OTHER",
      // what PyTorch calls around each op besides the launch, as traced on an H200: left out by the default
      // GITM_TRACE_KINDS of the injection library, which traces only the functions not classed OTHER
      "cuDevicePrimaryCtxGetState, OTHER", "cudaGetLastError_v3020, OTHER", "cuKernelGetName, OTHER",
      "cuCtxGetCurrent, OTHER", "cudaDeviceGetAttribute_v5000, OTHER",
      "cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, OTHER",
      "cudaLaunchKernelExC_v11060, LAUNCH", "cudaGraphLaunch_v10000, LAUNCH",
      // CUDA 13's runtime header launches through __cudaLaunchKernel, and CUPTI 13 names that call
      "__cudaLaunchKernel_v13000, LAUNCH", "__cudaLaunchKernel_ptsz_v13000, LAUNCH",
      "__cudaPushCallConfiguration_v13000, OTHER", "__cudaRegisterFunction_v13000, OTHER"})
  void classifiesCuptiCallbackNamesWithTheirVersionSuffixes(String name, ApiKind kind) {
    assertThat(ApiKinds.of(name)).isEqualTo(kind);
  }

  /**
   * A host function enqueued in a stream launches no kernel; a prefetch moves managed memory as a copy does. Both
   * hold whatever the suffixes, in the driver API as in the runtime.
   */
  @ParameterizedTest(name = "{0} is {1}")
  @CsvSource({
      "cudaLaunchHostFunc_v10000, OTHER", "cudaLaunchHostFunc_ptsz_v10000, OTHER", "cuLaunchHostFunc, OTHER",
      "cuLaunchHostFunc_ptsz, OTHER", "cudaMemPrefetchAsync_v8000, COPY", "cudaMemPrefetchAsync_ptsz_v12020, COPY",
      "cudaMemPrefetchBatchAsync_v13000, COPY", "cuMemPrefetchAsync_v2_ptsz, COPY", "cuMemPrefetchAsync, COPY"})
  void hostFunctionsAreNoLaunchAndPrefetchesAreCopies(String name, ApiKind kind) {
    assertThat(ApiKinds.of(name)).isEqualTo(kind);
  }

  @ParameterizedTest(name = "''{0}'' has the base name ''{1}''")
  @CsvSource({
      "cudaMemcpyAsync_ptsz_v7000, cudaMemcpyAsync", "cuMemPrefetchAsync_v2_ptsz, cuMemPrefetchAsync",
      "'  cuMemAlloc_v2 ', cuMemAlloc", "cuCtxSynchronize_v2, cuCtxSynchronize", "_v2, _v2", "x_v, x_v",
      "cudaMalloc_vx2, cudaMalloc_vx2", "cuda_v12_ptds, cuda"})
  void versionAndPerThreadSuffixesAndBlanksAreNotPartOfTheName(String name, String base) {
    assertThat(ApiKinds.base(name)).isEqualTo(base);
  }

  @Test
  void aMissingNameIsOther() {
    assertThat(ApiKinds.of(null)).isEqualTo(ApiKind.OTHER);
    assertThat(ApiKinds.of(" \t")).isEqualTo(ApiKind.OTHER);
  }
}
