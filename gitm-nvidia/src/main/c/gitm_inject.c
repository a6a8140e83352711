/* libgitm_inject.so: CUPTI activity tracing of an unmodified CUDA process. The CUDA driver loads it when the
   process's environment names it in CUDA_INJECTION64_PATH and calls InitializeInjection during cuInit. Records go
   to the .gtrace file named by GITM_TRACE_OUT (default gitm-trace-<pid>.gtrace), written as <path>.tmp and renamed
   at exit, so a file under the final name is always complete.

   Timestamps: a CUPTI timestamp callback returns CLOCK_MONOTONIC, so every record is in the host monotonic
   domain (HOST_MONOTONIC). Where CUPTI refuses the callback, the offset of CUPTI's clock to CLOCK_MONOTONIC is
   measured by bracketing and subtracted; the meta says which was done. */
#include <cupti.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gtrace_writer.h"

#define BUFFER_BYTES (8u << 20)
#define META_RESERVE 16384u
#define MAX_CBID 8192

static gt_writer *W;
static pid_t owner_pid;          /* the process that opened W: a forked child never finishes the parent's file */
static char out_path[4096];
static char tmp_path[4200];
static int64_t clock_offset;     /* CUPTI time minus CLOCK_MONOTONIC; 0 with the timestamp callback */
static int64_t clock_uncertainty;
static const char *clock_method = "";
static char errors[2048];        /* ";"-separated failures, for the meta */
static uint64_t invalid_records, buffer_errors;
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static const char *api_names[2][MAX_CBID];

static const struct { CUpti_ActivityKind kind; const char *name; } KINDS[] = {
    {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CONCURRENT_KERNEL"}, {CUPTI_ACTIVITY_KIND_MEMCPY, "MEMCPY"},
    {CUPTI_ACTIVITY_KIND_MEMSET, "MEMSET"}, {CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "SYNCHRONIZATION"},
    {CUPTI_ACTIVITY_KIND_DRIVER, "DRIVER"}, {CUPTI_ACTIVITY_KIND_RUNTIME, "RUNTIME"},
    {CUPTI_ACTIVITY_KIND_OVERHEAD, "OVERHEAD"}};

static uint64_t mono_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void note_error(const char *what, CUptiResult rc) {
  const char *s = NULL;
  cuptiGetResultString(rc, &s);
  size_t n = strlen(errors);
  snprintf(errors + n, sizeof errors - n, "%s%s: %s (%d)", n ? "; " : "", what, s ? s : "?", (int)rc);
  fprintf(stderr, "gitm_inject: %s failed: %s (%d)\n", what, s ? s : "?", (int)rc);
}

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records) {
  void *b = NULL;
  if (posix_memalign(&b, 8, BUFFER_BYTES) != 0) b = NULL;
  *buffer = b;
  *size = b ? BUFFER_BYTES : 0;
  *max_records = 0;
}

static uint8_t copy_kind(uint8_t k) {
  switch (k) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA: return GT_COPY_HTOD;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH: return GT_COPY_DTOH;
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA: case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD: case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA:
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return GT_COPY_DTOD;
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return GT_COPY_HTOH;
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return GT_COPY_PTOP;
    default: return GT_COPY_UNKNOWN;
  }
}

static uint8_t memory_kind(unsigned k) {
  switch (k) {
    case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE: return GT_MEM_PAGEABLE;
    case CUPTI_ACTIVITY_MEMORY_KIND_PINNED: return GT_MEM_PINNED;
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE: case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC: return GT_MEM_DEVICE;
    case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY: return GT_MEM_ARRAY;
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED: case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC: return GT_MEM_MANAGED;
    default: return GT_MEM_UNKNOWN;
  }
}

static uint8_t sync_kind(CUpti_ActivitySynchronizationType t) {
  switch (t) {
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE: return GT_SYNC_EVENT;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT: return GT_SYNC_STREAM_WAIT_EVENT;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE: return GT_SYNC_STREAM;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE: return GT_SYNC_CONTEXT;
    default: return GT_SYNC_UNKNOWN;
  }
}

