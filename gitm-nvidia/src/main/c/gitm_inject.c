/* libgitm_inject.so: CUPTI activity tracing of an unmodified CUDA process. The CUDA driver loads it when the
   process's environment names it in CUDA_INJECTION64_PATH and calls InitializeInjection during cuInit. Records go
   to the .gtrace file named by GITM_TRACE_OUT (default gitm-trace-<pid>.gtrace), written as <path>.tmp and renamed
   at exit, so a file under the final name is always complete.

   What is traced: GITM_TRACE_KINDS (trace_kinds.h); default kernel,memcpy,memset,sync,api. A bad value is reported
   on stderr and in the meta ("trace.kinds.error"), and the default is traced.

   Timestamps (GITM_TRACE_CLOCK): "monotonic" (default) registers a CUPTI timestamp callback returning
   CLOCK_MONOTONIC, so every record is in the host monotonic domain (HOST_MONOTONIC); "cupti" leaves CUPTI on its own
   clock, and the offset of that clock to CLOCK_MONOTONIC is measured by bracketing and subtracted (as where CUPTI
   refuses the callback). The meta says which was done.

   Cost model. CUPTI does its per-operation work in the application's threads: for every traced API call it takes
   two timestamps and writes a record into an activity buffer; for every kernel, copy and memset it adds
   instrumentation that records device timestamps. This library adds work to those threads only when CUPTI asks for
   an empty buffer (buffer_requested: a buffer from a pool of buffers that are already zeroed and touched, so that
   CUPTI neither zeroes nor page-faults a fresh 8 MiB in the application thread). Filled buffers are decoded and
   written on the thread CUPTI delivers them on (its worker thread, or the thread that flushes at exit), with
   names looked up once per callback id and once per kernel name, no syscall per record and no lock other than
   the delivery lock and the writer's (both uncontended: one delivery at a time). */
#include <cupti.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "gtrace_writer.h"
#include "trace_kinds.h"

/* Optional in older CUPTI: the API filter falls back to whole API kinds where these are missing. */
#pragma weak cuptiActivityEnableDriverApi
#pragma weak cuptiActivityEnableRuntimeApi

#define BUFFER_BYTES (8u << 20)
#define PREALLOCATED_BUFFERS 2
#define POOL_MAX 32
#define META_RESERVE 16384u
#define MAX_CBID 1024
_Static_assert(CUPTI_DRIVER_TRACE_CBID_SIZE <= MAX_CBID && CUPTI_RUNTIME_TRACE_CBID_SIZE <= MAX_CBID,
               "a callback id of these CUPTI headers does not fit api_tab: raise MAX_CBID");

static gt_writer *W;
static pid_t owner_pid;          /* the process that opened W: a forked child never finishes the parent's file */
static char out_path[4096];
static char tmp_path[4200];
static int64_t clock_offset;     /* CUPTI time minus CLOCK_MONOTONIC; 0 with the timestamp callback */
static int64_t clock_uncertainty;
static const char *clock_method = "";
static char clock_error[256];
static char errors[2048];        /* ";"-separated failures, for the meta */
static unsigned kinds;           /* TK_* bits traced */
static char kinds_error[512];
static unsigned api_enabled[2];  /* functions enabled one by one by the api filter, per domain (driver, runtime) */
static int api_whole[2];         /* the domain's whole API kind was enabled (asked for, or the filter's fallback) */
static int finishing;            /* set at exit: buffers delivered from then on are freed, not zeroed for reuse */

/* Everything below up to the next comment is read and written under deliver_lock only. */
static uint64_t invalid_records, buffer_errors;
static uint64_t n_kernel, n_copy, n_memset, n_sync, n_api, n_overhead;

/* Per callback id (domain 1 driver, 2 runtime): the function's name and ApiKind, filled once at start before any
   tracing; the name's string id in W, set at its first record (under deliver_lock). */
typedef struct { const char *name; uint8_t kind; uint32_t sid; } api_entry;
static api_entry api_tab[2][MAX_CBID];

