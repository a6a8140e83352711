// Kernels of `gitm calibrate`: a bandwidth-bound copy and an empty kernel for launch latency.
// Entry points are extern "C" so the driver API finds them by name.

extern "C" __global__ void gitm_copy(float4* __restrict__ dst, const float4* __restrict__ src, long long n4) {
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
    dst[i] = src[i];
  }
}

extern "C" __global__ void gitm_empty(int unused) {
  if (unused == 0x7fffffff && threadIdx.x == 0) {
    asm volatile("trap;");
  }
}
