// Kernels of the kitti workload: PointPillars-style 3D detection on LiDAR scans (docs/kitti.md). Points are float32
// quadruples x, y, z, reflectance; feature maps are [channels][y][x]; the grid's cell is iy * nx + ix.
//
// The pillar scatter uses atomics (a point count per cell, a slot per point in its pillar); what the atomics order is
// then made order-free: pillars are numbered by a scan over the cells, every pillar keeps all its points' indices (a
// compressed layout: pillar p's run starts at pillarStart[p]), and each pillar keeps the maxPts lowest indices in
// order before its features are computed, so the output does not depend on the atomics' order. Products and sums the Java emulation computes unfused are written with __fmul_rn/__fadd_rn so
// that nvcc does not contract them into fused multiply-adds; explicit fmaf where the emulation fuses. expf, sinf and
// cosf are the CUDA math library's and may differ from the emulation's in their last bits.

#define KITTI_ONE_BLOCK 1024
#define KITTI_MAX_CAND 4096
#define KITTI_FEATURES 9
#define KITTI_ANCHORS 6
#define KITTI_ANCHOR_CH 8
#define KITTI_BOX 9
#define KITTI_DET 10

#define MUL(a, b) __fmul_rn((a), (b))
#define ADD(a, b) __fadd_rn((a), (b))
#define SUB(a, b) __fsub_rn((a), (b))

__constant__ float kitti_anchor_sizes[3][4] = {{3.9f, 1.6f, 1.56f, -1.0f}, {0.8f, 0.6f, 1.73f, -0.6f},
                                               {1.76f, 0.6f, 1.73f, -0.6f}};

// Range crop and cell of every point (one thread a point); counts the points of each cell with atomics.
extern "C" __global__ void kitti_assign(const float* pts, int* cellOf, int* count, int n, float xMin, float yMin,
                                        float zMin, float xMax, float yMax, float zMax, float ps, int nx, int ny) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  float x = pts[4 * t], y = pts[4 * t + 1], z = pts[4 * t + 2];
  int cell = -1;
  if (x >= xMin && x < xMax && y >= yMin && y < yMax && z >= zMin && z < zMax) {
    int ix = min((int)floorf(__fdiv_rn(SUB(x, xMin), ps)), nx - 1);
    int iy = min((int)floorf(__fdiv_rn(SUB(y, yMin), ps)), ny - 1);
    cell = iy * nx + ix;
    atomicAdd(&count[cell], 1);
  }
  cellOf[t] = cell;
}

// Inclusive scan of v over the block (Hillis-Steele in shared memory); returns the thread's inclusive sum.
__device__ int kitti_block_scan(int v, int* s) {
  int tid = threadIdx.x;
  s[tid] = v;
  __syncthreads();
  for (int o = 1; o < blockDim.x; o <<= 1) {
    int add = tid >= o ? s[tid - o] : 0;
    __syncthreads();
    s[tid] += add;
    __syncthreads();
  }
  int r = s[tid];
  __syncthreads();
  return r;
}

// Numbers the occupied cells in cell order (one block; each thread a contiguous run of cells): pillarOf[cell] is the
// pillar or -1 (empty, or beyond maxPillars), pillarCell[p] the cell or -1, pillarStart[p] the offset of its points'
// run (the points of the occupied cells before it), numPillars[0] the pillars kept.
extern "C" __global__ void kitti_compact(const int* count, int* pillarOf, int* pillarCell, int* pillarStart,
                                         int* numPillars, int cells, int maxPillars) {
  __shared__ int s[KITTI_ONE_BLOCK];
  int chunk = (cells + blockDim.x - 1) / blockDim.x;
  int lo = threadIdx.x * chunk, hi = min(cells, lo + chunk);
  int mine = 0, minePoints = 0;
  for (int c = lo; c < hi; c++) {
    mine += count[c] > 0;
    minePoints += count[c];
  }
  int incl = kitti_block_scan(mine, s);
  int inclPoints = kitti_block_scan(minePoints, s);
  int next = incl - mine;
  int at = inclPoints - minePoints;
  for (int c = lo; c < hi; c++) {
    if (count[c] > 0) {
      if (next < maxPillars) {
        pillarOf[c] = next;
        pillarCell[next] = c;
        pillarStart[next] = at;
      } else {
        pillarOf[c] = -1;
      }
      next++;
      at += count[c];
    } else {
      pillarOf[c] = -1;
    }
  }
  __shared__ int total;
  if (threadIdx.x == blockDim.x - 1) total = incl;
  __syncthreads();
  int kept = min(total, maxPillars);
  for (int p = kept + threadIdx.x; p < maxPillars; p += blockDim.x) pillarCell[p] = -1;
  if (threadIdx.x == 0) numPillars[0] = kept;
}