static const struct { CUpti_ActivityKind kind; const char *name; unsigned bit; } KINDS[] = {
    {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CONCURRENT_KERNEL", TK_KERNEL},
    {CUPTI_ACTIVITY_KIND_MEMCPY, "MEMCPY", TK_MEMCPY}, {CUPTI_ACTIVITY_KIND_MEMSET, "MEMSET", TK_MEMSET},
    {CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "SYNCHRONIZATION", TK_SYNC},
    {CUPTI_ACTIVITY_KIND_DRIVER, "DRIVER", TK_DRIVER}, {CUPTI_ACTIVITY_KIND_RUNTIME, "RUNTIME", TK_RUNTIME},
    {CUPTI_ACTIVITY_KIND_OVERHEAD, "OVERHEAD", TK_OVERHEAD}};

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

/* Activity buffers: a pool of zeroed buffers. CUPTI is told (CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER) that
   the buffers it gets are zeroed, so it does not zero them in the application thread; a buffer is zeroed again on
   the delivering thread before it goes back to the pool. */
static uint8_t *pool[POOL_MAX];
static int pool_n;
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static int buffers_zeroed;       /* CUPTI accepted the attribute: buffers must be handed out zeroed */
static unsigned buffers_allocated, buffers_refused;

static uint8_t *new_buffer(void) {
  uint8_t *b = calloc(1, BUFFER_BYTES); /* fresh pages: zero without a memset */
  if (b) __atomic_add_fetch(&buffers_allocated, 1, __ATOMIC_RELAXED);
  return b;
}

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records) {
  uint8_t *b = NULL;
  pthread_mutex_lock(&pool_lock);
  if (pool_n > 0) b = pool[--pool_n];
  pthread_mutex_unlock(&pool_lock);
  if (!b) b = new_buffer();
  if (!b) __atomic_add_fetch(&buffers_refused, 1, __ATOMIC_RELAXED);
  *buffer = b;
  *size = b ? BUFFER_BYTES : 0;
  *max_records = 0;
}

/* A delivered buffer (every buffer is one of ours, BUFFER_BYTES long): back to the pool, or freed. */
static void release_buffer(uint8_t *b, int reuse) {
  if (reuse) {
    if (buffers_zeroed) memset(b, 0, BUFFER_BYTES);
    pthread_mutex_lock(&pool_lock);
    if (pool_n < POOL_MAX) { pool[pool_n++] = b; b = NULL; }
    pthread_mutex_unlock(&pool_lock);
  }
  free(b);
}

