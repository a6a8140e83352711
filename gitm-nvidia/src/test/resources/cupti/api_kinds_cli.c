/* Prints, for each line of the file argv[1] (the line's newline removed, nothing else), the ApiKind ordinal that
   gitm-nvidia/src/main/c/gtrace_writer.c's gt_classify_api gives it, one per line. Used by
   GtraceWriterRoundTripTest to hold the C classifier to io.gitm.trace.ApiKinds. */
#include <stdio.h>
#include <string.h>

#include "gtrace_writer.h"

int main(int argc, char **argv) {
  if (argc != 2) { fprintf(stderr, "usage: api_kinds_cli NAMES.txt\n"); return 2; }
  FILE *in = fopen(argv[1], "r");
  if (!in) { perror(argv[1]); return 1; }
  char line[4096];
  while (fgets(line, sizeof line, in)) {
    size_t n = strlen(line);
    if (n > 0 && line[n - 1] == '\n') line[--n] = 0;
    printf("%u\n", gt_classify_api(line));
  }
  fclose(in);
  return 0;
}
