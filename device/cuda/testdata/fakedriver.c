// A stand-in for the NVIDIA driver, NVRTC and NVML, for testing the CUDA backend's calls
// on machines without a GPU: it implements the C entry points the backend binds, with the
// signatures of cuda.h, nvrtc.h and nvml.h, over host memory. It checks what it is given
// and records it for the test to read back; every function of a module (each name
// expression of its compilation) computes
// x[i] = x[i] * a + coef[0] for i < n + over (and below the number of threads launched),
// with (float *x, int n, float a) as parameters, coef a __constant__ symbol and over the
// value of a define `over` given to NVRTC (0 without one): a kernel whose bounds check is
// off by over. With a define `under` it first zeroes x[-under] to x[-1], faulting before
// the allocation's start. A launch of 13 blocks in x faults with an illegal address.
// Launches take 250 µs by the events, and 10 µs more after another launch (see the clock).
//
// Device memory is host memory rounded up to granules, as a GPU's is: a kernel's write
// past the end of an allocation but inside its granule lands there unnoticed, one past
// the granule faults. Copies must stay inside an allocation (or the symbol), as the
// driver checks, and new memory holds junk, not zeros.
// Built by fakedriver_test.go and cmd/ktune's tests with the system C compiler; never
// part of ktune.
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int CUresult;
typedef uint64_t CUdeviceptr;

static int ctx_current, poisoned;
static float coef[4];
static char last_options[4096];
static char program_source[8192];
enum { max_names = 8, name_len = 64 };
static char name_expressions[max_names][name_len]; /* of the program being compiled */
static int n_names;
static int compilations; /* nvrtcCompileProgram calls */
static char launch_log[1024]; /* the lowered name of each function launched, each followed by ';' */
static unsigned last_launch[8]; /* grid xyz, block xyz, shared, calls */
static int dyn_shared_set;
/* The last compilation's image: a magic, the defines over and under, then the lowered
   name of each function, each after a ';', for cuModuleLoadData. */
static char cubin[32 + max_names * name_len];

/* Allocations: the bytes asked for, and the granule-rounded bytes behind them. */
enum { granule = 4096, max_allocs = 256 };
static struct { char *base; size_t size, reserved; } allocs[max_allocs];
static size_t memory_used, memory_limit = (size_t)-1; /* what the test may set */

/* inside says whether [p, p+n) lies within an allocation's requested bytes or the symbol. */
static int inside(CUdeviceptr p, size_t n) {
	char *c = (char *)(uintptr_t)p;
	if (c >= (char *)coef && n <= sizeof coef && c - (char *)coef <= (ptrdiff_t)(sizeof coef - n)) return 1;
	for (int i = 0; i < max_allocs; i++)
		if (allocs[i].base && c >= allocs[i].base && n <= allocs[i].size && c - allocs[i].base <= (ptrdiff_t)(allocs[i].size - n)) return 1;
	return 0;
}

/* granule_end is the end of the granules of the allocation holding p, 0 for none. */
static char *granule_end(const void *p) {
	for (int i = 0; i < max_allocs; i++)
		if (allocs[i].base && (const char *)p >= allocs[i].base && (const char *)p < allocs[i].base + allocs[i].reserved)
			return allocs[i].base + allocs[i].reserved;
	return 0;
}

/* allocation_start is the start of the allocation holding p, 0 for none. */
static char *allocation_start(const void *p) {
	for (int i = 0; i < max_allocs; i++)
		if (allocs[i].base && (const char *)p >= allocs[i].base && (const char *)p < allocs[i].base + allocs[i].reserved)
			return allocs[i].base;
	return 0;
}

/* Modules: the over and under each was compiled with, and its functions' names; handles
   are 0x5000 + slot, functions 0x6000 + slot + max_modules * the function's index. */
enum { max_modules = 64 };
static struct { int used, over, under, n; char names[max_names][name_len]; } modules[max_modules];
static int module_slot(void *mod) {
	uintptr_t m = (uintptr_t)mod - 0x5000;
	return m < max_modules && modules[m].used ? (int)m : -1;
}
static int function_slot(void *fn) { return module_slot((void *)(0x5000 + ((uintptr_t)fn - 0x6000) % max_modules)); }
static int function_index(void *fn) { return (int)(((uintptr_t)fn - 0x6000) / max_modules); }

