/* adamw.cu: one AdamW step of one tensor (Backend.AdamW, lib/vecmath's
 * AdamW), in float32 with lib/vecmath's order of operations and no fused
 * multiply-adds (the __f*_rn intrinsics), so that each element matches the
 * host's portable code:
 *   m = b1*m + (1-b1)*g;  v = b2*v + (1-b2)*g*g
 *   p -= lr * (wd*p + (m/bc1) / (sqrt(v/bc2) + eps))
 * The BF16 copy of a weight, when it has one, is rewritten from the new
 * value in the same pass. */
#include "common.h"

namespace pc {

__global__ void k_adamw(float *p, const float *g, float *m, float *v, size_t n, float b1, float c1, float b2,
                        float c2, float bc1, float bc2, float eps, float wd, float lr, bf16 *pb) {
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
		float gi = g[i];
		float mi = __fadd_rn(__fmul_rn(b1, m[i]), __fmul_rn(c1, gi));
		float vi = __fadd_rn(__fmul_rn(b2, v[i]), __fmul_rn(__fmul_rn(c2, gi), gi));
		m[i] = mi;
		v[i] = vi;
		float mh = __fdiv_rn(mi, bc1);
		float vh = __fdiv_rn(vi, bc2);
		float pi = p[i];
		float step = __fmul_rn(lr, __fadd_rn(__fmul_rn(wd, pi), __fdiv_rn(mh, __fadd_rn(__fsqrt_rn(vh), eps))));
		pi = __fsub_rn(pi, step);
		p[i] = pi;
		if (pb) pb[i] = __float2bfloat16_rn(pi);
	}
}

int adamw(float *p, const float *g, float *m, float *v, size_t n, const pc_adamw *h, float weight_decay, bf16 *pb) {
	if (n == 0) return 0;
	unsigned b = blocks_for(n, 256);
	if (b > 65536) b = 65536;
	k_adamw<<<b, 256, 0, stream()>>>(p, g, m, v, n, h->beta1, 1.0f - h->beta1, h->beta2, 1.0f - h->beta2, h->bc1, h->bc2, h->eps,
	                    weight_decay, h->lr, pb);
	PC_LAUNCHED("k_adamw");
	return 0;
}

} // namespace pc