static void preallocate_buffers(void) {
  for (int i = 0; i < PREALLOCATED_BUFFERS; i++) {
    uint8_t *b = new_buffer();
    if (!b) return;
    memset(b, 0, BUFFER_BYTES); /* touch every page now, not in the application thread later */
    pthread_mutex_lock(&pool_lock);
    pool[pool_n++] = b;
    pthread_mutex_unlock(&pool_lock);
  }
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

static void learn_ctx(uint32_t ctx, uint32_t dev) {
  int i = 0;
  while (i < ctx_n && ctx_ids[i] != ctx) i++;
  if (i == ctx_n && ctx_n < MAX_CTX) { ctx_ids[ctx_n] = ctx; ctx_devs[ctx_n] = (int32_t)dev; ctx_n++; }
}

static int32_t ctx_device(uint32_t ctx) {
  for (int i = 0; i < ctx_n; i++) if (ctx_ids[i] == ctx) return ctx_devs[i];
  return -1;
}

/* Kernel name to string id. CUPTI shares one name string among all records of a kernel, so the pointer finds the
   entry; the copy kept with it confirms the text, so that a pointer reused for another name after a module unload
   is never given the old id. */
#define NAME_CACHE 4096
static struct { const char *ptr; char *text; uint32_t sid; } name_cache[NAME_CACHE];
static unsigned name_cache_n;

static uint32_t kernel_name_id(const char *name) {
  size_t h = (size_t)(((uintptr_t)name >> 3) * 0x9E3779B97F4A7C15ull) & (NAME_CACHE - 1);
  for (unsigned probe = 0; probe < 16; probe++, h = (h + 1) & (NAME_CACHE - 1)) {
    if (name_cache[h].ptr == name) {
      if (strcmp(name_cache[h].text, name) == 0) return name_cache[h].sid;
      uint32_t id = gt_intern(W, name);
      char *t = strdup(name);
      if (!t) return id;
      free(name_cache[h].text);
      name_cache[h].text = t; name_cache[h].sid = id;
      return id;
    }
    if (!name_cache[h].ptr) {
      uint32_t id = gt_intern(W, name);
      if (name_cache_n * 4 >= NAME_CACHE * 3) return id; /* full enough: intern without caching */
      char *t = strdup(name);
      if (!t || !id) { free(t); return id; }
      name_cache[h].ptr = name; name_cache[h].text = t; name_cache[h].sid = id;
      name_cache_n++;
      return id;
    }
  }
  return gt_intern(W, name);
}

/* The API function of a record: its string id in W, and its ApiKind in *kind. */
static uint32_t api_name_id(int domain, uint32_t cbid, uint8_t *kind) {
  if (cbid < MAX_CBID && api_tab[domain - 1][cbid].name) {
    api_entry *e = &api_tab[domain - 1][cbid];
    if (!e->sid) e->sid = gt_intern(W, e->name);
    *kind = e->kind;
    return e->sid;
  }
  char fallback[48];
  const char *n = NULL;
  if (cuptiGetCallbackName((CUpti_CallbackDomain)domain, cbid, &n) != CUPTI_SUCCESS || !n) {
    snprintf(fallback, sizeof fallback, "%s#%u", domain == 1 ? "driver" : "runtime", cbid);
    n = fallback;
  }
  *kind = gt_classify_api(n);
  return gt_intern(W, n);
}

/* Fills api_tab for both domains from CUPTI's callback names (once, before tracing starts). */
static void load_api_names(void) {
  static const unsigned size[2] = {CUPTI_DRIVER_TRACE_CBID_SIZE, CUPTI_RUNTIME_TRACE_CBID_SIZE};
  for (int d = 0; d < 2; d++) {
    for (unsigned cbid = 1; cbid < size[d] && cbid < MAX_CBID; cbid++) {
      const char *n = NULL;
      if (cuptiGetCallbackName((CUpti_CallbackDomain)(d + 1), cbid, &n) != CUPTI_SUCCESS || !n || !*n) continue;
      api_tab[d][cbid].name = n;
      api_tab[d][cbid].kind = gt_classify_api(n);
    }
  }
}

static int valid(uint64_t start, uint64_t end) {
  if (start == 0 || end == 0 || end < start) {
    invalid_records++;
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
      uint32_t id = kernel_name_id(k->name && *k->name ? k->name : "<unnamed kernel>");
      gt_kernel_id(W, id, (int32_t)k->deviceId, (int32_t)k->streamId, k->correlationId, T(k->start), T(k->end), grid,
                   block, k->registersPerThread, k->staticSharedMemory, k->dynamicSharedMemory);
      n_kernel++;
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)a;
      if (!valid(m->start, m->end)) return;
      learn_ctx(m->contextId, m->deviceId);
      gt_copy(W, copy_kind(m->copyKind), memory_kind(m->srcKind), memory_kind(m->dstKind), (int64_t)m->bytes,
              (int32_t)m->deviceId, (int32_t)m->streamId, m->correlationId, T(m->start), T(m->end));
      n_copy++;
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)a;
      if (!valid(m->start, m->end)) return;
      learn_ctx(m->contextId, m->deviceId);
      gt_memset(W, memory_kind(m->memoryKind), (int32_t)m->value, (int64_t)m->bytes, (int32_t)m->deviceId,
                (int32_t)m->streamId, m->correlationId, T(m->start), T(m->end));
      n_memset++;
      break;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
      const CUpti_ActivitySynchronization2 *s = (const CUpti_ActivitySynchronization2 *)a;
      if (!valid(s->start, s->end)) return;
      uint8_t kind = sync_kind(s->type);
      gt_sync(W, kind, ctx_device(s->contextId), kind == GT_SYNC_CONTEXT ? -1 : (int32_t)s->streamId,
              s->correlationId, T(s->start), T(s->end));
      n_sync++;
      break;
    }
    case CUPTI_ACTIVITY_KIND_DRIVER:
    case CUPTI_ACTIVITY_KIND_RUNTIME: {
      const CUpti_ActivityAPI *p = (const CUpti_ActivityAPI *)a;
      if (!valid(p->start, p->end)) return;
      uint8_t kind;
      uint32_t id = api_name_id(a->kind == CUPTI_ACTIVITY_KIND_DRIVER ? 1 : 2, p->cbid, &kind);
      gt_api_id(W, kind, id, p->threadId, p->correlationId, T(p->start), T(p->end));
      n_api++;
      break;
    }
    case CUPTI_ACTIVITY_KIND_OVERHEAD: {
      const CUpti_ActivityOverhead3 *o = (const CUpti_ActivityOverhead3 *)a;
      if (!valid(o->start, o->end)) return;
      int64_t thread = o->objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS || o->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD
                           ? (int64_t)o->objectId.pt.threadId : -1;
      gt_overhead(W, overhead_kind(o->overheadKind), thread, T(o->start), T(o->end));
      n_overhead++;
      break;
    }
    default:
      break;
  }
}

