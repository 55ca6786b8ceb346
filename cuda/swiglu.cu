/* swiglu.cu: h = silu(g) * u = g*u / (1 + exp(-g)) and its backward
 * (Backend.SwiGLU, SwiGLUBackward): with s = sigmoid(g),
 * du = dh * g*s, dg = dh * u * s * (g*(1-s) + 1). */
#include "common.h"

namespace pc {

__global__ void k_swiglu(float *h, const float *g, const float *u, size_t n, bf16 *hb) {
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
		float gv = g[i];
		float v = gv * u[i] / (1.0f + expf(-gv));
		h[i] = v;
		if (hb) hb[i] = __float2bfloat16_rn(v);
	}
}

__global__ void k_swiglu_backward(float *dg, float *du, const float *dh, const float *g, const float *u, size_t n) {
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
		float gv = g[i];
		float sg = 1.0f / (1.0f + expf(-gv));
		float d = dh[i];
		du[i] = d * (gv * sg);
		dg[i] = d * u[i] * sg * (gv * (1.0f - sg) + 1.0f);
	}
}

static unsigned grid_for(size_t n) {
	unsigned b = blocks_for(n, 256);
	return b > 65536 ? 65536 : b;
}

int swiglu(float *h, const float *g, const float *u, size_t n, bf16 *hb) {
	if (n == 0) return 0;
	k_swiglu<<<grid_for(n), 256, 0, stream()>>>(h, g, u, n, hb);
	PC_LAUNCHED("k_swiglu");
	return 0;
}

int swiglu_backward(float *dg, float *du, const float *dh, const float *g, const float *u, size_t n) {
	if (n == 0) return 0;
	k_swiglu_backward<<<grid_for(n), 256, 0, stream()>>>(dg, du, dh, g, u, n);
	PC_LAUNCHED("k_swiglu_backward");
	return 0;
}

} // namespace pc
