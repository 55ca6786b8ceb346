/* model.cu: pc_model, the device-resident Qwen2 / Qwen3 decoder of pats_cuda.h.
 *
 * Layout. The parameters live in one FP32 allocation in the header's
 * parameter order (each tensor at an offset rounded up to 64 floats), and
 * so do their gradients and the two AdamW moments: zeroing the gradients
 * and the global gradient norm are one pass over one buffer. Every linear
 * weight (q, k, v, o, gate, up, down and the vocabulary projection, which
 * is the embedding when tied) also has a BF16 copy, rewritten by
 * pc_param_set and by the AdamW kernel in the same pass that updates the
 * FP32 master; the forward's products read the copies.
 *
 * Precision. Products in BF16 on tensor cores with FP32 accumulation
 * (gemm.cu); everything else (norms, softmax, attention probabilities,
 * residual stream, gradients, optimizer) in FP32; the gradient norm and
 * sampling sums in double.
 *
 * Residency. Parameters, gradients, moments, the activations a backward
 * needs, scratch and the decoders' KV caches stay on the device. A call
 * copies in only its token ids (and the per-token weights of a backward,
 * the batch layout and uniforms of a decoding step) and copies out only
 * what the header says it returns. No host-device copy happens inside the
 * per-layer loops.
 *
 * Activations. A kept forward (pc_forward with keep) stores, per layer,
 * the residual input, both norm outputs and their 1/rms, q, k, v (after
 * RoPE), the attention output and its log-sum-exp, the residual after
 * attention, gate, up and silu(gate)*up: about (4*hidden + 2*qdim +
 * 2*kvdim + heads + 3*intermediate + 2) floats per token and layer (1.5B
 * shape: 36.6k floats, 15.6 GiB for 4096 tokens over 28 layers); a Qwen3
 * model (qk_norm) also keeps q and k before the head norms and their
 * 1/rms, qdim + kvdim + heads + kv_heads more. A forward
 * without keep, pc_logits and decoding use their own buffers, so they do
 * not disturb the kept activations. The vocabulary projection runs in
 * chunks of rows (at most LOGIT_BUDGET floats of logits at a time) and the
 * backward recomputes each chunk's logits, so no rows x vocab array is
 * kept. Attention keeps only the log-sum-exp (see attention.cu).
 * Buffers grow to the longest sequence or batch seen (rounded up to 256
 * rows) and are reused.
 *
 * Decoders. A decoder owns K and V caches of [layers][capacity][kvdim]
 * floats (rotated keys, values). pc_append_batch runs the rows of all its
 * decoders' chunks through each linear layer together; each row attends
 * over its own decoder's cache (attention.cu's decoding kernel); then the
 * last row of each chunk is projected to the vocabulary and, on request,
 * sampled on the device. Freeing a model releases its decoders' caches;
 * such a decoder can then only be freed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "common.h"

using namespace pc;

namespace {

struct TensorInfo {
	size_t off, n;
	int rows, cols;   /* [rows, cols]; a vector has rows = n, cols = 1 */
	long long boff;   /* offset in the BF16 copies, -1: none */
	bool f32;         /* has an FP32 master at off (a frozen LoRA base's matrices have only their BF16 copy) */
	int lora;         /* a base weight with an adapter: the index of its A (B follows); -1: none */
};

template <class T> struct DBuf {
	T *p = nullptr;
	size_t n = 0;
};

struct LayerAct {
	float *xin, *xn1, *inv1, *q, *k, *v, *att, *lse, *xmid, *xn2, *inv2, *g, *u, *h;
	float *qraw, *kraw, *invq, *invk; /* Qwen3's head norms (issue 60): inputs and 1/rms */
};

/* The parameter indices of one layer (see pats_cuda.h); -1: absent. */
struct LayerIdx {
	int in, q, qb, qn, k, kb, kn, v, vb, o, post, gate, up, down;
};

/* The activations of one sequence's forward. */
struct Seq {
	int cap = 0, slots = 0;
	DBuf<float> act;
	DBuf<float> inputs; /* keep = 2 (recompute, issue 60): each layer's input, [layers][T][hidden] */
	bool recomputed = false, lora_on = true;
	std::vector<LayerAct> L;
	DBuf<float> x, xnf, invf;
	DBuf<int32_t> tok, next, firsts;
	DBuf<int32_t> rows, tgt, keep;
	DBuf<float> sel, lp, ent, lse;
	int T = 0, R = 0, nfirst = 0;
	bool valid = false;
};

struct Back {
	DBuf<float> dx, dn, dxnf, dh, dg, du, datt, dq, dk, dv, dsel, dlp;
	DBuf<float> ldu;  /* LoRA: the adapter's inner gradient, rows x rank */
	DBuf<bf16> gb;    /* frozen base: an output gradient in BF16, for its product with a BF16 weight */
};

struct DecWork {
	DBuf<float> x, xn, inv, q, kn, vn, att, g, u, h, last, lastn, invl, logits, logp;
	DBuf<float> invh; /* Qwen3: 1/rms of each query and key head row */
	DBuf<int32_t> tok, rowdec, rowpos, lastrow, otok;
	DBuf<DecInfo> info;
	DBuf<double> unif;
	DBuf<char> sws;
};

const size_t BLAS_WORKSPACE = (size_t)32 << 20;

} // namespace

struct pc_model {
	pc_config c;
	int dev = 0;
	cublasHandle_t blas = nullptr;
	std::vector<TensorInfo> t;
	size_t total = 0, btotal = 0;
	float *w = nullptr, *g = nullptr, *m1 = nullptr, *m2 = nullptr;
	bf16 *wb = nullptr;
	float *cos = nullptr, *sin = nullptr;
	int64_t bytes = 0;
	Seq kept, tmp;
	Back bk;
	DecWork dw;
	/* Scratch shared by the steps of one call. */
	DBuf<bf16> xb;
	DBuf<float> attS, logit, part, dsc;
	DBuf<double> norm;
	int lm = 0, fnorm = 0; /* indices of the vocabulary projection and the final norm */
	/* LoRA (issue 60): the base's tensor count, whether it is frozen (an
	 * adapter is attached) and whether the adapter contributes. */
	int nbase = 0;
	bool frozen = false, lora_on = true;
	DBuf<float> lu, stage; /* the adapter's inner product x A^T (rows x rank); staging of frozen uploads */
	DBuf<bf16> lub;
	std::vector<pc_decoder *> decs; /* live decoders, released with the model */
	cudaStream_t stream = nullptr;  /* every launch of this model */
	void *blas_ws = nullptr;        /* cuBLAS workspace (set explicitly, as graph capture needs) */
	uint64_t gen = 0;               /* bumped by every allocation: captured pointers are stale */
	bool graphs = true;
	cudaGraphExec_t gexec = nullptr;
	GraphKey gkey;
	int64_t captures = 0, replays = 0, direct = 0; /* decoding steps by how they ran (pc_model_graphs) */
};

struct pc_decoder {
	pc_model *m;
	float *k = nullptr, *v = nullptr;
	int cap = 0, len = 0;
	size_t bytes = 0; /* of each cache */
};

