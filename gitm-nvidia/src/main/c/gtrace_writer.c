/* The .gtrace writer: see gtrace_writer.h and docs/trace-format.md. */
#include "gtrace_writer.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GT_BLOCK_TARGET (64u * 1024u)

typedef struct {
  char *s;
  uint32_t id;
} gt_str;

struct gt_writer {
  FILE *f;
  pthread_mutex_t lock;
  uint32_t meta_reserve;
  uint8_t *block;
  size_t len, cap;
  uint32_t count;
  uint64_t records;
  int failed;
  gt_str *strings;  /* open addressing, capacity a power of two */
  size_t str_cap, str_n;
  uint32_t next_id;
};

static uint32_t crc_table[256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_init(void) {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    crc_table[i] = c;
  }
}

uint32_t gt_crc32(const uint8_t *buf, size_t len) {
  pthread_once(&crc_once, crc_init);
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < len; i++) c = crc_table[(c ^ buf[i]) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

static void le32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}

static int ensure(gt_writer *w, size_t more) {
  if (w->len + more <= w->cap) return 0;
  size_t cap = w->cap ? w->cap : GT_BLOCK_TARGET * 2;
  while (cap < w->len + more) cap *= 2;
  uint8_t *b = realloc(w->block, cap);
  if (!b) { w->failed = 1; return -1; }
  w->block = b; w->cap = cap;
  return 0;
}

static void put_u8(gt_writer *w, uint8_t v) { w->block[w->len++] = v; }
static void put_u32(gt_writer *w, uint32_t v) { le32(w->block + w->len, v); w->len += 4; }
static void put_i32(gt_writer *w, int32_t v) { put_u32(w, (uint32_t)v); }
static void put_i64(gt_writer *w, int64_t v) {
  put_u32(w, (uint32_t)((uint64_t)v & 0xFFFFFFFFu)); put_u32(w, (uint32_t)((uint64_t)v >> 32));
}
static void put_f64(gt_writer *w, double d) { uint64_t v; memcpy(&v, &d, 8); put_i64(w, (int64_t)v); }

static void flush_block(gt_writer *w) {
  if (w->count == 0 || w->failed) return;
  uint8_t h[12];
  le32(h, (uint32_t)w->len); le32(h + 4, w->count); le32(h + 8, gt_crc32(w->block, w->len));
  if (fwrite(h, 1, 12, w->f) != 12 || fwrite(w->block, 1, w->len, w->f) != w->len) w->failed = 1;
  w->len = 0; w->count = 0;
}

gt_writer *gt_open(const char *path, uint32_t meta_reserve) {
  gt_writer *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  w->f = fopen(path, "wb");
  if (!w->f) { free(w); return NULL; }
  pthread_mutex_init(&w->lock, NULL);
  w->meta_reserve = meta_reserve;
  w->next_id = 1;
  w->str_cap = 1024;
  w->strings = calloc(w->str_cap, sizeof(gt_str));
  uint8_t h[16];
  memcpy(h, "GITMTRC1", 8); le32(h + 8, 1); le32(h + 12, meta_reserve);
  int bad = !w->strings || fwrite(h, 1, 16, w->f) != 16;
  for (uint32_t i = 0; !bad && i < meta_reserve; i++) bad = fputc(' ', w->f) == EOF;
  if (bad) { int e = errno; fclose(w->f); free(w->strings); free(w); errno = e ? e : EIO; return NULL; }
  return w;
}

static uint64_t hash(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 1099511628211ull;
  return h;
}

static int grow_strings(gt_writer *w) {
  size_t cap = w->str_cap * 2;
  gt_str *t = calloc(cap, sizeof(gt_str));
  if (!t) return -1;
  for (size_t i = 0; i < w->str_cap; i++) {
    if (!w->strings[i].s) continue;
    size_t j = hash(w->strings[i].s) & (cap - 1);
    while (t[j].s) j = (j + 1) & (cap - 1);
    t[j] = w->strings[i];
  }
  free(w->strings);
  w->strings = t; w->str_cap = cap;
  return 0;
}

/* Finds or defines s; a definition is appended to the current block (the caller has reserved space for it). */
static uint32_t string_id(gt_writer *w, const char *s) {
  size_t j = hash(s) & (w->str_cap - 1);
  while (w->strings[j].s) {
    if (strcmp(w->strings[j].s, s) == 0) return w->strings[j].id;
    j = (j + 1) & (w->str_cap - 1);
  }
  size_t n = strlen(s);
  char *copy = malloc(n + 1);
  if (!copy || ensure(w, 9 + n) != 0) { free(copy); w->failed = 1; return 0; }
  memcpy(copy, s, n + 1);
  w->strings[j].s = copy; w->strings[j].id = w->next_id++;
  w->str_n++;
  put_u8(w, 1); put_u32(w, w->strings[j].id); put_u32(w, (uint32_t)n);
  memcpy(w->block + w->len, s, n); w->len += n;
  w->count++; w->records++;
  uint32_t id = w->strings[j].id;
  if (w->str_n * 2 > w->str_cap && grow_strings(w) != 0) w->failed = 1;
  return id;
}

