/* gradnorm.cu: deterministic reductions: the global gradient norm (sum of
 * squares in double over a fixed grid, then the block partials summed by
 * one block in a fixed tree), gradient scaling for clipping, and column
 * sums (bias and norm-weight gradients: rows summed in chunks of
 * COLSUM_CHUNK in order, then the chunks in order). The results do not
 * depend on timing; they differ from the host's sequential float64 sum in
 * the last bits only. */
#include "common.h"

namespace pc {

const int NORM_BLOCKS = 1024;

__global__ void k_sumsq_partial(const float *g, size_t n, double *partial) {
	__shared__ double sh[32];
	double acc = 0.0;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
		double v = (double)g[i];
		acc += v * v;
	}
	acc = block_sum(acc, sh);
	if (threadIdx.x == 0) partial[blockIdx.x] = acc;
}

__global__ void __launch_bounds__(1024) k_sum_partials(const double *partial, int n, double *out) {
	__shared__ double sh[32];
	double acc = 0.0;
	for (int i = threadIdx.x; i < n; i += blockDim.x) acc += partial[i];
	acc = block_sum(acc, sh);
	if (threadIdx.x == 0) *out = acc;
}

int sum_squares(const float *g, size_t n, double *scratch, double *host_out) {
	k_sumsq_partial<<<NORM_BLOCKS, 256, 0, stream()>>>(g, n, scratch);
	PC_LAUNCHED("k_sumsq_partial");
	k_sum_partials<<<1, 1024, 0, stream()>>>(scratch, NORM_BLOCKS, scratch + NORM_BLOCKS);
	PC_LAUNCHED("k_sum_partials");
	PC_CUDA(cudaMemcpy(host_out, scratch + NORM_BLOCKS, sizeof(double), cudaMemcpyDeviceToHost));
	return 0;
}

__global__ void k_scale(float *g, size_t n, float c) {
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		g[i] *= c;
}

int scale(float *g, size_t n, float c) {
	if (n == 0) return 0;
	unsigned b = blocks_for(n, 256);
	if (b > 65536) b = 65536;
	k_scale<<<b, 256, 0, stream()>>>(g, n, c);
	PC_LAUNCHED("k_scale");
	return 0;
}

size_t colsum_scratch(int rows, int cols) {
	size_t parts = ((size_t)rows + COLSUM_CHUNK - 1) / COLSUM_CHUNK;
	return (parts > 0 ? parts : 1) * (size_t)cols;
}

/* Block (x: column tile, y: chunk of rows). */
__global__ void k_colsum_partial(const float *src, int rows, int cols, float *partial) {
	int c = blockIdx.x * blockDim.x + threadIdx.x;
	if (c >= cols) return;
	int r0 = blockIdx.y * COLSUM_CHUNK, r1 = min(rows, r0 + COLSUM_CHUNK);
	float acc = 0.0f;
	for (int r = r0; r < r1; r++) acc += src[(size_t)r * cols + c];
	partial[(size_t)blockIdx.y * cols + c] = acc;
}

__global__ void k_colsum_finish(float *dst, const float *partial, int nparts, int cols) {
	int c = blockIdx.x * blockDim.x + threadIdx.x;
	if (c >= cols) return;
	float acc = 0.0f;
	for (int p = 0; p < nparts; p++) acc += partial[(size_t)p * cols + c];
	dst[c] += acc;
}

int colsum_finish(float *dst, const float *partial, int nparts, int cols) {
	if (nparts <= 0 || cols <= 0) return 0;
	k_colsum_finish<<<blocks_for(cols, 256), 256, 0, stream()>>>(dst, partial, nparts, cols);
	PC_LAUNCHED("k_colsum_finish");
	return 0;
}

int colsum_add(float *dst, const float *src, int rows, int cols, float *scratch) {
	if (rows <= 0 || cols <= 0) return 0;
	int parts = (rows + COLSUM_CHUNK - 1) / COLSUM_CHUNK;
	dim3 grid(blocks_for(cols, 256), parts);
	k_colsum_partial<<<grid, 256, 0, stream()>>>(src, rows, cols, scratch);
	PC_LAUNCHED("k_colsum_partial");
	return colsum_finish(dst, scratch, parts, cols);
}

} // namespace pc