/* what the test reads back */
const char *fake_options(void) { return last_options; }
const unsigned *fake_launch(void) { return last_launch; }
int fake_dynamic_shared(void) { return dyn_shared_set; }
void fake_set_free_memory(size_t n) { memory_limit = memory_used + n; } /* beyond it cuMemAlloc runs out */
int fake_compilations(void) { return compilations; }
int fake_modules_loaded(void) { int n = 0; for (int i = 0; i < max_modules; i++) n += modules[i].used; return n; }
const char *fake_launch_log(void) { return launch_log; }
void fake_clear_launch_log(void) { launch_log[0] = 0; }

CUresult cuInit(unsigned flags) { return flags == 0 ? 0 : 1; }
CUresult cuDriverGetVersion(int *v) { *v = 12040; return 0; }
CUresult cuDeviceGetCount(int *n) { *n = 1; return 0; }
CUresult cuDeviceGet(int *dev, int ordinal) { if (ordinal != 0) return 101; *dev = 0; return 0; }
CUresult cuDeviceGetName(char *name, int len, int dev) { strncpy(name, "Fake H100", len); return 0; }
CUresult cuDeviceGetAttribute(int *v, int attr, int dev) {
	switch (attr) {
	case 1: *v = 1024; return 0;          /* max threads per block */
	case 2: case 3: *v = 1024; return 0;  /* block x, y */
	case 4: *v = 64; return 0;            /* block z */
	case 5: *v = 2147483647; return 0;    /* grid x */
	case 6: case 7: *v = 65535; return 0;
	case 8: *v = 49152; return 0;         /* shared per block */
	case 9: *v = 65536; return 0;
	case 10: *v = 32; return 0;
	case 12: *v = 65536; return 0;        /* registers per block */
	case 13: *v = 1980000; return 0;      /* kHz */
	case 16: *v = 132; return 0;          /* SMs */
	case 36: *v = 2619000; return 0;
	case 37: *v = 5120; return 0;
	case 38: *v = 52428800; return 0;
	case 39: *v = 2048; return 0;
	case 75: *v = 9; return 0;            /* compute capability 9.0 */
	case 76: *v = 0; return 0;
	case 81: *v = 233472; return 0;
	case 82: *v = 65536; return 0;
	case 97: *v = 232448; return 0;       /* opt-in shared per block */
	}
	return 1;
}
CUresult cuDeviceTotalMem_v2(size_t *bytes, int dev) { *bytes = (size_t)80 << 30; return 0; }
CUresult cuDeviceGetPCIBusId(char *id, int len, int dev) { strncpy(id, "0000:19:00.0", len); return 0; }
CUresult cuDevicePrimaryCtxRetain(void **ctx, int dev) { *ctx = (void *)0x1234; return 0; }
CUresult cuDevicePrimaryCtxRelease_v2(int dev) { return 0; }
CUresult cuCtxSetCurrent(void *ctx) { if (ctx != (void *)0x1234) return 201; ctx_current = 1; return 0; }
CUresult cuCtxSynchronize(void) { return poisoned ? 700 : 0; }
CUresult cuModuleLoadData(void **mod, const void *image) {
	if (!ctx_current) return 201;
	if (memcmp(image, "FAKECUBIN", 9) != 0) return 200;
	for (int i = 0; i < max_modules; i++) {
		if (!modules[i].used) {
			modules[i].used = 1;
			const char *comma = strchr((const char *)image + 9, ',');
			modules[i].over = atoi((const char *)image + 9);
			modules[i].under = comma ? atoi(comma + 1) : 0;
			modules[i].n = 0;
			for (const char *p = strchr((const char *)image, ';'); p && modules[i].n < max_names; p = strchr(p + 1, ';')) {
				const char *e = strchr(p + 1, ';');
				size_t len = e ? (size_t)(e - p - 1) : strlen(p + 1);
				if (len == 0 || len >= name_len) break;
				memcpy(modules[i].names[modules[i].n], p + 1, len);
				modules[i].names[modules[i].n++][len] = 0;
			}
			*mod = (void *)(uintptr_t)(0x5000 + i);
			return 0;
		}
	}
	return 2;
}
CUresult cuModuleUnload(void *mod) {
	int m = module_slot(mod);
	if (m < 0) return 400;
	modules[m].used = 0;
	return 0;
}
CUresult cuModuleGetFunction(void **fn, void *mod, const char *name) {
	int m = module_slot(mod);
	if (m < 0) return 400;
	for (int j = 0; j < modules[m].n; j++) {
		if (strcmp(name, modules[m].names[j]) == 0) {
			*fn = (void *)(uintptr_t)(0x6000 + m + max_modules * j);
			return 0;
		}
	}
	return 500; /* CUDA_ERROR_NOT_FOUND */
}
CUresult cuModuleGetGlobal_v2(CUdeviceptr *ptr, size_t *bytes, void *mod, const char *name) {
	if (strcmp(name, "coef") != 0) return 500;
	*ptr = (CUdeviceptr)(uintptr_t)coef;
	*bytes = sizeof coef;
	return 0;
}
CUresult cuFuncGetAttribute(int *v, int attr, void *fn) {
	static const int attrs[] = {512, 1024, 0, 0, 128, 90, 90, 0, 48128};
	if (function_slot(fn) < 0 || attr < 0 || attr > 8) return 1;
	*v = attr == 8 && dyn_shared_set ? dyn_shared_set : attrs[attr];
	return 0;
}
CUresult cuFuncSetAttribute(void *fn, int attr, int v) { if (attr != 8) return 1; dyn_shared_set = v; return 0; }
CUresult cuMemAlloc_v2(CUdeviceptr *ptr, size_t n) {
	if (n == 0) return 1; /* CUDA_ERROR_INVALID_VALUE */
	for (int i = 0; i < max_allocs; i++) {
		if (!allocs[i].base) {
			size_t r = (n + granule - 1) / granule * granule;
			if (r > memory_limit - memory_used || !(allocs[i].base = malloc(r))) return 2;
			memory_used += r;
			memset(allocs[i].base, 0xcd, r);
			allocs[i].size = n;
			allocs[i].reserved = r;
			*ptr = (CUdeviceptr)(uintptr_t)allocs[i].base;
			return 0;
		}
	}
	return 2;
}
CUresult cuMemFree_v2(CUdeviceptr ptr) {
	for (int i = 0; i < max_allocs; i++) {
		if (allocs[i].base && (CUdeviceptr)(uintptr_t)allocs[i].base == ptr) {
			free(allocs[i].base);
			allocs[i].base = 0;
			memory_used -= allocs[i].reserved;
			return 0;
		}
	}
	return 1;
}
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n) {
	if (poisoned) return 700;
	if (!inside(dst, n)) return 1;
	memcpy((void *)(uintptr_t)dst, src, n);
	return 0;
}
CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n) {
	if (poisoned) return 700;
	if (!inside(src, n)) return 1;
	memcpy(dst, (void *)(uintptr_t)src, n);
	return 0;
}
CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t n) {
	if (poisoned) return 700;
	if (!inside(dst, n) || !inside(src, n)) return 1;
	memcpy((void *)(uintptr_t)dst, (void *)(uintptr_t)src, n);
	return 0;
}
/* The device's clock, in µs: a launch takes 250, and one that follows another launch
   directly (no event recorded between them) waits 10 more, the gap between two kernels
   that events around each launch leave out. Events record the clock. */
