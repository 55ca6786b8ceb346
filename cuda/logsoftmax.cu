/* logsoftmax.cu: per-row log-softmax of the target, entropy and
 * log-sum-exp (Backend.LogSoftmax), and the backward
 * (Backend.LogSoftmaxBackward). With d = x - max and s = sum exp(d):
 * lse = max + log(s), lp = x[target] - lse, entropy = log(s) - sum(exp(d)
 * d)/s; dlogits = dlp * (onehot(target) - exp(x - lse)). One block per
 * row, fixed-tree sums. */
#include <math.h>

#include "common.h"

namespace pc {

const int LSM_THREADS = 1024;

__global__ void __launch_bounds__(LSM_THREADS) k_log_softmax(float *lp, float *ent, float *lse, const float *logits, const int32_t *target,
                              int vocab) {
	__shared__ float sh[32];
	const float *x = logits + (size_t)blockIdx.x * vocab;
	float mx = -INFINITY;
	for (int c = threadIdx.x; c < vocab; c += blockDim.x) mx = fmaxf(mx, x[c]);
	mx = block_max(mx, sh, -INFINITY);
	float s = 0.0f, sx = 0.0f;
	for (int c = threadIdx.x; c < vocab; c += blockDim.x) {
		float d = x[c] - mx;
		float e = expf(d);
		s += e;
		sx += e * d;
	}
	s = block_sum(s, sh);
	sx = block_sum(sx, sh);
	if (threadIdx.x == 0) {
		float logs = (float)log((double)s);
		float l = mx + logs;
		if (lp) lp[blockIdx.x] = x[target[blockIdx.x]] - l;
		if (ent) ent[blockIdx.x] = l - mx - sx / s;
		if (lse) lse[blockIdx.x] = l;
	}
}

int log_softmax(float *lp, float *ent, float *lse, const float *logits, const int32_t *target, int rows, int vocab) {
	if (rows <= 0) return 0;
	k_log_softmax<<<rows, LSM_THREADS, 0, stream()>>>(lp, ent, lse, logits, target, vocab);
	PC_LAUNCHED("k_log_softmax");
	return 0;
}

__global__ void k_log_softmax_backward(float *dlogits, const float *logits, const float *lse, const int32_t *target,
                                       const float *dlp, int vocab) {
	size_t o = (size_t)blockIdx.x * vocab;
	float w = dlp[blockIdx.x], l = lse[blockIdx.x];
	int t = target[blockIdx.x];
	for (int c = threadIdx.x; c < vocab; c += blockDim.x) {
		float d = -w * expf(logits[o + c] - l);
		if (c == t) d += w;
		dlogits[o + c] = d;
	}
}

int log_softmax_backward(float *dlogits, const float *logits, const float *lse, const int32_t *target,
                         const float *dlp, int rows, int vocab) {
	if (rows <= 0) return 0;
	k_log_softmax_backward<<<rows, 256, 0, stream()>>>(dlogits, logits, lse, target, dlp, vocab);
	PC_LAUNCHED("k_log_softmax_backward");
	return 0;
}

} // namespace pc