/* Held while a buffer's records are written (one delivery at a time), so that finish() never closes the writer
   under a delivery; it also guards the counters, the context table and the name caches. */
static pthread_mutex_t deliver_lock = PTHREAD_MUTEX_INITIALIZER;

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid_size) {
  (void)ctx; (void)stream; (void)size;
  CUpti_Activity *a = NULL;
  int tracing;
  pthread_mutex_lock(&deliver_lock);
  tracing = W != NULL;
  if (tracing) {
    for (;;) {
      CUptiResult rc = cuptiActivityGetNextRecord(buffer, valid_size, &a);
      if (rc == CUPTI_SUCCESS) { record(a); continue; }
      if (rc != CUPTI_ERROR_MAX_LIMIT_REACHED) buffer_errors++;
      break;
    }
  }
  pthread_mutex_unlock(&deliver_lock);
  if (buffer) release_buffer(buffer, tracing && !__atomic_load_n(&finishing, __ATOMIC_ACQUIRE));
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

static void num_attr(char *out, size_t *len, size_t cap, int *first, const char *key, unsigned long long v) {
  char num[32];
  snprintf(num, sizeof num, "%llu", v);
  attr(out, len, cap, first, key, num);
}

static void finish(void) {
  if (!W || getpid() != owner_pid) return;
  __atomic_store_n(&finishing, 1, __ATOMIC_RELEASE);
  CUptiResult rc = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  if (rc != CUPTI_SUCCESS) note_error("cuptiActivityFlushAll", rc);
  size_t dropped = 0;
  cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped);
  pthread_mutex_lock(&deliver_lock);
  gt_writer *w = W;
  W = NULL;
  uint64_t invalid = invalid_records, berr = buffer_errors;
  uint64_t nk = n_kernel, nc = n_copy, nm = n_memset, ns = n_sync, na = n_api, no = n_overhead;
  pthread_mutex_unlock(&deliver_lock);
  uint64_t records = gt_records(w);
  static char meta[META_RESERVE];
  size_t cap = sizeof meta, len = 0;
  len += (size_t)snprintf(meta, cap, "{\"source\":\"cupti\",\"clock\":\"HOST_MONOTONIC\",\"devices\":");
  len = devices_json(meta, len, cap);
  char num[64], text[160];
  int first = 1;
  if (len < cap) len += (size_t)snprintf(meta + len, cap - len, ",\"attributes\":{");
  attr(meta, &len, cap, &first, "tracer", "libgitm_inject.so (CUDA_INJECTION64_PATH)");
  tk_format(kinds, text, sizeof text);
  attr(meta, &len, cap, &first, "trace.kinds", text);
  if (kinds_error[0]) attr(meta, &len, cap, &first, "trace.kinds.error", kinds_error);
  if (kinds & TK_API) {
    char d[16], r[16];
    snprintf(d, sizeof d, "%u", api_enabled[0]);
    snprintf(r, sizeof r, "%u", api_enabled[1]);
    snprintf(text, sizeof text, "%s driver and %s runtime functions that launch, copy, set, allocate, free or "
             "synchronize", api_whole[0] ? "every" : d, api_whole[1] ? "every" : r);
    attr(meta, &len, cap, &first, "trace.apiFunctions", text);
  }
  attr(meta, &len, cap, &first, "clock.alignment", clock_method);
  if (clock_error[0]) attr(meta, &len, cap, &first, "clock.error", clock_error);
  snprintf(num, sizeof num, "%lld", (long long)clock_offset);
  attr(meta, &len, cap, &first, "clock.offsetNs", num);
  snprintf(num, sizeof num, "%lld", (long long)clock_uncertainty);
  attr(meta, &len, cap, &first, "clock.uncertaintyNs", num);
  uint32_t version = 0;
  cuptiGetVersion(&version);
  num_attr(meta, &len, cap, &first, "cupti.version", version);
  attr(meta, &len, cap, &first, "kernelNames", "as CUPTI reports them (mangled)");
  num_attr(meta, &len, cap, &first, "pid", (unsigned long long)getpid());
  num_attr(meta, &len, cap, &first, "records.kernel", nk);
  num_attr(meta, &len, cap, &first, "records.copy", nc);
  num_attr(meta, &len, cap, &first, "records.memset", nm);
  num_attr(meta, &len, cap, &first, "records.sync", ns);
  num_attr(meta, &len, cap, &first, "records.api", na);
  num_attr(meta, &len, cap, &first, "records.overhead", no);
  num_attr(meta, &len, cap, &first, "records.dropped", dropped);
  num_attr(meta, &len, cap, &first, "records.invalid", invalid);
  num_attr(meta, &len, cap, &first, "buffers.errors", berr);
  num_attr(meta, &len, cap, &first, "buffers.bytes", BUFFER_BYTES);
  num_attr(meta, &len, cap, &first, "buffers.allocated", __atomic_load_n(&buffers_allocated, __ATOMIC_RELAXED));
  num_attr(meta, &len, cap, &first, "buffers.refused", __atomic_load_n(&buffers_refused, __ATOMIC_RELAXED));
  attr(meta, &len, cap, &first, "buffers.zeroing", buffers_zeroed ? "by gitm_inject off the application thread"
                                                                   : "by CUPTI in the application thread");
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
  tk_format(kinds, text, sizeof text);
  fprintf(stderr, "gitm_inject: wrote %llu records to %s (kinds %s; kernel %llu, copy %llu, memset %llu, sync %llu, "
          "api %llu, overhead %llu, dropped %zu)\n", (unsigned long long)records, out_path, text,
          (unsigned long long)nk, (unsigned long long)nc, (unsigned long long)nm, (unsigned long long)ns,
          (unsigned long long)na, (unsigned long long)no, dropped);
}

