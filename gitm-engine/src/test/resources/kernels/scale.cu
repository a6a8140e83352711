// The sample engine's one kernel: y[i] = a * x[i] + b, over n floats.
extern "C" __global__ void scale(const float* x, float* y, int n, float a, float b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = a * x[i] + b;
  }
}
