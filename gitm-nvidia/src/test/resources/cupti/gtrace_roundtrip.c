/* Writes a .gtrace file with every record type through gitm-nvidia/src/main/c/gtrace_writer.c (argv[1]), and the
   same records as tab-separated text lines (doubles as their IEEE-754 bits) (argv[2]) for GtraceWriterRoundTripTest to compare with what its own
   reader decodes. Several threads write at once, so the blocks interleave their records. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gtrace_writer.h"

#define THREADS 4
#define PER_THREAD 1500

static gt_writer *W;
static const char *KERNELS[] = {"_Z6saxpyifPKfPf", "ampere_sgemm_128x64_nn", "void at::native::elementwise<\"κ\">",
                                "tab\tand\\backslash", "k"};
static const char *APIS[] = {"cuLaunchKernel", "cuMemAlloc_v2", "cuMemFree_v2", "cuMemcpyHtoD_v2",
                             "cuMemsetD8_v2", "cuCtxSynchronize", "cuModuleLoadData", "cudaLaunchKernel_v7000",
                             "cudaMalloc_v3020", "cudaFree_v3020", "cudaMemcpyAsync_v3020", "cudaMemsetAsync_v3020",
                             "cudaStreamSynchronize_v3020", "cudaGetDevice_v3020", "cuGraphLaunch",
                             "cuMemHostAlloc", "cuStreamWaitEvent", "cuMemGetInfo_v2", "cuDevicePrimaryCtxGetState",
                             "cudaGetLastError_v3020", "cuKernelGetName", "cuCtxGetCurrent",
                             "cudaLaunchKernelExC_v11060"};
typedef struct { int t; char *lines; size_t len, cap; } out_t;

static void add(out_t *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#include <stdarg.h>
static void add(out_t *o, const char *fmt, ...) {
  char buf[512];
  va_list ap; va_start(ap, fmt); int n = vsnprintf(buf, sizeof buf, fmt, ap); va_end(ap);
  if (o->len + (size_t)n + 1 > o->cap) { o->cap = (o->cap + (size_t)n + 1) * 2; o->lines = realloc(o->lines, o->cap); }
  memcpy(o->lines + o->len, buf, (size_t)n); o->len += (size_t)n;
}

static void *run(void *arg) {
  out_t *o = arg;
  int t = o->t;
  for (int k = 0; k < PER_THREAD; k++) {
    long long i = (long long)t * PER_THREAD + k;
    long long s = 1000000000LL + i * 1000, e = s + 10 + i % 97;
    switch (k % 8) {
      case 0: {
        const char *name = KERNELS[i % 5];
        int32_t grid[3] = {(int32_t)(i % 1000 + 1), 2, 3}, block[3] = {128, (int32_t)(i % 4 + 1), 1};
        if (k % 16 == 0) /* the name interned first, the record written by id */
          gt_kernel_id(W, gt_intern(W, name), (int32_t)(i % 2), (int32_t)(7 + i % 3), i, s, e, grid, block, 32, 1024,
                       (int32_t)(i % 4096));
        else
          gt_kernel(W, name, (int32_t)(i % 2), (int32_t)(7 + i % 3), i, s, e, grid, block, 32, 1024,
                    (int32_t)(i % 4096));
        add(o, "KERNEL\t%s\t%lld\t%lld\t%lld\t%lld\t%lld\t%d\t2\t3\t128\t%lld\t1\t32\t1024\t%lld\n", name, i % 2,
            7 + i % 3, i, s, e, (int)(i % 1000 + 1), i % 4 + 1, i % 4096);
        break;
      }
      case 1:
        gt_copy(W, (uint8_t)(i % 6), (uint8_t)(i % 6), (uint8_t)((i + 1) % 6), i * 4096, 0, 1, i, s, e);
        add(o, "COPY\t%lld\t%lld\t%lld\t%lld\t0\t1\t%lld\t%lld\t%lld\n", i % 6, i % 6, (i + 1) % 6, i * 4096, i, s, e);
        break;
      case 2:
        gt_memset(W, (uint8_t)(i % 6), (int32_t)(i % 256) - 3, i * 8, 1, -1, i, s, e);
        add(o, "MEMSET\t%lld\t%lld\t%lld\t1\t-1\t%lld\t%lld\t%lld\n", i % 6, i % 256 - 3, i * 8, i, s, e);
        break;
      case 3:
        gt_sync(W, (uint8_t)(i % 5), 0, (int32_t)(i % 5 == 3 ? -1 : 4), i, s, e);
        add(o, "SYNC\t%lld\t0\t%d\t%lld\t%lld\t%lld\n", i % 5, i % 5 == 3 ? -1 : 4, i, s, e);
        break;
      case 4: {
        const char *name = APIS[i % (sizeof APIS / sizeof *APIS)];
        uint8_t kind = gt_classify_api(name);
        if (k % 16 == 4) gt_api_id(W, kind, gt_intern(W, name), 4000 + t, i, s, e);
        else gt_api(W, kind, name, 4000 + t, i, s, e);
        add(o, "API\t%u\t%s\t%d\t%lld\t%lld\t%lld\n", kind, name, 4000 + t, i, s, e);
        break;
      }
      case 5:
        gt_overhead(W, (uint8_t)(i % 5), 4000 + t, s, e);
        add(o, "OVERHEAD\t%lld\t%d\t%lld\t%lld\n", i % 5, 4000 + t, s, e);
        break;
      case 6: {
        uint8_t f[3] = {0, 5, 21};
        double v[3] = {(double)(i % 101), 81.25 + (double)i / 8, 0.0};
        gt_state(W, 0, s, 3, f, v);
        unsigned long long b[3];
        memcpy(b, v, sizeof b);
        add(o, "STATE\t0\t%lld\t3\t0\t%llu\t5\t%llu\t21\t%llu\n", s, b[0], b[1], b[2]);
        break;
      }
      default:
        gt_marker(W, "iteration", 4000 + t, s, s);
        add(o, "MARKER\titeration\t%d\t%lld\t%lld\n", 4000 + t, s, s);
    }
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 3) { fprintf(stderr, "usage: gtrace_roundtrip OUT.gtrace OUT.txt\n"); return 2; }
  W = gt_open(argv[1], 4096);
  if (!W) { perror("gt_open"); return 1; }
  pthread_t th[THREADS];
  out_t outs[THREADS];
  memset(outs, 0, sizeof outs);
  for (int t = 0; t < THREADS; t++) { outs[t].t = t; pthread_create(&th[t], NULL, run, &outs[t]); }
  for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
  char meta[1024];
  size_t n = 0;
  n += (size_t)snprintf(meta + n, sizeof meta - n, "{\"source\":\"cupti\",\"clock\":\"HOST_MONOTONIC\",\"devices\":[{\"index\":0,\"name\":");
  n = gt_json_string(meta, n, sizeof meta, "Test \"GPU\"\n");
  n += (size_t)snprintf(meta + n, sizeof meta - n, ",\"uuid\":\"GPU-01234567-89ab-cdef-0123-456789abcdef\",\"kind\":\"REAL\"}],\"attributes\":{\"test\":\"roundtrip\"}}");
  if (gt_close(W, meta) != 0) { perror("gt_close"); return 1; }
  FILE *txt = fopen(argv[2], "w");
  for (int t = 0; t < THREADS; t++) fwrite(outs[t].lines, 1, outs[t].len, txt);
  fclose(txt);
  return 0;
}