namespace {

int dalloc(pc_model *m, void **p, size_t bytes, const char *what) {
	*p = nullptr;
	if (bytes == 0) bytes = 256;
	cudaError_t e = cudaMalloc(p, bytes);
	if (e != cudaSuccess) {
		(void)cudaGetLastError();
		*p = nullptr;
		return fail("cudaMalloc of %zu bytes for %s: %s (device memory held by the model: %lld bytes)", bytes, what,
		            cudaGetErrorString(e), (long long)m->bytes);
	}
	m->bytes += (int64_t)bytes;
	m->gen++;
	return 0;
}

void dfree(pc_model *m, void *p, size_t bytes) {
	if (!p) return;
	cudaFree(p);
	m->bytes -= (int64_t)(bytes ? bytes : 256);
}

template <class T> int ensure(pc_model *m, DBuf<T> &b, size_t n, const char *what) {
	if (b.p && b.n >= n) return 0;
	dfree(m, b.p, b.n * sizeof(T));
	b.p = nullptr;
	b.n = 0;
	PC_TRY(dalloc(m, (void **)&b.p, n * sizeof(T), what));
	b.n = n;
	return 0;
}

template <class T> void release(pc_model *m, DBuf<T> &b) {
	dfree(m, b.p, b.n * sizeof(T));
	b.p = nullptr;
	b.n = 0;
}

inline float *W(pc_model *m, int i) { return m->w + m->t[i].off; }
inline float *G(pc_model *m, int i) { return m->g + m->t[i].off; }
inline bf16 *B(pc_model *m, int i) { return m->wb + m->t[i].boff; }
/* Whether tensor i trains: every tensor, or under LoRA the adapter's only. */
inline bool trains(const pc_model *m, int i) { return !m->frozen || i >= m->nbase; }
/* Its gradient, or null for a frozen tensor (the kernels then skip it). */
inline float *Gt(pc_model *m, int i) { return trains(m, i) ? G(m, i) : nullptr; }

int qdim(const pc_config &c) { return c.heads * c.head_dim; }
int kvdim(const pc_config &c) { return c.kv_heads * c.head_dim; }
int maxdim(const pc_config &c) { return std::max(c.hidden, std::max(qdim(c), c.intermediate)); }
Dims dims(const pc_config &c) { return Dims{c.hidden, c.intermediate, c.heads, c.kv_heads, c.head_dim, c.qk_norm}; }

/* Tensors per layer: Qwen2 12, Qwen3 11 (head norms in the biases' place). */
int layer_tensors(const pc_config &c) { return c.qk_norm ? 11 : 12; }

LayerIdx layer_idx(const pc_config &c, int l) {
	int b = 1 + layer_tensors(c) * l;
	if (c.qk_norm) return LayerIdx{b, b + 1, -1, b + 2, b + 3, -1, b + 4, b + 5, -1, b + 6, b + 7, b + 8, b + 9, b + 10};
	return LayerIdx{b, b + 1, b + 2, -1, b + 3, b + 4, -1, b + 5, b + 6, b + 7, b + 8, b + 9, b + 10, b + 11};
}
int logit_chunk(const pc_config &c, int R) { return pc::logit_chunk(c.vocab, R); }

int ensure_seq(pc_model *m, Seq &s, int T, int slots) {
	const pc_config &c = m->c;
	if (s.act.p && T <= s.cap && slots <= s.slots) return 0;
	s.valid = false;
	/* A multiple of 256 rows, so that every array below starts aligned. */
	int cap = (int)round_rows(std::max(T, s.cap));
	slots = std::max(slots, s.slots);
	size_t H = c.hidden, C = cap;
	/* Everything is released first and the capacity recorded only once
	 * every allocation succeeded: after a failure the next call of any
	 * length allocates again instead of writing through a null pointer. */
	s.cap = 0;
	s.slots = 0;
	s.L.clear();
	release(m, s.act);
	release(m, s.x);
	release(m, s.xnf);
	release(m, s.invf);
	release(m, s.tok);
	release(m, s.next);
	release(m, s.firsts);
	const size_t per_slot = C * slot_floats_per_row(dims(c));
	const SeqLayout lay = seq_layout(dims(c), C);
	PC_TRY(ensure(m, s.act, (size_t)slots * per_slot, "activations"));
	s.L.resize(slots);
	for (int l = 0; l < slots; l++) {
		float *p = s.act.p + (size_t)l * per_slot;
		LayerAct &A = s.L[l];
		A.xin = p + lay.xin;
		A.xn1 = p + lay.xn1;
		A.q = p + lay.q;
		A.k = p + lay.k;
		A.v = p + lay.v;
		A.att = p + lay.att;
		A.xmid = p + lay.xmid;
		A.xn2 = p + lay.xn2;
		A.g = p + lay.g;
		A.u = p + lay.u;
		A.h = p + lay.h;
		A.lse = p + lay.lse;
		A.inv1 = p + lay.inv1;
		A.inv2 = p + lay.inv2;
		A.qraw = p + lay.qraw;
		A.kraw = p + lay.kraw;
		A.invq = p + lay.invq;
		A.invk = p + lay.invk;
	}
	PC_TRY(ensure(m, s.x, C * H, "residual stream"));
	PC_TRY(ensure(m, s.xnf, C * H, "final norm"));
	PC_TRY(ensure(m, s.invf, C, "final norm"));
	PC_TRY(ensure(m, s.tok, C, "tokens"));
	PC_TRY(ensure(m, s.next, C, "token links"));
	PC_TRY(ensure(m, s.firsts, C, "token links"));
	s.cap = cap;
	s.slots = slots;
	return 0;
}

int ensure_scored(pc_model *m, Seq &s, int R) {
	size_t n = round_rows(R), H = m->c.hidden;
	PC_TRY(ensure(m, s.rows, n, "scored rows"));
	PC_TRY(ensure(m, s.tgt, n, "targets"));
	PC_TRY(ensure(m, s.keep, n, "scored rows"));
	PC_TRY(ensure(m, s.sel, n * H, "scored hidden rows"));
	PC_TRY(ensure(m, s.lp, n, "log-probabilities"));
	PC_TRY(ensure(m, s.ent, n, "entropies"));
	PC_TRY(ensure(m, s.lse, n, "log-sum-exp"));
	return 0;
}

/* Scratch for a forward (backward: also the attention backward's). */
int ensure_scratch(pc_model *m, int T, int R, bool backward) {
	const pc_config &c = m->c;
	size_t Tc = round_rows(T), Rc = round_rows(R);
	PC_TRY(ensure(m, m->xb, std::max(Tc * maxdim(c), Rc * c.hidden), "BF16 inputs"));
	size_t att = attention_scratch((int)Tc, 0, c.kv_heads);
	PC_TRY(ensure(m, m->attS, backward ? 2 * att : att, "attention scores"));
	if (R > 0) PC_TRY(ensure(m, m->logit, (size_t)logit_chunk(c, (int)Rc) * c.vocab, "logits"));
	size_t part = colsum_scratch((int)Tc, std::max(c.hidden, qdim(c)));
	if (c.qk_norm) part = std::max(part, colsum_scratch((int)Tc * c.heads, c.head_dim)); /* head norms' weights */
	PC_TRY(ensure(m, m->part, part, "column sums"));
	if (backward) PC_TRY(ensure(m, m->dsc, Tc * c.heads, "attention backward"));
	if (c.lora_rank > 0) {
		PC_TRY(ensure(m, m->lu, Tc * c.lora_rank, "LoRA"));
		PC_TRY(ensure(m, m->lub, Tc * c.lora_rank, "LoRA"));
	}
	return 0;
}

int check_tokens(const pc_config &c, const int32_t *tokens, int t, const char *what) {
	for (int i = 0; i < t; i++)
		if (tokens[i] < 0 || tokens[i] >= c.vocab)
			return fail("%s: token %d at position %d outside vocabulary of %d", what, tokens[i], i, c.vocab);
	return 0;
}

/* The embedding rows of tokens (FP32 table, or a frozen base's BF16 one). */
int embed(pc_model *m, float *x, const int32_t *tok, int T) {
	if (m->t[0].f32) return embed_gather(x, W(m, 0), tok, T, m->c.hidden);
	return embed_gather_bf16(x, B(m, 0), tok, T, m->c.hidden);
}

/* y += lora_scale * (x A^T) B^T for base weight wi when it has an adapter
 * and the adapter is on (issue 60): both products in BF16, as the base's. */
int lora_forward(pc_model *m, float *y, const bf16 *xb, int rows, int wi) {
	const TensorInfo &t = m->t[wi];
	if (t.lora < 0 || !m->lora_on) return 0;
	int r = m->c.lora_rank, out = t.rows, in = t.cols;
	PC_TRY(gemm_bf16(m->blas, false, true, rows, r, in, 1.0f, xb, in, B(m, t.lora), in, 0.0f, m->lu.p, r));
	PC_TRY(to_bf16(m->lub.p, m->lu.p, (size_t)rows * r));
	PC_TRY(gemm_bf16(m->blas, false, true, rows, out, r, m->c.lora_scale, m->lub.p, r, B(m, t.lora + 1), r, 1.0f, y,
	                 out));
	return 0;
}

int linear(pc_model *m, float *y, const bf16 *xb, int rows, int wi, int bi, float beta) {
	const TensorInfo &t = m->t[wi];
	PC_TRY(gemm_bf16(m->blas, false, true, rows, t.rows, t.cols, 1.0f, xb, t.cols, B(m, wi), t.cols, beta, y, t.rows));
	if (bi >= 0) PC_TRY(bias_add(y, W(m, bi), rows, t.rows));
	return lora_forward(m, y, xb, rows, wi);
}

/* The adapter's backward for base weight wi (issue 60), from dy (rows x
 * out) and the layer's input x (rows x in): with u = x A^T, dB += s dy^T u,
 * du = s dy B, dA += du^T x, dx += du A (lib/model's loraBackward). */
int lora_backward(pc_model *m, float *dx, const float *dy, const float *x, int rows, int wi) {
	const TensorInfo &t = m->t[wi];
	if (t.lora < 0 || !m->lora_on) return 0;
	int r = m->c.lora_rank, out = t.rows, in = t.cols, a = t.lora, b = t.lora + 1;
	float s = m->c.lora_scale;
	float *u = m->lu.p, *du = m->bk.ldu.p;
	PC_TRY(gemm(m->blas, false, true, rows, r, in, 1.0f, x, in, W(m, a), in, 0.0f, u, r));
	PC_TRY(gemm(m->blas, true, false, out, r, rows, s, dy, out, u, r, 1.0f, G(m, b), r));
	PC_TRY(gemm(m->blas, false, false, rows, r, out, s, dy, out, W(m, b), r, 0.0f, du, r));
	PC_TRY(gemm(m->blas, true, false, r, in, rows, 1.0f, du, r, x, in, 1.0f, G(m, a), in));
	PC_TRY(gemm(m->blas, false, false, rows, in, r, 1.0f, du, r, W(m, a), in, 1.0f, dx, in));
	return 0;
}

/* dx = dy W (+ dx when beta is 1); when W trains, dW += dy^T x and db +=
 * colsum(dy); then the adapter's part. A frozen base weight has only its
 * BF16 copy: dy is rounded to BF16 for the product, which is what the
 * FP32 product's BF16 tensor-core path rounds it to anyway. */
int linear_backward(pc_model *m, float *dx, float beta, const float *dy, const float *x, int rows, int wi, int bi) {
	const TensorInfo &t = m->t[wi];
	int out = t.rows, in = t.cols;
	if (trains(m, wi)) {
		PC_TRY(gemm(m->blas, true, false, out, in, rows, 1.0f, dy, out, x, in, 1.0f, G(m, wi), in));
		if (bi >= 0) PC_TRY(colsum_add(G(m, bi), dy, rows, out, m->part.p));
	}
	if (t.f32) {
		PC_TRY(gemm(m->blas, false, false, rows, in, out, 1.0f, dy, out, W(m, wi), in, beta, dx, in));
	} else {
		PC_TRY(to_bf16(m->bk.gb.p, dy, (size_t)rows * out));
		PC_TRY(gemm_bf16(m->blas, false, false, rows, in, out, 1.0f, m->bk.gb.p, out, B(m, wi), in, beta, dx, in));
	}
	return lora_backward(m, dx, dy, x, rows, wi);
}

/* One decoder layer over the residual stream x (T rows, positions 0..),
 * updated in place, its activations in A (with keep: also the layer's
 * input, the residual after attention and attention's log-sum-exp, which
 * the backward needs). */
int layer_forward(pc_model *m, LayerAct &A, float *x, int T, int l, bool keep) {
	const pc_config &c = m->c;
	size_t H = c.hidden, I = c.intermediate, qd = qdim(c);
	float eps = c.rms_eps;
	bf16 *xb = m->xb.p;
	LayerIdx li = layer_idx(c, l);
	if (keep) PC_CUDA(cudaMemcpyAsync(A.xin, x, (size_t)T * H * sizeof(float), cudaMemcpyDeviceToDevice, stream()));
	PC_TRY(rmsnorm(A.xn1, A.inv1, x, W(m, li.in), T, (int)H, eps, xb));
	PC_TRY(linear(m, A.q, xb, T, li.q, li.qb, 0.0f));
	PC_TRY(linear(m, A.k, xb, T, li.k, li.kb, 0.0f));
	PC_TRY(linear(m, A.v, xb, T, li.v, li.vb, 0.0f));
	if (c.qk_norm) { /* Qwen3 (issue 60): each head normed, its input kept for the backward */
		PC_CUDA(cudaMemcpyAsync(A.qraw, A.q, (size_t)T * qd * sizeof(float), cudaMemcpyDeviceToDevice, stream()));
		PC_CUDA(cudaMemcpyAsync(A.kraw, A.k, (size_t)T * kvdim(c) * sizeof(float), cudaMemcpyDeviceToDevice, stream()));
		PC_TRY(rmsnorm(A.q, A.invq, A.qraw, W(m, li.qn), T * c.heads, c.head_dim, eps, nullptr));
		PC_TRY(rmsnorm(A.k, A.invk, A.kraw, W(m, li.kn), T * c.kv_heads, c.head_dim, eps, nullptr));
	}
	PC_TRY(rope(A.q, T, c.heads, c.head_dim, 0, nullptr, m->cos, m->sin, 0));
	PC_TRY(rope(A.k, T, c.kv_heads, c.head_dim, 0, nullptr, m->cos, m->sin, 0));
	PC_TRY(attention_forward(m->blas, A.att, keep ? A.lse : nullptr, A.q, A.k, A.v, T, 0, c.heads, c.kv_heads,
	                         c.head_dim, m->attS.p));
	PC_TRY(to_bf16(xb, A.att, (size_t)T * qd));
	PC_TRY(linear(m, x, xb, T, li.o, -1, 1.0f));
	if (keep) PC_CUDA(cudaMemcpyAsync(A.xmid, x, (size_t)T * H * sizeof(float), cudaMemcpyDeviceToDevice, stream()));
	PC_TRY(rmsnorm(A.xn2, A.inv2, x, W(m, li.post), T, (int)H, eps, xb));
	PC_TRY(linear(m, A.g, xb, T, li.gate, -1, 0.0f));
	PC_TRY(linear(m, A.u, xb, T, li.up, -1, 0.0f));
	PC_TRY(swiglu(A.h, A.g, A.u, (size_t)T * I, xb));
	PC_TRY(linear(m, x, xb, T, li.down, -1, 1.0f));
	return 0;
}

/* The decoder layers and final norm over s.tok (T tokens, positions 0..).
 * keep: 0 nothing kept (one slot reused), 1 every layer's activations (a
 * slot a layer), 2 (recompute) each layer's input in s.inputs, the rest in
 * one slot that the backward refills layer by layer. */
int forward_layers(pc_model *m, Seq &s, int T, int keep) {
	const pc_config &c = m->c;
	size_t H = c.hidden;
	float *x = s.x.p;
	PC_TRY(embed(m, x, s.tok.p, T));
	for (int l = 0; l < c.layers; l++) {
		if (keep == 2)
			PC_CUDA(cudaMemcpyAsync(s.inputs.p + (size_t)l * T * H, x, (size_t)T * H * sizeof(float),
			                        cudaMemcpyDeviceToDevice, stream()));
		PC_TRY(layer_forward(m, s.L[keep == 1 ? l : 0], x, T, l, keep != 0));
	}
	PC_TRY(rmsnorm(s.xnf.p, s.invf.p, x, W(m, m->fnorm), T, (int)H, c.rms_eps, nullptr));
	return 0;
}

/* lp, ent, lse of the R scored rows (s.rows, s.tgt), logits in chunks. */
int score_rows(pc_model *m, Seq &s, int R) {
	const pc_config &c = m->c;
	if (R <= 0) return 0;
	int H = c.hidden, V = c.vocab;
	PC_TRY(rows_gather(s.sel.p, s.xnf.p, s.rows.p, R, H));
	PC_TRY(to_bf16(m->xb.p, s.sel.p, (size_t)R * H));
	int ch = logit_chunk(c, R);
	for (int j0 = 0; j0 < R; j0 += ch) {
		int nc = std::min(ch, R - j0);
		PC_TRY(gemm_bf16(m->blas, false, true, nc, V, H, 1.0f, m->xb.p + (size_t)j0 * H, H, B(m, m->lm), H, 0.0f,
		                 m->logit.p, V));
		PC_TRY(log_softmax(s.lp.p + j0, s.ent.p + j0, s.lse.p + j0, m->logit.p, s.tgt.p + j0, nc, V));
	}
	return 0;
}

int set_device(pc_model *m) {
	PC_CUDA(cudaSetDevice(m->dev));
	set_stream(m->stream);
	return 0;
}

int check_param(pc_model *m, int32_t i, int64_t n, const char *what) {
	if (!m) return fail("%s: no model", what);
	if (i < 0 || (size_t)i >= m->t.size()) return fail("%s: tensor %d outside 0..%d", what, i, (int)m->t.size() - 1);
	if (n < 0 || (size_t)n != m->t[i].n)
		return fail("%s: tensor %d has %zu elements, not %lld", what, i, m->t[i].n, (long long)n);
	return 0;
}

/* Refuses tensor i of a frozen base (LoRA): it has no gradient or moments. */
int check_trains(pc_model *m, int32_t i, const char *what) {
	if (trains(m, i)) return 0;
	return fail("%s: tensor %d belongs to the frozen base of a LoRA model (tensors 0..%d): no gradient or moments", what,
	            i, m->nbase - 1);
}

/* Floats a frozen upload or download moves at a time (64 MiB). */
const size_t STAGE_FLOATS = (size_t)16 << 20;

void free_model(pc_model *m) {
	if (!m) return;
	cudaSetDevice(m->dev);
	Seq *seqs[2] = {&m->kept, &m->tmp};
	for (Seq *s : seqs) {
		release(m, s->act);
		release(m, s->inputs);
		release(m, s->x);
		release(m, s->xnf);
		release(m, s->invf);
		release(m, s->tok);
		release(m, s->next);
		release(m, s->firsts);
		release(m, s->rows);
		release(m, s->tgt);
		release(m, s->keep);
		release(m, s->sel);
		release(m, s->lp);
		release(m, s->ent);
		release(m, s->lse);
	}
	Back &b = m->bk;
	DBuf<float> *bb[] = {&b.dx, &b.dn, &b.dxnf, &b.dh, &b.dg, &b.du, &b.datt, &b.dq, &b.dk, &b.dv, &b.dsel, &b.dlp};
	for (auto p : bb) release(m, *p);
	release(m, b.ldu);
	release(m, b.gb);
	release(m, m->lu);
	release(m, m->lub);
	release(m, m->stage);
	DecWork &d = m->dw;
	DBuf<float> *df[] = {&d.x, &d.xn, &d.inv, &d.q, &d.kn, &d.vn, &d.att, &d.g, &d.u, &d.h, &d.last, &d.lastn,
	                     &d.invl, &d.logits, &d.logp, &d.invh};
	for (auto p : df) release(m, *p);
	DBuf<int32_t> *di[] = {&d.tok, &d.rowdec, &d.rowpos, &d.lastrow, &d.otok};
	for (auto p : di) release(m, *p);
	release(m, d.info);
	release(m, d.unif);
	release(m, d.sws);
	release(m, m->xb);
	release(m, m->attS);
	release(m, m->logit);
	release(m, m->part);
	release(m, m->dsc);
	release(m, m->norm);
	dfree(m, m->w, m->total * 4);
	dfree(m, m->g, m->total * 4);
	dfree(m, m->m1, m->total * 4);
	dfree(m, m->m2, m->total * 4);
	dfree(m, m->wb, m->btotal * 2);
	dfree(m, m->cos, 0);
	dfree(m, m->sin, 0);
	for (pc_decoder *d : m->decs) {
		dfree(m, d->k, d->bytes);
		dfree(m, d->v, d->bytes);
		d->k = d->v = nullptr;
		d->m = nullptr;
	}
	if (m->gexec) cudaGraphExecDestroy(m->gexec);
	dfree(m, m->blas_ws, BLAS_WORKSPACE);
	if (m->blas) cublasDestroy(m->blas);
	if (m->stream) cudaStreamDestroy(m->stream);
	set_stream(0);
	delete m;
}

/* One decoding step over the batch layout already on the device (w.tok,
 * w.rowdec, w.rowpos, w.lastrow, w.info, w.unif): every launch, no host
 * copy and no synchronisation, so that it can be captured in a graph. */
int decode_body(pc_model *m, int T, int n, const pc_sampling *s, bool want) {
	const pc_config &c = m->c;
	int H = c.hidden, I = c.intermediate, V = c.vocab, qd = qdim(c), kd = kvdim(c);
	DecWork &w = m->dw;
	float eps = c.rms_eps;
	bf16 *xb = m->xb.p;
	float *x = w.x.p;
	PC_TRY(embed(m, x, w.tok.p, T));
	for (int l = 0; l < c.layers; l++) {
		LayerIdx li = layer_idx(c, l);
		PC_TRY(rmsnorm(w.xn.p, w.inv.p, x, W(m, li.in), T, H, eps, xb));
		PC_TRY(linear(m, w.q.p, xb, T, li.q, li.qb, 0.0f));
		PC_TRY(linear(m, w.kn.p, xb, T, li.k, li.kb, 0.0f));
		PC_TRY(linear(m, w.vn.p, xb, T, li.v, li.vb, 0.0f));
		if (c.qk_norm) { /* Qwen3 (issue 60): in place (each row is read whole before it is written) */
			PC_TRY(rmsnorm(w.q.p, w.invh.p, w.q.p, W(m, li.qn), T * c.heads, c.head_dim, eps, nullptr));
			PC_TRY(rmsnorm(w.kn.p, w.invh.p, w.kn.p, W(m, li.kn), T * c.kv_heads, c.head_dim, eps, nullptr));
		}
		PC_TRY(rope(w.q.p, T, c.heads, c.head_dim, 0, w.rowpos.p, m->cos, m->sin, 0));
		PC_TRY(rope(w.kn.p, T, c.kv_heads, c.head_dim, 0, w.rowpos.p, m->cos, m->sin, 0));
		PC_TRY(kv_store(w.kn.p, w.vn.p, w.rowdec.p, w.rowpos.p, w.info.p, l, T, kd));
		PC_TRY(attention_decode(w.att.p, w.q.p, w.rowdec.p, w.rowpos.p, w.info.p, l, T, c.heads, c.kv_heads,
		                        c.head_dim));
		PC_TRY(to_bf16(xb, w.att.p, (size_t)T * qd));
		PC_TRY(linear(m, x, xb, T, li.o, -1, 1.0f));
		PC_TRY(rmsnorm(w.xn.p, w.inv.p, x, W(m, li.post), T, H, eps, xb));
		PC_TRY(linear(m, w.g.p, xb, T, li.gate, -1, 0.0f));
		PC_TRY(linear(m, w.u.p, xb, T, li.up, -1, 0.0f));
		PC_TRY(swiglu(w.h.p, w.g.p, w.u.p, (size_t)T * I, xb));
		PC_TRY(linear(m, x, xb, T, li.down, -1, 1.0f));
	}
	if (!want) return 0; /* a prompt chunk whose next token is not wanted yet */
	PC_TRY(rows_gather(w.last.p, x, w.lastrow.p, n, H));
	PC_TRY(rmsnorm(w.lastn.p, w.invl.p, w.last.p, W(m, m->fnorm), n, H, eps, xb));
	PC_TRY(gemm_bf16(m->blas, false, true, n, V, H, 1.0f, xb, H, B(m, m->lm), H, 0.0f, w.logits.p, V));
	if (s) PC_TRY(sample_rows(w.logits.p, n, V, s, w.unif.p, w.otok.p, w.logp.p, w.sws.p));
	return 0;
}

/* Runs decode_body. A step of one token per decoder (the common case in
 * generation, hundreds of small launches) goes through a CUDA graph, built
 * on the first step of a shape and replayed while the shape, the sampling
 * constants and the model's buffers stay the same. If capture fails the
 * model runs its steps directly from then on; PATS_CUDA_GRAPHS=0 turns
 * graphs off. */
int decode_run(pc_model *m, int T, int n, const pc_sampling *s, bool want) {
	if (!graph_step(m->graphs, T, n)) {
		m->direct++;
		return decode_body(m, T, n, s, want);
	}
	GraphKey k = graph_key(T, n, s != nullptr, s ? s->temperature : 0, s ? s->top_p : 0, want, m->gen);
	if (m->gexec && k == m->gkey) {
		PC_CUDA(cudaGraphLaunch(m->gexec, m->stream));
		m->replays++;
		return 0;
	}
	if (m->gexec) {
		cudaGraphExecDestroy(m->gexec);
		m->gexec = nullptr;
	}
	if (cudaStreamBeginCapture(m->stream, cudaStreamCaptureModeRelaxed) != cudaSuccess) {
		(void)cudaGetLastError();
		m->graphs = false;
		m->direct++;
		return decode_body(m, T, n, s, want);
	}
	int rc = decode_body(m, T, n, s, want);
	cudaGraph_t g = nullptr;
	cudaError_t e = cudaStreamEndCapture(m->stream, &g);
	cudaGraphExec_t ex = nullptr;
	if (!rc && e == cudaSuccess && g) e = cudaGraphInstantiateWithFlags(&ex, g, 0);
	if (g) cudaGraphDestroy(g);
	if (rc || e != cudaSuccess || !ex) {
		(void)cudaGetLastError();
		if (ex) cudaGraphExecDestroy(ex);
		m->graphs = false;
		m->direct++;
		return decode_body(m, T, n, s, want);
	}
	m->gexec = ex;
	m->gkey = k;
	m->captures++;
	PC_CUDA(cudaGraphLaunch(ex, m->stream));
	return 0;
}

} // namespace

