/*
 * A fake CUDA driver (libcuda.so.1) for checking the Java bindings' marshalling without a GPU: "device" memory is
 * host memory, the self-test and calibration kernels are run on the CPU by name, streams run eagerly, graph capture
 * records launches and replays them, events read CLOCK_MONOTONIC. Only scripts/fake-gpu-check.sh uses it; it proves
 * nothing about a real GPU.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int CUresult;
#define OK 0
#define ERR_INVALID_VALUE 1
#define ERR_OOM 2
#define ERR_NOT_FOUND 500
#define TOTAL_MEM (16ULL << 30)

static unsigned long long used_mem = 0;
static size_t persisting_limit = 0;
static unsigned long long pool_threshold = 0, pool_reserved = 0;
static int ctx_flags = 0;
static int ctx_dummy;

typedef struct { unsigned long long size; } hdr_t;

static void *dalloc(size_t n) {
  hdr_t *h = malloc(sizeof(hdr_t) + n);
  if (!h) return NULL;
  h->size = n;
  used_mem += n;
  return h + 1;
}
static void dfree(void *p) {
  if (!p) return;
  hdr_t *h = ((hdr_t *)p) - 1;
  used_mem -= h->size;
  free(h);
}

CUresult cuInit(unsigned int f) { return OK; }
CUresult cuDriverGetVersion(int *v) { *v = 13000; return OK; }
CUresult cuDeviceGetCount(int *n) { *n = 1; return OK; }
CUresult cuDeviceGet(int *d, int o) { if (o != 0) return 101; *d = 0; return OK; }
CUresult cuDeviceGetName(char *name, int len, int d) { snprintf(name, len, "Fake CUDA Device"); return OK; }
CUresult cuDeviceGetUuid_v2(unsigned char *u, int d) { for (int i = 0; i < 16; i++) u[i] = (unsigned char)(0x10 + i); return OK; }
CUresult cuDeviceTotalMem_v2(size_t *b, int d) { *b = TOTAL_MEM; return OK; }
CUresult cuDeviceGetAttribute(int *v, int attr, int d) {
  switch (attr) {
    case 13: *v = 1980000; break;
    case 16: *v = 132; break;
    case 38: *v = 50 << 20; break;
    case 75: *v = 9; break;
    case 76: *v = 0; break;
    case 97: *v = 227 << 10; break;
    case 108: *v = 30 << 20; break;
    case 109: *v = 128 << 20; break;
    case 115: *v = 1; break;
    default: return ERR_INVALID_VALUE;
  }
  return OK;
}
CUresult cuDevicePrimaryCtxRetain(void **ctx, int d) { *ctx = &ctx_dummy; return OK; }
CUresult cuDevicePrimaryCtxRelease_v2(int d) { return OK; }
CUresult cuDevicePrimaryCtxSetFlags_v2(int d, unsigned int f) { if (f > 7) return ERR_INVALID_VALUE; ctx_flags = f; return OK; }
CUresult cuCtxSetCurrent(void *c) { return c == &ctx_dummy || c == NULL ? OK : 201; }
CUresult cuCtxSynchronize(void) { return OK; }
CUresult cuCtxGetStreamPriorityRange(int *lo, int *hi) { *lo = 0; *hi = -5; return OK; }
CUresult cuCtxSetLimit(int which, size_t v) { if (which != 6) return ERR_INVALID_VALUE; persisting_limit = v; return OK; }
CUresult cuCtxGetLimit(size_t *v, int which) { if (which != 6) return ERR_INVALID_VALUE; *v = persisting_limit; return OK; }
CUresult cuCtxResetPersistingL2Cache(void) { return OK; }

/* streams and capture */
typedef struct launch { char name[64]; unsigned char args[64]; unsigned gx, bx; unsigned shm; } launch_t;
typedef struct stream { int prio; int capturing; int n; launch_t rec[64]; unsigned long long id; } stream_t;
static unsigned long long next_stream_id = 100;
CUresult cuStreamCreateWithPriority(void **s, unsigned int flags, int prio) {
  if (prio > 0 || prio < -5 || flags != 1) return ERR_INVALID_VALUE;
  stream_t *st = calloc(1, sizeof(stream_t));
  st->prio = prio;
  st->id = next_stream_id++;
  *s = st;
  return OK;
}
CUresult cuStreamDestroy_v2(void *s) { free(s); return OK; }
CUresult cuStreamSynchronize(void *s) { return OK; }
CUresult cuStreamWaitEvent(void *s, void *e, unsigned int f) { return OK; }
CUresult cuStreamGetId(void *s, unsigned long long *id) { *id = s ? ((stream_t *)s)->id : 0; return OK; }
typedef struct { void *base; size_t bytes; float ratio; int hit; int miss; } apw_t;
CUresult cuStreamSetAttribute(void *s, int attr, const void *v) {
  const apw_t *w = v;
  if (attr != 1 || !s) return ERR_INVALID_VALUE;
  if (w->bytes > (128u << 20) || w->ratio < 0 || w->ratio > 1) return ERR_INVALID_VALUE;
  if (w->bytes > 0 && (w->hit != 2 || w->miss != 1 || !w->base)) return ERR_INVALID_VALUE;
  if (w->bytes > 0 && persisting_limit == 0) return ERR_INVALID_VALUE;
  return OK;
}
CUresult cuStreamBeginCapture_v2(void *s, int mode) { if (!s || mode != 1) return ERR_INVALID_VALUE; ((stream_t *)s)->capturing = 1; ((stream_t *)s)->n = 0; return OK; }
typedef struct graph { int n; launch_t rec[64]; } graph_t;
CUresult cuStreamEndCapture(void *s, void **g) {
  stream_t *st = s;
  if (!st || !st->capturing) return 900;
  graph_t *gr = calloc(1, sizeof(graph_t));
  gr->n = st->n;
  memcpy(gr->rec, st->rec, sizeof(launch_t) * st->n);
  st->capturing = 0;
  *g = gr;
  return OK;
}
CUresult cuGraphGetNodes(void *g, void **nodes, size_t *n) { if (nodes) return ERR_INVALID_VALUE; *n = ((graph_t *)g)->n; return OK; }
CUresult cuGraphInstantiateWithFlags(void **e, void *g, unsigned long long f) {
  graph_t *copy = malloc(sizeof(graph_t));
  memcpy(copy, g, sizeof(graph_t));
  *e = copy;
  return OK;
}
CUresult cuGraphExecDestroy(void *e) { free(e); return OK; }
CUresult cuGraphDestroy(void *g) { free(g); return OK; }

