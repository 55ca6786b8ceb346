/* errors.cu: the thread's last error message (pc_error), the ABI version and
 * device queries. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common.h"

namespace pc {

static thread_local char g_msg[1024];
static thread_local cudaStream_t g_stream = 0;

cudaStream_t stream() { return g_stream; }
void set_stream(cudaStream_t s) { g_stream = s; }

int fail(const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(g_msg, sizeof g_msg, fmt, ap);
	va_end(ap);
	for (char *p = g_msg; *p; p++)
		if (*p == '\n') *p = ' ';
	return 1;
}

/* The first line of a call's text, shortened, so a message stays one line. */
static void call_text(char *dst, size_t len, const char *call) {
	size_t n = 0;
	for (const char *p = call; *p && n + 1 < len; p++) dst[n++] = (*p == '\n' || *p == '\t') ? ' ' : *p;
	dst[n] = 0;
	if (n + 1 >= len && len > 4) strcpy(dst + len - 4, "...");
}

int cuda_fail(const char *where, const char *call, cudaError_t e) {
	char c[160];
	call_text(c, sizeof c, call);
	(void)cudaGetLastError(); /* clear a non-sticky error */
	return fail("%s: %s: %s (%s)", where, c, cudaGetErrorString(e), cudaGetErrorName(e));
}

static const char *cublas_status_name(cublasStatus_t s) {
	switch (s) {
	case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
	case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
	case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
	case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
	case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
	case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
	case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
	case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
	case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
	case CUBLAS_STATUS_LICENSE_ERROR: return "CUBLAS_STATUS_LICENSE_ERROR";
	default: return "unknown cuBLAS status";
	}
}

int cublas_fail(const char *where, const char *call, cublasStatus_t s) {
	char c[160];
	call_text(c, sizeof c, call);
	return fail("%s: %s: %s (%d)", where, c, cublas_status_name(s), (int)s);
}

} // namespace pc

using namespace pc;

extern "C" int pc_abi(void) { return PATS_CUDA_ABI; }

extern "C" const char *pc_error(void) { return g_msg; }

extern "C" int pc_device_count(int32_t *count) {
	if (!count) return fail("pc_device_count: count is null");
	*count = 0;
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);
	if (e == cudaErrorNoDevice) {
		(void)cudaGetLastError();
		return 0;
	}
	if (e != cudaSuccess) return cuda_fail("pc_device_count", "cudaGetDeviceCount", e);
	*count = n;
	return 0;
}

extern "C" int pc_device_name(int32_t dev, char *buf, int32_t len) {
	if (!buf || len <= 0) return fail("pc_device_name: no buffer");
	cudaDeviceProp p;
	PC_CUDA(cudaGetDeviceProperties(&p, dev));
	snprintf(buf, (size_t)len, "%s, %.1f GiB, sm_%d%d", p.name, (double)p.totalGlobalMem / (1024.0 * 1024.0 * 1024.0),
	         p.major, p.minor);
	return 0;
}