extern "C" int pc_model_new(const pc_config *cfg, int32_t dev, pc_model **out) {
	if (!cfg || !out) return fail("pc_model_new: null argument");
	*out = nullptr;
	const pc_config &c = *cfg;
	if (c.vocab <= 0 || c.hidden <= 0 || c.intermediate <= 0 || c.layers <= 0 || c.heads <= 0 || c.kv_heads <= 0 ||
	    c.head_dim <= 0 || c.max_positions <= 0)
		return fail("pc_model_new: sizes must be positive (vocab %d, hidden %d, intermediate %d, layers %d, heads %d, "
		            "kv_heads %d, head_dim %d, max_positions %d)",
		            c.vocab, c.hidden, c.intermediate, c.layers, c.heads, c.kv_heads, c.head_dim, c.max_positions);
	if (c.heads % c.kv_heads) return fail("pc_model_new: %d heads not a multiple of %d kv_heads", c.heads, c.kv_heads);
	if (c.head_dim % 2) return fail("pc_model_new: head_dim %d is odd (RoPE pairs i, i+head_dim/2)", c.head_dim);
	if (c.head_dim > 256) return fail("pc_model_new: head_dim %d above 256, the decoding kernel's limit", c.head_dim);
	if (!(c.rope_theta > 0)) return fail("pc_model_new: rope_theta %g is not positive", c.rope_theta);
	if (c.qk_norm != 0 && c.qk_norm != 1) return fail("pc_model_new: qk_norm %d is not 0 or 1", c.qk_norm);
	if (c.lora_rank < 0) return fail("pc_model_new: lora_rank %d is negative", c.lora_rank);
	if (c.lora_rank > 0 && (c.lora_targets <= 0 || c.lora_targets > 127))
		return fail("pc_model_new: lora_targets %d names no projection (bits 0..6: q, k, v, o, gate, up, down)",
		            c.lora_targets);
	if (c.lora_rank > 0 && !(fabsf(c.lora_scale) < INFINITY))
		return fail("pc_model_new: lora_scale %g is not finite", (double)c.lora_scale);
	pc_model *m = new pc_model();
	m->c = c;
	m->dev = dev;
	if (set_device(m)) {
		delete m;
		return 1;
	}
	cudaError_t se = cudaStreamCreate(&m->stream);
	if (se != cudaSuccess) {
		m->stream = nullptr;
		free_model(m);
		return cuda_fail("pc_model_new", "cudaStreamCreate", se);
	}
	set_stream(m->stream);
	cublasStatus_t bs = cublasCreate(&m->blas);
	if (bs == CUBLAS_STATUS_SUCCESS) bs = cublasSetStream(m->blas, m->stream);
	if (bs != CUBLAS_STATUS_SUCCESS) {
		free_model(m);
		return cublas_fail("pc_model_new", "cublasCreate/cublasSetStream", bs);
	}
	if (dalloc(m, &m->blas_ws, BLAS_WORKSPACE, "cuBLAS workspace")) {
		free_model(m);
		return 1;
	}
	bs = cublasSetWorkspace(m->blas, m->blas_ws, BLAS_WORKSPACE);
	if (bs != CUBLAS_STATUS_SUCCESS) {
		free_model(m);
		return cublas_fail("pc_model_new", "cublasSetWorkspace", bs);
	}
	const char *gv = getenv("PATS_CUDA_GRAPHS");
	m->graphs = !(gv && strcmp(gv, "0") == 0);
	/* The parameter table, in the header's order. */
	size_t H = c.hidden, I = c.intermediate, qd = qdim(c), kd = kvdim(c), V = c.vocab;
	/* Under LoRA (issue 60) the base's matrices keep only their BF16 copy. */
	m->frozen = c.lora_rank > 0;
	auto add = [&](size_t rows, size_t cols, bool bf) {
		TensorInfo t;
		t.n = rows * cols;
		t.rows = (int)rows;
		t.cols = (int)cols;
		t.boff = -1;
		t.lora = -1;
		bool matrix = cols > 1;
		if (m->frozen && matrix && m->nbase == 0) bf = true; /* the embedding too (gathered from BF16) */
		t.f32 = !(m->frozen && matrix && m->nbase == 0);
		t.off = t.f32 ? m->total : (size_t)-1;
		if (t.f32) m->total += (t.n + 63) / 64 * 64;
		if (bf) {
			t.boff = (long long)m->btotal;
			m->btotal += (t.n + 63) / 64 * 64;
		}
		m->t.push_back(t);
	};
	add(V, H, c.tied != 0);
	for (int l = 0; l < c.layers; l++) {
		/* Qwen2: q, q bias, k, k bias, v, v bias; Qwen3: q, q_norm, k, k_norm, v. */
		size_t hd = c.head_dim;
		add(H, 1, false);
		add(qd, H, true);
		add(c.qk_norm ? hd : qd, 1, false);
		add(kd, H, true);
		add(c.qk_norm ? hd : kd, 1, false);
		add(kd, H, true);
		if (!c.qk_norm) add(kd, 1, false);
		add(H, qd, true);
		add(H, 1, false);
		add(I, H, true);
		add(I, H, true);
		add(H, I, true);
	}
	add(H, 1, false);
	m->fnorm = 1 + layer_tensors(c) * c.layers;
	m->lm = 0;
	if (!c.tied) {
		add(V, H, true);
		m->lm = 2 + layer_tensors(c) * c.layers;
	}
	m->nbase = (int)m->t.size();
	if (m->frozen) { /* the adapters, after the base: per layer, A then B of each targeted projection */
		for (int l = 0; l < c.layers; l++) {
			LayerIdx li = layer_idx(c, l);
			int base[7] = {li.q, li.k, li.v, li.o, li.gate, li.up, li.down};
			for (int j = 0; j < 7; j++) {
				if (!(c.lora_targets >> j & 1)) continue;
				int wi = base[j];
				size_t out = m->t[wi].rows, in = m->t[wi].cols;
				m->t[wi].lora = lora_index(m->nbase, c.lora_targets, l, j); /* == m->t.size(): checked below */
				add(c.lora_rank, in, true);
				add(out, c.lora_rank, true);
			}
		}
	}
	if (m->frozen && m->t.size() != (size_t)(m->nbase + lora_tensors(c.layers, c.lora_targets))) {
		free_model(m);
		return fail("pc_model_new: %zu adapter tensors laid out, lora_tensors says %d", m->t.size() - m->nbase,
		            lora_tensors(c.layers, c.lora_targets));
	}
	int half = c.head_dim / 2;
	std::vector<float> hc((size_t)c.max_positions * half), hs((size_t)c.max_positions * half);
	for (int i = 0; i < half; i++) {
		double f = pow(c.rope_theta, -(double)(2 * i) / (double)c.head_dim);
		for (int p = 0; p < c.max_positions; p++) {
			double a = (double)p * f;
			hc[(size_t)p * half + i] = (float)cos(a);
			hs[(size_t)p * half + i] = (float)sin(a);
		}
	}
	int rc = 0;
	size_t tb = hc.size() * sizeof(float);
	if (!rc) rc = dalloc(m, (void **)&m->w, m->total * 4, "parameters");
	if (!rc) rc = dalloc(m, (void **)&m->g, m->total * 4, "gradients");
	if (!rc) rc = dalloc(m, (void **)&m->m1, m->total * 4, "first moments");
	if (!rc) rc = dalloc(m, (void **)&m->m2, m->total * 4, "second moments");
	if (!rc) rc = dalloc(m, (void **)&m->wb, m->btotal * 2, "BF16 weights");
	if (!rc) rc = dalloc(m, (void **)&m->cos, tb, "RoPE table");
	if (!rc) rc = dalloc(m, (void **)&m->sin, tb, "RoPE table");
	if (!rc) rc = ensure(m, m->norm, 1025, "gradient norm");
	auto zero = [&](void *p, size_t n) {
		cudaError_t e = cudaMemset(p, 0, n);
		return e == cudaSuccess ? 0 : cuda_fail("pc_model_new", "cudaMemset", e);
	};
	if (!rc) rc = zero(m->w, m->total * 4);
	if (!rc) rc = zero(m->g, m->total * 4);
	if (!rc) rc = zero(m->m1, m->total * 4);
	if (!rc) rc = zero(m->m2, m->total * 4);
	if (!rc) rc = zero(m->wb, m->btotal * 2);
	if (!rc) {
		cudaError_t e = cudaMemcpy(m->cos, hc.data(), tb, cudaMemcpyHostToDevice);
		if (e == cudaSuccess) e = cudaMemcpy(m->sin, hs.data(), tb, cudaMemcpyHostToDevice);
		if (e != cudaSuccess) rc = cuda_fail("pc_model_new", "cudaMemcpy of the RoPE tables", e);
	}
	if (rc) {
		free_model(m);
		return rc;
	}
	*out = m;
	return 0;
}

