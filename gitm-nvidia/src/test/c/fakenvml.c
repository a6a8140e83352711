/* A fake NVML (libnvidia-ml.so.1) for the marshalling check: fixed readings, PCIe counters that grow (and wrap at
 * 32 bits), NVLink and retired pages not supported. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static int dev;
static uint32_t pcie_tx = 0xFFFFF000u;
int nvmlInit_v2(void) { return 0; }
int nvmlSystemGetDriverVersion(char *b, unsigned n) { snprintf(b, n, "999.99.99-fake"); return 0; }
int nvmlSystemGetCudaDriverVersion_v2(int *v) { *v = 13000; return 0; }
int nvmlDeviceGetCount_v2(unsigned *n) { *n = 1; return 0; }
int nvmlDeviceGetHandleByIndex_v2(unsigned i, void **d) { if (i) return 2; *d = &dev; return 0; }
int nvmlDeviceGetHandleByUUID(const char *u, void **d) {
  if (strcmp(u, "GPU-10111213-1415-1617-1819-1a1b1c1d1e1f")) return 6;
  *d = &dev; return 0;
}
int nvmlDeviceGetName(void *d, char *b, unsigned n) { snprintf(b, n, "Fake NVML Device"); return 0; }
int nvmlDeviceGetUUID(void *d, char *b, unsigned n) { snprintf(b, n, "GPU-10111213-1415-1617-1819-1a1b1c1d1e1f"); return 0; }
int nvmlDeviceGetUtilizationRates(void *d, unsigned *u) { u[0] = 42; u[1] = 17; return 0; }
int nvmlDeviceGetMemoryInfo(void *d, unsigned long long *m) { m[0] = 16ULL << 30; m[1] = 12ULL << 30; m[2] = 4ULL << 30; return 0; }
int nvmlDeviceGetPowerUsage(void *d, unsigned *mw) { *mw = 81500; return 0; }
int nvmlDeviceGetEnforcedPowerLimit(void *d, unsigned *mw) { *mw = 700000; return 0; }
int nvmlDeviceGetClockInfo(void *d, int type, unsigned *mhz) { *mhz = type == 0 ? 1755 : type == 1 ? 1980 : type == 2 ? 3201 : 0; return type > 3 ? 2 : 0; }
int nvmlDeviceGetTemperature(void *d, int s, unsigned *t) { if (s) return 2; *t = 37; return 0; }
int nvmlDeviceGetCurrentClocksEventReasons(void *d, unsigned long long *r) { *r = 0x1 | 0x4; return 0; }
typedef struct { unsigned fieldId, scopeId; long long ts, lat; int type, ret; unsigned long long value; } fv_t;
int nvmlDeviceGetFieldValues(void *d, int n, fv_t *v) {
  struct timeval tv; gettimeofday(&tv, NULL);
  pcie_tx += 0x2000; /* wraps on the second call */
  for (int i = 0; i < n; i++) {
    v[i].ts = tv.tv_sec * 1000000LL + tv.tv_usec;
    if (v[i].fieldId == 197) { v[i].type = 1; v[i].ret = 0; v[i].value = pcie_tx; }
    else if (v[i].fieldId == 198) { v[i].type = 3; v[i].ret = 0; v[i].value = 1000000ULL * (unsigned)(v[i].ts % 1000); }
    else { v[i].ret = 3; }
  }
  return 0;
}
int nvmlDeviceGetTotalEccErrors(void *d, int et, int ct, unsigned long long *c) { *c = et * 10 + ct; return 0; }
int nvmlDeviceGetRetiredPages(void *d, int cause, unsigned *n, unsigned long long *a) { return 3; }
int nvmlDeviceGetRemappedRows(void *d, unsigned *c, unsigned *u, unsigned *p, unsigned *f) { *c = 2; *u = 1; *p = 0; *f = 0; return 0; }
typedef struct { unsigned pid; unsigned long long used; unsigned gi, ci; } pi_t;
int nvmlDeviceGetComputeRunningProcesses_v3(void *d, unsigned *n, pi_t *p) {
  if (*n < 1) { *n = 1; return 7; }
  *n = 1; p[0].pid = (unsigned)getpid(); p[0].used = 256ULL << 20; p[0].gi = p[0].ci = 0xFFFFFFFFu;
  return 0;
}
typedef struct { unsigned pid; unsigned long long ts; unsigned sm, mem, enc, dec; } pu_t;
int nvmlDeviceGetProcessUtilization(void *d, pu_t *s, unsigned *n, unsigned long long last) {
  if (!s) { *n = 1; return 7; }
  *n = 1; s[0].pid = (unsigned)getpid(); s[0].ts = 12345; s[0].sm = 33; s[0].mem = 5; s[0].enc = s[0].dec = 0;
  return 0;
}
