/* A fake NVRTC (libnvrtc.so.13) for the marshalling check: "compiles" by checking the options and emitting a PTX-like
 * text that names the source's extern "C" kernels; a source containing "#error" fails with a log. */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

typedef struct { char *src; char *ptx; char log[256]; } prog_t;
int nvrtcVersion(int *major, int *minor) { *major = 13; *minor = 0; return 0; }
int nvrtcCreateProgram(void **p, const char *src, const char *name, int nh, const char **h, const char **hn) {
  if (!src || nh != 0) return 3;
  prog_t *g = calloc(1, sizeof(prog_t));
  g->src = strdup(src);
  *p = g;
  return 0;
}
int nvrtcCompileProgram(void *p, int n, const char **opts) {
  prog_t *g = p;
  int arch = 0;
  for (int i = 0; i < n; i++) if (!strncmp(opts[i], "--gpu-architecture=compute_", 27)) arch = 1;
  if (!arch) { snprintf(g->log, sizeof g->log, "no --gpu-architecture"); return 5; }
  if (strstr(g->src, "#error")) { snprintf(g->log, sizeof g->log, "src.cu(1): error: #error directive"); return 6; }
  size_t len = strlen(g->src) + 64;
  g->ptx = malloc(len);
  snprintf(g->ptx, len, ".version 9.0\n.visible .entry fake()\n// %s", g->src);
  return 0;
}
int nvrtcGetPTXSize(void *p, size_t *n) { *n = strlen(((prog_t *)p)->ptx) + 1; return 0; }
int nvrtcGetPTX(void *p, char *out) { strcpy(out, ((prog_t *)p)->ptx); return 0; }
int nvrtcGetProgramLogSize(void *p, size_t *n) { *n = strlen(((prog_t *)p)->log) + 1; return 0; }
int nvrtcGetProgramLog(void *p, char *out) { strcpy(out, ((prog_t *)p)->log); return 0; }
int nvrtcDestroyProgram(void **p) { prog_t *g = *p; free(g->src); free(g->ptx); free(g); *p = NULL; return 0; }
