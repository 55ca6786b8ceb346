/* attention.cu: causal grouped-query attention (Backend.Attention,
 * AttentionBackward) and decoding attention over KV caches.
 *
 * Whole sequences (training, scoring) go through batched GEMMs on tensor
 * cores plus softmax kernels. Query head h reads key/value head g =
 * h/rep, rep = heads/kv_heads; for a fixed r in 0..rep-1 the heads
 * h = g*rep + r of all groups g form one strided batch (q offset h*hd =
 * g*rep*hd + r*hd: stride rep*hd; k and v offset g*hd: stride hd), so a
 * layer makes rep batched calls per chunk of query rows. Scores of a
 * chunk of rows live in scratch (kv_heads x rows x keys floats, at most
 * ATT_MAX_ROWS rows and ATT_BUDGET floats; a chunk's keys stop at its last
 * row, which skips most of the masked triangle); the
 * probabilities are recomputed in the backward from the forward's
 * log-sum-exp, as flash attention does, so nothing of size T x T is kept.
 *   S = Q K^T; P = softmax(scale*S) over keys j <= past+i (0 elsewhere);
 *   lse = scale*max + log(sum); O = P V.
 * Backward (past 0), with D_i = dO_i . O_i:
 *   dV += P^T dO; dP = dO V^T; dS = P (dP - D) scale; dQ += dS K;
 *   dK += dS^T Q.
 * Heads sharing a key/value head add into dK and dV one after another in
 * head order, so the result does not depend on timing.
 *
 * Decoding (attention_decode): one block per (row, head), the heads of a
 * row in consecutive blocks (shared key/value rows stay in L2); each warp walks
 * a strided subset of the row's keys with an online softmax (lanes hold
 * head_dim/32 elements of q and of the output), then the warps' partial
 * results are merged. head_dim <= 256. */
#include <math.h>

#include <algorithm>

#include "common.h"