static uint8_t overhead_kind(CUpti_ActivityOverheadKind k) {
  switch ((unsigned)k) {
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH: return GT_OVH_BUFFER_FLUSH;
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_INSTRUMENTATION: return GT_OVH_INSTRUMENTATION;
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_RESOURCE: case CUPTI_ACTIVITY_OVERHEAD_ACTIVITY_BUFFER_REQUEST:
      return GT_OVH_RESOURCE;
    default: return GT_OVH_OTHER;
  }
}

/* Context id to device ordinal, learned from kernel/copy/memset records (synchronization records carry none). */
#define MAX_CTX 256
static uint32_t ctx_ids[MAX_CTX];
static int32_t ctx_devs[MAX_CTX];
static int ctx_n;
static pthread_mutex_t ctx_lock = PTHREAD_MUTEX_INITIALIZER;

static void learn_ctx(uint32_t ctx, uint32_t dev) {
  pthread_mutex_lock(&ctx_lock);
  int i = 0;
  while (i < ctx_n && ctx_ids[i] != ctx) i++;
  if (i == ctx_n && ctx_n < MAX_CTX) { ctx_ids[ctx_n] = ctx; ctx_devs[ctx_n] = (int32_t)dev; ctx_n++; }
  pthread_mutex_unlock(&ctx_lock);
}

static int32_t ctx_device(uint32_t ctx) {
  int32_t d = -1;
  pthread_mutex_lock(&ctx_lock);
  for (int i = 0; i < ctx_n; i++) if (ctx_ids[i] == ctx) { d = ctx_devs[i]; break; }
  pthread_mutex_unlock(&ctx_lock);
  return d;
}

static const char *api_name(int domain, uint32_t cbid, char *fallback, size_t cap) {
  const char *n = NULL;
  if (cbid < MAX_CBID) n = __atomic_load_n(&api_names[domain - 1][cbid], __ATOMIC_ACQUIRE);
  if (!n) {
    if (cuptiGetCallbackName((CUpti_CallbackDomain)domain, cbid, &n) != CUPTI_SUCCESS || !n) {
      snprintf(fallback, cap, "%s#%u", domain == 1 ? "driver" : "runtime", cbid);
      return fallback;
    }
    if (cbid < MAX_CBID) __atomic_store_n(&api_names[domain - 1][cbid], n, __ATOMIC_RELEASE);
  }
  return n;
}

static int valid(uint64_t start, uint64_t end) {
  if (start == 0 || end == 0 || end < start) {
    pthread_mutex_lock(&stats_lock);
    invalid_records++;
    pthread_mutex_unlock(&stats_lock);
    return 0;
  }
  return 1;
}

#define T(x) ((int64_t)(x) - clock_offset)