/* Starts a record of `size` bytes that may need a string definition of `str_bytes`: cuts the block first when the
   record would take it past the target size. */
static int begin(gt_writer *w, size_t size) {
  if (w->failed) return -1;
  if (w->count > 0 && w->len + size > GT_BLOCK_TARGET) flush_block(w);
  return ensure(w, size);
}

static void end_record(gt_writer *w) { w->count++; w->records++; }

static void put_kernel(gt_writer *w, uint32_t id, int32_t device, int32_t stream, int64_t correlation,
                       int64_t start, int64_t end, const int32_t grid[3], const int32_t block[3], int32_t regs,
                       int32_t static_shared, int32_t dynamic_shared) {
  put_u8(w, 2); put_u32(w, id); put_i32(w, device); put_i32(w, stream); put_i64(w, correlation);
  put_i64(w, start); put_i64(w, end);
  for (int i = 0; i < 3; i++) put_i32(w, grid[i]);
  for (int i = 0; i < 3; i++) put_i32(w, block[i]);
  put_i32(w, regs); put_i32(w, static_shared); put_i32(w, dynamic_shared);
  end_record(w);
}

uint32_t gt_kernel(gt_writer *w, const char *name, int32_t device, int32_t stream, int64_t correlation,
                   int64_t start, int64_t end, const int32_t grid[3], const int32_t block[3], int32_t regs,
                   int32_t static_shared, int32_t dynamic_shared) {
  pthread_mutex_lock(&w->lock);
  uint32_t id = 0;
  if (begin(w, 9 + strlen(name) + 73) == 0) {
    id = string_id(w, name);
    if (id && ensure(w, 73) == 0)
      put_kernel(w, id, device, stream, correlation, start, end, grid, block, regs, static_shared, dynamic_shared);
  }
  pthread_mutex_unlock(&w->lock);
  return id;
}

void gt_kernel_id(gt_writer *w, uint32_t name_id, int32_t device, int32_t stream, int64_t correlation, int64_t start,
                  int64_t end, const int32_t grid[3], const int32_t block[3], int32_t regs, int32_t static_shared,
                  int32_t dynamic_shared) {
  pthread_mutex_lock(&w->lock);
  if (name_id && begin(w, 73) == 0)
    put_kernel(w, name_id, device, stream, correlation, start, end, grid, block, regs, static_shared, dynamic_shared);
  pthread_mutex_unlock(&w->lock);
}

uint32_t gt_intern(gt_writer *w, const char *s) {
  pthread_mutex_lock(&w->lock);
  uint32_t id = 0;
  if (begin(w, 9 + strlen(s)) == 0) id = string_id(w, s);
  pthread_mutex_unlock(&w->lock);
  return id;
}

void gt_copy(gt_writer *w, uint8_t kind, uint8_t src_kind, uint8_t dst_kind, int64_t bytes, int32_t device,
             int32_t stream, int64_t correlation, int64_t start, int64_t end) {
  pthread_mutex_lock(&w->lock);
  if (begin(w, 44) == 0) {
    put_u8(w, 3); put_u8(w, kind); put_u8(w, src_kind); put_u8(w, dst_kind); put_i64(w, bytes);
    put_i32(w, device); put_i32(w, stream); put_i64(w, correlation); put_i64(w, start); put_i64(w, end);
    end_record(w);
  }
  pthread_mutex_unlock(&w->lock);
}

void gt_memset(gt_writer *w, uint8_t memory_kind, int32_t value, int64_t bytes, int32_t device, int32_t stream,
               int64_t correlation, int64_t start, int64_t end) {
  pthread_mutex_lock(&w->lock);
  if (begin(w, 46) == 0) {
    put_u8(w, 4); put_u8(w, memory_kind); put_i32(w, value); put_i64(w, bytes); put_i32(w, device);
    put_i32(w, stream); put_i64(w, correlation); put_i64(w, start); put_i64(w, end);
    end_record(w);
  }
  pthread_mutex_unlock(&w->lock);
}

void gt_sync(gt_writer *w, uint8_t kind, int32_t device, int32_t stream, int64_t correlation, int64_t start,
             int64_t end) {
  pthread_mutex_lock(&w->lock);
  if (begin(w, 34) == 0) {
    put_u8(w, 5); put_u8(w, kind); put_i32(w, device); put_i32(w, stream); put_i64(w, correlation);
    put_i64(w, start); put_i64(w, end);
    end_record(w);
  }
  pthread_mutex_unlock(&w->lock);
}

