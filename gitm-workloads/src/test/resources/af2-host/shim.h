// Lets af2.cu compile as host C++ for Af2CudaSourceOnHostTest: the blocks of a launch run one after another, the
// threads of a block as real threads meeting at a barrier for __syncthreads, the lanes of a warp exchanging values
// through a per-warp slot array for the shuffles. Compiled with -ffp-contract=off, so that only the source's own
// fmaf calls are fused.
#include <algorithm>
#include <barrier>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>
using std::max;
using std::min;
struct Dim {
  unsigned x, y, z;
};
static thread_local Dim threadIdx, blockIdx;
static Dim blockDim, gridDim;
struct WarpSlots {
  std::barrier<>* bar;
  float slot[32];
};
static std::barrier<>* g_block_barrier;
static std::vector<WarpSlots>* g_warps;
static std::vector<float> g_dynamic_shared;
static thread_local int g_thread;
#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__ static
#define __syncthreads() g_block_barrier->arrive_and_wait()
#define AF2_DYNAMIC_SHARED(name) float* name = g_dynamic_shared.data()
static inline float __shfl_xor_sync(unsigned, float v, int offset) {
  WarpSlots& w = (*g_warps)[g_thread / 32];
  int lane = g_thread % 32;
  w.slot[lane] = v;
  w.bar->arrive_and_wait();
  float r = w.slot[lane ^ offset];
  w.bar->arrive_and_wait();
  return r;
}