static void record(const CUpti_Activity *a) {
  switch (a->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)a;
      if (!valid(k->start, k->end)) return;
      learn_ctx(k->contextId, k->deviceId);
      int32_t grid[3] = {k->gridX, k->gridY, k->gridZ}, block[3] = {k->blockX, k->blockY, k->blockZ};
      gt_kernel(W, k->name && *k->name ? k->name : "<unnamed kernel>", (int32_t)k->deviceId, (int32_t)k->streamId,
                k->correlationId, T(k->start), T(k->end), grid, block, k->registersPerThread, k->staticSharedMemory,
                k->dynamicSharedMemory);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)a;
      if (!valid(m->start, m->end)) return;
      learn_ctx(m->contextId, m->deviceId);
      gt_copy(W, copy_kind(m->copyKind), memory_kind(m->srcKind), memory_kind(m->dstKind), (int64_t)m->bytes,
              (int32_t)m->deviceId, (int32_t)m->streamId, m->correlationId, T(m->start), T(m->end));
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)a;
      if (!valid(m->start, m->end)) return;
      learn_ctx(m->contextId, m->deviceId);
      gt_memset(W, memory_kind(m->memoryKind), (int32_t)m->value, (int64_t)m->bytes, (int32_t)m->deviceId,
                (int32_t)m->streamId, m->correlationId, T(m->start), T(m->end));
      break;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
      const CUpti_ActivitySynchronization2 *s = (const CUpti_ActivitySynchronization2 *)a;
      if (!valid(s->start, s->end)) return;
      uint8_t kind = sync_kind(s->type);
      gt_sync(W, kind, ctx_device(s->contextId), kind == GT_SYNC_CONTEXT ? -1 : (int32_t)s->streamId,
              s->correlationId, T(s->start), T(s->end));
      break;
    }
    case CUPTI_ACTIVITY_KIND_DRIVER:
    case CUPTI_ACTIVITY_KIND_RUNTIME: {
      const CUpti_ActivityAPI *p = (const CUpti_ActivityAPI *)a;
      if (!valid(p->start, p->end)) return;
      char fallback[32];
      const char *name = api_name(a->kind == CUPTI_ACTIVITY_KIND_DRIVER ? 1 : 2, p->cbid, fallback, sizeof fallback);
      gt_api(W, gt_classify_api(name), name, p->threadId, p->correlationId, T(p->start), T(p->end));
      break;
    }
    case CUPTI_ACTIVITY_KIND_OVERHEAD: {
      const CUpti_ActivityOverhead3 *o = (const CUpti_ActivityOverhead3 *)a;
      if (!valid(o->start, o->end)) return;
      int64_t thread = o->objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS || o->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD
                           ? (int64_t)o->objectId.pt.threadId : -1;
      gt_overhead(W, overhead_kind(o->overheadKind), thread, T(o->start), T(o->end));
      break;
    }
    default:
      break;
  }
}

/* Held while a buffer's records are written, so that finish() never closes the writer under a delivery. */
static pthread_mutex_t deliver_lock = PTHREAD_MUTEX_INITIALIZER;

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid_size) {
  (void)ctx; (void)stream; (void)size;
  CUpti_Activity *a = NULL;
  pthread_mutex_lock(&deliver_lock);
  if (W) {
    for (;;) {
      CUptiResult rc = cuptiActivityGetNextRecord(buffer, valid_size, &a);
      if (rc == CUPTI_SUCCESS) { record(a); continue; }
      if (rc != CUPTI_ERROR_MAX_LIMIT_REACHED) {
        pthread_mutex_lock(&stats_lock);
        buffer_errors++;
        pthread_mutex_unlock(&stats_lock);
      }
      break;
    }
  }
  pthread_mutex_unlock(&deliver_lock);
  free(buffer);
}

static void measure_offset(void) {
  int64_t best_width = INT64_MAX;
  for (int i = 0; i < 200; i++) {
    uint64_t c, h0 = mono_ns();
    if (cuptiGetTimestamp(&c) != CUPTI_SUCCESS) return;
    uint64_t h1 = mono_ns();
    int64_t w = (int64_t)(h1 - h0);
    if (w < best_width) { best_width = w; clock_offset = (int64_t)c - (int64_t)(h0 + (uint64_t)w / 2); }
  }
  clock_uncertainty = (best_width + 1) / 2;
}

/* The driver API calls for the device table, through dlopen: nothing here links against libcuda. */
typedef int (*cu_int_fn)(int *);
typedef int (*cu_get_fn)(int *, int);
typedef int (*cu_name_fn)(char *, int, int);
typedef int (*cu_uuid_fn)(unsigned char *, int);