enum { max_events = 64 };
static long clock_us, event_us[max_events];
static int after_launch;
CUresult cuEventCreate(void **ev, unsigned flags) {
	static int events;
	if (events == max_events) return 2;
	*ev = (void *)(uintptr_t)(0x9000 + events++);
	return 0;
}
CUresult cuEventDestroy_v2(void *ev) { return 0; }
CUresult cuEventRecord(void *ev, void *stream) {
	uintptr_t e = (uintptr_t)ev - 0x9000;
	if (stream != 0 || e >= max_events) return 400;
	event_us[e] = clock_us;
	after_launch = 0;
	return 0;
}
CUresult cuEventQuery(void *ev) { return poisoned ? 700 : 0; }
CUresult cuEventSynchronize(void *ev) { return poisoned ? 700 : 0; }
CUresult cuEventElapsedTime_v2(float *ms, void *start, void *end) {
	uintptr_t a = (uintptr_t)start - 0x9000, b = (uintptr_t)end - 0x9000;
	if (a >= max_events || b >= max_events) return 400;
	*ms = (float)(event_us[b] - event_us[a]) / 1000.0f;
	return 0;
}
CUresult cuGetErrorName(CUresult r, const char **s) { *s = r == 700 ? "CUDA_ERROR_ILLEGAL_ADDRESS" : "CUDA_ERROR_OTHER"; return 0; }
CUresult cuGetErrorString(CUresult r, const char **s) { *s = r == 700 ? "an illegal memory access was encountered" : "fake error"; return 0; }
CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
			unsigned shared, void *stream, void **params, void **extra) {
	int m = function_slot(f);
	if (m < 0 || stream != 0 || extra != 0) return 1;
	unsigned g[] = {gx, gy, gz, bx, by, bz, shared};
	memcpy(last_launch, g, sizeof g);
	last_launch[7]++;
	clock_us += 250 + (after_launch ? 10 : 0);
	after_launch = 1;
	const char *fname = modules[m].names[function_index(f)];
	if (strlen(launch_log) + strlen(fname) + 2 <= sizeof launch_log) { /* the first launches after a clear */
		strcat(launch_log, fname);
		strcat(launch_log, ";");
	}
	if (gx == 13) { poisoned = 1; return 0; } /* the fault shows when it is waited for */
	float *x = *(float **)params[0];
	int n = *(int *)params[1];
	float a = *(float *)params[2];
	char *end = granule_end(x);
	if (!end) { poisoned = 1; return 0; }
	for (long i = -modules[m].under; i < 0; i++) { /* a bounds check that lets indices below 0 through */
		if ((char *)(x + i) < allocation_start(x)) { poisoned = 1; return 0; }
		x[i] = 0.0f;
	}
	long threads = (long)gx * gy * gz * bx * by * bz;
	for (long i = 0; i < (long)n + modules[m].over && i < threads; i++) {
		if ((char *)(x + i + 1) > end) { poisoned = 1; return 0; } /* past the granule */
		float v = x[i] * a + coef[0];
		if (v != v) { /* a GPU's arithmetic gives the canonical NaN, not the operand's payload */
			uint32_t canonical = 0x7fffffff;
			memcpy(&v, &canonical, sizeof v);
		}
		x[i] = v;
	}
	return 0;
}

