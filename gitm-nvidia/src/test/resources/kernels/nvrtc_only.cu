// Shipped as source only (no PTX): the nvidia backend must compile it with NVRTC at run time.
extern "C" __global__ void gitm_scale(float* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = a * y[i];
  }
}
