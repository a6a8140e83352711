// hft-lob: limit-order-book reconstruction from ITCH 5.0 messages, per-instrument features and an MLP signal.
// Every kernel's effect on memory is deterministic and mirrored exactly by its Java emulation (LobKernels):
// books and features are integers; the MLP uses explicitly rounded float operations (no contraction) only.
//
// Layouts (little-endian, 4-byte ints, 8-byte long longs):
//   in:    raw messages | int offsets[m] at offsetsAt | int subStart[k+1] at subAt (input batch starts)
//   dec:   10 ints per message: inst, type, side (+1 buy, -1 sell), sub, shares, price, key (i64), key2 (i64):
//          an order's key is its reference plus one, so that reference 0 is an order like any other
//   hist:  int [chunks][n] messages of each instrument in each chunk of blockDim messages; then exclusive prefix
//   ord:   per instrument 2^logOC slots of 16 bytes: i64 key (0 = empty), i32 price, i32 signed shares (+ buy)
//   lv:    per instrument, per side (0 bid, 1 ask), LV levels of (price, qty), best first; nlv [n][2]
//   top:   int [k][n][2][10][2]: the top 10 levels of each side after each input batch (zeros past the last)
//   feat:  i64 [k][n][16]: see LobLayout's feature columns
//   state: i64 [n][6]: previous best bid, ask, bid size, ask size, doubled mid, EWMA variance
//   w:     float MLP weights: W1[16][8], b1[16], W2[16], b2

#define DEC 10
#define TOP 40
#define FEAT 16
#define STATE 6
#define HID 16
#define IN 8

#define ERR_DUPLICATE 1
#define ERR_ORDERS_FULL 2
#define ERR_LEVELS_FULL 4
#define ERR_OVERFLOW 8
#define ERR_INCONSISTENT 16

__device__ __forceinline__ unsigned int be16(const unsigned char* p) { return ((unsigned int)p[0] << 8) | p[1]; }
__device__ __forceinline__ unsigned int be32(const unsigned char* p) {
  return ((unsigned int)p[0] << 24) | ((unsigned int)p[1] << 16) | ((unsigned int)p[2] << 8) | p[3];
}
__device__ __forceinline__ long long be64(const unsigned char* p) {
  unsigned long long v = 0;
  for (int i = 0; i < 8; i++) v = (v << 8) | p[i];
  return (long long)v;
}

extern "C" __global__ void lob_decode(const unsigned char* in, int offsetsAt, int subAt, int m, int k, int n,
    int rawBytes, int* dec) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= m) return;
  const int* off = (const int*)(in + offsetsAt);
  const int* sub = (const int*)(in + subAt);
  const unsigned char* p = in + off[j];
  int type = p[0];
  int locate = (int)be16(p + 1);
  int s = 0;
  while (s + 1 < k && sub[s + 1] <= j) s++;
  int side = 0, shares = 0, price = 0;
  long long ref = 0, ref2 = 0;
  bool book = true;
  switch (type) {
    case 'A': case 'F':
      ref = be64(p + 11); side = p[19] == 'B' ? 1 : -1; shares = (int)be32(p + 20); price = (int)be32(p + 32); break;
    case 'E': case 'X':
      ref = be64(p + 11); shares = (int)be32(p + 19); break;
    case 'C':
      ref = be64(p + 11); shares = (int)be32(p + 19); price = (int)be32(p + 32); break;
    case 'D':
      ref = be64(p + 11); break;
    case 'U':
      ref = be64(p + 11); ref2 = be64(p + 19); shares = (int)be32(p + 27); price = (int)be32(p + 31); break;
    case 'P':
      ref = be64(p + 11); side = p[19] == 'B' ? 1 : -1; shares = (int)be32(p + 20); price = (int)be32(p + 32); break;
    default:
      book = false;
  }
  int* d = dec + (long long)j * DEC;
  d[0] = book && locate >= 1 && locate <= n ? locate - 1 : -1;
  d[1] = type;
  d[2] = side;
  d[3] = s;
  d[4] = shares;
  d[5] = price;
  long long* d64 = (long long*)(d + 6);
  d64[0] = book ? (long long)((unsigned long long)ref + 1ULL) : 0;
  d64[1] = type == 'U' ? (long long)((unsigned long long)ref2 + 1ULL) : 0;
}