extern "C" void pc_model_free(pc_model *m) { free_model(m); }

extern "C" int pc_model_memory(pc_model *m, int64_t *bytes) {
	if (!m || !bytes) return fail("pc_model_memory: null argument");
	*bytes = m->bytes;
	return 0;
}

extern "C" int pc_param_set(pc_model *m, int32_t i, const float *src, int64_t n) {
	PC_TRY(check_param(m, i, n, "pc_param_set"));
	if (!src && n) return fail("pc_param_set: null source");
	PC_TRY(set_device(m));
	if (!m->t[i].f32) { /* a frozen base matrix: rounded to BF16 through a staging buffer, chunk by chunk */
		size_t ch = std::min((size_t)n, STAGE_FLOATS);
		PC_TRY(ensure(m, m->stage, ch, "upload staging"));
		for (size_t o = 0; o < (size_t)n; o += ch) {
			size_t k = std::min(ch, (size_t)n - o);
			PC_CUDA(cudaMemcpy(m->stage.p, src + o, k * 4, cudaMemcpyHostToDevice));
			PC_TRY(to_bf16(B(m, i) + o, m->stage.p, k));
			PC_CUDA(cudaStreamSynchronize(stream()));
		}
		return 0;
	}
	PC_CUDA(cudaMemcpy(W(m, i), src, (size_t)n * 4, cudaMemcpyHostToDevice));
	if (m->t[i].boff >= 0) PC_TRY(to_bf16(B(m, i), W(m, i), (size_t)n));
	PC_CUDA(cudaDeviceSynchronize());
	return 0;
}