static size_t devices_json(char *out, size_t len, size_t cap) {
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!h) h = dlopen("libcuda.so.1", RTLD_NOW);
  cu_int_fn count = h ? (cu_int_fn)dlsym(h, "cuDeviceGetCount") : NULL;
  cu_get_fn get = h ? (cu_get_fn)dlsym(h, "cuDeviceGet") : NULL;
  cu_name_fn name = h ? (cu_name_fn)dlsym(h, "cuDeviceGetName") : NULL;
  cu_uuid_fn uuid = h ? (cu_uuid_fn)dlsym(h, "cuDeviceGetUuid_v2") : NULL;
  int n = 0;
  len += (size_t)snprintf(out + len, cap - len, "[");
  if (count && get && name && uuid && count(&n) == 0) {
    for (int i = 0; i < n && len < cap; i++) {
      int dev;
      char nm[256] = "";
      unsigned char u[16] = {0};
      if (get(&dev, i) != 0) continue;
      name(nm, sizeof nm, dev);
      uuid(u, dev);
      len += (size_t)snprintf(out + len, cap - len, "%s{\"index\":%d,\"name\":", i ? "," : "", i);
      len = gt_json_string(out, len, cap, nm);
      if (len >= cap) return cap;
      len += (size_t)snprintf(out + len, cap - len,
                              ",\"uuid\":\"GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x\","
                              "\"kind\":\"REAL\"}",
                              u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
                              u[14], u[15]);
    }
  }
  if (len < cap) len += (size_t)snprintf(out + len, cap - len, "]");
  return len < cap ? len : cap;
}

static void attr(char *out, size_t *len, size_t cap, int *first, const char *key, const char *value) {
  if (*len >= cap) return;
  *len += (size_t)snprintf(out + *len, cap - *len, "%s", *first ? "" : ",");
  *first = 0;
  *len = gt_json_string(out, *len, cap, key);
  if (*len < cap) *len += (size_t)snprintf(out + *len, cap - *len, ":");
  if (*len < cap) *len = gt_json_string(out, *len, cap, value);
}

static void finish(void) {
  if (!W || getpid() != owner_pid) return;
  CUptiResult rc = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  if (rc != CUPTI_SUCCESS) note_error("cuptiActivityFlushAll", rc);
  size_t dropped = 0;
  cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped);
  pthread_mutex_lock(&deliver_lock);
  gt_writer *w = W;
  W = NULL;
  pthread_mutex_unlock(&deliver_lock);
  uint64_t records = gt_records(w);
  static char meta[META_RESERVE];
  size_t cap = sizeof meta, len = 0;
  len += (size_t)snprintf(meta, cap, "{\"source\":\"cupti\",\"clock\":\"HOST_MONOTONIC\",\"devices\":");
  len = devices_json(meta, len, cap);
  char num[64];
  int first = 1;
  if (len < cap) len += (size_t)snprintf(meta + len, cap - len, ",\"attributes\":{");
  attr(meta, &len, cap, &first, "tracer", "libgitm_inject.so (CUDA_INJECTION64_PATH)");
  attr(meta, &len, cap, &first, "clock.alignment", clock_method);
  snprintf(num, sizeof num, "%lld", (long long)clock_offset);
  attr(meta, &len, cap, &first, "clock.offsetNs", num);
  snprintf(num, sizeof num, "%lld", (long long)clock_uncertainty);
  attr(meta, &len, cap, &first, "clock.uncertaintyNs", num);
  uint32_t version = 0;
  cuptiGetVersion(&version);
  snprintf(num, sizeof num, "%u", version);
  attr(meta, &len, cap, &first, "cupti.version", num);
  attr(meta, &len, cap, &first, "kernelNames", "as CUPTI reports them (mangled)");
  snprintf(num, sizeof num, "%d", (int)getpid());
  attr(meta, &len, cap, &first, "pid", num);
  snprintf(num, sizeof num, "%zu", dropped);
  attr(meta, &len, cap, &first, "records.dropped", num);
  pthread_mutex_lock(&stats_lock);
  snprintf(num, sizeof num, "%llu", (unsigned long long)invalid_records);
  attr(meta, &len, cap, &first, "records.invalid", num);
  snprintf(num, sizeof num, "%llu", (unsigned long long)buffer_errors);
  pthread_mutex_unlock(&stats_lock);
  attr(meta, &len, cap, &first, "buffers.errors", num);
  if (errors[0]) attr(meta, &len, cap, &first, "errors", errors);
  if (len < cap) len += (size_t)snprintf(meta + len, cap - len, "}}");
  if (len >= cap) {
    fprintf(stderr, "gitm_inject: trace meta exceeds %u bytes; %s left incomplete\n", META_RESERVE, tmp_path);
    gt_abandon(w);
    return;
  }
  if (gt_close(w, meta) != 0) {
    fprintf(stderr, "gitm_inject: writing %s failed: %s\n", tmp_path, strerror(errno));
    return;
  }
  if (rename(tmp_path, out_path) != 0) {
    fprintf(stderr, "gitm_inject: rename %s -> %s failed: %s\n", tmp_path, out_path, strerror(errno));
    return;
  }
  fprintf(stderr, "gitm_inject: wrote %llu records to %s\n", (unsigned long long)records, out_path);
}

