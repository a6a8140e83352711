// Lets lob.cu compile as host C++ for LobCudaSourceOnHostTest: blocks run one after another; threads of kernels
// without __syncthreads run one after another too, those of kernels with it as real threads meeting at a barrier.
// The rounded float intrinsics become plain IEEE operations (compiled with -ffp-contract=off).
#include <algorithm>
#include <barrier>
#include <cmath>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>
using std::min;
struct Dim { unsigned x, y, z; };
static thread_local Dim threadIdx, blockIdx;
static Dim blockDim, gridDim;
static std::barrier<>* g_bar;
#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__ static
#define __syncthreads() g_bar->arrive_and_wait()
static inline float __fdiv_rn(float a, float b) { volatile float r = a / b; return r; }
static inline float __fmul_rn(float a, float b) { volatile float r = a * b; return r; }
static inline float __fadd_rn(float a, float b) { volatile float r = a + b; return r; }
static inline float __fsqrt_rn(float a) { return sqrtf(a); }
static inline int atomicAdd(int* p, int v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
// Warp collectives over the 32 threads of one warp, meeting at the warp's own barrier.
struct Warp {
  std::barrier<>* bar;
  int votes[32];
};
static thread_local Warp* g_warp;
static inline void __syncwarp() { g_warp->bar->arrive_and_wait(); }
static inline unsigned __ballot_sync(unsigned, bool p) {
  g_warp->votes[threadIdx.x & 31] = p ? 1 : 0;
  g_warp->bar->arrive_and_wait();
  unsigned r = 0;
  for (int l = 0; l < 32; l++) {
    if (g_warp->votes[l]) r |= 1u << l;
  }
  g_warp->bar->arrive_and_wait();
  return r;
}
static inline int __ffs(unsigned x) { return __builtin_ffs((int)x); }
