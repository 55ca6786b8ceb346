/* sample.cu: next-token sampling on the device with the host's uniform,
 * the selection rule of lib/model.Sample (one block per row):
 *   - temperature <= 0: greedy, the first maximum; logp under temperature
 *     1 (log-sum-exp in float).
 *   - otherwise p_i = exp(x_i/T - max/T) in double, sum in double, logZ =
 *     max/T + log(sum), logp = x_tok/T - logZ.
 *   - no nucleus: r = u*sum, the first id (in id order) at which the
 *     running mass exceeds r; past the end, the last id with p > 0.
 *   - nucleus (0 < top_p < 1): ids ordered by decreasing probability, ties
 *     by lower id (a segmented radix sort of 64-bit keys: the order-
 *     preserving bits of the logit, inverted, above the id, so the order
 *     does not rest on the sort's stability); the set ends at the first
 *     position where the running mass reaches top_p*sum; r = u times that
 *     mass; the token is the first position of the set at which the
 *     running mass exceeds r, else the set's last.
 * The running masses are prefix sums over tiles of the block (in double),
 * not the host's one-by-one sum: the choice differs from the host's only
 * when u falls within rounding of a boundary. */
#include <limits.h>
#include <math.h>

#include <cub/cub.cuh>

#include "common.h"

namespace pc {

const int SAMPLE_THREADS = 1024;

static bool is_nucleus(const pc_sampling *s) { return s->temperature > 0 && s->top_p > 0 && s->top_p < 1; }

static size_t align256(size_t n) { return (n + 255) & ~(size_t)255; }

static size_t sort_temp_bytes(int rows, int vocab) {
	size_t temp = 0;
	/* The sort counts items in int: refuse before the product overflows. */
	if (!sort_items_fit(rows, vocab)) return (size_t)-1;
	int items = (int)((int64_t)rows * vocab);
	const uint64_t *kin = nullptr;
	uint64_t *kout = nullptr;
	const int *off = nullptr;
	cudaError_t e = cub::DeviceSegmentedRadixSort::SortKeys(nullptr, temp, kin, kout, items, rows, off, off);
	if (e != cudaSuccess) return (size_t)-1;
	return temp;
}

size_t sample_workspace(int rows, int vocab, const pc_sampling *s) {
	if (!is_nucleus(s)) return 256;
	size_t temp = sort_temp_bytes(rows, vocab);
	if (temp == (size_t)-1) return (size_t)-1;
	size_t items = (size_t)rows * vocab;
	return 2 * align256(items * sizeof(uint64_t)) + align256((size_t)(rows + 1) * sizeof(int)) + align256(temp);
}

__global__ void k_sort_keys(uint64_t *keys, int *offsets, const float *logits, int rows, int vocab) {
	size_t n = (size_t)rows * vocab;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
		float v = logits[i] + 0.0f; /* -0 sorts as +0 */
		uint32_t b = __float_as_uint(v);
		uint32_t asc = (b & 0x80000000u) ? ~b : (b | 0x80000000u); /* increasing with v */
		keys[i] = ((uint64_t)(~asc) << 32) | (uint32_t)(i % vocab);
		if (i % vocab == 0) offsets[i / vocab] = (int)(i);
		if (i == n - 1) offsets[rows] = (int)n;
	}
}

/* Inclusive prefix sum over the block; *total gets the block's sum. */
__device__ double block_scan(double v, double *sh, double *total) {
	int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
	for (int o = 1; o < 32; o <<= 1) {
		double t = __shfl_up_sync(0xffffffffu, v, o);
		if (lane >= o) v += t;
	}
	__syncthreads();
	if (lane == 31) sh[wid] = v;
	__syncthreads();
	if (wid == 0) {
		double w = lane < nw ? sh[lane] : 0.0;
		for (int o = 1; o < 32; o <<= 1) {
			double t = __shfl_up_sync(0xffffffffu, w, o);
			if (lane >= o) w += t;
		}
		sh[lane] = w;
	}
	__syncthreads();
	double prefix = wid > 0 ? sh[wid - 1] : 0.0;
	*total = sh[nw - 1];
	return v + prefix;
}

