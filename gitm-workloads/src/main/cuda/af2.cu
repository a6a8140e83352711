// Kernels of the af2 workload: AlphaFold2-style Evoformer inference (docs/af2.md). Every tensor is float32,
// row-major, channels innermost: the MSA representation m[s][r][c], the pair representation z[i][j][c]. Linear
// layers are cuBLAS GEMMs issued by the host; these kernels do the rest: input features, layer norms, bias and
// gating epilogues, residual updates, attention (logits, softmax, weighted sum) and the triangle products.
//
// Reductions are fixed-order (a lane's strided partial sums, then a butterfly over the warp; dot products in
// index order with fmaf), and no kernel uses atomics, so a launch gives the same bits every run. Exponentials,
// the arctangent and the square root are the CUDA math library's (not the fast intrinsics).

#define AF2_WARP 32
#define AF2_LN_EPS 1e-5f
// A kernel's dynamic shared memory (the host-side test shim gives it its own definition).
#ifndef AF2_DYNAMIC_SHARED
#define AF2_DYNAMIC_SHARED(name) extern __shared__ float name[]
#endif

__device__ __forceinline__ float af2_warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) {
    v += __shfl_xor_sync(0xffffffffu, v, o);
  }
  return v;
}

__device__ __forceinline__ float af2_warp_max(float v) {
  for (int o = 16; o > 0; o >>= 1) {
    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  }
  return v;
}

__device__ __forceinline__ float af2_sigmoid(float x) {
  return 1.0f / (1.0f + expf(-x));
}

// ---------------------------------------------------------------------------------------------- input features

// msa_feat[s][r][0..48] of AlphaFold2's monomer input: the one-hot residue code (23 classes: 20 residues, X, gap,
// mask), has_deletion, deletion_value = atan(d / 3) * 2 / pi, the cluster profile (23) and the cluster's deletion
// mean value. Every row is its own cluster (no extra sequences are assigned), so the profile is the row's own
// one-hot and the mean its own deletion value. One thread per (s, r); n = N_seq * N_res.
extern "C" __global__ void af2_msa_feat(const int* msa, const int* del, float* feat, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) {
    return;
  }
  float* f = feat + (size_t)t * 49;
  int code = msa[t];
  float d = (float)del[t];
  float value = atanf(d / 3.0f) * (2.0f / 3.14159265358979f);
  for (int c = 0; c < 23; c++) {
    float hot = c == code ? 1.0f : 0.0f;
    f[c] = hot;
    f[25 + c] = hot;
  }
  f[23] = d > 0.0f ? 1.0f : 0.0f;
  f[24] = value;
  f[48] = value;
}

// target_feat[r][0..21]: between-segment residues (0: one chain), then the one-hot query residue type (21 classes).
extern "C" __global__ void af2_target_feat(const int* aatype, float* feat, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) {
    return;
  }
  float* f = feat + (size_t)r * 22;
  f[0] = 0.0f;
  for (int c = 0; c < 21; c++) {
    f[1 + c] = c == aatype[r] ? 1.0f : 0.0f;
  }
}

// relpos[i][j][0..2 maxRel]: one-hot of clip(i - j + maxRel, 0, 2 maxRel) (residue index = position in the chain).
extern "C" __global__ void af2_relpos(float* relpos, int nRes, int maxRel) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= nRes * nRes) {
    return;
  }
  int i = t / nRes;
  int j = t % nRes;
  int bins = 2 * maxRel + 1;
  int hot = min(max(i - j + maxRel, 0), 2 * maxRel);
  float* f = relpos + (size_t)t * bins;
  for (int b = 0; b < bins; b++) {
    f[b] = b == hot ? 1.0f : 0.0f;
  }
}

// m[s][r][c] = (p1d[r][c] + b1d[c]) + (pmsa[s][r][c] + bmsa[c]): the embedded alignment plus the embedded query.
extern "C" __global__ void af2_msa_init(float* m, const float* pmsa, const float* bmsa, const float* p1d,
    const float* b1d, int nSeq, int nRes, int c) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= nSeq * nRes * c) {
    return;
  }
  int ch = t % c;
  int r = (t / c) % nRes;
  m[t] = (p1d[r * c + ch] + b1d[ch]) + (pmsa[t] + bmsa[ch]);
}