// Each kept point takes a slot in its pillar's run with an atomic and writes its index there.
extern "C" __global__ void kitti_gather(const int* cellOf, const int* pillarOf, const int* pillarStart, int* fill,
                                        int* idx, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  int cell = cellOf[t];
  int p = cell < 0 ? -1 : pillarOf[cell];
  if (p < 0) return;
  int slot = atomicAdd(&fill[p], 1);
  idx[pillarStart[p] + slot] = t;
}

// Keeps each pillar's maxPts lowest point indices, ascending, at the start of its run (insertion into the first
// k = min(n, maxPts) slots, O(n k); one thread a pillar), and marks the rest of the run -1. n is the launch's point
// count (for its work model).
extern "C" __global__ void kitti_pillar_sort(const int* fill, const int* pillarStart, int* idx, int maxPillars,
                                             int maxPts, int n) {
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= maxPillars) return;
  int m = fill[p];
  if (m == 0) return;
  int* v = idx + pillarStart[p];
  int k = min(m, maxPts);
  for (int i = 0; i < m; i++) {
    int key = v[i];
    int j;
    if (i < k) {
      j = i - 1;
    } else {
      if (key >= v[k - 1]) continue;
      j = k - 2;
    }
    while (j >= 0 && v[j] > key) {
      v[j + 1] = v[j];
      j--;
    }
    v[j + 1] = key;
  }
  for (int i = k; i < m; i++) v[i] = -1;
}

// The pillar feature net, one thread a (pillar, channel): per point the 9 decorated features (x, y, z, r, offsets
// from the points' mean and from the pillar's centre), their dot product with the channel's weights (fmaf in feature
// order), the folded norm fmaf(acc, scale, shift), ReLU, and the max over the points (0 for an empty pillar).
extern "C" __global__ void kitti_pointnet(const float* pts, const int* idx, const int* pillarStart, const int* fill,
                                          const int* pillarCell,
                                          const float* w, const float* scale, const float* shift, float* feat,
                                          int maxPillars, int maxPts, int C, float xMin, float yMin, float ps, int nx) {
  long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (long long)maxPillars * C) return;
  int p = (int)(t / C), c = (int)(t % C);
  int cell = pillarCell[p];
  int n = cell < 0 ? 0 : min(fill[p], maxPts);
  const int* v = idx + (n == 0 ? 0 : pillarStart[p]);
  float sx = 0.0f, sy = 0.0f, sz = 0.0f;
  for (int k = 0; k < n; k++) {
    sx = ADD(sx, pts[4 * v[k]]);
    sy = ADD(sy, pts[4 * v[k] + 1]);
    sz = ADD(sz, pts[4 * v[k] + 2]);
  }
  float mx = __fdiv_rn(sx, (float)n), my = __fdiv_rn(sy, (float)n), mz = __fdiv_rn(sz, (float)n);
  int safeNx = max(nx, 1);
  float cx = ADD(xMin, MUL(ADD((float)(cell % safeNx), 0.5f), ps));
  float cy = ADD(yMin, MUL(ADD((float)(cell / safeNx), 0.5f), ps));
  const float* wc = w + c * KITTI_FEATURES;
  float best = 0.0f;
  for (int k = 0; k < n; k++) {
    const float* q = pts + 4 * v[k];
    float f[KITTI_FEATURES] = {q[0], q[1], q[2], q[3], SUB(q[0], mx), SUB(q[1], my), SUB(q[2], mz), SUB(q[0], cx),
                               SUB(q[1], cy)};
    float acc = 0.0f;
    for (int j = 0; j < KITTI_FEATURES; j++) acc = fmaf(wc[j], f[j], acc);
    best = fmaxf(best, fmaxf(fmaf(acc, scale[c], shift[c]), 0.0f));
  }
  feat[p * C + c] = best;
}