struct Walk {
	int pos;    /* position in the order where the condition first held, -1: never */
	int id;     /* token id there */
	double cum; /* running mass there, or the whole mass walked when never */
};

/* Walks positions 0..lim-1 of the order (ids from the sorted keys, or the
 * identity) accumulating p = exp(x/T - mx); stops at the first position
 * whose running mass is >= thr (ge) or > thr (!ge). */
__device__ Walk walk(const float *x, const uint64_t *order, int lim, double inv, double mx, double thr, bool ge,
                     double *sh) {
	__shared__ int s_found;
	__shared__ int s_id;
	__shared__ double s_cum;
	double run = 0.0;
	for (int base = 0; base < lim; base += blockDim.x) {
		int k = base + threadIdx.x;
		double p = 0.0;
		int id = k;
		if (k < lim) {
			id = order ? (int)(order[k] & 0xffffffffu) : k;
			p = exp((double)x[id] * inv - mx);
		}
		double tot;
		double c = run + block_scan(p, sh, &tot);
		if (threadIdx.x == 0) s_found = INT_MAX;
		__syncthreads();
		if (k < lim && (ge ? c >= thr : c > thr)) atomicMin(&s_found, k);
		__syncthreads();
		int f = s_found;
		if (f != INT_MAX) {
			if (k == f) {
				s_id = id;
				s_cum = c;
			}
			__syncthreads();
			Walk w = {f, s_id, s_cum};
			return w;
		}
		run += tot;
	}
	Walk w = {-1, -1, run};
	return w;
}

__global__ void __launch_bounds__(SAMPLE_THREADS)
    k_sample(const float *logits, int vocab, double inv, double top_p, int nucleus, const double *u,
             const uint64_t *sorted, int32_t *tok, float *logp) {
	__shared__ double shd[32];
	__shared__ float shf[32];
	__shared__ int shi[32];
	int r = blockIdx.x;
	const float *x = logits + (size_t)r * vocab;
	float vmax = -INFINITY;
	for (int i = threadIdx.x; i < vocab; i += blockDim.x) vmax = fmaxf(vmax, x[i]);
	vmax = block_max(vmax, shf, -INFINITY);
	double mx = (double)vmax * inv;
	double sum = 0.0;
	int lastpos = -1;
	for (int i = threadIdx.x; i < vocab; i += blockDim.x) {
		double p = exp((double)x[i] * inv - mx);
		sum += p;
		if (p > 0) lastpos = i;
	}
	sum = block_sum(sum, shd);
	lastpos = block_max(lastpos, shi, -1);
	double logZ = mx + log(sum);
	int pick;
	if (nucleus) {
		const uint64_t *order = sorted + (size_t)r * vocab;
		Walk end = walk(x, order, vocab, inv, mx, top_p * sum, true, shd);
		int lim = end.pos >= 0 ? end.pos + 1 : vocab;
		double mass = end.cum;
		Walk w = walk(x, order, lim, inv, mx, u[r] * mass, false, shd);
		pick = w.pos >= 0 ? w.id : (int)(order[lim - 1] & 0xffffffffu);
	} else {
		Walk w = walk(x, nullptr, vocab, inv, mx, u[r] * sum, false, shd);
		pick = w.pos >= 0 ? w.id : (lastpos >= 0 ? lastpos : 0);
	}
	if (threadIdx.x == 0) {
		tok[r] = pick;
		logp[r] = (float)((double)x[pick] * inv - logZ);
	}
}