// z[i][j][c] = ((left[i][c] + bl[c]) + (right[j][c] + br[c])) + (rel[i][j][c] + brel[c]).
extern "C" __global__ void af2_pair_init(float* z, const float* left, const float* bl, const float* right,
    const float* br, const float* rel, const float* brel, int nRes, int c) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= nRes * nRes * c) {
    return;
  }
  int ch = t % c;
  int j = (t / c) % nRes;
  int i = t / (c * nRes);
  z[t] = ((left[i * c + ch] + bl[ch]) + (right[j * c + ch] + br[ch])) + (rel[t] + brel[ch]);
}

// -------------------------------------------------------------------------------------------------- layer norm

// y[r][:] = (x[r][:] - mean) / sqrt(var + 1e-5) * scale + offset, var = mean((x - mean)^2); one warp per row.
extern "C" __global__ void af2_layer_norm(const float* x, const float* scale, const float* offset, float* y, int rows,
    int c) {
  int row = (int)(((long long)blockIdx.x * blockDim.x + threadIdx.x) / AF2_WARP);
  int lane = threadIdx.x % AF2_WARP;
  if (row >= rows) {
    return;
  }
  const float* xr = x + (size_t)row * c;
  float* yr = y + (size_t)row * c;
  float s = 0.0f;
  for (int k = lane; k < c; k += AF2_WARP) {
    s += xr[k];
  }
  float mean = af2_warp_sum(s) / (float)c;
  float v = 0.0f;
  for (int k = lane; k < c; k += AF2_WARP) {
    float d = xr[k] - mean;
    v = fmaf(d, d, v);
  }
  float var = af2_warp_sum(v) / (float)c;
  float inv = 1.0f / sqrtf(var + AF2_LN_EPS);
  for (int k = lane; k < c; k += AF2_WARP) {
    yr[k] = fmaf((xr[k] - mean) * inv, scale[k], offset[k]);
  }
}

// ------------------------------------------------------------------------------------------------- epilogues

// y[t] = act(y[t] + bias[t % c]), act = relu when relu != 0, else identity.
extern "C" __global__ void af2_bias_act(float* y, const float* bias, int n, int c, int relu) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) {
    return;
  }
  float v = y[t] + bias[t % c];
  y[t] = relu != 0 && v < 0.0f ? 0.0f : v;
}

// out[t] = (p[t] + bp[t % c]) * sigmoid(g[t] + bg[t % c]): a gated projection of the triangle updates.
extern "C" __global__ void af2_gate_mul(const float* p, const float* bp, const float* g, const float* bg, float* out,
    int n, int c) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) {
    return;
  }
  int ch = t % c;
  out[t] = (p[t] + bp[ch]) * af2_sigmoid(g[t] + bg[ch]);
}

// x[t] = x[t] + (y[t] + b[t % c]) / denom: a residual update (denom 1, or the outer product mean's norm).
extern "C" __global__ void af2_residual(float* x, const float* y, const float* b, int n, int c, float denom) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) {
    return;
  }
  x[t] = x[t] + (y[t] + b[t % c]) / denom;
}

// x[t] = x[t] + (y[t] + by[t % c]) * sigmoid(g[t] + bg[t % c]): the triangle updates' gated residual.
extern "C" __global__ void af2_gated_residual(float* x, const float* y, const float* by, const float* g,
    const float* bg, int n, int c) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) {
    return;
  }
  int ch = t % c;
  x[t] = x[t] + (y[t] + by[ch]) * af2_sigmoid(g[t] + bg[ch]);
}

// -------------------------------------------------------------------------------------------------- attention
// Element (b, t, h, d) of the queries, keys, values, gates and outputs lies at b * sb + t * st + h * D + d: one
// layout covers row attention (b = sequence, t = residue), column attention (b = residue, t = sequence) and both
// triangle attentions (the ending node's transpose is a swap of sb and st). A launch covers batches b0 .. b0 +
// gridDim.z / H - 1 (the chunk), and its logits hold those batches only: logits[(b - b0) H + h][i][j].

