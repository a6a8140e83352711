/* A fake NVML (libnvidia-ml.so.1) for the marshalling check: fixed readings, PCIe counters that grow (and wrap at
 * 32 bits), NVLink and retired pages not supported. For the sampler's tests it also counts the calls to each
 * function (fakeNvmlCalls) and the requests for each field id (fakeNvmlFieldRequests), and adds a settable offset
 * to the slowly changing readings (fakeNvmlSetSlowOffset: ECC counters, remapped rows, power limit in W); field
 * values are stamped with the time of day, or with the microseconds fakeNvmlSetTimestamp set (0: time of day).
 * The compute processes are this process alone (256 MiB, SM 33 %) until fakeNvmlSetProcesses lists others (pid 0
 * stands for this process); fakeNvmlSetProcessCodes makes the process list or the utilization call return a code. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#define FAKE_FUNCTIONS(X) X(nvmlInit_v2) X(nvmlSystemGetDriverVersion) X(nvmlSystemGetCudaDriverVersion_v2) \
  X(nvmlDeviceGetCount_v2) X(nvmlDeviceGetHandleByIndex_v2) X(nvmlDeviceGetHandleByUUID) X(nvmlDeviceGetName) \
  X(nvmlDeviceGetUUID) X(nvmlDeviceGetUtilizationRates) X(nvmlDeviceGetMemoryInfo) X(nvmlDeviceGetPowerUsage) \
  X(nvmlDeviceGetEnforcedPowerLimit) X(nvmlDeviceGetClockInfo) X(nvmlDeviceGetTemperature) \
  X(nvmlDeviceGetCurrentClocksEventReasons) X(nvmlDeviceGetFieldValues) X(nvmlDeviceGetTotalEccErrors) \
  X(nvmlDeviceGetRetiredPages) X(nvmlDeviceGetRemappedRows) X(nvmlDeviceGetComputeRunningProcesses_v3) \
  X(nvmlDeviceGetProcessUtilization)
#define AS_ENUM(f) FN_##f,
#define AS_NAME(f) #f,
enum { FAKE_FUNCTIONS(AS_ENUM) FN_COUNT };
static const char *const fn_names[] = { FAKE_FUNCTIONS(AS_NAME) };
static unsigned long long calls[FN_COUNT];
static unsigned long long field_requests[256];
static unsigned long long slow_offset;
static long long fixed_ts;
#define CALLED(f) (calls[FN_##f]++)

/* Calls to `function` since the last reset; all ones for a name this fake does not have. */
unsigned long long fakeNvmlCalls(const char *function) {
  for (int i = 0; i < FN_COUNT; i++) if (!strcmp(fn_names[i], function)) return calls[i];
  return ~0ULL;
}
/* How often nvmlDeviceGetFieldValues was asked for field `id` since the last reset. */
unsigned long long fakeNvmlFieldRequests(unsigned id) { return id < 256 ? field_requests[id] : ~0ULL; }
#define MAX_PROCS 8
static unsigned proc_n = 1, proc_pid[MAX_PROCS], proc_sm[MAX_PROCS] = {33};
static int list_rc, util_rc;
static unsigned long long util_ts;
void fakeNvmlReset(void) {
  memset(calls, 0, sizeof calls); memset(field_requests, 0, sizeof field_requests); slow_offset = 0; fixed_ts = 0;
  proc_n = 1; proc_pid[0] = 0; proc_sm[0] = 33; list_rc = util_rc = 0;
}
/* The compute processes from now on: n pids (0: this process) with their SM utilization in %. */
void fakeNvmlSetProcesses(unsigned n, const unsigned *pids, const unsigned *sm) {
  proc_n = n < MAX_PROCS ? n : MAX_PROCS;
  for (unsigned i = 0; i < proc_n; i++) { proc_pid[i] = pids[i]; proc_sm[i] = sm[i]; }
}
/* The codes nvmlDeviceGetComputeRunningProcesses_v3 and nvmlDeviceGetProcessUtilization return (0: they work). */
void fakeNvmlSetProcessCodes(int list, int util) { list_rc = list; util_rc = util; }
static unsigned pid_of(unsigned i) { return proc_pid[i] ? proc_pid[i] : (unsigned)getpid(); }
void fakeNvmlSetTimestamp(long long micros) { fixed_ts = micros; }
void fakeNvmlSetSlowOffset(unsigned long long offset) { slow_offset = offset; }

