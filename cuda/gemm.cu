/* gemm.cu: matrix products through cuBLAS.
 *
 * Precision. Every product runs on tensor cores in BF16 with FP32
 * accumulation and FP32 output:
 *   - gemm: FP32 operands with CUBLAS_COMPUTE_32F_FAST_16BF (cuBLAS rounds
 *     the operands to BF16 inside the kernel). Used where both operands are
 *     activations or gradients (weight gradients, attention, backward
 *     products with the FP32 master weights), so no BF16 copies are made.
 *   - gemm_bf16: BF16 operands, CUBLAS_COMPUTE_32F. The forward linear
 *     layers multiply by the model's BF16 copies of the weights (refreshed
 *     whenever the FP32 masters change) and a BF16 copy of the input: half
 *     the bytes of the weights per product, which is what bounds decoding.
 * Both round the same operands the same way (to nearest even), so a
 * forward through gemm_bf16 and one through gemm agree up to summation
 * order.
 *
 * Layout. cuBLAS is column-major; a row-major C[m,n] is the column-major
 * C^T[n,m], so C = op(A) op(B) is computed as C^T = op(B)^T op(A)^T: the
 * operands swap places and keep their transpose flags and leading
 * dimensions. */
#include "common.h"

namespace pc {

__global__ void k_scale_matrix(float *c, int m, int n, int ldc, float beta) {
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= (size_t)m * n) return;
	size_t r = i / n, col = i % n;
	float *p = c + r * ldc + col;
	*p = beta == 0.0f ? 0.0f : *p * beta;
}

static int scale_only(int m, int n, float beta, float *c, int ldc) {
	if (beta == 1.0f) return 0;
	k_scale_matrix<<<blocks_for((size_t)m * n, 256), 256, 0, stream()>>>(c, m, n, ldc, beta);
	PC_LAUNCHED("k_scale_matrix");
	return 0;
}

static inline cublasOperation_t op(bool t) { return t ? CUBLAS_OP_T : CUBLAS_OP_N; }

int gemm(cublasHandle_t h, bool ta, bool tb, int m, int n, int k, float alpha, const float *a, int lda,
         const float *b, int ldb, float beta, float *c, int ldc) {
	if (m <= 0 || n <= 0) return 0;
	if (k <= 0 || alpha == 0.0f) return scale_only(m, n, beta, c, ldc);
	PC_CUBLAS(cublasGemmEx(h, op(tb), op(ta), n, m, k, &alpha, b, CUDA_R_32F, ldb, a, CUDA_R_32F, lda, &beta, c,
	                       CUDA_R_32F, ldc, CUBLAS_COMPUTE_32F_FAST_16BF, CUBLAS_GEMM_DEFAULT));
	return 0;
}

int gemm_bf16(cublasHandle_t h, bool ta, bool tb, int m, int n, int k, float alpha, const bf16 *a, int lda,
              const bf16 *b, int ldb, float beta, float *c, int ldc) {
	if (m <= 0 || n <= 0) return 0;
	if (k <= 0 || alpha == 0.0f) return scale_only(m, n, beta, c, ldc);
	PC_CUBLAS(cublasGemmEx(h, op(tb), op(ta), n, m, k, &alpha, b, CUDA_R_16BF, ldb, a, CUDA_R_16BF, lda, &beta, c,
	                       CUDA_R_32F, ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
	return 0;
}

int gemm_batched(cublasHandle_t h, bool ta, bool tb, int m, int n, int k, float alpha, const float *a, int lda,
                 long long sa, const float *b, int ldb, long long sb, float beta, float *c, int ldc, long long sc,
                 int batch) {
	if (m <= 0 || n <= 0 || batch <= 0) return 0;
	if (k <= 0 || alpha == 0.0f) {
		for (int i = 0; i < batch; i++) PC_TRY(scale_only(m, n, beta, c + (size_t)i * sc, ldc));
		return 0;
	}
	PC_CUBLAS(cublasGemmStridedBatchedEx(h, op(tb), op(ta), n, m, k, &alpha, b, CUDA_R_32F, ldb, sb, a, CUDA_R_32F,
	                                     lda, sa, &beta, c, CUDA_R_32F, ldc, sc, batch, CUBLAS_COMPUTE_32F_FAST_16BF,
	                                     CUBLAS_GEMM_DEFAULT));
	return 0;
}

__global__ void k_to_bf16(bf16 *dst, const float *src, size_t n) {
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	size_t stride = (size_t)gridDim.x * blockDim.x;
	for (; i < n; i += stride) dst[i] = __float2bfloat16_rn(src[i]);
}

int to_bf16(bf16 *dst, const float *src, size_t n) {
	if (n == 0) return 0;
	unsigned b = blocks_for(n, 256);
	if (b > 65536) b = 65536;
	k_to_bf16<<<b, 256, 0, stream()>>>(dst, src, n);
	PC_LAUNCHED("k_to_bf16");
	return 0;
}

__global__ void k_from_bf16(float *dst, const bf16 *src, size_t n) {
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	size_t stride = (size_t)gridDim.x * blockDim.x;
	for (; i < n; i += stride) dst[i] = __bfloat162float(src[i]);
}

/* The BF16 values of a frozen base weight as FP32 (pc_param_get, issue 60). */
int from_bf16(float *dst, const bf16 *src, size_t n) {
	if (n == 0) return 0;
	unsigned b = blocks_for(n, 256);
	if (b > 65536) b = 65536;
	k_from_bf16<<<b, 256, 0, stream()>>>(dst, src, n);
	PC_LAUNCHED("k_from_bf16");
	return 0;
}

} // namespace pc