/* NVRTC */
typedef int nvrtcResult;
nvrtcResult nvrtcVersion(int *major, int *minor) { *major = 12; *minor = 4; return 0; }
nvrtcResult nvrtcCreateProgram(void **prog, const char *src, const char *name, int n, const char *const *h, const char *const *in) {
	strncpy(program_source, src, sizeof program_source - 1);
	n_names = 0;
	*prog = (void *)0x8000;
	return 0;
}
nvrtcResult nvrtcDestroyProgram(void **prog) { *prog = 0; return 0; }
nvrtcResult nvrtcAddNameExpression(void *prog, const char *expr) {
	if (n_names == max_names || strlen(expr) >= name_len) return 7;
	strcpy(name_expressions[n_names++], expr);
	return 0;
}
/* lower is the name in the module of a name expression: the template instance's mangled name, else the name itself. */
static const char *lower(const char *expr) { return strcmp(expr, "scale<2>") == 0 ? "_Z5scaleILi2EEvPfif" : expr; }
static const char *log_text = "";
nvrtcResult nvrtcCompileProgram(void *prog, int n, const char *const *opts) {
	last_options[0] = 0;
	for (int i = 0; i < n; i++) {
		strncat(last_options, opts[i], sizeof last_options - strlen(last_options) - 2);
		strcat(last_options, "|");
	}
	log_text = "";
	int over = 0, under = 0;
	for (int i = 0; i < n; i++) {
		if (strncmp(opts[i], "-Dover=", 7) == 0) over = atoi(opts[i] + 7);
		if (strncmp(opts[i], "-Dunder=", 8) == 0) under = atoi(opts[i] + 8);
	}
	compilations++;
	snprintf(cubin, sizeof cubin, "FAKECUBIN%d,%d", over, under);
	for (int i = 0; i < n_names; i++) {
		strcat(cubin, ";");
		strcat(cubin, lower(name_expressions[i]));
	}
	if (strstr(program_source, "syntax error")) {
		log_text = "kernel.cu(1): error: expected a \";\"";
		return 6;
	}
	if (strstr(program_source, "unused_warning")) {
		log_text = "scale.cu(1): warning #177-D: variable \"unused_warning\" was declared but never referenced";
		return 0;
	}
	if (strstr(program_source, "huge")) {
		log_text = "ptxas error   : Entry function '_Z4hugePf' uses too much shared data (0x44580 bytes, 0xe300 max)";
		return 6;
	}
	return 0;
}
nvrtcResult nvrtcGetProgramLogSize(void *prog, size_t *n) { *n = strlen(log_text) + 1; return 0; }
nvrtcResult nvrtcGetProgramLog(void *prog, char *log) { strcpy(log, log_text); return 0; }
nvrtcResult nvrtcGetCUBINSize(void *prog, size_t *n) { *n = strlen(cubin) + 1; return 0; }
nvrtcResult nvrtcGetCUBIN(void *prog, char *out) { memcpy(out, cubin, strlen(cubin) + 1); return 0; }
nvrtcResult nvrtcGetPTXSize(void *prog, size_t *n) { *n = 1; return 0; }
nvrtcResult nvrtcGetPTX(void *prog, char *out) { out[0] = 0; return 0; }
nvrtcResult nvrtcGetLoweredName(void *prog, const char *expr, const char **lowered) {
	for (int i = 0; i < n_names; i++) {
		if (strcmp(expr, name_expressions[i]) == 0) {
			*lowered = lower(name_expressions[i]);
			return 0;
		}
	}
	return 7;
}
const char *nvrtcGetErrorString(nvrtcResult r) { return r == 6 ? "NVRTC_ERROR_COMPILATION" : "NVRTC_ERROR_OTHER"; }
nvrtcResult nvrtcGetNumSupportedArchs(int *n) { *n = 3; return 0; }
nvrtcResult nvrtcGetSupportedArchs(int *archs) { archs[0] = 80; archs[1] = 86; archs[2] = 90; return 0; }