__attribute__((visibility("default"))) int InitializeInjection(void) {
  static int done;
  if (__atomic_exchange_n(&done, 1, __ATOMIC_ACQ_REL)) return 1;
  /* A traced process's CUDA-using descendants inherit the environment: each writes its own file, named by pid
     after the first process's path, instead of overwriting it. GITM_TRACE_PID marks the first process. */
  const char *out = getenv("GITM_TRACE_OUT");
  const char *first = getenv("GITM_TRACE_PID");
  owner_pid = getpid();
  int descendant = first && *first && atoi(first) != (int)owner_pid;
  if (out && *out) {
    if (descendant) {
      size_t n = strlen(out);
      int ext = n > 7 && strcmp(out + n - 7, ".gtrace") == 0;
      snprintf(out_path, sizeof out_path, "%.*s-%d.gtrace", (int)(ext ? n - 7 : n), out, (int)owner_pid);
    } else {
      snprintf(out_path, sizeof out_path, "%s", out);
    }
  } else {
    snprintf(out_path, sizeof out_path, "gitm-trace-%d.gtrace", (int)owner_pid);
  }
  if (!descendant) {
    char pid[24];
    snprintf(pid, sizeof pid, "%d", (int)owner_pid);
    setenv("GITM_TRACE_PID", pid, 1);
  }
  snprintf(tmp_path, sizeof tmp_path, "%s.tmp", out_path);
  W = gt_open(tmp_path, META_RESERVE);
  if (!W) {
    fprintf(stderr, "gitm_inject: cannot create %s: %s; not tracing\n", tmp_path, strerror(errno));
    return 0;
  }
  CUptiResult rc = cuptiActivityRegisterTimestampCallback(mono_ns);
  if (rc == CUPTI_SUCCESS) {
    clock_method = "CUPTI timestamp callback returning CLOCK_MONOTONIC (cuptiActivityRegisterTimestampCallback); "
                   "no offset applied";
  } else {
    note_error("cuptiActivityRegisterTimestampCallback", rc);
    measure_offset();
    clock_method = "offset of cuptiGetTimestamp to CLOCK_MONOTONIC measured at start by bracketing, tightest of 200, "
                   "subtracted from every record";
  }
  rc = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
  if (rc != CUPTI_SUCCESS) {
    note_error("cuptiActivityRegisterCallbacks", rc);
  } else {
    for (size_t i = 0; i < sizeof KINDS / sizeof *KINDS; i++) {
      rc = cuptiActivityEnable(KINDS[i].kind);
      if (rc != CUPTI_SUCCESS) {
        char what[96];
        snprintf(what, sizeof what, "cuptiActivityEnable(CUPTI_ACTIVITY_KIND_%s)", KINDS[i].name);
        note_error(what, rc);
        if (rc == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES || rc == CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES)
          fprintf(stderr, "gitm_inject: profiling not permitted for this user; the trace will hold no GPU activity\n");
      }
    }
  }
  atexit(finish);
  return 1;
}