namespace pc {

/* Chunk sizes, scratch sizes and the products' strides: hostmath.h. */

/* Block (li, g): row i0+li of head g*rep+r. S holds kv batches of nrows x
 * keysN scores (row stride ld); the row becomes its probabilities. */
__global__ void k_att_softmax(float *S, float *lse, int nrows, int keysN, int ld, int i0, int past, int rows, int rep,
                              int r, float scale) {
	__shared__ float sh[32];
	int li = blockIdx.x, g = blockIdx.y;
	float *s = S + ((size_t)g * nrows + li) * ld;
	int valid = past + i0 + li + 1;
	float mx = -INFINITY;
	for (int j = threadIdx.x; j < valid; j += blockDim.x) mx = fmaxf(mx, s[j]);
	mx = block_max(mx, sh, -INFINITY);
	float b = -scale * mx;
	float sum = 0.0f;
	for (int j = threadIdx.x; j < valid; j += blockDim.x) {
		float e = expf(scale * s[j] + b);
		s[j] = e;
		sum += e;
	}
	sum = block_sum(sum, sh);
	float inv = 1.0f / sum;
	for (int j = threadIdx.x; j < keysN; j += blockDim.x) s[j] = j < valid ? s[j] * inv : 0.0f;
	if (lse && threadIdx.x == 0) lse[(size_t)(g * rep + r) * rows + i0 + li] = scale * mx + (float)log((double)sum);
}

/* Backward of a chunk: S (scores) becomes P, G (dP) becomes dS. */
__global__ void k_att_grad(float *S, float *G, const float *lse, const float *D, int nrows, int keysN, int ld, int i0,
                           int rows, int rep, int r, float scale) {
	int li = blockIdx.x, g = blockIdx.y;
	size_t o = ((size_t)g * nrows + li) * ld;
	size_t hi = (size_t)(g * rep + r) * rows + i0 + li;
	float l = lse[hi], d = D[hi];
	int valid = i0 + li + 1;
	for (int j = threadIdx.x; j < keysN; j += blockDim.x) {
		float p = 0.0f, ds = 0.0f;
		if (j < valid) {
			p = expf(scale * S[o + j] - l);
			ds = p * (G[o + j] - d) * scale;
		}
		S[o + j] = p;
		G[o + j] = ds;
	}
}

/* D[h*rows+i] = dout_i,h . out_i,h, one warp per (i, h). */
__global__ void k_att_dot(float *D, const float *dout, const float *out, int rows, int heads, int hd) {
	size_t wid = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
	int lane = threadIdx.x & 31;
	if (wid >= (size_t)rows * heads) return;
	int i = (int)(wid / heads), h = (int)(wid % heads);
	size_t o = (size_t)i * heads * hd + (size_t)h * hd;
	float acc = 0.0f;
	for (int e = lane; e < hd; e += 32) acc += dout[o + e] * out[o + e];
	acc = warp_sum(acc);
	if (lane == 0) D[(size_t)h * rows + i] = acc;
}

static float att_scale(int hd) { return (float)(1.0 / sqrt((double)hd)); }

/* One product of attention's plan on the buffers of a call. */
static int att_gemm(cublasHandle_t h, const AttGemm &p, float *const *buf) {
	return gemm_batched(h, p.ta, p.tb, p.m, p.n, p.k, 1.0f, buf[p.x] + p.xoff, p.ldx, p.sx, buf[p.y] + p.yoff, p.ldy,
	                    p.sy, p.beta, buf[p.z] + p.zoff, p.ldz, p.sz, p.batch);
}

int attention_forward(cublasHandle_t h, float *out, float *lse, const float *q, const float *k, const float *v,
                      int rows, int past, int heads, int kv_heads, int hd, float *scratch) {
	if (rows <= 0) return 0;
	int rep = heads / kv_heads;
	int ch = att_chunk_rows(rows, past, kv_heads);
	float scale = att_scale(hd);
	float *buf[10] = {};
	buf[ATT_Q] = (float *)q;
	buf[ATT_K] = (float *)k;
	buf[ATT_V] = (float *)v;
	buf[ATT_S] = scratch;
	buf[ATT_OUT] = out;
	for (int i0 = 0; i0 < rows; i0 += ch) {
		for (int r = 0; r < rep; r++) {
			AttChunk c = att_chunk(i0, rows, past, ch, r);
			AttGemm plan[2];
			att_forward_plan(c, past, heads, kv_heads, hd, plan);
			PC_TRY(att_gemm(h, plan[0], buf));
			k_att_softmax<<<dim3(c.nr, kv_heads), 256, 0, stream()>>>(scratch, lse, c.nr, c.keys, c.ld, i0, past, rows,
			                                                          rep, r, scale);
			PC_LAUNCHED("k_att_softmax");
			PC_TRY(att_gemm(h, plan[1], buf));
		}
	}
	return 0;
}

int attention_backward(cublasHandle_t h, float *dq, float *dk, float *dv, const float *dout, const float *q,
                       const float *k, const float *v, const float *out, const float *lse, int rows, int heads,
                       int kv_heads, int hd, float *scratch, float *dsc) {
	if (rows <= 0) return 0;
	int rep = heads / kv_heads;
	int ch = att_chunk_rows(rows, 0, kv_heads);
	float scale = att_scale(hd);
	float *S = scratch, *G = scratch + attention_scratch(rows, 0, kv_heads);
	size_t warps = (size_t)rows * heads;
	k_att_dot<<<blocks_for(warps * 32, 256), 256, 0, stream()>>>(dsc, dout, out, rows, heads, hd);
	PC_LAUNCHED("k_att_dot");
	float *buf[10] = {};
	buf[ATT_Q] = (float *)q;
	buf[ATT_K] = (float *)k;
	buf[ATT_V] = (float *)v;
	buf[ATT_S] = S;
	buf[ATT_G] = G;
	buf[ATT_DOUT] = (float *)dout;
	buf[ATT_DQ] = dq;
	buf[ATT_DK] = dk;
	buf[ATT_DV] = dv;
	for (int i0 = 0; i0 < rows; i0 += ch) {
		for (int r = 0; r < rep; r++) {
			AttChunk c = att_chunk(i0, rows, 0, ch, r);
			AttGemm plan[5];
			att_backward_plan(c, heads, kv_heads, hd, plan);
			PC_TRY(att_gemm(h, plan[0], buf));
			PC_TRY(att_gemm(h, plan[1], buf));
			k_att_grad<<<dim3(c.nr, kv_heads), 256, 0, stream()>>>(S, G, lse, dsc, c.nr, c.keys, c.ld, i0, rows, rep, r,
			                                                       scale);
			PC_LAUNCHED("k_att_grad");
			for (int j = 2; j < 5; j++) PC_TRY(att_gemm(h, plan[j], buf)); /* dV, dQ, dK */
		}
	}
	return 0;
}

const int DEC_WARPS = 16;
const int DEC_MAX_LANE = 8; /* head_dim <= 32*8 */

__global__ void __launch_bounds__(DEC_WARPS * 32)
    k_att_decode(float *out, const float *q, const int32_t *rowdec, const int32_t *rowpos, const DecInfo *info,
                 int layer, int heads, int kv_heads, int hd, float scale) {
	__shared__ float sm[DEC_WARPS], sl[DEC_WARPS];
	__shared__ float sacc[DEC_WARPS][DEC_MAX_LANE * 32];
	/* The heads of one row are consecutive blocks, so the heads that share
	 * a key/value head read its cache rows while they are in L2. */
	int r = (int)(blockIdx.x / heads), h = (int)(blockIdx.x % heads);
	int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
	int rep = heads / kv_heads, g = h / rep, kd = kv_heads * hd;
	DecInfo d = info[rowdec[r]];
	int keys = rowpos[r] + 1;
	const float *kb = d.k + (size_t)layer * d.cap * kd + (size_t)g * hd;
	const float *vb = d.v + (size_t)layer * d.cap * kd + (size_t)g * hd;
	const float *qr = q + (size_t)r * heads * hd + (size_t)h * hd;
	float qv[DEC_MAX_LANE], acc[DEC_MAX_LANE];
#pragma unroll
	for (int c = 0; c < DEC_MAX_LANE; c++) {
		int e = lane + 32 * c;
		qv[c] = e < hd ? qr[e] : 0.0f;
		acc[c] = 0.0f;
	}
	float m = -INFINITY, l = 0.0f;
	for (int j = w; j < keys; j += DEC_WARPS) {
		const float *kr = kb + (size_t)j * kd;
		const float *vr = vb + (size_t)j * kd;
		float dot = 0.0f;
#pragma unroll
		for (int c = 0; c < DEC_MAX_LANE; c++) {
			int e = lane + 32 * c;
			if (e < hd) dot += qv[c] * kr[e];
		}
		dot = warp_sum(dot);
		float s = dot * scale;
		float mn = fmaxf(m, s);
		float corr = expf(m - mn);
		float p = expf(s - mn);
		l = l * corr + p;
#pragma unroll
		for (int c = 0; c < DEC_MAX_LANE; c++) {
			int e = lane + 32 * c;
			if (e < hd) acc[c] = acc[c] * corr + p * vr[e];
		}
		m = mn;
	}
	if (lane == 0) {
		sm[w] = m;
		sl[w] = l;
	}
#pragma unroll
	for (int c = 0; c < DEC_MAX_LANE; c++) {
		int e = lane + 32 * c;
		if (e < hd) sacc[w][e] = acc[c];
	}
	__syncthreads();
	float M = -INFINITY;
	for (int i = 0; i < DEC_WARPS; i++) M = fmaxf(M, sm[i]);
	float L = 0.0f;
	for (int i = 0; i < DEC_WARPS; i++) L += sm[i] == -INFINITY ? 0.0f : sl[i] * expf(sm[i] - M);
	float *o = out + (size_t)r * heads * hd + (size_t)h * hd;
	for (int e = threadIdx.x; e < hd; e += blockDim.x) {
		float a = 0.0f;
		for (int i = 0; i < DEC_WARPS; i++)
			if (sm[i] != -INFINITY) a += sacc[i][e] * expf(sm[i] - M);
		o[e] = a / L;
	}
}

int attention_decode(float *out, const float *q, const int32_t *rowdec, const int32_t *rowpos, const DecInfo *info,
                     int layer, int rows, int heads, int kv_heads, int hd) {
	if (rows <= 0) return 0;
	if (hd > 32 * DEC_MAX_LANE) return fail("attention_decode: head_dim %d above %d", hd, 32 * DEC_MAX_LANE);
	if ((size_t)rows * heads > 0x7fffffffu) return fail("attention_decode: %d rows x %d heads exceed one grid", rows, heads);
	k_att_decode<<<(unsigned)((size_t)rows * heads), DEC_WARPS * 32, 0, stream()>>>(out, q, rowdec, rowpos, info, layer, heads, kv_heads, hd,
	                                                   att_scale(hd));
	PC_LAUNCHED("k_att_decode");
	return 0;
}

} // namespace pc