// Scatters the pillar features into the zeroed BEV pseudo-image canvas[C][cells] (one thread a pillar and channel).
extern "C" __global__ void kitti_scatter_bev(const float* feat, const int* pillarCell, float* canvas, int maxPillars,
                                             int C, int cells) {
  long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (long long)maxPillars * C) return;
  int p = (int)(t / C), c = (int)(t % C);
  int cell = pillarCell[p];
  if (cell >= 0) canvas[(long long)c * cells + cell] = feat[p * C + c];
}

// col[(ci*9 + ky*3 + kx)][oy*wo + ox] = in[ci][oy*stride + ky - 1][ox*stride + kx - 1] (0 outside): a 3x3
// convolution with padding 1 as a GEMM's operand.
extern "C" __global__ void kitti_im2col(const float* in, float* col, int cin, int h, int w, int ho, int wo,
                                        int stride) {
  long long n = (long long)ho * wo;
  long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (long long)cin * 9 * n) return;
  int row = (int)(t / n), pos = (int)(t % n);
  int ci = row / 9, kk = row % 9, ky = kk / 3, kx = kk % 3;
  int oy = pos / wo, ox = pos % wo;
  int y = oy * stride + ky - 1, x = ox * stride + kx - 1;
  col[t] = (y >= 0 && y < h && x >= 0 && x < w) ? in[((long long)ci * h + y) * w + x] : 0.0f;
}

// y[o][k] += bias[o], then ReLU when relu != 0.
extern "C" __global__ void kitti_bias_act(float* y, const float* bias, int cout, int n, int relu) {
  long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (long long)cout * n) return;
  float v = ADD(y[t], bias[t / n]);
  y[t] = relu ? fmaxf(v, 0.0f) : v;
}

// Nearest-neighbour upsampling by 2 of in[c][h][w] into channels cOffset.. of out[..][ho][wo].
extern "C" __global__ void kitti_upsample(const float* in, float* out, int c, int h, int w, int ho, int wo,
                                          int cOffset) {
  long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (long long)c * ho * wo) return;
  int k = (int)(t / ((long long)ho * wo));
  int r = (int)(t % ((long long)ho * wo));
  int y = r / wo, x = r % wo;
  out[((long long)(cOffset + k) * ho + y) * wo + x] = in[((long long)k * h + min(y / 2, h - 1)) * w + min(x / 2, w - 1)];
}

// One anchor's box (one thread an anchor; 3 classes x 2 headings a location), SECOND's encoding: centre anchor +
// (dx, dy) * diagonal, z + dz * h, sizes anchor * exp(d), heading anchor + dr, score sigmoid(logit).
extern "C" __global__ void kitti_decode(const float* head, float* boxes, int n1, int wo, float xMin, float yMin,
                                        float stride) {
  long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (long long)n1 * KITTI_ANCHORS) return;
  int pos = (int)(t / KITTI_ANCHORS), an = (int)(t % KITTI_ANCHORS);
  float r[KITTI_ANCHOR_CH];
  for (int k = 0; k < KITTI_ANCHOR_CH; k++) r[k] = head[(long long)(an * KITTI_ANCHOR_CH + k) * n1 + pos];
  int cls = an / 2;
  const float* s = kitti_anchor_sizes[cls];
  float xa = ADD(xMin, MUL(ADD((float)(pos % wo), 0.5f), stride));
  float ya = ADD(yMin, MUL(ADD((float)(pos / wo), 0.5f), stride));
  float ra = MUL((float)(an % 2), 1.5707964f);
  float diag = sqrtf(ADD(MUL(s[0], s[0]), MUL(s[1], s[1])));
  float* b = boxes + t * KITTI_BOX;
  b[0] = fmaf(r[1], diag, xa);
  b[1] = fmaf(r[2], diag, ya);
  b[2] = fmaf(r[3], s[2], s[3]);
  b[3] = MUL(s[0], expf(r[4]));
  b[4] = MUL(s[1], expf(r[5]));
  b[5] = MUL(s[2], expf(r[6]));
  b[6] = ADD(ra, r[7]);
  b[7] = __fdiv_rn(1.0f, ADD(1.0f, expf(-r[0])));
  b[8] = (float)cls;
}

