/*
 * hostmath.h: the host-side sizing and index arithmetic of libpatscuda.so
 * (chunk sizes, scratch sizes, the sequence and batch layouts, the CUDA
 * graph key, the row-major to column-major mapping of the cuBLAS calls
 * and attention's strided-batch plan). Plain C++ with no CUDA header, so
 * that cuda/hostmath_test.cc checks it with the host compiler in make test
 * (lib/device's TestHostMath); the .cu sources call these functions rather
 * than repeating the arithmetic.
 */
#ifndef PATS_CUDA_HOSTMATH_H
#define PATS_CUDA_HOSTMATH_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

namespace pc {

/* Buffers grow in multiples of 256 rows (at least 256). */
inline size_t round_rows(size_t n) { return ((n ? n : 1) + 255) / 256 * 256; }

/* LoRA (issue 60): the adapters' place in the parameter index space. Bit j
 * of targets (0 q, 1 k, 2 v, 3 o, 4 gate, 5 up, 6 down) gives projection j
 * of every layer an adapter; the adapters follow the nbase tensors of the
 * base, layer by layer, in bit order, A then B (lib/model's
 * Adapter.Params). lora_index is the index of the A of (layer, j), -1
 * where j is not targeted; lora_tensors counts the adapters' tensors. */
inline int lora_index(int nbase, int targets, int layer, int j) {
	if (j < 0 || j > 6 || !(targets >> j & 1)) return -1;
	int per = __builtin_popcount((unsigned)targets & 127u), before = __builtin_popcount((unsigned)targets & ((1u << j) - 1));
	return nbase + 2 * (layer * per + before);
}
inline int lora_tensors(int layers, int targets) { return 2 * layers * __builtin_popcount((unsigned)targets & 127u); }

/* The vocabulary projection runs over at most this many floats of logits
 * at a time. */
const size_t LOGIT_BUDGET = (size_t)64 << 20;

/* Rows per chunk of the vocabulary projection for R scored rows: at least
 * 1, at most R (R >= 1). */
inline int logit_chunk(int vocab, int R) {
	size_t ch = LOGIT_BUDGET / (size_t)(vocab > 0 ? vocab : 1);
	if (ch < 1) ch = 1;
	if (ch > (size_t)R) ch = (size_t)R;
	return (int)ch;
}

/* Attention scores: at most ATT_BUDGET floats per score buffer and
 * ATT_MAX_ROWS query rows per chunk (a chunk's keys end at its last row,
 * so smaller chunks skip most of the masked upper triangle). */
const size_t ATT_BUDGET = (size_t)64 << 20;
const int ATT_MAX_ROWS = 512;

/* Row stride of a score buffer: keys rounded up to 8 floats (32-byte
 * aligned rows). */
inline int ld_keys(int keys) { return (keys + 7) & ~7; }

/* Query rows per chunk of whole-sequence attention. */
inline int att_chunk_rows(int rows, int past, int kv) {
	size_t per_row = (size_t)kv * (size_t)ld_keys(past + rows);
	size_t ch = ATT_BUDGET / (per_row ? per_row : 1);
	if (ch < 1) ch = 1;
	if (ch > (size_t)ATT_MAX_ROWS) ch = ATT_MAX_ROWS;
	if (ch > (size_t)rows) ch = (size_t)rows;
	return (int)ch;
}

/* Floats of one score buffer: enough for any rows' <= rows at the same
 * past, and non-decreasing in rows, so a buffer sized for a longer
 * sequence serves a shorter one. */
inline size_t attention_scratch(int rows, int past, int kv_heads) {
	if (rows <= 0) return 0;
	size_t row = (size_t)kv_heads * ld_keys(past + rows);
	size_t a = (size_t)rows * row, b = ATT_BUDGET > row ? ATT_BUDGET : row;
	return a < b ? a : b;
}

/* The model's shape, as far as the layouts need it. */
struct Dims {
	int hidden, intermediate, heads, kv_heads, head_dim;
	int qk_norm; /* Qwen3 (pc_config.qk_norm): the head norms keep their inputs and 1/rms too */
};

/* Floats one kept layer holds per row (see SeqLayout). */
inline size_t slot_floats_per_row(const Dims &d) {
	size_t qd = (size_t)d.heads * d.head_dim, kd = (size_t)d.kv_heads * d.head_dim;
	size_t heads_norm = d.qk_norm ? qd + kd + (size_t)d.heads + d.kv_heads : 0;
	return 4 * (size_t)d.hidden + 2 * qd + 2 * kd + d.heads + 3 * (size_t)d.intermediate + 2 + heads_norm;
}

/* Offsets (floats from the slot's start) of one kept layer's arrays for a
 * capacity of C rows, in allocation order. */
struct SeqLayout {
	size_t xin, xn1, q, k, v, att, xmid, xn2, g, u, h, lse, inv1, inv2;
	size_t qraw, kraw, invq, invk; /* Qwen3's head norms: q, k before them, 1/rms per head row (empty otherwise) */
	size_t end;
};
inline SeqLayout seq_layout(const Dims &d, size_t C) {
	size_t H = d.hidden, I = d.intermediate, qd = (size_t)d.heads * d.head_dim, kd = (size_t)d.kv_heads * d.head_dim;
	SeqLayout L;
	size_t p = 0;
	L.xin = p, p += C * H;
	L.xn1 = p, p += C * H;
	L.q = p, p += C * qd;
	L.k = p, p += C * kd;
	L.v = p, p += C * kd;
	L.att = p, p += C * qd;
	L.xmid = p, p += C * H;
	L.xn2 = p, p += C * H;
	L.g = p, p += C * I;
	L.u = p, p += C * I;
	L.h = p, p += C * I;
	L.lse = p, p += C * d.heads;
	L.inv1 = p, p += C;
	L.inv2 = p, p += C;
	size_t n = d.qk_norm ? 1 : 0;
	L.qraw = p, p += n * C * qd;
	L.kraw = p, p += n * C * kd;
	L.invq = p, p += n * C * d.heads;
	L.invk = p, p += n * C * d.kv_heads;
	L.end = p;
	return L;
}

/* The device's segmented sort counts its items in int. */
inline bool sort_items_fit(int rows, int vocab) {
	return rows >= 0 && vocab >= 0 && (int64_t)rows * (int64_t)vocab <= (int64_t)INT_MAX;
}

/* The batch layout of pc_append_batch: row r of the T = offsets[n] -
 * offsets[0] rows belongs to decoder rowdec[r] at position rowpos[r]
 * (that decoder's length before the call plus the row's place in its
 * chunk); lastrow[i] is the last row of decoder i's chunk. */
inline void batch_layout(int n, const int32_t *offsets, const int32_t *lens, int32_t *rowdec, int32_t *rowpos,
                         int32_t *lastrow) {
	int base = offsets[0];
	for (int i = 0; i < n; i++) {
		for (int r = offsets[i] - base, j = 0; r < offsets[i + 1] - base; r++, j++) {
			rowdec[r] = i;
			rowpos[r] = lens[i] + j;
		}
		lastrow[i] = offsets[i + 1] - 1 - base;
	}
}

/* What a captured decoding step depends on besides device memory
 * contents: the rows, decoders, sampling mode and constants, whether the
 * next token is wanted, and the model's allocation generation (bumped by
 * every allocation, since a graph holds the buffers' addresses). */
struct GraphKey {
	int T = 0, n = 0, mode = 0;
	float temperature = 0, top_p = 0;
	bool want = false;
	uint64_t gen = 0;
};
/* mode: 0 no sampling, 1 greedy, 2 temperature, 3 nucleus. */
inline int sampling_mode(bool sampling, float temperature, float top_p) {
	if (!sampling) return 0;
	if (temperature <= 0) return 1;
	return (top_p > 0 && top_p < 1) ? 3 : 2;
}
inline GraphKey graph_key(int T, int n, bool sampling, float temperature, float top_p, bool want, uint64_t gen) {
	GraphKey k;
	k.T = T;
	k.n = n;
	k.mode = sampling_mode(sampling, temperature, top_p);
	k.temperature = sampling ? temperature : 0;
	k.top_p = sampling ? top_p : 0;
	k.want = want;
	k.gen = gen;
	return k;
}
inline bool operator==(const GraphKey &a, const GraphKey &b) {
	return a.T == b.T && a.n == b.n && a.mode == b.mode && a.temperature == b.temperature && a.top_p == b.top_p &&
	       a.want == b.want && a.gen == b.gen;
}
/* Only steps of one token per decoder go through a graph. */
inline bool graph_step(bool graphs_on, int T, int n) { return graphs_on && T == n; }

/* A column-major cuBLAS product C = op(A) op(B) (cublasGemmEx; with a
 * batch, cublasGemmStridedBatchedEx): the arguments in cuBLAS's order. */
struct ColGemm {
	bool ta, tb; /* op(A), op(B) transpose */
	int m, n, k;
	int a, lda; /* a: which operand of the row-major call is cuBLAS's A (0: a, 1: b) */
	long long sa;
	int b, ldb;
	long long sb;
	int ldc;
	long long sc;
};

/* gemm.cu's mapping: a row-major C[m,n] = op(A) op(B) is the column-major
 * C^T[n,m] = op(B)^T op(A)^T, so the operands swap places and keep their
 * transpose flags and leading dimensions. */
inline ColGemm rowmajor_gemm(bool ta, bool tb, int m, int n, int k, int lda, long long sa, int ldb, long long sb,
                             int ldc, long long sc) {
	ColGemm g;
	g.ta = tb;
	g.tb = ta;
	g.m = n;
	g.n = m;
	g.k = k;
	g.a = 1;
	g.lda = ldb;
	g.sa = sb;
	g.b = 0;
	g.ldb = lda;
	g.sb = sa;
	g.ldc = ldc;
	g.sc = sc;
	return g;
}

/* One row-major strided-batch product of attention's plan: batch entry i
 * multiplies X + xoff + i*sx by Y + yoff + i*sy into Z + zoff + i*sz. */
enum AttBuf { ATT_Q, ATT_K, ATT_V, ATT_S, ATT_G, ATT_OUT, ATT_DOUT, ATT_DQ, ATT_DK, ATT_DV };
struct AttGemm {
	bool ta, tb;
	int m, n, k;
	int x;
	size_t xoff;
	int ldx;
	long long sx;
	int y;
	size_t yoff;
	int ldy;
	long long sy;
	float beta;
	int z;
	size_t zoff;
	int ldz;
	long long sz;
	int batch;
};

/* A chunk of query rows i0..i0+nr-1 for the heads h = g*rep + r of every
 * key/value group g: their scores are kv batches of nr x keys (row stride
 * ld_keys(keys), batch stride nr*ld). */
struct AttChunk {
	int i0, nr, keys, ld, r;
};

/* The forward's two products for a chunk: S = Q_h K_g^T, then O_h = P V_g
 * (P overwrites S). Query head h = g*rep + r starts at column h*hd of a
 * row of q (stride rep*hd between groups), K_g and V_g at column g*hd. */
inline void att_forward_plan(const AttChunk &c, int past, int heads, int kv_heads, int hd, AttGemm out[2]) {
	int rep = heads / kv_heads, qd = heads * hd, kd = kv_heads * hd;
	long long sS = (long long)c.nr * c.ld, sq = (long long)rep * hd;
	(void)past;
	size_t qoff = (size_t)c.i0 * qd + (size_t)c.r * hd;
	out[0] = AttGemm{false, true, c.nr, c.keys, hd, ATT_Q, qoff, qd, sq, ATT_K, 0, kd, hd, 0.0f, ATT_S, 0, c.ld, sS, kv_heads};
	out[1] = AttGemm{false, false, c.nr, hd, c.keys, ATT_S, 0, c.ld, sS, ATT_V, 0, kd, hd, 0.0f, ATT_OUT, qoff, qd, sq,
	                 kv_heads};
}

/* The backward's five products for a chunk (past 0): S = Q K^T, G = dO V^T
 * (then S becomes P and G becomes dS), dV += P^T dO, dQ += dS K,
 * dK += dS^T Q. */
inline void att_backward_plan(const AttChunk &c, int heads, int kv_heads, int hd, AttGemm out[5]) {
	int rep = heads / kv_heads, qd = heads * hd, kd = kv_heads * hd;
	long long sS = (long long)c.nr * c.ld, sq = (long long)rep * hd;
	size_t qoff = (size_t)c.i0 * qd + (size_t)c.r * hd;
	out[0] = AttGemm{false, true, c.nr, c.keys, hd, ATT_Q, qoff, qd, sq, ATT_K, 0, kd, hd, 0.0f, ATT_S, 0, c.ld, sS, kv_heads};
	out[1] = AttGemm{false, true, c.nr, c.keys, hd, ATT_DOUT, qoff, qd, sq, ATT_V, 0, kd, hd, 0.0f, ATT_G, 0, c.ld, sS,
	                 kv_heads};
	out[2] = AttGemm{true, false, c.keys, hd, c.nr, ATT_S, 0, c.ld, sS, ATT_DOUT, qoff, qd, sq, 1.0f, ATT_DV, 0, kd, hd,
	                 kv_heads};
	out[3] = AttGemm{false, false, c.nr, hd, c.keys, ATT_G, 0, c.ld, sS, ATT_K, 0, kd, hd, 1.0f, ATT_DQ, qoff, qd, sq,
	                 kv_heads};
	out[4] = AttGemm{true, false, c.keys, hd, c.nr, ATT_G, 0, c.ld, sS, ATT_Q, qoff, qd, sq, 1.0f, ATT_DK, 0, kd, hd,
	                 kv_heads};
}

/* The chunk starting at query row i0 (rows rows in all, chunk ch). */
inline AttChunk att_chunk(int i0, int rows, int past, int ch, int r) {
	AttChunk c;
	c.i0 = i0;
	c.nr = rows - i0 < ch ? rows - i0 : ch;
	c.keys = past + i0 + c.nr;
	c.ld = ld_keys(c.keys);
	c.r = r;
	return c;
}

} // namespace pc

#endif