/* Enables the API records of one domain (1 driver, 2 runtime): every function when `all`, else, when `filtered`,
   each function whose name gt_classify_api does not call OTHER. Where CUPTI lacks or refuses the per-function
   switch, the whole kind instead (noted in the meta): costlier, but no device record loses its launch call. */
static unsigned count_selected(int domain) {
  unsigned n = 0;
  for (unsigned cbid = 1; cbid < MAX_CBID; cbid++)
    if (api_tab[domain - 1][cbid].name && api_tab[domain - 1][cbid].kind != GT_API_OTHER) n++;
  return n;
}

static void enable_api(int domain, int all, int filtered) {
  CUpti_ActivityKind kind = domain == 1 ? CUPTI_ACTIVITY_KIND_DRIVER : CUPTI_ACTIVITY_KIND_RUNTIME;
  const char *kname = domain == 1 ? "DRIVER" : "RUNTIME";
  char what[96];
  if (!all && !filtered) return;
  CUptiResult (*one)(CUpti_CallbackId, uint8_t) = domain == 1 ? cuptiActivityEnableDriverApi
                                                               : cuptiActivityEnableRuntimeApi;
  if (!all && one) {
    for (unsigned cbid = 1; cbid < MAX_CBID; cbid++) {
      const api_entry *e = &api_tab[domain - 1][cbid];
      if (!e->name || e->kind == GT_API_OTHER) continue;
      CUptiResult rc = one(cbid, 1);
      if (rc == CUPTI_SUCCESS) { api_enabled[domain - 1]++; continue; }
      snprintf(what, sizeof what, "cuptiActivityEnable%sApi(%s)", domain == 1 ? "Driver" : "Runtime", e->name);
      note_error(what, rc);
      break;
    }
    if (api_enabled[domain - 1] == 0 || api_enabled[domain - 1] < count_selected(domain)) {
      size_t n = strlen(errors);
      snprintf(errors + n, sizeof errors - n, "%sper-function %s API selection failed: every %s API call traced",
               n ? "; " : "", domain == 1 ? "driver" : "runtime", domain == 1 ? "driver" : "runtime");
      api_enabled[domain - 1] = 0;
    } else {
      return;
    }
  } else if (!all) {
    size_t n = strlen(errors);
    snprintf(errors + n, sizeof errors - n, "%sno cuptiActivityEnable%sApi in this CUPTI: every %s API call traced",
             n ? "; " : "", domain == 1 ? "Driver" : "Runtime", domain == 1 ? "driver" : "runtime");
  }
  CUptiResult rc = cuptiActivityEnable(kind);
  if (rc != CUPTI_SUCCESS) {
    snprintf(what, sizeof what, "cuptiActivityEnable(CUPTI_ACTIVITY_KIND_%s)", kname);
    note_error(what, rc);
  } else {
    api_whole[domain - 1] = 1;
  }
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
  if (tk_parse(getenv("GITM_TRACE_KINDS"), &kinds, kinds_error, sizeof kinds_error) != 0) {
    char text[160];
    tk_format(kinds, text, sizeof text);
    fprintf(stderr, "gitm_inject: GITM_TRACE_KINDS: %s; tracing the default (%s)\n", kinds_error, text);
  }
  const char *clock = getenv("GITM_TRACE_CLOCK");
  int own_clock = 0;
  if (clock && *clock) {
    if (strcasecmp(clock, "cupti") == 0) own_clock = 1;
    else if (strcasecmp(clock, "monotonic") != 0) {
      snprintf(clock_error, sizeof clock_error, "unknown GITM_TRACE_CLOCK \"%.64s\" (known: monotonic, cupti)", clock);
      fprintf(stderr, "gitm_inject: %s; using monotonic\n", clock_error);
    }
  }
  snprintf(tmp_path, sizeof tmp_path, "%s.tmp", out_path);
  W = gt_open(tmp_path, META_RESERVE);
  if (!W) {
    fprintf(stderr, "gitm_inject: cannot create %s: %s; not tracing\n", tmp_path, strerror(errno));
    return 0;
  }
  CUptiResult rc = own_clock ? CUPTI_ERROR_NOT_SUPPORTED : cuptiActivityRegisterTimestampCallback(mono_ns);
  if (rc == CUPTI_SUCCESS) {
    clock_method = "CUPTI timestamp callback returning CLOCK_MONOTONIC (cuptiActivityRegisterTimestampCallback); "
                   "no offset applied";
  } else {
    if (!own_clock) note_error("cuptiActivityRegisterTimestampCallback", rc);
    measure_offset();
    clock_method = own_clock
        ? "CUPTI's own clock (GITM_TRACE_CLOCK=cupti); offset of cuptiGetTimestamp to CLOCK_MONOTONIC measured at "
          "start by bracketing, tightest of 200, subtracted from every record"
        : "offset of cuptiGetTimestamp to CLOCK_MONOTONIC measured at start by bracketing, tightest of 200, "
          "subtracted from every record";
  }
  uint8_t one = 1;
  size_t one_size = sizeof one;
  buffers_zeroed = cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &one_size, &one)
                   == CUPTI_SUCCESS;
  preallocate_buffers();
  load_api_names();
  rc = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
  if (rc != CUPTI_SUCCESS) {
    note_error("cuptiActivityRegisterCallbacks", rc);
  } else {
    for (size_t i = 0; i < sizeof KINDS / sizeof *KINDS; i++) {
      if (!(kinds & KINDS[i].bit)) continue;
      if (KINDS[i].bit == TK_DRIVER || KINDS[i].bit == TK_RUNTIME) continue; /* enable_api below */
      rc = cuptiActivityEnable(KINDS[i].kind);
      if (rc != CUPTI_SUCCESS) {
        char what[96];
        snprintf(what, sizeof what, "cuptiActivityEnable(CUPTI_ACTIVITY_KIND_%s)", KINDS[i].name);
        note_error(what, rc);
        if (rc == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES || rc == CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES)
          fprintf(stderr, "gitm_inject: profiling not permitted for this user; the trace will hold no GPU activity\n");
      }
    }
    enable_api(2, (kinds & TK_RUNTIME) != 0, (kinds & TK_API) != 0);
    enable_api(1, (kinds & TK_DRIVER) != 0, (kinds & TK_API) != 0);
  }
  atexit(finish);
  return 1;
}
