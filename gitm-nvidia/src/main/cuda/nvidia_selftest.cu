// Self-test kernels of the nvidia backend: the GPU tests load this module's PTX and check the results.

extern "C" __global__ void gitm_saxpy(float* __restrict__ y, const float* __restrict__ x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = a * x[i] + y[i];
  }
}

// Adds `value` to every element; uses dynamic shared memory so that its attributes matter.
extern "C" __global__ void gitm_add_shared(float* __restrict__ y, double value, long long n) {
  extern __shared__ float tile[];
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? y[i] : 0.0f;
  __syncthreads();
  if (i < n) {
    y[i] = tile[threadIdx.x] + (float)value;
  }
}
