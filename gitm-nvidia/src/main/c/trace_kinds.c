/* GITM_TRACE_KINDS parsing: see trace_kinds.h. */
#include "trace_kinds.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

static const struct { const char *name; unsigned bits; } ITEMS[] = {
    {"kernel", TK_KERNEL}, {"memcpy", TK_MEMCPY}, {"memset", TK_MEMSET}, {"sync", TK_SYNC}, {"api", TK_API},
    {"runtime", TK_RUNTIME}, {"driver", TK_DRIVER}, {"overhead", TK_OVERHEAD}, {"default", TK_DEFAULT},
    {"all", TK_ALL}, {"none", 0}};
#define N_ITEMS (sizeof ITEMS / sizeof *ITEMS)
#define N_SINGLE 8 /* the first N_SINGLE items are single kinds */

static const char KNOWN[] = "kernel, memcpy, memset, sync, api, runtime, driver, overhead, default, all, none";

static int blank(const char *s) {
  for (; *s; s++) if (!isspace((unsigned char)*s)) return 0;
  return 1;
}

int tk_parse(const char *spec, unsigned *mask, char *err, size_t cap) {
  if (cap) err[0] = 0;
  *mask = TK_DEFAULT;
  if (!spec || blank(spec)) return 0;
  unsigned m = 0;
  const char *p = spec;
  for (;;) {
    const char *end = strchr(p, ',');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    const char *a = p, *b = p + n;
    while (a < b && isspace((unsigned char)*a)) a++;
    while (b > a && isspace((unsigned char)b[-1])) b--;
    size_t len = (size_t)(b - a);
    size_t i = 0;
    for (; i < N_ITEMS; i++) {
      if (strlen(ITEMS[i].name) == len && strncasecmp(ITEMS[i].name, a, len) == 0) break;
    }
    if (i == N_ITEMS) {
      if (len == 0) snprintf(err, cap, "empty item in \"%s\" (known: %s)", spec, KNOWN);
      else snprintf(err, cap, "unknown kind \"%.*s\" in \"%s\" (known: %s)", (int)(len > 64 ? 64 : len), a, spec, KNOWN);
      return -1;
    }
    m |= ITEMS[i].bits;
    if (!end) break;
    p = end + 1;
  }
  *mask = m;
  return 0;
}

size_t tk_format(unsigned mask, char *out, size_t cap) {
  if (!cap) return 0;
  out[0] = 0;
  size_t len = 0;
  if (mask == 0) {
    snprintf(out, cap, "none");
    return strlen(out);
  }
  for (size_t i = 0; i < N_SINGLE; i++) {
    if (!(mask & ITEMS[i].bits)) continue;
    int w = snprintf(out + len, cap - len, "%s%s", len ? "," : "", ITEMS[i].name);
    if (w < 0 || (size_t)w >= cap - len) { out[cap - 1] = 0; return cap - 1; }
    len += (size_t)w;
  }
  return len;
}
