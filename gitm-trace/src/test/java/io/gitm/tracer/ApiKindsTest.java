package io.gitm.tracer;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.trace.ApiKind;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

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
}