// One block per chunk of blockDim messages: counts of each instrument in the chunk (integer atomics).
extern "C" __global__ void lob_route_hist(const int* dec, int m, int n, int* hist) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= m) return;
  int inst = dec[(long long)j * DEC];
  if (inst >= 0) atomicAdd(&hist[(long long)blockIdx.x * n + inst], 1);
}

// One thread per instrument: turns its chunk counts into an exclusive prefix over chunks; totals = its messages.
extern "C" __global__ void lob_route_chunks(int* hist, int chunks, int n, int* totals) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int run = 0;
  for (int c = 0; c < chunks; c++) {
    long long at = (long long)c * n + i;
    int v = hist[at];
    hist[at] = run;
    run += v;
  }
  totals[i] = run;
}

// One block: exclusive prefix sum of totals over instruments (each thread a contiguous span).
extern "C" __global__ void lob_route_scan(const int* totals, int n, int* starts) {
  __shared__ int part[1024];
  int t = threadIdx.x, T = blockDim.x;
  int span = (n + T - 1) / T;
  int lo = t * span, hi = min(n, lo + span);
  int sum = 0;
  for (int i = lo; i < hi; i++) sum += totals[i];
  part[t] = sum;
  __syncthreads();
  if (t == 0) {
    int run = 0;
    for (int u = 0; u < T; u++) { int v = part[u]; part[u] = run; run += v; }
  }
  __syncthreads();
  int run = part[t];
  for (int i = lo; i < hi; i++) { starts[i] = run; run += totals[i]; }
}

// Stable scatter: a message's place is its instrument's start, plus its instrument's messages in earlier chunks,
// plus those before it in its chunk.
extern "C" __global__ void lob_route_scatter(const int* dec, const int* hist, const int* starts, int m, int n,
    int* perm) {
  __shared__ int inst[1024];
  int t = threadIdx.x;
  int j = blockIdx.x * blockDim.x + t;
  int mine = j < m ? dec[(long long)j * DEC] : -1;
  inst[t] = mine;
  __syncthreads();
  if (j >= m || mine < 0) return;
  int rank = 0;
  for (int u = 0; u < t; u++) rank += inst[u] == mine;
  perm[starts[mine] + hist[(long long)blockIdx.x * n + mine] + rank] = j;
}

__device__ __forceinline__ int home(long long ref, int logOC) {
  return (int)(((unsigned long long)ref * 0x9E3779B97F4A7C15ULL) >> (64 - logOC));
}

__device__ int find(const long long* t, int logOC, long long ref) {
  int mask = (1 << logOC) - 1;
  int s = home(ref, logOC);
  for (int probes = 0; probes <= mask; probes++) {
    long long r = t[2 * s];
    if (r == ref) return s;
    if (r == 0) return -1;
    s = (s + 1) & mask;
  }
  return -1;
}

// Backward-shift deletion keeps linear probing free of tombstones.
__device__ void erase(long long* t, int logOC, int j) {
  int mask = (1 << logOC) - 1;
  for (;;) {
    t[2 * j] = 0;
    t[2 * j + 1] = 0;
    int k = j;
    for (;;) {
      k = (k + 1) & mask;
      long long r = t[2 * k];
      if (r == 0) return;
      int h = home(r, logOC);
      bool stays = j <= k ? (h > j && h <= k) : (h > j || h <= k);
      if (!stays) {
        t[2 * j] = r;
        t[2 * j + 1] = t[2 * k + 1];
        j = k;
        break;
      }
    }
  }
}