/* Greedy: the first maximum; logp = x - lse with lse in float. */
__global__ void __launch_bounds__(SAMPLE_THREADS)
    k_greedy(const float *logits, int vocab, int32_t *tok, float *logp) {
	__shared__ float shv[32];
	__shared__ int shi[32];
	__shared__ float shf[32];
	int r = blockIdx.x;
	const float *x = logits + (size_t)r * vocab;
	float bv = -INFINITY;
	int bi = INT_MAX;
	for (int i = threadIdx.x; i < vocab; i += blockDim.x)
		if (bi == INT_MAX || x[i] > bv) {
			bv = x[i];
			bi = i;
		}
	/* (value, index): larger value first, then lower index. */
	for (int o = 16; o > 0; o >>= 1) {
		float ov = __shfl_xor_sync(0xffffffffu, bv, o);
		int oi = __shfl_xor_sync(0xffffffffu, bi, o);
		if (ov > bv || (ov == bv && oi < bi)) {
			bv = ov;
			bi = oi;
		}
	}
	int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
	if (lane == 0) {
		shv[wid] = bv;
		shi[wid] = bi;
	}
	__syncthreads();
	bv = lane < nw ? shv[lane] : -INFINITY;
	bi = lane < nw ? shi[lane] : INT_MAX;
	for (int o = 16; o > 0; o >>= 1) {
		float ov = __shfl_xor_sync(0xffffffffu, bv, o);
		int oi = __shfl_xor_sync(0xffffffffu, bi, o);
		if (ov > bv || (ov == bv && oi < bi)) {
			bv = ov;
			bi = oi;
		}
	}
	if (bi == INT_MAX) bi = 0;
	float mx = x[bi];
	float s = 0.0f;
	for (int i = threadIdx.x; i < vocab; i += blockDim.x) s += expf(x[i] - mx);
	s = block_sum(s, shf);
	if (threadIdx.x == 0) {
		tok[r] = bi;
		logp[r] = x[bi] - (mx + (float)log((double)s));
	}
}

int sample_rows(const float *logits, int rows, int vocab, const pc_sampling *s, const double *u, int32_t *tok,
                float *logp, void *ws) {
	if (rows <= 0) return 0;
	if (s->temperature <= 0) {
		k_greedy<<<rows, SAMPLE_THREADS, 0, stream()>>>(logits, vocab, tok, logp);
		PC_LAUNCHED("k_greedy");
		return 0;
	}
	double inv = 1.0 / (double)s->temperature;
	const uint64_t *sorted = nullptr;
	if (is_nucleus(s)) {
		if (!sort_items_fit(rows, vocab)) return fail("sample_rows: %d rows of %d logits exceed the sort's limit", rows, vocab);
		size_t items = (size_t)rows * vocab;
		char *w = (char *)ws;
		uint64_t *kin = (uint64_t *)w;
		uint64_t *kout = (uint64_t *)(w + align256(items * 8));
		int *off = (int *)(w + 2 * align256(items * 8));
		void *temp = w + 2 * align256(items * 8) + align256((size_t)(rows + 1) * sizeof(int));
		size_t temp_bytes = sort_temp_bytes(rows, vocab);
		if (temp_bytes == (size_t)-1) return fail("sample_rows: the sort's workspace size query failed");
		unsigned b = blocks_for(items, 256);
		if (b > 65536) b = 65536;
		k_sort_keys<<<b, 256, 0, stream()>>>(kin, off, logits, rows, vocab);
		PC_LAUNCHED("k_sort_keys");
		PC_CUDA(cub::DeviceSegmentedRadixSort::SortKeys(temp, temp_bytes, kin, kout, (int)items, rows, off, off + 1, 0,
		                                                 64, stream()));
		sorted = kout;
	}
	k_sample<<<rows, SAMPLE_THREADS, 0, stream()>>>(logits, vocab, inv, (double)s->top_p, sorted != nullptr, u, sorted, tok, logp);
	PC_LAUNCHED("k_sample");
	return 0;
}

} // namespace pc