static void put_api(gt_writer *w, uint8_t kind, uint32_t id, int64_t thread, int64_t correlation, int64_t start,
                    int64_t end) {
  put_u8(w, 6); put_u8(w, kind); put_u32(w, id); put_i64(w, thread); put_i64(w, correlation);
  put_i64(w, start); put_i64(w, end);
  end_record(w);
}

void gt_api(gt_writer *w, uint8_t kind, const char *name, int64_t thread, int64_t correlation, int64_t start,
            int64_t end) {
  pthread_mutex_lock(&w->lock);
  if (begin(w, 9 + strlen(name) + 38) == 0) {
    uint32_t id = string_id(w, name);
    if (id && ensure(w, 38) == 0) put_api(w, kind, id, thread, correlation, start, end);
  }
  pthread_mutex_unlock(&w->lock);
}

void gt_api_id(gt_writer *w, uint8_t kind, uint32_t name_id, int64_t thread, int64_t correlation, int64_t start,
               int64_t end) {
  pthread_mutex_lock(&w->lock);
  if (name_id && begin(w, 38) == 0) put_api(w, kind, name_id, thread, correlation, start, end);
  pthread_mutex_unlock(&w->lock);
}

void gt_overhead(gt_writer *w, uint8_t kind, int64_t thread, int64_t start, int64_t end) {
  pthread_mutex_lock(&w->lock);
  if (begin(w, 26) == 0) {
    put_u8(w, 7); put_u8(w, kind); put_i64(w, thread); put_i64(w, start); put_i64(w, end);
    end_record(w);
  }
  pthread_mutex_unlock(&w->lock);
}

void gt_state(gt_writer *w, int32_t device, int64_t time, uint8_t n, const uint8_t *fields, const double *values) {
  pthread_mutex_lock(&w->lock);
  if (begin(w, 14 + 9u * n) == 0) {
    put_u8(w, 8); put_i32(w, device); put_i64(w, time); put_u8(w, n);
    for (uint8_t i = 0; i < n; i++) { put_u8(w, fields[i]); put_f64(w, values[i]); }
    end_record(w);
  }
  pthread_mutex_unlock(&w->lock);
}

void gt_marker(gt_writer *w, const char *name, int64_t thread, int64_t start, int64_t end) {
  pthread_mutex_lock(&w->lock);
  if (begin(w, 9 + strlen(name) + 29) == 0) {
    uint32_t id = string_id(w, name);
    if (ensure(w, 29) == 0) {
      put_u8(w, 9); put_u32(w, id); put_i64(w, thread); put_i64(w, start); put_i64(w, end);
      end_record(w);
    }
  }
  pthread_mutex_unlock(&w->lock);
}

uint64_t gt_records(gt_writer *w) {
  pthread_mutex_lock(&w->lock);
  uint64_t n = w->records;
  pthread_mutex_unlock(&w->lock);
  return n;
}

static void free_writer(gt_writer *w) {
  for (size_t i = 0; i < w->str_cap; i++) free(w->strings[i].s);
  free(w->strings);
  free(w->block);
  pthread_mutex_destroy(&w->lock);
  free(w);
}

int gt_close(gt_writer *w, const char *meta_json) {
  pthread_mutex_lock(&w->lock);
  flush_block(w);
  int rc = 0, err = 0;
  size_t n = strlen(meta_json);
  static const uint8_t end[12] = {0};
  if (w->failed) { rc = -1; err = EIO; }
  else if (n > w->meta_reserve) { rc = -1; err = EOVERFLOW; }
  else if (fwrite(end, 1, 12, w->f) != 12 || fseek(w->f, 16, SEEK_SET) != 0 || fwrite(meta_json, 1, n, w->f) != n
           || fflush(w->f) != 0 || fsync(fileno(w->f)) != 0) { rc = -1; err = errno ? errno : EIO; }
  if (fclose(w->f) != 0 && rc == 0) { rc = -1; err = errno; }
  pthread_mutex_unlock(&w->lock);
  free_writer(w);
  if (rc) errno = err;
  return rc;
}

void gt_abandon(gt_writer *w) {
  fclose(w->f);
  free_writer(w);
}