static int dev;
static uint32_t pcie_tx = 0xFFFFF000u;
int nvmlInit_v2(void) { CALLED(nvmlInit_v2); return 0; }
int nvmlSystemGetDriverVersion(char *b, unsigned n) { CALLED(nvmlSystemGetDriverVersion); snprintf(b, n, "999.99.99-fake"); return 0; }
int nvmlSystemGetCudaDriverVersion_v2(int *v) { CALLED(nvmlSystemGetCudaDriverVersion_v2); *v = 13000; return 0; }
int nvmlDeviceGetCount_v2(unsigned *n) { CALLED(nvmlDeviceGetCount_v2); *n = 1; return 0; }
int nvmlDeviceGetHandleByIndex_v2(unsigned i, void **d) { CALLED(nvmlDeviceGetHandleByIndex_v2); if (i) return 2; *d = &dev; return 0; }
int nvmlDeviceGetHandleByUUID(const char *u, void **d) { CALLED(nvmlDeviceGetHandleByUUID);
  if (strcmp(u, "GPU-10111213-1415-1617-1819-1a1b1c1d1e1f")) return 6;
  *d = &dev; return 0;
}
int nvmlDeviceGetName(void *d, char *b, unsigned n) { CALLED(nvmlDeviceGetName); snprintf(b, n, "Fake NVML Device"); return 0; }
int nvmlDeviceGetUUID(void *d, char *b, unsigned n) { CALLED(nvmlDeviceGetUUID); snprintf(b, n, "GPU-10111213-1415-1617-1819-1a1b1c1d1e1f"); return 0; }
int nvmlDeviceGetUtilizationRates(void *d, unsigned *u) { CALLED(nvmlDeviceGetUtilizationRates); u[0] = 42; u[1] = 17; return 0; }
int nvmlDeviceGetMemoryInfo(void *d, unsigned long long *m) { CALLED(nvmlDeviceGetMemoryInfo); m[0] = 16ULL << 30; m[1] = 12ULL << 30; m[2] = 4ULL << 30; return 0; }
int nvmlDeviceGetPowerUsage(void *d, unsigned *mw) { CALLED(nvmlDeviceGetPowerUsage); *mw = 81500; return 0; }
int nvmlDeviceGetEnforcedPowerLimit(void *d, unsigned *mw) { CALLED(nvmlDeviceGetEnforcedPowerLimit); *mw = 700000 + 1000 * (unsigned)slow_offset; return 0; }
int nvmlDeviceGetClockInfo(void *d, int type, unsigned *mhz) { CALLED(nvmlDeviceGetClockInfo); *mhz = type == 0 ? 1755 : type == 1 ? 1980 : type == 2 ? 3201 : 0; return type > 3 ? 2 : 0; }
int nvmlDeviceGetTemperature(void *d, int s, unsigned *t) { CALLED(nvmlDeviceGetTemperature); if (s) return 2; *t = 37; return 0; }
int nvmlDeviceGetCurrentClocksEventReasons(void *d, unsigned long long *r) { CALLED(nvmlDeviceGetCurrentClocksEventReasons); *r = 0x1 | 0x4; return 0; }
typedef struct { unsigned fieldId, scopeId; long long ts, lat; int type, ret; unsigned long long value; } fv_t;
int nvmlDeviceGetFieldValues(void *d, int n, fv_t *v) { CALLED(nvmlDeviceGetFieldValues);
  struct timeval tv; gettimeofday(&tv, NULL);
  pcie_tx += 0x2000; /* wraps on the second call */
  for (int i = 0; i < n; i++) {
    if (v[i].fieldId < 256) field_requests[v[i].fieldId]++;
    v[i].ts = fixed_ts ? fixed_ts : tv.tv_sec * 1000000LL + tv.tv_usec;
    if (v[i].fieldId == 197) { v[i].type = 1; v[i].ret = 0; v[i].value = pcie_tx; }
    else if (v[i].fieldId == 198) { v[i].type = 3; v[i].ret = 0; v[i].value = 1000000ULL * (unsigned)(v[i].ts % 1000); }
    else { v[i].ret = 3; }
  }
  return 0;
}
int nvmlDeviceGetTotalEccErrors(void *d, int et, int ct, unsigned long long *c) { CALLED(nvmlDeviceGetTotalEccErrors); *c = et * 10 + ct + slow_offset; return 0; }
int nvmlDeviceGetRetiredPages(void *d, int cause, unsigned *n, unsigned long long *a) { CALLED(nvmlDeviceGetRetiredPages); return 3; }
int nvmlDeviceGetRemappedRows(void *d, unsigned *c, unsigned *u, unsigned *p, unsigned *f) { CALLED(nvmlDeviceGetRemappedRows); *c = 2 + (unsigned)slow_offset; *u = 1; *p = 0; *f = 0; return 0; }
typedef struct { unsigned pid; unsigned long long used; unsigned gi, ci; } pi_t;
int nvmlDeviceGetComputeRunningProcesses_v3(void *d, unsigned *n, pi_t *p) { CALLED(nvmlDeviceGetComputeRunningProcesses_v3);
  if (list_rc) return list_rc;
  if (*n < proc_n) { *n = proc_n; return proc_n ? 7 : 0; }
  *n = proc_n;
  for (unsigned i = 0; i < proc_n; i++) { p[i].pid = pid_of(i); p[i].used = 256ULL << 20; p[i].gi = p[i].ci = 0xFFFFFFFFu; }
  return 0;
}
typedef struct { unsigned pid; unsigned long long ts; unsigned sm, mem, enc, dec; } pu_t;
/* One sample per process, stamped one later than the last call's (so a caller's last-seen time always passes it). */
int nvmlDeviceGetProcessUtilization(void *d, pu_t *s, unsigned *n, unsigned long long last) { CALLED(nvmlDeviceGetProcessUtilization);
  if (util_rc) return util_rc;
  if (proc_n == 0) { *n = 0; return 6; }
  if (!s || *n < proc_n) { *n = proc_n; return 7; }
  util_ts = (last > util_ts ? last : util_ts) + 1;
  *n = proc_n;
  for (unsigned i = 0; i < proc_n; i++) {
    s[i].pid = pid_of(i); s[i].ts = util_ts; s[i].sm = proc_sm[i]; s[i].mem = 5; s[i].enc = s[i].dec = 0;
  }
  return 0;
}
