/* A writer of gitm trace files (.gtrace version 1, docs/trace-format.md), in C, for the CUPTI injection library.
   Every record call is thread-safe. Enum arguments are the ordinals of the Java enums in io.gitm.trace. */
#ifndef GITM_GTRACE_WRITER_H
#define GITM_GTRACE_WRITER_H

#include <stddef.h>
#include <stdint.h>

typedef struct gt_writer gt_writer;

enum { GT_COPY_HTOD, GT_COPY_DTOH, GT_COPY_DTOD, GT_COPY_HTOH, GT_COPY_PTOP, GT_COPY_UNKNOWN };
enum { GT_MEM_DEVICE, GT_MEM_PINNED, GT_MEM_PAGEABLE, GT_MEM_MANAGED, GT_MEM_ARRAY, GT_MEM_UNKNOWN };
enum { GT_SYNC_EVENT, GT_SYNC_STREAM_WAIT_EVENT, GT_SYNC_STREAM, GT_SYNC_CONTEXT, GT_SYNC_UNKNOWN };
enum { GT_API_LAUNCH, GT_API_ALLOC, GT_API_FREE, GT_API_COPY, GT_API_MEMSET, GT_API_SYNC, GT_API_OTHER };
enum { GT_OVH_BUFFER_FLUSH, GT_OVH_INSTRUMENTATION, GT_OVH_RESOURCE, GT_OVH_SAMPLING, GT_OVH_OTHER };

/* Creates `path` and writes the header with `meta_reserve` bytes kept for the JSON meta (filled with spaces, which
   JSON allows, until gt_close writes the meta). Returns NULL (errno set) on failure. */
gt_writer *gt_open(const char *path, uint32_t meta_reserve);

/* Record writers (tags 2..9). Names go through the writer's string table: a name's definition (tag 1) is
   written just before its first use, in the same block. gt_kernel returns the name's string id (0 on failure). */
uint32_t gt_kernel(gt_writer *w, const char *name, int32_t device, int32_t stream, int64_t correlation,
                   int64_t start, int64_t end, const int32_t grid[3], const int32_t block[3], int32_t regs,
                   int32_t static_shared, int32_t dynamic_shared);
void gt_copy(gt_writer *w, uint8_t kind, uint8_t src_kind, uint8_t dst_kind, int64_t bytes, int32_t device,
             int32_t stream, int64_t correlation, int64_t start, int64_t end);
void gt_memset(gt_writer *w, uint8_t memory_kind, int32_t value, int64_t bytes, int32_t device, int32_t stream,
               int64_t correlation, int64_t start, int64_t end);
void gt_sync(gt_writer *w, uint8_t kind, int32_t device, int32_t stream, int64_t correlation, int64_t start,
             int64_t end);
void gt_api(gt_writer *w, uint8_t kind, const char *name, int64_t thread, int64_t correlation, int64_t start,
            int64_t end);
void gt_overhead(gt_writer *w, uint8_t kind, int64_t thread, int64_t start, int64_t end);
/* n (field ordinal, value) pairs. */
void gt_state(gt_writer *w, int32_t device, int64_t time, uint8_t n, const uint8_t *fields, const double *values);
void gt_marker(gt_writer *w, const char *name, int64_t thread, int64_t start, int64_t end);

/* Finds or defines the string s and returns its id (0 on failure): a record that carries the id may then be written
   by a *_id call at any later time, since a definition only has to precede its first use. */
uint32_t gt_intern(gt_writer *w, const char *s);

/* gt_kernel and gt_api with the name given as an id from gt_intern: no hashing or comparing of the name. */
void gt_kernel_id(gt_writer *w, uint32_t name_id, int32_t device, int32_t stream, int64_t correlation, int64_t start,
                  int64_t end, const int32_t grid[3], const int32_t block[3], int32_t regs, int32_t static_shared,
                  int32_t dynamic_shared);
void gt_api_id(gt_writer *w, uint8_t kind, uint32_t name_id, int64_t thread, int64_t correlation, int64_t start,
               int64_t end);

/* Records written so far. */
uint64_t gt_records(gt_writer *w);

/* Writes the last block, the end block and `meta_json` into the reserved space, then closes the file.
   Returns 0, or -1 (errno set; -1 with errno EOVERFLOW when the meta does not fit its reserve). Frees w. */
int gt_close(gt_writer *w, const char *meta_json);

/* Frees w and closes its file without completing it (the file stays truncated, as a reader will report). */
void gt_abandon(gt_writer *w);

/* zlib's CRC-32 of buf. */
uint32_t gt_crc32(const uint8_t *buf, size_t len);

/* Appends `s` as a JSON string literal (quoted, escaped) to out (capacity cap); returns the new length, or
   cap when it does not fit. */
size_t gt_json_string(char *out, size_t len, size_t cap, const char *s);

/* The ApiKind ordinal of a driver or runtime API function name, by the rules of io.gitm.trace.ApiKinds (gitm-api). */
uint8_t gt_classify_api(const char *name);

#endif
