/* embed.cu: the embedding lookup and its gradient, row gathers and
 * scatters, bias addition and the KV-cache store of decoding. */
#include "common.h"

namespace pc {

__global__ void k_embed_gather(float *x, const float *table, const int32_t *tokens, int dim) {
	int t = blockIdx.x;
	const float *src = table + (size_t)tokens[t] * dim;
	float *dst = x + (size_t)t * dim;
	for (int c = blockIdx.y * blockDim.x + threadIdx.x; c < dim; c += gridDim.y * blockDim.x) dst[c] = src[c];
}

int embed_gather(float *x, const float *table, const int32_t *tokens, int rows, int dim) {
	if (rows <= 0) return 0;
	dim3 grid(rows, blocks_for(dim, 256) > 8 ? 8 : blocks_for(dim, 256));
	k_embed_gather<<<grid, 256, 0, stream()>>>(x, table, tokens, dim);
	PC_LAUNCHED("k_embed_gather");
	return 0;
}

/* The lookup from a BF16 table: a frozen base's embedding (LoRA, issue 60). */
__global__ void k_embed_gather_bf16(float *x, const bf16 *table, const int32_t *tokens, int dim) {
	int t = blockIdx.x;
	const bf16 *src = table + (size_t)tokens[t] * dim;
	float *dst = x + (size_t)t * dim;
	for (int c = blockIdx.y * blockDim.x + threadIdx.x; c < dim; c += gridDim.y * blockDim.x)
		dst[c] = __bfloat162float(src[c]);
}

int embed_gather_bf16(float *x, const bf16 *table, const int32_t *tokens, int rows, int dim) {
	if (rows <= 0) return 0;
	dim3 grid(rows, blocks_for(dim, 256) > 8 ? 8 : blocks_for(dim, 256));
	k_embed_gather_bf16<<<grid, 256, 0, stream()>>>(x, table, tokens, dim);
	PC_LAUNCHED("k_embed_gather_bf16");
	return 0;
}

/* Block (x: first occurrence b of a token, y: column tile). Block b
 * walks the positions of its token in increasing order (next[] links each
 * position to the following one of the same token, -1 at the end), so the
 * sum order is fixed and no two blocks write the same gradient row. */
__global__ void k_embed_backward(float *g, const float *dx, const int32_t *tokens, const int32_t *next,
                                 const int32_t *firsts, int dim) {
	int c = blockIdx.y * blockDim.x + threadIdx.x;
	if (c >= dim) return;
	int t = firsts[blockIdx.x];
	float acc = 0.0f;
	for (int s = t; s >= 0; s = next[s]) acc += dx[(size_t)s * dim + c];
	g[(size_t)tokens[t] * dim + c] += acc;
}

int embed_backward(float *g, const float *dx, const int32_t *tokens, const int32_t *next, const int32_t *firsts,
                   int nfirst, int dim) {
	if (nfirst <= 0) return 0;
	dim3 grid(nfirst, blocks_for(dim, 256));
	k_embed_backward<<<grid, 256, 0, stream()>>>(g, dx, tokens, next, firsts, dim);
	PC_LAUNCHED("k_embed_backward");
	return 0;
}

__global__ void k_rows_gather(float *dst, const float *src, const int32_t *idx, int dim) {
	int j = blockIdx.x;
	const float *s = src + (size_t)idx[j] * dim;
	float *d = dst + (size_t)j * dim;
	for (int c = blockIdx.y * blockDim.x + threadIdx.x; c < dim; c += gridDim.y * blockDim.x) d[c] = s[c];
}

int rows_gather(float *dst, const float *src, const int32_t *idx, int n, int dim) {
	if (n <= 0) return 0;
	dim3 grid(n, blocks_for(dim, 256) > 8 ? 8 : blocks_for(dim, 256));
	k_rows_gather<<<grid, 256, 0, stream()>>>(dst, src, idx, dim);
	PC_LAUNCHED("k_rows_gather");
	return 0;
}

__global__ void k_rows_scatter(float *dst, const float *src, const int32_t *idx, const int32_t *keep, int dim) {
	int j = blockIdx.x;
	if (!keep[j]) return;
	const float *s = src + (size_t)j * dim;
	float *d = dst + (size_t)idx[j] * dim;
	for (int c = blockIdx.y * blockDim.x + threadIdx.x; c < dim; c += gridDim.y * blockDim.x) d[c] = s[c];
}

int rows_scatter(float *dst, const float *src, const int32_t *idx, const int32_t *keep, int n, int dim) {
	if (n <= 0) return 0;
	dim3 grid(n, blocks_for(dim, 256) > 8 ? 8 : blocks_for(dim, 256));
	k_rows_scatter<<<grid, 256, 0, stream()>>>(dst, src, idx, keep, dim);
	PC_LAUNCHED("k_rows_scatter");
	return 0;
}

__global__ void k_bias_add(float *y, const float *b, size_t n, int dim) {
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	size_t stride = (size_t)gridDim.x * blockDim.x;
	for (; i < n; i += stride) y[i] += b[i % dim];
}

int bias_add(float *y, const float *b, int rows, int dim) {
	size_t n = (size_t)rows * dim;
	if (n == 0) return 0;
	unsigned g = blocks_for(n, 256);
	if (g > 65536) g = 65536;
	k_bias_add<<<g, 256, 0, stream()>>>(y, b, n, dim);
	PC_LAUNCHED("k_bias_add");
	return 0;
}

__global__ void k_kv_store(const float *kn, const float *vn, const int32_t *rowdec, const int32_t *rowpos,
                           const DecInfo *info, int layer, int kvdim) {
	int r = blockIdx.x;
	DecInfo d = info[rowdec[r]];
	size_t off = ((size_t)layer * d.cap + rowpos[r]) * kvdim;
	for (int c = blockIdx.y * blockDim.x + threadIdx.x; c < kvdim; c += gridDim.y * blockDim.x) {
		d.k[off + c] = kn[(size_t)r * kvdim + c];
		d.v[off + c] = vn[(size_t)r * kvdim + c];
	}
}

int kv_store(const float *kn, const float *vn, const int32_t *rowdec, const int32_t *rowpos, const DecInfo *info,
             int layer, int rows, int kvdim) {
	if (rows <= 0) return 0;
	dim3 grid(rows, blocks_for(kvdim, 256) > 8 ? 8 : blocks_for(kvdim, 256));
	k_kv_store<<<grid, 256, 0, stream()>>>(kn, vn, rowdec, rowpos, info, layer, kvdim);
	PC_LAUNCHED("k_kv_store");
	return 0;
}

} // namespace pc