// Adds delta shares at price on one side's sorted levels; returns error bits.
__device__ int level_add(int* L, int* count, int LV, int side, int price, int delta) {
  int c = *count;
  int p = 0;
  if (side == 0) { while (p < c && L[2 * p] > price) p++; }
  else { while (p < c && L[2 * p] < price) p++; }
  if (p < c && L[2 * p] == price) {
    long long q = (long long)L[2 * p + 1] + delta;
    if (q > 2147483647LL) return ERR_OVERFLOW;
    if (q < 0) return ERR_INCONSISTENT;
    if (q == 0) {
      for (int u = p; u < c - 1; u++) { L[2 * u] = L[2 * u + 2]; L[2 * u + 1] = L[2 * u + 3]; }
      *count = c - 1;
    } else {
      L[2 * p + 1] = (int)q;
    }
    return 0;
  }
  if (delta < 0) return ERR_INCONSISTENT;
  if (delta == 0) return 0;
  if (c == LV) return ERR_LEVELS_FULL;
  for (int u = c; u > p; u--) { L[2 * u] = L[2 * u - 2]; L[2 * u + 1] = L[2 * u - 1]; }
  L[2 * p] = price;
  L[2 * p + 1] = delta;
  *count = c + 1;
  return 0;
}

// One thread per instrument walks its messages of the batch in order; after each input batch it writes the
// top levels and its per-batch counts.
extern "C" __global__ void lob_book(const int* dec, const int* perm, const int* starts, const int* totals,
    long long* ord, int* lv, int* nlv, int* live, int* err, int* top, long long* feat, int n, int k, int logOC,
    int LV, int m) {
  // m (the batch's messages) only informs the work model.
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int oc = 1 << logOC;
  long long* t = ord + (long long)i * oc * 2;
  int* ti = (int*)t;
  int* L0 = lv + (long long)(2 * i) * LV * 2;
  int* L1 = lv + (long long)(2 * i + 1) * LV * 2;
  int nl0 = nlv[2 * i], nl1 = nlv[2 * i + 1];
  int lc = live[i];
  int e = err[i];
  long long tv = 0;
  int msgs = 0, unk = 0, cur = 0;
  int b = starts[i], cnt = totals[i];
  for (int q = 0; q <= cnt; q++) {
    int sub = k;
    const int* d = 0;
    if (q < cnt) {
      d = dec + (long long)perm[b + q] * DEC;
      sub = d[3];
    }
    while (cur < sub) {
      int* o = top + ((long long)cur * n + i) * TOP;
      for (int l = 0; l < 10; l++) {
        o[2 * l] = l < nl0 ? L0[2 * l] : 0;
        o[2 * l + 1] = l < nl0 ? L0[2 * l + 1] : 0;
        o[20 + 2 * l] = l < nl1 ? L1[2 * l] : 0;
        o[21 + 2 * l] = l < nl1 ? L1[2 * l + 1] : 0;
      }
      long long* f = feat + ((long long)cur * n + i) * FEAT;
      f[10] = tv;
      f[11] = msgs;
      f[13] = unk;
      f[14] = lc;
      f[15] = e;
      tv = 0;
      msgs = 0;
      unk = 0;
      cur++;
    }
    if (q == cnt) break;
    msgs++;
    int type = d[1];
    int shares = d[4];
    int price = d[5];
    long long ref = ((const long long*)(d + 6))[0];
    if (type == 'P') {
      tv += shares;
      continue;
    }
    int s = find(t, logOC, ref);
    int side = d[2] > 0 ? 0 : 1;
    if (type == 'A' || type == 'F') {
      if (s >= 0) { e |= ERR_DUPLICATE; continue; }
    } else if (s < 0) {
      unk++;
      continue;
    }
    if (type != 'A' && type != 'F') {
      int signedQty = ti[4 * s + 3];
      int op = ti[4 * s + 2];
      int oside = signedQty > 0 ? 0 : 1;
      int rem = signedQty > 0 ? signedQty : -signedQty;
      int x = rem;
      if (type == 'E' || type == 'C' || type == 'X') x = min(shares, rem);
      if (type == 'E' || type == 'C') tv += x;
      e |= oside == 0 ? level_add(L0, &nl0, LV, 0, op, -x) : level_add(L1, &nl1, LV, 1, op, -x);
      rem -= x;
      if (rem == 0) {
        erase(t, logOC, s);
        lc--;
      } else {
        ti[4 * s + 3] = oside == 0 ? rem : -rem;
      }
      if (type != 'U') continue;
      // Replace: the new order keeps the side.
      side = oside;
      ref = ((const long long*)(d + 6))[1];
      if (find(t, logOC, ref) >= 0) { e |= ERR_DUPLICATE; continue; }
    }
    if (lc >= oc - 1) { e |= ERR_ORDERS_FULL; continue; }
    int mask = oc - 1;
    int p = home(ref, logOC);
    while (t[2 * p] != 0) p = (p + 1) & mask;
    t[2 * p] = ref;
    ti[4 * p + 2] = price;
    ti[4 * p + 3] = side == 0 ? shares : -shares;
    lc++;
    e |= side == 0 ? level_add(L0, &nl0, LV, 0, price, shares) : level_add(L1, &nl1, LV, 1, price, shares);
  }
  nlv[2 * i] = nl0;
  nlv[2 * i + 1] = nl1;
  live[i] = lc;
  err[i] = e;
}