__device__ void kitti_corners(float x, float y, float l, float w, float yaw, float* out) {
  float c = cosf(yaw), s = sinf(yaw);
  float dx[4] = {MUL(0.5f, l), MUL(-0.5f, l), MUL(-0.5f, l), MUL(0.5f, l)};
  float dy[4] = {MUL(0.5f, w), MUL(0.5f, w), MUL(-0.5f, w), MUL(-0.5f, w)};
  for (int k = 0; k < 4; k++) {
    out[2 * k] = SUB(ADD(x, MUL(c, dx[k])), MUL(s, dy[k]));
    out[2 * k + 1] = ADD(ADD(y, MUL(s, dx[k])), MUL(c, dy[k]));
  }
}

// BEV IoU of two rotated footprints (x, y, l, w, yaw): Sutherland-Hodgman clipping of a by b, shoelace area.
__device__ float kitti_iou(const float* a, const float* b) {
  float ra = MUL(0.5f, sqrtf(ADD(MUL(a[3], a[3]), MUL(a[4], a[4]))));
  float rb = MUL(0.5f, sqrtf(ADD(MUL(b[3], b[3]), MUL(b[4], b[4]))));
  float ddx = SUB(a[0], b[0]), ddy = SUB(a[1], b[1]);
  if (ADD(MUL(ddx, ddx), MUL(ddy, ddy)) >= MUL(ADD(ra, rb), ADD(ra, rb))) return 0.0f;
  float ca[8], cb[8], p0[32], p1[32];
  kitti_corners(a[0], a[1], a[3], a[4], a[6], ca);
  kitti_corners(b[0], b[1], b[3], b[4], b[6], cb);
  for (int k = 0; k < 8; k++) p0[k] = ca[k];
  float* poly = p0;
  float* next = p1;
  int n = 4;
  for (int e = 0; e < 4 && n > 0; e++) {
    float ex0 = cb[2 * e], ey0 = cb[2 * e + 1], ex1 = cb[2 * ((e + 1) % 4)], ey1 = cb[2 * ((e + 1) % 4) + 1];
    int m = 0;
    for (int i = 0; i < n; i++) {
      float px = poly[2 * i], py = poly[2 * i + 1];
      float qx = poly[2 * ((i + 1) % n)], qy = poly[2 * ((i + 1) % n) + 1];
      float sp = SUB(MUL(SUB(ex1, ex0), SUB(py, ey0)), MUL(SUB(ey1, ey0), SUB(px, ex0)));
      float sq = SUB(MUL(SUB(ex1, ex0), SUB(qy, ey0)), MUL(SUB(ey1, ey0), SUB(qx, ex0)));
      if (sp >= 0.0f) {
        next[2 * m] = px;
        next[2 * m + 1] = py;
        m++;
      }
      if ((sp >= 0.0f) != (sq >= 0.0f)) {
        float tt = __fdiv_rn(sp, SUB(sp, sq));
        next[2 * m] = ADD(px, MUL(tt, SUB(qx, px)));
        next[2 * m + 1] = ADD(py, MUL(tt, SUB(qy, py)));
        m++;
      }
    }
    float* tmp = poly;
    poly = next;
    next = tmp;
    n = m;
  }
  float inter = 0.0f;
  for (int i = 0; i < n; i++) {
    int j = (i + 1) % n;
    inter = ADD(inter, SUB(MUL(poly[2 * i], poly[2 * j + 1]), MUL(poly[2 * j], poly[2 * i + 1])));
  }
  inter = MUL(fabsf(inter), 0.5f);
  float uni = SUB(ADD(MUL(a[3], a[4]), MUL(b[3], b[4])), inter);
  return uni <= 0.0f ? 0.0f : __fdiv_rn(inter, uni);
}