extern "C" int pc_param_get(pc_model *m, int32_t i, float *dst, int64_t n) {
	PC_TRY(check_param(m, i, n, "pc_param_get"));
	if (!dst && n) return fail("pc_param_get: null destination");
	PC_TRY(set_device(m));
	if (!m->t[i].f32) { /* a frozen base matrix: its BF16 values */
		size_t ch = std::min((size_t)n, STAGE_FLOATS);
		PC_TRY(ensure(m, m->stage, ch, "download staging"));
		for (size_t o = 0; o < (size_t)n; o += ch) {
			size_t k = std::min(ch, (size_t)n - o);
			PC_TRY(from_bf16(m->stage.p, B(m, i) + o, k));
			PC_CUDA(cudaStreamSynchronize(stream()));
			PC_CUDA(cudaMemcpy(dst + o, m->stage.p, k * 4, cudaMemcpyDeviceToHost));
		}
		return 0;
	}
	PC_CUDA(cudaMemcpy(dst, W(m, i), (size_t)n * 4, cudaMemcpyDeviceToHost));
	return 0;
}

extern "C" int pc_grad_get(pc_model *m, int32_t i, float *dst, int64_t n) {
	PC_TRY(check_param(m, i, n, "pc_grad_get"));
	PC_TRY(check_trains(m, i, "pc_grad_get"));
	if (!dst && n) return fail("pc_grad_get: null destination");
	PC_TRY(set_device(m));
	PC_CUDA(cudaMemcpy(dst, G(m, i), (size_t)n * 4, cudaMemcpyDeviceToHost));
	return 0;
}

extern "C" int pc_moments_set(pc_model *m, int32_t i, const float *mom1, const float *mom2, int64_t n) {
	PC_TRY(check_param(m, i, n, "pc_moments_set"));
	PC_TRY(check_trains(m, i, "pc_moments_set"));
	if ((!mom1 || !mom2) && n) return fail("pc_moments_set: null source");
	PC_TRY(set_device(m));
	PC_CUDA(cudaMemcpy(m->m1 + m->t[i].off, mom1, (size_t)n * 4, cudaMemcpyHostToDevice));
	PC_CUDA(cudaMemcpy(m->m2 + m->t[i].off, mom2, (size_t)n * 4, cudaMemcpyHostToDevice));
	return 0;
}