// logits = scale * q . k + bias[i * bq + j * bk + h] (when hasBias). grid (ceil(nk/32), ceil(nq/32), chunk * H),
// block (32, 8), dynamic shared memory 2 * 32 * (D + 1) floats. The dot product runs over d in order.
extern "C" __global__ void af2_attn_logits(const float* q, const float* k, const float* bias, float* logits, int b0,
    int heads, int nq, int nk, int dim, int sb, int st, int bq, int bk, float scale, int hasBias) {
  AF2_DYNAMIC_SHARED(af2_shared);
  float* qs = af2_shared;
  float* ks = af2_shared + 32 * (dim + 1);
  int bl = blockIdx.z / heads;
  int h = blockIdx.z % heads;
  size_t base = (size_t)(b0 + bl) * sb + (size_t)h * dim;
  int i0 = blockIdx.y * 32;
  int j0 = blockIdx.x * 32;
  int tx = threadIdx.x;
  int ty = threadIdx.y;
  for (int r = ty; r < 32; r += 8) {
    for (int d = tx; d < dim; d += 32) {
      int i = i0 + r;
      int j = j0 + r;
      qs[r * (dim + 1) + d] = i < nq ? q[base + (size_t)i * st + d] : 0.0f;
      ks[r * (dim + 1) + d] = j < nk ? k[base + (size_t)j * st + d] : 0.0f;
    }
  }
  __syncthreads();
  int j = j0 + tx;
  for (int r = ty; r < 32; r += 8) {
    int i = i0 + r;
    if (i < nq && j < nk) {
      float acc = 0.0f;
      for (int d = 0; d < dim; d++) {
        acc = fmaf(qs[r * (dim + 1) + d], ks[tx * (dim + 1) + d], acc);
      }
      float v = acc * scale;
      if (hasBias != 0) {
        v += bias[(size_t)i * bq + (size_t)j * bk + h];
      }
      logits[(((size_t)blockIdx.z) * nq + i) * nk + j] = v;
    }
  }
}

// Each row of n values becomes its softmax, exp(x - max) / sum; one warp per row.
extern "C" __global__ void af2_softmax(float* x, int rows, int n) {
  int row = (int)(((long long)blockIdx.x * blockDim.x + threadIdx.x) / AF2_WARP);
  int lane = threadIdx.x % AF2_WARP;
  if (row >= rows) {
    return;
  }
  float* xr = x + (size_t)row * n;
  float m = -INFINITY;
  for (int k = lane; k < n; k += AF2_WARP) {
    m = fmaxf(m, xr[k]);
  }
  m = af2_warp_max(m);
  float s = 0.0f;
  for (int k = lane; k < n; k += AF2_WARP) {
    float e = expf(xr[k] - m);
    xr[k] = e;
    s += e;
  }
  s = af2_warp_sum(s);
  for (int k = lane; k < n; k += AF2_WARP) {
    xr[k] = xr[k] / s;
  }
}

// o[b, i, h, :] = (sum_j p[(b - b0) H + h][i][j] v[b, j, h, :]) * sigmoid(g[b, i, h, :] + gb[h D + :]): the
// weighted values, gated. grid (ceil(nq/32), 1, chunk * H), block (32, 8), dynamic shared memory 32 * 33 + 32 * D
// floats; the sum runs over j in order. D <= 64.
extern "C" __global__ void af2_attn_out(const float* p, const float* v, const float* g, const float* gb, float* o,
    int b0, int heads, int nq, int nk, int dim, int sb, int st) {
  AF2_DYNAMIC_SHARED(af2_shared);
  float* ps = af2_shared;
  float* vs = af2_shared + 32 * 33;
  int bl = blockIdx.z / heads;
  int h = blockIdx.z % heads;
  size_t base = (size_t)(b0 + bl) * sb + (size_t)h * dim;
  const float* pb = p + (size_t)blockIdx.z * nq * nk;
  int i0 = blockIdx.x * 32;
  int tx = threadIdx.x;
  int ty = threadIdx.y;
  float acc[4][2] = {{0.0f, 0.0f}, {0.0f, 0.0f}, {0.0f, 0.0f}, {0.0f, 0.0f}};
  for (int j0 = 0; j0 < nk; j0 += 32) {
    int span = min(32, nk - j0);
    __syncthreads();
    for (int r = ty; r < 32; r += 8) {
      int i = i0 + r;
      ps[r * 33 + tx] = i < nq && tx < span ? pb[(size_t)i * nk + j0 + tx] : 0.0f;
      for (int d = tx; d < dim; d += 32) {
        vs[r * dim + d] = r < span ? v[base + (size_t)(j0 + r) * st + d] : 0.0f;
      }
    }
    __syncthreads();
    for (int jj = 0; jj < span; jj++) {
      for (int a = 0; a < 4; a++) {
        float w = ps[(ty + 8 * a) * 33 + jj];
        acc[a][0] = fmaf(w, vs[jj * dim + tx], acc[a][0]);
        if (tx + 32 < dim) {
          acc[a][1] = fmaf(w, vs[jj * dim + tx + 32], acc[a][1]);
        }
      }
    }
  }
  for (int a = 0; a < 4; a++) {
    int i = i0 + ty + 8 * a;
    if (i >= nq) {
      continue;
    }
    for (int e = 0; e < 2; e++) {
      int d = tx + 32 * e;
      if (d < dim) {
        size_t at = base + (size_t)i * st + d;
        o[at] = acc[a][e] * af2_sigmoid(g[at] + gb[h * dim + d]);
      }
    }
  }
}

