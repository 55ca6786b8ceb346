/*
 * common.h: declarations shared by the sources of libpatscuda.so (not part
 * of the C interface, which is pats_cuda.h). Every kernel family exposes
 * host functions here that launch on the legacy default stream and return
 * 0 or an error code after recording the message pc_error() returns.
 * Pointers are device pointers unless a name says otherwise.
 */
#ifndef PATS_CUDA_COMMON_H
#define PATS_CUDA_COMMON_H

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "hostmath.h"
#include "pats_cuda.h"

namespace pc {

typedef __nv_bfloat16 bf16;

/* errors.cu: set the calling thread's message and return 1. */
int fail(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
int cuda_fail(const char *where, const char *call, cudaError_t e);
int cublas_fail(const char *where, const char *call, cublasStatus_t s);

#define PC_CUDA(call)                                                                                                  \
	do {                                                                                                               \
		cudaError_t e_ = (call);                                                                                       \
		if (e_ != cudaSuccess) return ::pc::cuda_fail(__func__, #call, e_);                                            \
	} while (0)
#define PC_CUBLAS(call)                                                                                                \
	do {                                                                                                               \
		cublasStatus_t s_ = (call);                                                                                    \
		if (s_ != CUBLAS_STATUS_SUCCESS) return ::pc::cublas_fail(__func__, #call, s_);                                \
	} while (0)
/* After a kernel launch: a bad launch configuration is reported at once;
 * faults inside kernels surface at the next synchronising call. */
#define PC_LAUNCHED(name)                                                                                              \
	do {                                                                                                               \
		cudaError_t e_ = cudaGetLastError();                                                                           \
		if (e_ != cudaSuccess) return ::pc::cuda_fail(__func__, "launch of kernel " name, e_);                         \
	} while (0)
#define PC_TRY(expr)                                                                                                   \
	do {                                                                                                               \
		int r_ = (expr);                                                                                               \
		if (r_) return r_;                                                                                             \
	} while (0)

/* The stream every launch of the calling thread goes to: the model's own
 * stream inside pc_model calls, the legacy default stream (0) in the
 * kernel checks. Set at each entry point. */
cudaStream_t stream();
void set_stream(cudaStream_t s);

static inline unsigned blocks_for(size_t n, unsigned threads) {
	size_t b = (n + threads - 1) / threads;
	return (unsigned)(b > 0x7fffffffu ? 0x7fffffffu : (b == 0 ? 1 : b));
}

/* Deterministic block reductions (a fixed tree over a fixed number of
 * threads; blockDim.x a multiple of 32, at most 1024). sh holds 32
 * values. Every thread gets the result. */
template <class T> __device__ __forceinline__ T warp_sum(T v) {
	for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
	return v;
}
template <class T> __device__ __forceinline__ T warp_max(T v) {
	for (int o = 16; o > 0; o >>= 1) {
		T w = __shfl_xor_sync(0xffffffffu, v, o);
		v = w > v ? w : v;
	}
	return v;
}
template <class T> __device__ T block_sum(T v, T *sh) {
	int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
	v = warp_sum(v);
	__syncthreads();
	if (lane == 0) sh[wid] = v;
	__syncthreads();
	T r = lane < nw ? sh[lane] : T(0);
	return warp_sum(r);
}
template <class T> __device__ T block_max(T v, T *sh, T lowest) {
	int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
	v = warp_max(v);
	__syncthreads();
	if (lane == 0) sh[wid] = v;
	__syncthreads();
	T r = lane < nw ? sh[lane] : lowest;
	return warp_max(r);
}

/* gemm.cu. Row-major C[m,n] = alpha*op(A)*op(B) + beta*C (the Go
 * Backend.MatMul convention; op transposes when the flag is set), FP32
 * accumulation. gemm: FP32 operands multiplied on tensor cores after
 * rounding to BF16 (CUBLAS_COMPUTE_32F_FAST_16BF). gemm_bf16: BF16
 * operands. gemm_batched: FP32 operands, strided batch. m, n or k of 0
 * is handled (k = 0 scales C by beta, zero when beta is 0). */
int gemm(cublasHandle_t h, bool ta, bool tb, int m, int n, int k, float alpha, const float *a, int lda,
         const float *b, int ldb, float beta, float *c, int ldc);
int gemm_bf16(cublasHandle_t h, bool ta, bool tb, int m, int n, int k, float alpha, const bf16 *a, int lda,
              const bf16 *b, int ldb, float beta, float *c, int ldc);
int gemm_batched(cublasHandle_t h, bool ta, bool tb, int m, int n, int k, float alpha, const float *a, int lda,
                 long long sa, const float *b, int ldb, long long sb, float beta, float *c, int ldc, long long sc,
                 int batch);
/* dst = bf16(src), round to nearest even, n elements. */
int to_bf16(bf16 *dst, const float *src, size_t n);
int from_bf16(float *dst, const bf16 *src, size_t n);

/* embed.cu */
int embed_gather(float *x, const float *table, const int32_t *tokens, int rows, int dim);
int embed_gather_bf16(float *x, const bf16 *table, const int32_t *tokens, int rows, int dim);
/* g[tokens[t]] += dx[t] for every t, in a deterministic order: per token,
 * its positions in increasing order. next[t] is the next position of the
 * same token (-1: none); firsts lists the nfirst first occurrences. */
int embed_backward(float *g, const float *dx, const int32_t *tokens, const int32_t *next, const int32_t *firsts,
                   int nfirst, int dim);
/* dst[j] = src[idx[j]], j < n, rows of dim floats. */
int rows_gather(float *dst, const float *src, const int32_t *idx, int n, int dim);
/* dst[idx[j]] = src[j] where keep[j] != 0. */
int rows_scatter(float *dst, const float *src, const int32_t *idx, const int32_t *keep, int n, int dim);
/* y[r] += b for rows rows of dim floats. */
int bias_add(float *y, const float *b, int rows, int dim);
/* k and v rows (rows x kvdim) into the caches of their decoders (decode). */
struct DecInfo {
	float *k, *v; /* [layers][cap][kvdim] */
	int32_t cap;
	int32_t pad;
};
int kv_store(const float *kn, const float *vn, const int32_t *rowdec, const int32_t *rowpos, const DecInfo *info,
             int layer, int rows, int kvdim);

/* gradnorm.cu: deterministic reductions. */
/* Partial-sum scratch (floats) colsum_add needs for rows x cols. */
size_t colsum_scratch(int rows, int cols);
/* dst[c] += sum over r of src[r*cols+c], rows summed in a fixed order. */
int colsum_add(float *dst, const float *src, int rows, int cols, float *scratch);
/* Second stage of colsum_add over partial rows (exposed for rmsnorm). */
int colsum_finish(float *dst, const float *partial, int nparts, int cols);
const int COLSUM_CHUNK = 32;
/* *out = sum of g[i]^2 (double, fixed order); scratch >= 1024 doubles + 1. */
int sum_squares(const float *g, size_t n, double *scratch, double *host_out);
/* g *= c. */
int scale(float *g, size_t n, float c);

/* rmsnorm.cu */
/* yb, when not null, also gets y in BF16 (the input of the next product). */
int rmsnorm(float *y, float *inv, const float *x, const float *w, int rows, int dim, float eps, bf16 *yb);
/* dx += ..., dw += ... (Backend.RMSNormBackward); scratch >= colsum_scratch(rows, dim). */
int rmsnorm_backward(float *dx, float *dw, const float *dy, const float *x, const float *w, const float *inv,
                     int rows, int dim, float *scratch);

/* rope.cu: positions pos0+row, or pos[row] when pos is not null. */
int rope(float *x, int rows, int heads, int head_dim, int pos0, const int32_t *pos, const float *cos,
         const float *sin, int inverse);

/* attention.cu. Whole-sequence attention through batched GEMMs plus
 * softmax kernels (training, scoring): q rows x heads*hd at positions
 * past.., k and v (past+rows) x kv*hd. scratch floats: attention_scratch
 * (hostmath.h). */
int attention_forward(cublasHandle_t h, float *out, float *lse, const float *q, const float *k, const float *v,
                      int rows, int past, int heads, int kv_heads, int head_dim, float *scratch);
/* Accumulates dq, dk, dv (past 0). scratch: 2*attention_scratch(rows, 0,
 * kv) floats, dsc: heads*rows floats. */
int attention_backward(cublasHandle_t h, float *dq, float *dk, float *dv, const float *dout, const float *q,
                       const float *k, const float *v, const float *out, const float *lse, int rows, int heads,
                       int kv_heads, int head_dim, float *scratch, float *dsc);
/* Decoding attention over the KV caches: row r of decoder rowdec[r] at
 * position rowpos[r] attends to positions 0..rowpos[r] of its cache. */
int attention_decode(float *out, const float *q, const int32_t *rowdec, const int32_t *rowpos, const DecInfo *info,
                     int layer, int rows, int heads, int kv_heads, int head_dim);

/* swiglu.cu */
/* hb, when not null, also gets h in BF16. */
int swiglu(float *h, const float *g, const float *u, size_t n, bf16 *hb);
int swiglu_backward(float *dg, float *du, const float *dh, const float *g, const float *u, size_t n);

/* logsoftmax.cu (lp, ent, lse may each be null) */
int log_softmax(float *lp, float *ent, float *lse, const float *logits, const int32_t *target, int rows, int vocab);
/* dlogits may equal logits (in place). */
int log_softmax_backward(float *dlogits, const float *logits, const float *lse, const int32_t *target,
                         const float *dlp, int rows, int vocab);

/* adamw.cu: one tensor; pb (the BF16 copy) refreshed when not null. */
int adamw(float *p, const float *g, float *m, float *v, size_t n, const pc_adamw *h, float weight_decay, bf16 *pb);

/* sample.cu: one token per row of logits (rows x vocab) as pc_sampling
 * says, u[r] the row's uniform (device). ws: sample_workspace bytes. */
size_t sample_workspace(int rows, int vocab, const pc_sampling *s);
int sample_rows(const float *logits, int rows, int vocab, const pc_sampling *s, const double *u, int32_t *tok,
                float *logp, void *ws);

} // namespace pc

#endif
