// Lets kitti.cu compile as host C++ for KittiCudaSourceOnHostTest: the blocks of a launch run one after another, the
// threads of a block as real threads meeting at a barrier for __syncthreads, atomics as std::atomic_ref. Compiled
// with -ffp-contract=off, so that only the source's own fmaf calls are fused; the _rn intrinsics are the plain IEEE
// operations they name.
#include <algorithm>
#include <atomic>
#include <barrier>
#include <cmath>
#include <math.h>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>
using std::max;
using std::min;
struct Dim {
  unsigned x, y, z;
};
static thread_local Dim threadIdx, blockIdx;
static Dim blockDim, gridDim;
static std::barrier<>* g_block_barrier;
#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__ static
#define __constant__ static
#define __syncthreads() g_block_barrier->arrive_and_wait()
static inline float __fmul_rn(float a, float b) { return a * b; }
static inline float __fadd_rn(float a, float b) { return a + b; }
static inline float __fsub_rn(float a, float b) { return a - b; }
static inline float __fdiv_rn(float a, float b) { return a / b; }
static inline int __float_as_int(float f) {
  int i;
  std::memcpy(&i, &f, 4);
  return i;
}
static inline float __int_as_float(int i) {
  float f;
  std::memcpy(&f, &i, 4);
  return f;
}
static inline int atomicAdd(int* p, int v) { return std::atomic_ref<int>(*p).fetch_add(v); }