// One thread per instrument: features after each input batch, carrying state from batch to batch.
extern "C" __global__ void lob_features(const int* top, long long* feat, long long* state, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  long long* st = state + (long long)i * STATE;
  long long pb = st[0], pa = st[1], pbs = st[2], pas = st[3], pm = st[4], var = st[5];
  for (int s = 0; s < k; s++) {
    const int* o = top + ((long long)s * n + i) * TOP;
    long long* f = feat + ((long long)s * n + i) * FEAT;
    long long bid = o[0], bs = o[1], ask = o[20], as = o[21];
    long long db = 0, da = 0;
    for (int l = 0; l < 10; l++) { db += o[2 * l + 1]; da += o[21 + 2 * l]; }
    bool two = bs > 0 && as > 0;
    long long spread = two ? ask - bid : 0;
    long long mid2 = two ? ask + bid : 0;
    long long micro = two ? (bid * as + ask * bs) / (bs + as) : 0;
    long long ofi = (bid >= pb ? bs : 0) - (bid <= pb ? pbs : 0) - (ask <= pa ? as : 0) + (ask >= pa ? pas : 0);
    long long r = mid2 > 0 && pm > 0 ? mid2 - pm : 0;
    var = (var * 15 + r * r) / 16;
    f[0] = bid; f[1] = ask; f[2] = bs; f[3] = as; f[4] = spread; f[5] = mid2; f[6] = micro;
    f[7] = db; f[8] = da; f[9] = ofi; f[12] = var;
    pb = bid; pa = ask; pbs = bs; pas = as; pm = mid2;
  }
  st[0] = pb; st[1] = pa; st[2] = pbs; st[3] = pas; st[4] = pm; st[5] = var;
}

__device__ __forceinline__ float clampf(float x) { return fminf(fmaxf(x, -10.0f), 10.0f); }

// One thread per (input batch, instrument): a 8-16-1 MLP on normalized features, softsign output.
extern "C" __global__ void lob_mlp(const long long* feat, const float* w, float* sig, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const long long* f = feat + (long long)r * FEAT;
  long long bs = f[2], as = f[3], spread = f[4], mid2 = f[5], micro = f[6], db = f[7], da = f[8];
  long long ofi = f[9], tv = f[10], msgs = f[11], var = f[12];
  float m = (float)mid2;
  float x[IN];
  x[0] = mid2 > 0 ? __fdiv_rn((float)(spread * 20000), m) : 0.0f;
  x[1] = bs + as > 0 ? __fdiv_rn((float)(bs - as), (float)(bs + as)) : 0.0f;
  x[2] = db + da > 0 ? __fdiv_rn((float)(db - da), (float)(db + da)) : 0.0f;
  x[3] = mid2 > 0 ? __fdiv_rn((float)((2 * micro - mid2) * 20000), m) : 0.0f;
  x[4] = __fdiv_rn((float)ofi, (float)(db + da + 1));
  x[5] = __fdiv_rn((float)tv, (float)(db + da + 1));
  x[6] = mid2 > 0 ? __fdiv_rn(__fmul_rn(__fsqrt_rn((float)var), 20000.0f), m) : 0.0f;
  x[7] = __fdiv_rn((float)msgs, 100.0f);
  for (int u = 0; u < IN; u++) x[u] = clampf(x[u]);
  float out = w[HID * IN + HID + HID];
  for (int h = 0; h < HID; h++) {
    float a = w[HID * IN + h];
    for (int u = 0; u < IN; u++) a = fmaf(w[h * IN + u], x[u], a);
    a = a > 0.0f ? a : 0.0f;
    out = fmaf(w[HID * IN + HID + h], a, out);
  }
  sig[r] = __fdiv_rn(out, __fadd_rn(1.0f, fabsf(out)));
}

