/* Prints, for each argument, what gitm-nvidia/src/main/c/trace_kinds.c makes of it as a GITM_TRACE_KINDS value:
   "ok <canonical>" or "error <canonical of the fallback> | <reason>". The argument "-" stands for an unset variable.
   Used by TraceKindsTest. */
#include <stdio.h>
#include <string.h>

#include "trace_kinds.h"

int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    unsigned mask = 12345;
    char err[512], text[256];
    int rc = tk_parse(strcmp(argv[i], "-") == 0 ? NULL : argv[i], &mask, err, sizeof err);
    tk_format(mask, text, sizeof text);
    if (rc == 0) printf("ok %s\n", text);
    else printf("error %s | %s\n", text, err);
  }
  return 0;
}
