/* rmsnorm.cu: RMSNorm and its backward (Backend.RMSNorm,
 * RMSNormBackward): y = x * inv * w with inv = 1/sqrt(mean(x^2) + eps),
 * inv computed as lib/model does (the mean in float, the square root in
 * double). One block per row; the row sums use a fixed tree. */
#include "common.h"

namespace pc {

const int NORM_THREADS = 256;

__global__ void k_rmsnorm(float *y, float *inv, const float *x, const float *w, int dim, float eps, bf16 *yb) {
	__shared__ float sh[32];
	const float *xr = x + (size_t)blockIdx.x * dim;
	float *yr = y + (size_t)blockIdx.x * dim;
	float ss = 0.0f;
	for (int c = threadIdx.x; c < dim; c += blockDim.x) ss += xr[c] * xr[c];
	ss = block_sum(ss, sh);
	float iv = (float)(1.0 / sqrt((double)(ss / (float)dim + eps)));
	if (threadIdx.x == 0) inv[blockIdx.x] = iv;
	bf16 *ybr = yb ? yb + (size_t)blockIdx.x * dim : nullptr;
	for (int c = threadIdx.x; c < dim; c += blockDim.x) {
		float v = xr[c] * w[c] * iv;
		yr[c] = v;
		if (ybr) ybr[c] = __float2bfloat16_rn(v);
	}
}

int rmsnorm(float *y, float *inv, const float *x, const float *w, int rows, int dim, float eps, bf16 *yb) {
	if (rows <= 0) return 0;
	k_rmsnorm<<<rows, NORM_THREADS, 0, stream()>>>(y, inv, x, w, dim, eps, yb);
	PC_LAUNCHED("k_rmsnorm");
	return 0;
}

/* dx[r] += dy*w*iv - c*x with c = (sum dy*w*x) * iv^3 / dim. */
__global__ void k_rmsnorm_backward_dx(float *dx, const float *dy, const float *x, const float *w, const float *inv,
                                      int dim) {
	__shared__ float sh[32];
	size_t o = (size_t)blockIdx.x * dim;
	float iv = inv[blockIdx.x];
	float dot = 0.0f;
	for (int c = threadIdx.x; c < dim; c += blockDim.x) dot += dy[o + c] * w[c] * x[o + c];
	dot = block_sum(dot, sh);
	float k = dot * iv * iv * iv / (float)dim;
	for (int c = threadIdx.x; c < dim; c += blockDim.x) dx[o + c] = dx[o + c] + dy[o + c] * w[c] * iv - k * x[o + c];
}

/* Partial sums of dy*x*iv over chunks of rows (block x: column tile, y:
 * chunk), finished by colsum_finish into dw. */
__global__ void k_rmsnorm_backward_dw(const float *dy, const float *x, const float *inv, int rows, int dim,
                                      float *partial) {
	int c = blockIdx.x * blockDim.x + threadIdx.x;
	if (c >= dim) return;
	int r0 = blockIdx.y * COLSUM_CHUNK, r1 = min(rows, r0 + COLSUM_CHUNK);
	float acc = 0.0f;
	for (int r = r0; r < r1; r++) acc += dy[(size_t)r * dim + c] * x[(size_t)r * dim + c] * inv[r];
	partial[(size_t)blockIdx.y * dim + c] = acc;
}

int rmsnorm_backward(float *dx, float *dw, const float *dy, const float *x, const float *w, const float *inv,
                     int rows, int dim, float *scratch) {
	if (rows <= 0) return 0;
	k_rmsnorm_backward_dx<<<rows, NORM_THREADS, 0, stream()>>>(dx, dy, x, w, inv, dim);
	PC_LAUNCHED("k_rmsnorm_backward_dx");
	if (!dw) return 0; /* a frozen weight (LoRA's base, issue 60): no gradient */
	int parts = (rows + COLSUM_CHUNK - 1) / COLSUM_CHUNK;
	dim3 grid(blocks_for(dim, 256), parts);
	k_rmsnorm_backward_dw<<<grid, 256, 0, stream()>>>(dy, x, inv, rows, dim, scratch);
	PC_LAUNCHED("k_rmsnorm_backward_dw");
	return colsum_finish(dw, scratch, parts, dim);
}

} // namespace pc