/* events */
typedef struct { double ms; int timing; } event_t;
static double now_ms(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e3 + t.tv_nsec / 1e6; }
CUresult cuEventCreate(void **e, unsigned int f) { event_t *ev = calloc(1, sizeof(event_t)); ev->timing = !(f & 2); *e = ev; return OK; }
CUresult cuEventRecord(void *e, void *s) { ((event_t *)e)->ms = now_ms(); return OK; }
CUresult cuEventSynchronize(void *e) { return OK; }
CUresult cuEventElapsedTime_v2(float *ms, void *a, void *b) {
  if (!((event_t *)a)->timing || !((event_t *)b)->timing) return ERR_INVALID_VALUE;
  *ms = (float)(((event_t *)b)->ms - ((event_t *)a)->ms);
  return OK;
}
CUresult cuEventDestroy_v2(void *e) { free(e); return OK; }

/* memory */
CUresult cuMemAlloc_v2(unsigned long long *p, size_t n) {
  if (n == 0 || used_mem + n > TOTAL_MEM) return ERR_OOM;
  void *m = dalloc(n);
  if (!m) return ERR_OOM;
  *p = (unsigned long long)(uintptr_t)m;
  return OK;
}
CUresult cuMemFree_v2(unsigned long long p) { dfree((void *)(uintptr_t)p); return OK; }
CUresult cuMemAllocAsync(unsigned long long *p, size_t n, void *s) {
  CUresult r = cuMemAlloc_v2(p, n);
  if (r == OK) pool_reserved += n;
  return r;
}
CUresult cuMemFreeAsync(unsigned long long p, void *s) {
  hdr_t *h = ((hdr_t *)(uintptr_t)p) - 1;
  pool_reserved -= h->size;
  dfree((void *)(uintptr_t)p);
  return OK;
}
static int pool_dummy;
CUresult cuDeviceGetDefaultMemPool(void **pool, int d) { *pool = &pool_dummy; return OK; }
CUresult cuMemPoolSetAttribute(void *pool, int attr, void *v) { if (attr != 4) return ERR_INVALID_VALUE; pool_threshold = *(unsigned long long *)v; return OK; }
CUresult cuMemPoolGetAttribute(void *pool, int attr, void *v) {
  switch (attr) {
    case 4: *(unsigned long long *)v = pool_threshold; return OK;
    case 5: *(unsigned long long *)v = pool_reserved; return OK;
    case 7: *(unsigned long long *)v = pool_reserved; return OK;
    default: return ERR_INVALID_VALUE;
  }
}
CUresult cuMemPoolTrimTo(void *pool, size_t keep) { return OK; }
CUresult cuMemHostAlloc(void **p, size_t n, unsigned int f) { *p = malloc(n); return *p ? OK : ERR_OOM; }
CUresult cuMemFreeHost(void *p) { free(p); return OK; }
CUresult cuMemcpyHtoD_v2(unsigned long long d, const void *h, size_t n) { memcpy((void *)(uintptr_t)d, h, n); return OK; }
CUresult cuMemcpyDtoH_v2(void *h, unsigned long long d, size_t n) { memcpy(h, (void *)(uintptr_t)d, n); return OK; }
CUresult cuMemcpyDtoD_v2(unsigned long long d, unsigned long long s, size_t n) { memmove((void *)(uintptr_t)d, (void *)(uintptr_t)s, n); return OK; }
CUresult cuMemcpyHtoDAsync_v2(unsigned long long d, const void *h, size_t n, void *s) { return cuMemcpyHtoD_v2(d, h, n); }
CUresult cuMemcpyDtoHAsync_v2(void *h, unsigned long long d, size_t n, void *s) { return cuMemcpyDtoH_v2(h, d, n); }
CUresult cuMemcpyDtoDAsync_v2(unsigned long long d, unsigned long long s, size_t n, void *st) { return cuMemcpyDtoD_v2(d, s, n); }
CUresult cuMemsetD8Async(unsigned long long d, unsigned char v, size_t n, void *s) { memset((void *)(uintptr_t)d, v, n); return OK; }
CUresult cuMemGetInfo_v2(size_t *free_b, size_t *total) { *free_b = TOTAL_MEM - used_mem; *total = TOTAL_MEM; return OK; }

