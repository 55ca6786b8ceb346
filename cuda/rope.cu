/* rope.cu: rotary position embedding in the rotate-half layout
 * (Backend.RoPE): for each head, pairs (i, i+head_dim/2) rotate by the
 * angle of the row's position, a' = a cos - b sin, b' = b cos + a sin;
 * inverse rotates by the negative angle (the backward). cos and sin are
 * lib/model's tables [position][head_dim/2], computed on the host in
 * float64 and rounded to float32, then uploaded. */
#include "common.h"

namespace pc {

__global__ void k_rope(float *x, int rows, int heads, int hd, int pos0, const int32_t *pos, const float *cos,
                       const float *sin, int inverse) {
	int half = hd / 2;
	size_t n = (size_t)rows * heads * half;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
		int j = (int)(i % half);
		size_t rh = i / half;
		int r = (int)(rh / heads);
		int p = pos ? pos[r] : pos0 + r;
		float c = cos[(size_t)p * half + j];
		float s = sin[(size_t)p * half + j];
		if (inverse) s = -s;
		float *a = x + rh * hd; /* row r, head rh % heads: (r*heads + h)*hd */
		float x1 = a[j], x2 = a[j + half];
		a[j] = x1 * c - x2 * s;
		a[j + half] = x2 * c + x1 * s;
	}
}

int rope(float *x, int rows, int heads, int head_dim, int pos0, const int32_t *pos, const float *cos,
         const float *sin, int inverse) {
	size_t n = (size_t)rows * heads * (head_dim / 2);
	if (n == 0) return 0;
	unsigned b = blocks_for(n, 256);
	if (b > 65536) b = 65536;
	k_rope<<<b, 256, 0, stream()>>>(x, rows, heads, head_dim, pos0, pos, cos, sin, inverse);
	PC_LAUNCHED("k_rope");
	return 0;
}

} // namespace pc
