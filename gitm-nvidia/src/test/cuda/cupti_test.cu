// Kernels for the CUPTI GPU tests and the tracing-overhead benchmark (compiled to PTX:
// nvcc -ptx -arch=compute_90 -O3 -o ../resources/cupti/cupti_test.ptx cupti_test.cu).

// One short kernel: x[i] = x[i] * a + b over n floats. Launched thousands of times by the kernel-dense loop.
extern "C" __global__ void gitm_axpb(float *x, int n, float a, float b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * a + b;
}

// C = A * B for n x n row-major floats, 32x32 shared-memory tiles (n a multiple of 32): a GEMM-heavy kernel
// that runs for milliseconds at the sizes the benchmark uses. Launched as 1D blocks of 1024
// threads, grid (n/32)*(n/32), so the launch helper only needs x dimensions.
extern "C" __global__ void gitm_sgemm(const float *A, const float *B, float *C, int n) {
  __shared__ float As[32][32];
  __shared__ float Bs[32][32];
  int tilesPerRow = n / 32;
  int tr = blockIdx.x / tilesPerRow, tc = blockIdx.x % tilesPerRow;
  int ty = threadIdx.x / 32, tx = threadIdx.x % 32;
  int row = tr * 32 + ty, col = tc * 32 + tx;
  float acc = 0.f;
  for (int t = 0; t < n; t += 32) {
    As[ty][tx] = A[row * n + t + tx];
    Bs[ty][tx] = B[(t + ty) * n + col];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 32; k++) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  C[row * n + col] = acc;
}