// ---- Variant "warp" of lob_book: one warp per instrument, same effect on memory ----
// The lanes probe 32 order slots, search 32 price levels and shift levels 32 at a time; lane 0 makes the single
// writes; every lane keeps the same copy of the instrument's counters, so control flow stays uniform in the warp.

#define FULL_MASK 0xffffffffu

// First slot in probe order from ref's home that holds ref (found) or is empty (not found), as find() sees it.
__device__ int warp_probe(const long long* t, int logOC, long long ref, int lane, bool wantEmpty) {
  int mask = (1 << logOC) - 1;
  int h = home(ref, logOC);
  for (int base = 0; base <= mask; base += 32) {
    bool in = base + lane <= mask;
    long long r = in ? t[2 * ((h + base + lane) & mask)] : -1;
    unsigned hit = __ballot_sync(FULL_MASK, in && !wantEmpty && r == ref);
    unsigned empty = __ballot_sync(FULL_MASK, in && r == 0);
    unsigned any = hit | empty;
    if (any) {
      int first = __ffs(any) - 1;
      if (wantEmpty) return (h + base + first) & mask;
      return (hit >> first) & 1u ? (h + base + first) & mask : -1;
    }
  }
  return -1;
}

__device__ int warp_level_add(int* L, int* count, int LV, int side, int price, int delta, int lane) {
  int c = *count;
  int p = c;
  for (int base = 0; base < c; base += 32) {
    int u = base + lane;
    bool stop = u < c && (side == 0 ? !(L[2 * u] > price) : !(L[2 * u] < price));
    unsigned b = __ballot_sync(FULL_MASK, stop);
    if (b) { p = base + __ffs(b) - 1; break; }
  }
  if (p < c && L[2 * p] == price) {
    long long q = (long long)L[2 * p + 1] + delta;
    if (q > 2147483647LL) return ERR_OVERFLOW;
    if (q < 0) return ERR_INCONSISTENT;
    __syncwarp();
    if (q == 0) {
      for (int base = p; base < c - 1; base += 32) {
        int u = base + lane;
        int v0 = 0, v1 = 0;
        if (u < c - 1) { v0 = L[2 * u + 2]; v1 = L[2 * u + 3]; }
        __syncwarp();
        if (u < c - 1) { L[2 * u] = v0; L[2 * u + 1] = v1; }
        __syncwarp();
      }
      *count = c - 1;
    } else {
      if (lane == 0) L[2 * p + 1] = (int)q;
      __syncwarp();
    }
    return 0;
  }
  if (delta < 0) return ERR_INCONSISTENT;
  if (delta == 0) return 0;
  if (c == LV) return ERR_LEVELS_FULL;
  __syncwarp();
  for (int top = c; top > p; top -= 32) {
    int u = top - lane;
    int v0 = 0, v1 = 0;
    if (u > p) { v0 = L[2 * u - 2]; v1 = L[2 * u - 1]; }
    __syncwarp();
    if (u > p) { L[2 * u] = v0; L[2 * u + 1] = v1; }
    __syncwarp();
  }
  if (lane == 0) { L[2 * p] = price; L[2 * p + 1] = delta; }
  __syncwarp();
  *count = c + 1;
  return 0;
}