extern "C" int pc_moments_get(pc_model *m, int32_t i, float *mom1, float *mom2, int64_t n) {
	PC_TRY(check_param(m, i, n, "pc_moments_get"));
	PC_TRY(check_trains(m, i, "pc_moments_get"));
	if ((!mom1 || !mom2) && n) return fail("pc_moments_get: null destination");
	PC_TRY(set_device(m));
	PC_CUDA(cudaMemcpy(mom1, m->m1 + m->t[i].off, (size_t)n * 4, cudaMemcpyDeviceToHost));
	PC_CUDA(cudaMemcpy(mom2, m->m2 + m->t[i].off, (size_t)n * 4, cudaMemcpyDeviceToHost));
	return 0;
}

extern "C" int pc_zero_grad(pc_model *m) {
	if (!m) return fail("pc_zero_grad: no model");
	PC_TRY(set_device(m));
	PC_CUDA(cudaMemset(m->g, 0, m->total * 4));
	return 0;
}

extern "C" int pc_forward(pc_model *m, const int32_t *tokens, int32_t t, const int32_t *rows, const int32_t *targets,
                          int32_t r, float *lp, float *ent, int32_t keep) {
	if (!m) return fail("pc_forward: no model");
	const pc_config &c = m->c;
	if (t <= 0 || !tokens) return fail("pc_forward: empty sequence");
	if (t > c.max_positions)
		return fail("pc_forward: sequence of %d tokens exceeds max_positions %d", t, c.max_positions);
	if (r < 0) return fail("pc_forward: %d scored rows", r);
	if (keep < 0 || keep > 2) return fail("pc_forward: keep %d is not 0, 1 or 2 (recompute)", keep);
	if (r > 0 && (!rows || !targets || !lp)) return fail("pc_forward: %d scored rows without rows, targets or lp", r);
	PC_TRY(check_tokens(c, tokens, t, "pc_forward"));
	for (int j = 0; j < r; j++) {
		if (rows[j] < 0 || rows[j] >= t) return fail("pc_forward: scored row %d is %d, outside 0..%d", j, rows[j], t - 1);
		if (targets[j] < 0 || targets[j] >= c.vocab)
			return fail("pc_forward: target %d of row %d outside vocabulary of %d", targets[j], j, c.vocab);
	}
	PC_TRY(set_device(m));
	Seq &s = keep ? m->kept : m->tmp;
	if (keep) s.valid = false;
	PC_TRY(ensure_seq(m, s, t, keep == 1 ? c.layers : 1));
	if (keep == 2) PC_TRY(ensure(m, s.inputs, (size_t)c.layers * round_rows(t) * c.hidden, "layer inputs"));
	PC_TRY(ensure_scored(m, s, r));
	PC_TRY(ensure_scratch(m, t, r, false));
	PC_CUDA(cudaMemcpy(s.tok.p, tokens, (size_t)t * 4, cudaMemcpyHostToDevice));
	if (r > 0) {
		/* Where rows repeat, the backward copies the last one's gradient, as lib/model does. */
		std::vector<int32_t> last(r, 0);
		std::vector<char> seen(t, 0);
		for (int j = r - 1; j >= 0; j--)
			if (!seen[rows[j]]) {
				seen[rows[j]] = 1;
				last[j] = 1;
			}
		PC_CUDA(cudaMemcpy(s.rows.p, rows, (size_t)r * 4, cudaMemcpyHostToDevice));
		PC_CUDA(cudaMemcpy(s.tgt.p, targets, (size_t)r * 4, cudaMemcpyHostToDevice));
		PC_CUDA(cudaMemcpy(s.keep.p, last.data(), (size_t)r * 4, cudaMemcpyHostToDevice));
	}
	if (keep) {
		/* Links between the positions of each token, for the embedding gradient. */
		std::vector<int32_t> next(t), firsts;
		std::unordered_map<int32_t, int32_t> after;
		for (int i = t - 1; i >= 0; i--) {
			auto it = after.find(tokens[i]);
			next[i] = it == after.end() ? -1 : it->second;
			after[tokens[i]] = i;
		}
		firsts.reserve(after.size());
		for (int i = 0; i < t; i++)
			if (after[tokens[i]] == i) firsts.push_back(i);
		PC_CUDA(cudaMemcpy(s.next.p, next.data(), (size_t)t * 4, cudaMemcpyHostToDevice));
		PC_CUDA(cudaMemcpy(s.firsts.p, firsts.data(), firsts.size() * 4, cudaMemcpyHostToDevice));
		s.nfirst = (int)firsts.size();
	}
	PC_TRY(forward_layers(m, s, t, keep));
	PC_TRY(score_rows(m, s, r));
	if (r > 0) {
		PC_CUDA(cudaMemcpy(lp, s.lp.p, (size_t)r * 4, cudaMemcpyDeviceToHost));
		if (ent) PC_CUDA(cudaMemcpy(ent, s.ent.p, (size_t)r * 4, cudaMemcpyDeviceToHost));
	} else {
		PC_CUDA(cudaDeviceSynchronize());
	}
	s.T = t;
	s.R = r;
	s.recomputed = keep == 2;
	s.lora_on = m->lora_on;
	if (keep) s.valid = true;
	return 0;
}