/* NVML: a board that draws 250 W */
typedef int nvmlReturn_t;
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
nvmlReturn_t nvmlInit_v2(void) { return 0; }
nvmlReturn_t nvmlShutdown(void) { return 0; }
nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *bus, void **dev) {
	if (strcmp(bus, "0000:19:00.0") != 0) return 6; /* NVML_ERROR_NOT_FOUND */
	*dev = (void *)0xa000;
	return 0;
}
nvmlReturn_t nvmlDeviceGetPowerUsage(void *dev, unsigned *mw) { *mw = 250000; return 0; }
static int energy_reads; /* reads of the energy counter, which cost milliseconds on an H200 */
int fake_energy_reads(void) { return energy_reads; }
nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(void *dev, unsigned long long *mj) {
	energy_reads++;
	*mj = (unsigned long long)(now() * 250000.0);
	return 0;
}
nvmlReturn_t nvmlDeviceGetClockInfo(void *dev, int type, unsigned *mhz) { *mhz = type == 2 ? 2619 : 1980; return 0; }
nvmlReturn_t nvmlDeviceGetPowerManagementLimit(void *dev, unsigned *mw) { *mw = 700000; return 0; }
nvmlReturn_t nvmlDeviceSetGpuLockedClocks(void *dev, unsigned lo, unsigned hi) { return 4; } /* no permission */
nvmlReturn_t nvmlDeviceResetGpuLockedClocks(void *dev) { return 0; }
const char *nvmlErrorString(nvmlReturn_t r) { return r == 4 ? "Insufficient Permissions" : "Unknown Error"; }