/* modules and kernels: the known entry points, run on the CPU */
typedef struct { char name[64]; int carveout; int maxdyn; } func_t;
typedef struct { int loaded; } module_t;
CUresult cuModuleLoadData(void **m, const void *image) {
  if (!strstr((const char *)image, ".entry") && !strstr((const char *)image, ".visible")) return 218;
  *m = calloc(1, sizeof(module_t));
  return OK;
}
CUresult cuModuleUnload(void *m) { free(m); return OK; }
static const char *KNOWN[] = {"gitm_saxpy", "gitm_add_shared", "gitm_scale", "gitm_copy", "gitm_empty", NULL};
CUresult cuModuleGetFunction(void **f, void *m, const char *name) {
  for (int i = 0; KNOWN[i]; i++) {
    if (!strcmp(KNOWN[i], name)) {
      func_t *fn = calloc(1, sizeof(func_t));
      snprintf(fn->name, sizeof(fn->name), "%s", name);
      fn->carveout = -1;
      fn->maxdyn = 48 << 10;
      *f = fn;
      return OK;
    }
  }
  return ERR_NOT_FOUND;
}
CUresult cuFuncGetAttribute(int *v, int attr, void *f) {
  func_t *fn = f;
  switch (attr) {
    case 4: *v = 16; return OK;
    case 8: *v = fn->maxdyn; return OK;
    case 9: *v = fn->carveout; return OK;
    default: return ERR_INVALID_VALUE;
  }
}
CUresult cuFuncSetAttribute(void *f, int attr, int v) {
  func_t *fn = f;
  if (attr == 9) { if (v < -1 || v > 100) return ERR_INVALID_VALUE; fn->carveout = v; return OK; }
  if (attr == 8) { if (v > (227 << 10)) return ERR_INVALID_VALUE; fn->maxdyn = v; return OK; }
  return ERR_INVALID_VALUE;
}
static size_t arg_bytes(const char *name) {
  if (!strcmp(name, "gitm_saxpy")) return 8 + 8 + 4 + 4;
  if (!strcmp(name, "gitm_add_shared")) return 8 + 8 + 8;
  if (!strcmp(name, "gitm_scale")) return 8 + 4 + 4;
  if (!strcmp(name, "gitm_copy")) return 8 + 8 + 8;
  return 4;
}
/* packs the kernel's parameters (each pointed to by params[i]) in the fixed order of its signature */
static void pack(const char *name, void **p, unsigned char *out) {
  if (!strcmp(name, "gitm_saxpy")) { memcpy(out, p[0], 8); memcpy(out + 8, p[1], 8); memcpy(out + 16, p[2], 4); memcpy(out + 20, p[3], 4); }
  else if (!strcmp(name, "gitm_add_shared") || !strcmp(name, "gitm_copy")) { memcpy(out, p[0], 8); memcpy(out + 8, p[1], 8); memcpy(out + 16, p[2], 8); }
  else if (!strcmp(name, "gitm_scale")) { memcpy(out, p[0], 8); memcpy(out + 8, p[1], 4); memcpy(out + 12, p[2], 4); }
  else memcpy(out, p[0], 4);
}
static void run(const char *name, const unsigned char *a, unsigned threads) {
  if (!strcmp(name, "gitm_saxpy")) {
    float *y = *(float **)a, *x = *(float **)(a + 8), s = *(float *)(a + 16);
    int n = *(int *)(a + 20);
    for (int i = 0; i < n && (unsigned)i < threads; i++) y[i] = s * x[i] + y[i];
  } else if (!strcmp(name, "gitm_add_shared")) {
    float *y = *(float **)a; double v = *(double *)(a + 8); long long n = *(long long *)(a + 16);
    for (long long i = 0; i < n && i < threads; i++) y[i] = y[i] + (float)v;
  } else if (!strcmp(name, "gitm_scale")) {
    float *y = *(float **)a, s = *(float *)(a + 8); int n = *(int *)(a + 12);
    for (int i = 0; i < n && (unsigned)i < threads; i++) y[i] = s * y[i];
  } else if (!strcmp(name, "gitm_copy")) {
    memcpy(*(void **)a, *(void **)(a + 8), 16 * (size_t)*(long long *)(a + 16));
  }
}
CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
    unsigned shm, void *s, void **params, void **extra) {
  func_t *fn = f;
  if (!fn || gx == 0 || bx == 0 || bx > 1024 || extra) return ERR_INVALID_VALUE;
  if (shm > (unsigned)fn->maxdyn) return ERR_INVALID_VALUE;
  unsigned char a[64] = {0};
  pack(fn->name, params, a);
  stream_t *st = s;
  if (st && st->capturing) {
    launch_t *l = &st->rec[st->n++];
    snprintf(l->name, sizeof(l->name), "%s", fn->name);
    memcpy(l->args, a, arg_bytes(fn->name));
    l->gx = gx; l->bx = bx; l->shm = shm;
    return OK;
  }
  run(fn->name, a, gx * gy * gz * bx * by * bz);
  return OK;
}
CUresult cuGraphLaunch(void *e, void *s) {
  graph_t *g = e;
  for (int i = 0; i < g->n; i++) run(g->rec[i].name, g->rec[i].args, g->rec[i].gx * g->rec[i].bx);
  return OK;
}
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, void *f, int block, size_t dyn) { *n = 2048 / block; return OK; }
CUresult cuOccupancyMaxPotentialBlockSize(int *grid, int *block, void *f, void *cb, size_t dyn, int lim) {
  if (cb) return ERR_INVALID_VALUE;
  *grid = 264; *block = 768; return OK;
}