extern "C" int pc_backward(pc_model *m, const float *dlp) {
	if (!m) return fail("pc_backward: no model");
	Seq &s = m->kept;
	if (!s.valid) return fail("pc_backward: no kept forward (call pc_forward with keep first)");
	const pc_config &c = m->c;
	int T = s.T, R = s.R, H = c.hidden, I = c.intermediate, V = c.vocab, qd = qdim(c), kd = kvdim(c);
	if (R > 0 && !dlp) return fail("pc_backward: no weights for %d scored rows", R);
	if (s.lora_on != m->lora_on)
		return fail("pc_backward: the kept forward ran with the adapter %s, now it is %s", s.lora_on ? "on" : "off",
		            m->lora_on ? "on" : "off");
	PC_TRY(set_device(m));
	Back &b = m->bk;
	size_t Tc = round_rows(T), Rc = round_rows(R);
	PC_TRY(ensure(m, b.dx, Tc * H, "backward"));
	PC_TRY(ensure(m, b.dn, Tc * H, "backward"));
	PC_TRY(ensure(m, b.dxnf, Tc * H, "backward"));
	PC_TRY(ensure(m, b.dh, Tc * I, "backward"));
	PC_TRY(ensure(m, b.dg, Tc * I, "backward"));
	PC_TRY(ensure(m, b.du, Tc * I, "backward"));
	PC_TRY(ensure(m, b.datt, Tc * qd, "backward"));
	PC_TRY(ensure(m, b.dq, Tc * qd, "backward"));
	PC_TRY(ensure(m, b.dk, Tc * kd, "backward"));
	PC_TRY(ensure(m, b.dv, Tc * kd, "backward"));
	PC_TRY(ensure(m, b.dsel, Rc * H, "backward"));
	PC_TRY(ensure(m, b.dlp, Rc, "backward"));
	PC_TRY(ensure_scratch(m, T, R, true));
	if (c.lora_rank > 0) PC_TRY(ensure(m, b.ldu, Tc * c.lora_rank, "LoRA backward"));
	if (m->frozen)
		PC_TRY(ensure(m, b.gb, std::max(Tc * maxdim(c), R > 0 ? (size_t)logit_chunk(c, R) * V : 0), "backward"));
	cublasHandle_t h = m->blas;
	float *dx = b.dx.p, *dn = b.dn.p;
	PC_CUDA(cudaMemsetAsync(dx, 0, (size_t)T * H * 4, stream()));
	if (R > 0) {
		PC_CUDA(cudaMemcpy(b.dlp.p, dlp, (size_t)R * 4, cudaMemcpyHostToDevice));
		PC_CUDA(cudaMemsetAsync(b.dxnf.p, 0, (size_t)T * H * 4, stream()));
		PC_TRY(to_bf16(m->xb.p, s.sel.p, (size_t)R * H));
		int ch = logit_chunk(c, R);
		float *lg = m->logit.p;
		for (int j0 = 0; j0 < R; j0 += ch) {
			int nc = std::min(ch, R - j0);
			PC_TRY(gemm_bf16(h, false, true, nc, V, H, 1.0f, m->xb.p + (size_t)j0 * H, H, B(m, m->lm), H, 0.0f, lg, V));
			PC_TRY(log_softmax_backward(lg, lg, s.lse.p + j0, s.tgt.p + j0, b.dlp.p + j0, nc, V));
			if (trains(m, m->lm))
				PC_TRY(gemm(h, true, false, V, H, nc, 1.0f, lg, V, s.sel.p + (size_t)j0 * H, H, 1.0f, G(m, m->lm), H));
			if (m->t[m->lm].f32) {
				PC_TRY(gemm(h, false, false, nc, H, V, 1.0f, lg, V, W(m, m->lm), H, 0.0f, b.dsel.p + (size_t)j0 * H, H));
			} else { /* a frozen base (LoRA): the BF16 copy, the logits' gradient rounded to BF16 */
				PC_TRY(to_bf16(b.gb.p, lg, (size_t)nc * V));
				PC_TRY(gemm_bf16(h, false, false, nc, H, V, 1.0f, b.gb.p, V, B(m, m->lm), H, 0.0f,
				                 b.dsel.p + (size_t)j0 * H, H));
			}
		}
		PC_TRY(rows_scatter(b.dxnf.p, b.dsel.p, s.rows.p, s.keep.p, R, H));
		PC_TRY(rmsnorm_backward(dx, Gt(m, m->fnorm), b.dxnf.p, s.x.p, W(m, m->fnorm), s.invf.p, T, H, m->part.p));
	}
	for (int l = c.layers - 1; l >= 0; l--) {
		LayerAct &A = s.L[s.recomputed ? 0 : l];
		LayerIdx li = layer_idx(c, l);
		if (s.recomputed) { /* issue 60: the layer's forward again from its kept input */
			/* Its residual stream runs in dn, which holds nothing until this
			 * layer's MLP backward overwrites it; s.x keeps the last layer's
			 * output, which the final norm's backward reads, so that a second
			 * pc_backward of the same forward gives what the first gave (as
			 * with keep = 1). */
			float *xr = dn;
			PC_CUDA(cudaMemcpyAsync(xr, s.inputs.p + (size_t)l * T * H, (size_t)T * H * 4, cudaMemcpyDeviceToDevice,
			                        stream()));
			PC_TRY(layer_forward(m, A, xr, T, l, true));
		}
		/* MLP: x_out = xmid + h Down^T. */
		PC_TRY(linear_backward(m, b.dh.p, 0.0f, dx, A.h, T, li.down, -1));
		PC_TRY(swiglu_backward(b.dg.p, b.du.p, b.dh.p, A.g, A.u, (size_t)T * I));
		PC_TRY(linear_backward(m, dn, 0.0f, b.dg.p, A.xn2, T, li.gate, -1));
		PC_TRY(linear_backward(m, dn, 1.0f, b.du.p, A.xn2, T, li.up, -1));
		PC_TRY(rmsnorm_backward(dx, Gt(m, li.post), dn, A.xmid, W(m, li.post), A.inv2, T, H, m->part.p));
		/* Attention: xmid = xin + att O^T. */
		PC_TRY(linear_backward(m, b.datt.p, 0.0f, dx, A.att, T, li.o, -1));
		PC_CUDA(cudaMemsetAsync(b.dq.p, 0, (size_t)T * qd * 4, stream()));
		PC_CUDA(cudaMemsetAsync(b.dk.p, 0, (size_t)T * kd * 4, stream()));
		PC_CUDA(cudaMemsetAsync(b.dv.p, 0, (size_t)T * kd * 4, stream()));
		PC_TRY(attention_backward(h, b.dq.p, b.dk.p, b.dv.p, b.datt.p, A.q, A.k, A.v, A.att, A.lse, T, c.heads,
		                          c.kv_heads, c.head_dim, m->attS.p, m->dsc.p));
		PC_TRY(rope(b.dq.p, T, c.heads, c.head_dim, 0, nullptr, m->cos, m->sin, 1));
		PC_TRY(rope(b.dk.p, T, c.kv_heads, c.head_dim, 0, nullptr, m->cos, m->sin, 1));
		if (c.qk_norm) { /* Qwen3 (issue 60): through the head norms; datt, spent, holds the normed heads' gradient */
			PC_CUDA(cudaMemcpyAsync(b.datt.p, b.dq.p, (size_t)T * qd * 4, cudaMemcpyDeviceToDevice, stream()));
			PC_CUDA(cudaMemsetAsync(b.dq.p, 0, (size_t)T * qd * 4, stream()));
			PC_TRY(rmsnorm_backward(b.dq.p, Gt(m, li.qn), b.datt.p, A.qraw, W(m, li.qn), A.invq, T * c.heads, c.head_dim,
			                        m->part.p));
			PC_CUDA(cudaMemcpyAsync(b.datt.p, b.dk.p, (size_t)T * kd * 4, cudaMemcpyDeviceToDevice, stream()));
			PC_CUDA(cudaMemsetAsync(b.dk.p, 0, (size_t)T * kd * 4, stream()));
			PC_TRY(rmsnorm_backward(b.dk.p, Gt(m, li.kn), b.datt.p, A.kraw, W(m, li.kn), A.invk, T * c.kv_heads,
			                        c.head_dim, m->part.p));
		}
		PC_TRY(linear_backward(m, dn, 0.0f, b.dq.p, A.xn1, T, li.q, li.qb));
		PC_TRY(linear_backward(m, dn, 1.0f, b.dk.p, A.xn1, T, li.k, li.kb));
		PC_TRY(linear_backward(m, dn, 1.0f, b.dv.p, A.xn1, T, li.v, li.vb));
		PC_TRY(rmsnorm_backward(dx, Gt(m, li.in), dn, A.xin, W(m, li.in), A.inv1, T, H, m->part.p));
	}
	if (trains(m, 0)) PC_TRY(embed_backward(G(m, 0), dx, s.tok.p, s.next.p, s.firsts.p, s.nfirst, H));
	PC_CUDA(cudaDeviceSynchronize());
	return 0;
}

extern "C" int pc_logits(pc_model *m, const int32_t *tokens, int32_t t, float *logits) {
	if (!m) return fail("pc_logits: no model");
	const pc_config &c = m->c;
	if (t <= 0 || !tokens) return fail("pc_logits: empty sequence");
	if (!logits) return fail("pc_logits: null output");
	if (t > c.max_positions)
		return fail("pc_logits: sequence of %d tokens exceeds max_positions %d", t, c.max_positions);
	PC_TRY(check_tokens(c, tokens, t, "pc_logits"));
	PC_TRY(set_device(m));
	Seq &s = m->tmp;
	PC_TRY(ensure_seq(m, s, t, 1));
	PC_TRY(ensure_scratch(m, t, t, false));
	PC_CUDA(cudaMemcpy(s.tok.p, tokens, (size_t)t * 4, cudaMemcpyHostToDevice));
	PC_TRY(forward_layers(m, s, t, 0));
	int H = c.hidden, V = c.vocab;
	PC_TRY(to_bf16(m->xb.p, s.xnf.p, (size_t)t * H));
	int ch = logit_chunk(c, t);
	for (int j0 = 0; j0 < t; j0 += ch) {
		int nc = std::min(ch, t - j0);
		PC_TRY(gemm_bf16(m->blas, false, true, nc, V, H, 1.0f, m->xb.p + (size_t)j0 * H, H, B(m, m->lm), H, 0.0f,
		                 m->logit.p, V));
		PC_CUDA(cudaMemcpy(logits + (size_t)j0 * V, m->logit.p, (size_t)nc * V * 4, cudaMemcpyDeviceToHost));
	}
	return 0;
}

extern "C" int pc_clip_grad_norm(pc_model *m, double max_norm, double *norm) {
	if (!m || !norm) return fail("pc_clip_grad_norm: null argument");
	PC_TRY(set_device(m));
	double ss = 0;
	PC_TRY(sum_squares(m->g, m->total, m->norm.p, &ss));
	double n = sqrt(ss);
	*norm = n;
	if (max_norm > 0 && n > max_norm) {
		PC_TRY(scale(m->g, m->total, (float)(max_norm / (n + 1e-6))));
		PC_CUDA(cudaDeviceSynchronize());
	}
	return 0;
}

extern "C" int pc_adamw_step(pc_model *m, const pc_adamw *hp, const uint8_t *decay) {
	if (!m || !hp) return fail("pc_adamw_step: null argument");
	PC_TRY(set_device(m));
	for (size_t i = 0; i < m->t.size(); i++) {
		const TensorInfo &t = m->t[i];
		if (!trains(m, (int)i)) continue; /* LoRA's frozen base */
		float wd = decay && decay[i] ? hp->weight_decay : 0.0f;
		PC_TRY(adamw(m->w + t.off, m->g + t.off, m->m1 + t.off, m->m2 + t.off, t.n, hp, wd,
		             t.boff >= 0 ? m->wb + t.boff : nullptr));
	}
	PC_CUDA(cudaDeviceSynchronize());
	return 0;
}

extern "C" int pc_adapter_enable(pc_model *m, int32_t on) {
	if (!m) return fail("pc_adapter_enable: no model");
	if (!m->frozen) return fail("pc_adapter_enable: the model has no LoRA adapter");
	if (on != 0 && on != 1) return fail("pc_adapter_enable: %d is not 0 or 1", on);
	if (m->lora_on != (on == 1)) {
		m->lora_on = on == 1;
		m->gen++; /* a captured decoding step launched (or skipped) the adapter's products */
	}
	return 0;
}

/* Decoders. */

extern "C" int pc_decoder_new(pc_model *m, int32_t capacity, pc_decoder **out) {
	if (!m || !out) return fail("pc_decoder_new: null argument");
	*out = nullptr;
	if (capacity <= 0 || capacity > m->c.max_positions)
		return fail("pc_decoder_new: capacity %d outside 1..%d (max_positions)", capacity, m->c.max_positions);
	PC_TRY(set_device(m));
	pc_decoder *d = new pc_decoder();
	d->m = m;
	d->cap = capacity;
	d->bytes = (size_t)m->c.layers * capacity * kvdim(m->c) * sizeof(float);
	uint64_t gen = m->gen; /* caches are reached through the batch layout, not captured */
	int rc = dalloc(m, (void **)&d->k, d->bytes, "KV cache");
	if (!rc) rc = dalloc(m, (void **)&d->v, d->bytes, "KV cache");
	m->gen = gen;
	if (rc) {
		dfree(m, d->k, d->bytes);
		delete d;
		return rc;
	}
	m->decs.push_back(d);
	*out = d;
	return 0;
}

