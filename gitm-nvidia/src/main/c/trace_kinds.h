/* GITM_TRACE_KINDS: the activity the injection library asks CUPTI for, as a set of bits.

   kernel    CONCURRENT_KERNEL records (one per kernel: name, stream, grid, timestamps, correlation id)
   memcpy    MEMCPY records (direction, bytes, pageable/pinned/device memory)
   memset    MEMSET records
   sync      SYNCHRONIZATION records (stream, event and context synchronizations)
   api       DRIVER and RUNTIME API records of only the functions that launch, copy, set, allocate, free or
             synchronize (those gt_classify_api does not call OTHER): the host side of every device operation,
             with the correlation id that joins it to its device record, without the getters that a framework
             calls many times per operation (cudaGetDevice, cudaGetLastError, cuCtxGetCurrent, ...)
   runtime   RUNTIME API records of every runtime function
   driver    DRIVER API records of every driver function
   overhead  OVERHEAD records (CUPTI's own buffer flushes and instrumentation)
   default   kernel,memcpy,memset,sync,api
   all       kernel,memcpy,memset,sync,runtime,driver,overhead (what the library traced before the choice existed)
   none      nothing (CUPTI loaded and its callbacks registered: the cost of the library alone)

   Items are separated by commas, case and surrounding blanks do not matter, and the set is their union. Unset or
   blank means default. */
#ifndef GITM_TRACE_KINDS_H
#define GITM_TRACE_KINDS_H

#include <stddef.h>

enum {
  TK_KERNEL = 1u << 0,
  TK_MEMCPY = 1u << 1,
  TK_MEMSET = 1u << 2,
  TK_SYNC = 1u << 3,
  TK_API = 1u << 4,
  TK_RUNTIME = 1u << 5,
  TK_DRIVER = 1u << 6,
  TK_OVERHEAD = 1u << 7
};

#define TK_DEFAULT (TK_KERNEL | TK_MEMCPY | TK_MEMSET | TK_SYNC | TK_API)
#define TK_ALL (TK_KERNEL | TK_MEMCPY | TK_MEMSET | TK_SYNC | TK_RUNTIME | TK_DRIVER | TK_OVERHEAD)

/* Parses `spec` into *mask. Returns 0, or -1 with *mask set to TK_DEFAULT and a one-line reason (naming the bad
   item and the known ones) in err (capacity cap). NULL or blank spec: TK_DEFAULT. */
int tk_parse(const char *spec, unsigned *mask, char *err, size_t cap);

/* The canonical text of mask ("kernel,memcpy,..." in the order above, "none" for 0) into out; returns its length
   (truncated to cap - 1). */
size_t tk_format(unsigned mask, char *out, size_t cap);

#endif