extern "C" __global__ void lob_book_warp(const int* dec, const int* perm, const int* starts, const int* totals,
    long long* ord, int* lv, int* nlv, int* live, int* err, int* top, long long* feat, int n, int k, int logOC,
    int LV, int m) {
  int i = (int)(((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5);
  int lane = threadIdx.x & 31;
  if (i >= n) return;
  int oc = 1 << logOC;
  long long* t = ord + (long long)i * oc * 2;
  int* ti = (int*)t;
  int* L0 = lv + (long long)(2 * i) * LV * 2;
  int* L1 = lv + (long long)(2 * i + 1) * LV * 2;
  int nl0 = nlv[2 * i], nl1 = nlv[2 * i + 1];
  int lc = live[i];
  int e = err[i];
  long long tv = 0;
  int msgs = 0, unk = 0, cur = 0;
  int b = starts[i], cnt = totals[i];
  for (int q = 0; q <= cnt; q++) {
    int sub = k;
    const int* d = 0;
    if (q < cnt) {
      d = dec + (long long)perm[b + q] * DEC;
      sub = d[3];
    }
    while (cur < sub) {
      int* o = top + ((long long)cur * n + i) * TOP;
      if (lane < 10) {
        int l = lane;
        o[2 * l] = l < nl0 ? L0[2 * l] : 0;
        o[2 * l + 1] = l < nl0 ? L0[2 * l + 1] : 0;
        o[20 + 2 * l] = l < nl1 ? L1[2 * l] : 0;
        o[21 + 2 * l] = l < nl1 ? L1[2 * l + 1] : 0;
      }
      if (lane == 0) {
        long long* f = feat + ((long long)cur * n + i) * FEAT;
        f[10] = tv;
        f[11] = msgs;
        f[13] = unk;
        f[14] = lc;
        f[15] = e;
      }
      tv = 0;
      msgs = 0;
      unk = 0;
      cur++;
    }
    if (q == cnt) break;
    msgs++;
    int type = d[1];
    int shares = d[4];
    int price = d[5];
    long long ref = ((const long long*)(d + 6))[0];
    if (type == 'P') {
      tv += shares;
      continue;
    }
    int s = warp_probe(t, logOC, ref, lane, false);
    int side = d[2] > 0 ? 0 : 1;
    if (type == 'A' || type == 'F') {
      if (s >= 0) { e |= ERR_DUPLICATE; continue; }
    } else if (s < 0) {
      unk++;
      continue;
    }
    if (type != 'A' && type != 'F') {
      int signedQty = ti[4 * s + 3];
      int op = ti[4 * s + 2];
      int oside = signedQty > 0 ? 0 : 1;
      int rem = signedQty > 0 ? signedQty : -signedQty;
      int x = rem;
      if (type == 'E' || type == 'C' || type == 'X') x = min(shares, rem);
      if (type == 'E' || type == 'C') tv += x;
      e |= oside == 0 ? warp_level_add(L0, &nl0, LV, 0, op, -x, lane) : warp_level_add(L1, &nl1, LV, 1, op, -x, lane);
      rem -= x;
      __syncwarp();
      if (rem == 0) {
        if (lane == 0) erase(t, logOC, s);
        lc--;
      } else if (lane == 0) {
        ti[4 * s + 3] = oside == 0 ? rem : -rem;
      }
      __syncwarp();
      if (type != 'U') continue;
      side = oside;
      ref = ((const long long*)(d + 6))[1];
      if (warp_probe(t, logOC, ref, lane, false) >= 0) { e |= ERR_DUPLICATE; continue; }
    }
    if (lc >= oc - 1) { e |= ERR_ORDERS_FULL; continue; }
    int p = warp_probe(t, logOC, ref, lane, true);
    __syncwarp();
    if (lane == 0) {
      t[2 * p] = ref;
      ti[4 * p + 2] = price;
      ti[4 * p + 3] = side == 0 ? shares : -shares;
    }
    __syncwarp();
    lc++;
    e |= side == 0 ? warp_level_add(L0, &nl0, LV, 0, price, shares, lane)
                   : warp_level_add(L1, &nl1, LV, 1, price, shares, lane);
  }
  if (lane == 0) {
    nlv[2 * i] = nl0;
    nlv[2 * i + 1] = nl1;
    live[i] = lc;
    err[i] = e;
  }
}