extern "C" void pc_decoder_free(pc_decoder *d) {
	if (!d) return;
	pc_model *m = d->m;
	if (m) {
		cudaSetDevice(m->dev);
		dfree(m, d->k, d->bytes);
		dfree(m, d->v, d->bytes);
		m->decs.erase(std::find(m->decs.begin(), m->decs.end(), d));
	}
	delete d;
}

extern "C" int pc_decoder_clone(pc_decoder *d, pc_decoder **out) {
	if (!d || !out) return fail("pc_decoder_clone: null argument");
	if (!d->m) return fail("pc_decoder_clone: the decoder's model was freed");
	PC_TRY(pc_decoder_new(d->m, d->cap, out));
	pc_decoder *c = *out;
	if (d->len > 0) {
		size_t pitch = (size_t)d->cap * kvdim(d->m->c) * sizeof(float);
		size_t width = (size_t)d->len * kvdim(d->m->c) * sizeof(float);
		cudaError_t e = cudaMemcpy2D(c->k, pitch, d->k, pitch, width, d->m->c.layers, cudaMemcpyDeviceToDevice);
		if (e == cudaSuccess)
			e = cudaMemcpy2D(c->v, pitch, d->v, pitch, width, d->m->c.layers, cudaMemcpyDeviceToDevice);
		if (e == cudaSuccess) e = cudaDeviceSynchronize();
		if (e != cudaSuccess) {
			pc_decoder_free(c);
			*out = nullptr;
			return cuda_fail("pc_decoder_clone", "cudaMemcpy2D of the KV caches", e);
		}
	}
	c->len = d->len;
	return 0;
}

extern "C" int32_t pc_decoder_len(pc_decoder *d) { return d ? d->len : 0; }

extern "C" int pc_model_graphs(pc_model *m, int64_t *captures, int64_t *replays, int64_t *direct, int32_t *enabled) {
	if (!m || !captures || !replays || !direct || !enabled) return fail("pc_model_graphs: null argument");
	*captures = m->captures;
	*replays = m->replays;
	*direct = m->direct;
	*enabled = m->graphs ? 1 : 0;
	return 0;
}

extern "C" int pc_append_batch(pc_decoder *const *decs, int32_t n, const int32_t *tokens, const int32_t *offsets,
                               float *logits, const pc_sampling *s, const double *u, int32_t *tok, float *logp) {
	if (n <= 0) return n == 0 ? 0 : fail("pc_append_batch: %d decoders", n);
	if (!decs || !tokens || !offsets) return fail("pc_append_batch: null argument");
	if (!decs[0]) return fail("pc_append_batch: decoder 0 is null");
	pc_model *m = decs[0]->m;
	if (!m) return fail("pc_append_batch: decoder 0's model was freed");
	const pc_config &c = m->c;
	if (s && (!u || !tok || !logp)) return fail("pc_append_batch: sampling without u, tok or logp");
	for (int i = 0; i < n; i++) {
		pc_decoder *d = decs[i];
		if (!d) return fail("pc_append_batch: decoder %d is null", i);
		if (d->m != m) return fail("pc_append_batch: decoder %d belongs to another model", i);
		int len = offsets[i + 1] - offsets[i];
		if (len <= 0) return fail("pc_append_batch: decoder %d: empty append", i);
		if (d->len + len > d->cap)
			return fail("pc_append_batch: decoder %d: %d positions exceed its capacity %d", i, d->len + len, d->cap);
		if (d->len + len > c.max_positions)
			return fail("pc_append_batch: decoder %d: %d positions exceed max_positions %d", i, d->len + len,
			            c.max_positions);
		if (s && !(u[i] >= 0 && u[i] < 1)) return fail("pc_append_batch: uniform %g of decoder %d outside [0, 1)", u[i], i);
	}
	{
		std::vector<const pc_decoder *> sorted(decs, decs + n);
		std::sort(sorted.begin(), sorted.end());
		for (int i = 1; i < n; i++)
			if (sorted[i] == sorted[i - 1]) return fail("pc_append_batch: a decoder appears twice in the batch");
	}
	int base = offsets[0];
	int T = offsets[n] - base;
	PC_TRY(check_tokens(c, tokens + base, T, "pc_append_batch"));
	PC_TRY(set_device(m));
	int H = c.hidden, I = c.intermediate, V = c.vocab, qd = qdim(c), kd = kvdim(c);
	DecWork &w = m->dw;
	size_t Tc = round_rows(T), Nc = round_rows(n);
	PC_TRY(ensure(m, w.x, Tc * H, "decoding"));
	PC_TRY(ensure(m, w.xn, Tc * H, "decoding"));
	PC_TRY(ensure(m, w.inv, Tc, "decoding"));
	PC_TRY(ensure(m, w.q, Tc * qd, "decoding"));
	PC_TRY(ensure(m, w.att, Tc * qd, "decoding"));
	PC_TRY(ensure(m, w.kn, Tc * kd, "decoding"));
	if (c.qk_norm) PC_TRY(ensure(m, w.invh, Tc * c.heads, "decoding"));
	PC_TRY(ensure(m, w.vn, Tc * kd, "decoding"));
	PC_TRY(ensure(m, w.g, Tc * I, "decoding"));
	PC_TRY(ensure(m, w.u, Tc * I, "decoding"));
	PC_TRY(ensure(m, w.h, Tc * I, "decoding"));
	PC_TRY(ensure(m, w.last, Nc * H, "decoding"));
	PC_TRY(ensure(m, w.lastn, Nc * H, "decoding"));
	PC_TRY(ensure(m, w.invl, Nc, "decoding"));
	PC_TRY(ensure(m, w.logits, Nc * V, "decoding logits"));
	PC_TRY(ensure(m, w.logp, Nc, "decoding"));
	PC_TRY(ensure(m, w.tok, Tc, "decoding"));
	PC_TRY(ensure(m, w.rowdec, Tc, "decoding"));
	PC_TRY(ensure(m, w.rowpos, Tc, "decoding"));
	PC_TRY(ensure(m, w.lastrow, Nc, "decoding"));
	PC_TRY(ensure(m, w.otok, Nc, "decoding"));
	PC_TRY(ensure(m, w.info, Nc, "decoding"));
	PC_TRY(ensure(m, w.unif, Nc, "decoding"));
	PC_TRY(ensure(m, m->xb, std::max(Tc * maxdim(c), Nc * H), "BF16 inputs"));
	if (c.lora_rank > 0) {
		PC_TRY(ensure(m, m->lu, Tc * c.lora_rank, "LoRA"));
		PC_TRY(ensure(m, m->lub, Tc * c.lora_rank, "LoRA"));
	}
	if (s) {
		size_t ws = sample_workspace(n, V, s);
		if (ws == (size_t)-1) return fail("pc_append_batch: the sampling workspace size query failed");
		PC_TRY(ensure(m, w.sws, ws, "sampling"));
	}
	/* The batch layout, copied in once. */
	std::vector<int32_t> rowdec(T), rowpos(T), lastrow(n);
	std::vector<DecInfo> info(n);
	std::vector<int32_t> lens(n);
	for (int i = 0; i < n; i++) {
		pc_decoder *d = decs[i];
		lens[i] = d->len;
		info[i].k = d->k;
		info[i].v = d->v;
		info[i].cap = d->cap;
		info[i].pad = 0;
	}
	batch_layout(n, offsets, lens.data(), rowdec.data(), rowpos.data(), lastrow.data());
	PC_CUDA(cudaMemcpy(w.tok.p, tokens + base, (size_t)T * 4, cudaMemcpyHostToDevice));
	PC_CUDA(cudaMemcpy(w.rowdec.p, rowdec.data(), (size_t)T * 4, cudaMemcpyHostToDevice));
	PC_CUDA(cudaMemcpy(w.rowpos.p, rowpos.data(), (size_t)T * 4, cudaMemcpyHostToDevice));
	PC_CUDA(cudaMemcpy(w.lastrow.p, lastrow.data(), (size_t)n * 4, cudaMemcpyHostToDevice));
	PC_CUDA(cudaMemcpy(w.info.p, info.data(), (size_t)n * sizeof(DecInfo), cudaMemcpyHostToDevice));
	if (s) PC_CUDA(cudaMemcpy(w.unif.p, u, (size_t)n * sizeof(double), cudaMemcpyHostToDevice));
	bool want = logits || s;
	PC_TRY(decode_run(m, T, n, s, want));
	if (logits) PC_CUDA(cudaMemcpy(logits, w.logits.p, (size_t)n * V * 4, cudaMemcpyDeviceToHost));
	if (s) {
		PC_CUDA(cudaMemcpy(tok, w.otok.p, (size_t)n * 4, cudaMemcpyDeviceToHost));
		PC_CUDA(cudaMemcpy(logp, w.logp.p, (size_t)n * 4, cudaMemcpyDeviceToHost));
	}
	PC_CUDA(cudaDeviceSynchronize());
	for (int i = 0; i < n; i++) decs[i]->len += offsets[i + 1] - offsets[i];
	return 0;
}