// Whether candidate (sa, ia) comes before (sb, ib): higher score first, then lower anchor index.
__device__ __forceinline__ bool kitti_before(float sa, int ia, float sb, int ib) {
  return sa > sb || (sa == sb && ia < ib);
}

// Rotated-box NMS in one block: the first maxCand anchors (index order) scoring above scoreThr, sorted by score
// (bitonic sort in shared memory), each kept unless a kept box of its class overlaps it by more than iouThr, up to
// maxOut. out[0] = kept; then per kept box its anchor index and its 9 floats (as bits).
extern "C" __global__ void kitti_nms(const float* boxes, int numAnchors, float scoreThr, float iouThr, int maxCand,
                                     int maxOut, int* out) {
  __shared__ float key[KITTI_MAX_CAND];
  __shared__ int kid[KITTI_MAX_CAND];
  __shared__ unsigned char sup[KITTI_MAX_CAND];
  __shared__ int s[KITTI_ONE_BLOCK];
  int tid = threadIdx.x;
  for (int k = tid; k < maxCand; k += blockDim.x) {
    key[k] = -__int_as_float(0x7f800000);  // -infinity (no math.h under NVRTC)
    kid[k] = 0x7fffffff;
    sup[k] = 0;
  }
  int chunk = (numAnchors + blockDim.x - 1) / blockDim.x;
  int lo = tid * chunk, hi = min(numAnchors, lo + chunk);
  int mine = 0;
  for (int i = lo; i < hi; i++) mine += boxes[(long long)i * KITTI_BOX + 7] > scoreThr;
  int incl = kitti_block_scan(mine, s);
  int at = incl - mine;
  for (int i = lo; i < hi && at < maxCand; i++) {
    float sc = boxes[(long long)i * KITTI_BOX + 7];
    if (sc > scoreThr) {
      key[at] = sc;
      kid[at] = i;
      at++;
    }
  }
  __shared__ int total;
  if (tid == blockDim.x - 1) total = incl;
  __syncthreads();
  int nc = min(total, maxCand);
  for (int size = 2; size <= maxCand; size <<= 1) {
    for (int stride = size >> 1; stride > 0; stride >>= 1) {
      for (int i = tid; i < maxCand; i += blockDim.x) {
        int j = i ^ stride;
        if (j > i) {
          bool up = (i & size) == 0;
          bool swap = up ? kitti_before(key[j], kid[j], key[i], kid[i]) : kitti_before(key[i], kid[i], key[j], kid[j]);
          if (swap) {
            float tk = key[i];
            key[i] = key[j];
            key[j] = tk;
            int ti = kid[i];
            kid[i] = kid[j];
            kid[j] = ti;
          }
        }
      }
      __syncthreads();
    }
  }
  int nk = 0;
  for (int i = 0; i < nc && nk < maxOut; i++) {
    __syncthreads();
    if (sup[i]) continue;
    const float* bi = boxes + (long long)kid[i] * KITTI_BOX;
    if (tid == 0) {
      int* d = out + 1 + nk * KITTI_DET;
      d[0] = kid[i];
      for (int k = 0; k < KITTI_BOX; k++) d[1 + k] = __float_as_int(bi[k]);
    }
    nk++;
    for (int j = i + 1 + tid; j < nc; j += blockDim.x) {
      const float* bj = boxes + (long long)kid[j] * KITTI_BOX;
      if (!sup[j] && bi[8] == bj[8] && kitti_iou(bi, bj) > iouThr) sup[j] = 1;
    }
  }
  if (tid == 0) out[0] = nk;
}