size_t gt_json_string(char *out, size_t len, size_t cap, const char *s) {
  if (len >= cap) return cap;
  out[len++] = '"';
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    char esc[8];
    const char *add;
    size_t k;
    if (*p == '"' || *p == '\\') { esc[0] = '\\'; esc[1] = (char)*p; esc[2] = 0; add = esc; }
    else if (*p == '\n') add = "\\n";
    else if (*p == '\t') add = "\\t";
    else if (*p == '\r') add = "\\r";
    else if (*p < 0x20) { snprintf(esc, sizeof esc, "\\u%04x", *p); add = esc; }
    else { esc[0] = (char)*p; esc[1] = 0; add = esc; }
    k = strlen(add);
    if (len + k >= cap) return cap;
    memcpy(out + len, add, k); len += k;
  }
  if (len + 1 >= cap) return cap;
  out[len++] = '"';
  out[len] = 0;
  return len;
}

/* One rule of gt_classify_api: a name matched as a prefix of the base name (prefix != 0) or as the whole of it. */
typedef struct {
  const char *name;
  int prefix;
  uint8_t kind;
} gt_api_rule;

/* The table of io.gitm.trace.ApiKinds, in the same order: the first rule that matches decides. */
static const gt_api_rule API_RULES[] = {
  {"cudaLaunchHostFunc", 1, GT_API_OTHER}, {"cuLaunchHostFunc", 1, GT_API_OTHER},
  {"cudaLaunch", 1, GT_API_LAUNCH}, {"cuLaunch", 1, GT_API_LAUNCH}, {"__cudaLaunchKernel", 0, GT_API_LAUNCH},
  {"cudaGraphLaunch", 1, GT_API_LAUNCH}, {"cuGraphLaunch", 1, GT_API_LAUNCH},
  {"cudaMemcpy", 1, GT_API_COPY}, {"cuMemcpy", 1, GT_API_COPY},
  {"cudaMemPrefetch", 1, GT_API_COPY}, {"cuMemPrefetch", 1, GT_API_COPY},
  {"cudaMemset", 1, GT_API_MEMSET}, {"cuMemset", 1, GT_API_MEMSET},
  {"cudaMalloc", 1, GT_API_ALLOC}, {"cuMemAlloc", 1, GT_API_ALLOC},
  {"cudaHostAlloc", 0, GT_API_ALLOC}, {"cuMemHostAlloc", 0, GT_API_ALLOC}, {"cuMemCreate", 0, GT_API_ALLOC},
  {"cudaFree", 1, GT_API_FREE}, {"cuMemFree", 1, GT_API_FREE}, {"cuMemRelease", 0, GT_API_FREE},
  {"cudaDeviceSynchronize", 0, GT_API_SYNC}, {"cudaThreadSynchronize", 0, GT_API_SYNC},
  {"cudaStreamSynchronize", 0, GT_API_SYNC}, {"cudaEventSynchronize", 0, GT_API_SYNC},
  {"cuCtxSynchronize", 0, GT_API_SYNC}, {"cuStreamSynchronize", 0, GT_API_SYNC},
  {"cuEventSynchronize", 0, GT_API_SYNC},
  {"cudaStreamWaitEvent", 0, GT_API_SYNC}, {"cuStreamWaitEvent", 0, GT_API_SYNC},
};

/* Whether the len bytes at s end with the NUL-terminated suffix. */
static int ends_with(const char *s, size_t len, const char *suffix) {
  size_t k = strlen(suffix);
  return len >= k && memcmp(s + len - k, suffix, k) == 0;
}

/* The length of the base name at n (len bytes): without its trailing _ptsz, _ptds and _v<digits> suffixes, in
   any order, as ApiKinds.base removes them. */
static size_t api_base_len(const char *n, size_t len) {
  for (int changed = 1; changed;) {
    changed = 0;
    if (ends_with(n, len, "_ptsz") || ends_with(n, len, "_ptds")) {
      len -= 5;
      changed = 1;
    }
    size_t digits = len;
    while (digits > 0 && n[digits - 1] >= '0' && n[digits - 1] <= '9') digits--;
    if (digits < len && digits > 2 && n[digits - 2] == '_' && n[digits - 1] == 'v') {
      len = digits - 2;
      changed = 1;
    }
  }
  return len;
}

uint8_t gt_classify_api(const char *name) {
  if (!name) return GT_API_OTHER;
  const unsigned char *b = (const unsigned char *)name;
  size_t len = strlen(name);
  while (len > 0 && *b <= ' ') { b++; len--; }         /* blanks: characters up to U+0020, as String.trim */
  while (len > 0 && b[len - 1] <= ' ') len--;
  const char *n = (const char *)b;
  len = api_base_len(n, len);
  for (size_t i = 0; i < sizeof API_RULES / sizeof *API_RULES; i++) {
    const gt_api_rule *r = &API_RULES[i];
    size_t k = strlen(r->name);
    if ((r->prefix ? len >= k : len == k) && memcmp(n, r->name, k) == 0) return r->kind;
  }
  return GT_API_OTHER;
}