// ------------------------------------------------------------------------------------------ triangle products

// out[i][j][c] = sum_k x[i sxi + k sxk + c] * y[j syj + k syk + c], k in order. Outgoing edges (AlphaFold's
// 'ikc,jkc->ijc'): x = left, y = right, sxi = syj = R C, sxk = syk = C. Incoming ('kjc,kic->ijc'): x = right,
// y = left, sxi = syj = C, sxk = syk = R C. grid (ceil(R/16), ceil(R/16), ceil(C/32)) as (j tile, i tile, channel
// group), block (32, 8): a thread holds channel tx of rows ty and ty + 8 against the tile's 16 columns.
extern "C" __global__ void af2_tri_mult(const float* x, const float* y, float* out, int nRes, int c, int sxi, int sxk,
    int syj, int syk) {
  __shared__ float xs[16][8][32];
  __shared__ float ys[16][8][32];
  int tx = threadIdx.x;
  int ty = threadIdx.y;
  int j0 = blockIdx.x * 16;
  int i0 = blockIdx.y * 16;
  int ch = blockIdx.z * 32 + tx;
  float acc[2][16];
  for (int a = 0; a < 2; a++) {
    for (int b = 0; b < 16; b++) {
      acc[a][b] = 0.0f;
    }
  }
  for (int k0 = 0; k0 < nRes; k0 += 8) {
    int span = min(8, nRes - k0);
    __syncthreads();
    for (int r = 0; r < 16; r++) {
      int i = i0 + r;
      int j = j0 + r;
      bool live = ty < span && ch < c;
      xs[r][ty][tx] = live && i < nRes ? x[(size_t)i * sxi + (size_t)(k0 + ty) * sxk + ch] : 0.0f;
      ys[r][ty][tx] = live && j < nRes ? y[(size_t)j * syj + (size_t)(k0 + ty) * syk + ch] : 0.0f;
    }
    __syncthreads();
    for (int kk = 0; kk < span; kk++) {
      float x0 = xs[ty][kk][tx];
      float x1 = xs[ty + 8][kk][tx];
      for (int b = 0; b < 16; b++) {
        float yv = ys[b][kk][tx];
        acc[0][b] = fmaf(x0, yv, acc[0][b]);
        acc[1][b] = fmaf(x1, yv, acc[1][b]);
      }
    }
  }
  if (ch >= c) {
    return;
  }
  for (int a = 0; a < 2; a++) {
    int i = i0 + ty + 8 * a;
    if (i >= nRes) {
      continue;
    }
    for (int b = 0; b < 16; b++) {
      int j = j0 + b;
      if (j < nRes) {
        out[((size_t)i * nRes + j) * c + ch] = acc[a][b];
      }
    }
  }
}

// The outer product mean's GEMM leaves outer[(j Co + e)][(i Co + c)] (column-major C = left x right^T, left and
// right laid out [s][r][c]); this writes it as out[i][j][c][e], the rows its output projection multiplies.
extern "C" __global__ void af2_opm_rearrange(const float* in, float* out, int nRes, int co) {
  long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  long long n = (long long)nRes * nRes * co * co;
  if (t >= n) {
    return;
  }
  int e = (int)(t % co);
  int c = (int)((t / co) % co);
  int j = (int)((t / ((long long)co * co)) % nRes);
  int i = (int)(t / ((long long)co * co * nRes));
  out[t] = in[((size_t)j * co + e) * ((size_t)nRes * co) + (size_t)i * co + c];
}
