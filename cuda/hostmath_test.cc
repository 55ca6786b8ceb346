/* hostmath_test.cc: checks of cuda/hostmath.h with the host compiler (no
 * CUDA), run by lib/device's TestHostMath in make test:
 *   - the sizes: rows rounding, logits and attention chunks, score buffers
 *     (every chunk of every length up to a buffer's size fits in it), the
 *     kept activations' layout (disjoint, aligned, the size allocated), the
 *     sort's int limit;
 *   - the batch layout of pc_append_batch and the CUDA graph key;
 *   - gemm.cu's row-major to column-major mapping, executed by a host
 *     reference of cuBLAS's column-major cublasGemmEx and
 *     cublasGemmStridedBatchedEx, against a plain row-major product, for
 *     every transpose and padded leading dimensions;
 *   - attention's strided-batch plan (attention.cu), executed with the same
 *     reference and host versions of its softmax and gradient kernels,
 *     against a direct float64 causal grouped-query attention forward and
 *     backward, over several chunks of query rows.
 * Prints one line per group and exits 1 on the first failing group.
 * -DPLANT_GEMM and -DPLANT_ATT plant a wrong mapping and a wrong stride
 * (TestHostMath shows the checks fail on them). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "hostmath.h"

using namespace pc;

static int failures = 0;
static std::string group;

#define CHECK(cond, ...)                                                                                               \
	do {                                                                                                               \
		if (!(cond)) {                                                                                                 \
			if (failures < 10) {                                                                                       \
				fprintf(stderr, "hostmath: %s: ", group.c_str());                                                      \
				fprintf(stderr, __VA_ARGS__);                                                                          \
				fprintf(stderr, "\n");                                                                                 \
			}                                                                                                          \
			failures++;                                                                                                \
		}                                                                                                              \
	} while (0)

static void done(const char *what) {
	if (failures) {
		fprintf(stderr, "hostmath: FAIL: %s (%d failed checks)\n", what, failures);
		exit(1);
	}
	printf("hostmath: ok: %s\n", what);
}

/* cuBLAS's column-major product on the host: C = alpha op(A) op(B) + beta
 * C, element (i, j) of a matrix with leading dimension ld at i + j*ld,
 * batch entry b at offset b*stride. */
static void col_gemm(bool ta, bool tb, int m, int n, int k, float alpha, const float *A, int lda, long long sa,
                     const float *B, int ldb, long long sb, float beta, float *C, int ldc, long long sc, int batch) {
	for (int b = 0; b < batch; b++) {
		const float *a = A + b * sa, *bb = B + b * sb;
		float *c = C + b * sc;
		for (int j = 0; j < n; j++)
			for (int i = 0; i < m; i++) {
				double s = 0;
				for (int p = 0; p < k; p++) {
					double x = ta ? a[p + (size_t)i * lda] : a[i + (size_t)p * lda];
					double y = tb ? bb[j + (size_t)p * ldb] : bb[p + (size_t)j * ldb];
					s += x * y;
				}
				float *e = c + i + (size_t)j * ldc;
				*e = (float)(alpha * s + (beta == 0 ? 0.0 : beta * (double)*e));
			}
	}
}

/* gemm.cu's call: the mapping, then the column-major reference. */
static void mapped_gemm(bool ta, bool tb, int m, int n, int k, float alpha, const float *a, int lda, long long sa,
                        const float *b, int ldb, long long sb, float beta, float *c, int ldc, long long sc, int batch) {
	ColGemm g = rowmajor_gemm(ta, tb, m, n, k, lda, sa, ldb, sb, ldc, sc);
#ifdef PLANT_GEMM
	std::swap(g.lda, g.ldb); /* the operands swapped but not their leading dimensions */
#endif
	const float *A = g.a == 0 ? a : b, *B = g.b == 0 ? a : b;
	col_gemm(g.ta, g.tb, g.m, g.n, g.k, alpha, A, g.lda, g.sa, B, g.ldb, g.sb, beta, c, g.ldc, g.sc, batch);
}

static void check_sizes() {
	group = "sizes";
	CHECK(round_rows(0) == 256 && round_rows(1) == 256 && round_rows(256) == 256 && round_rows(257) == 512,
	      "round_rows");
	CHECK(logit_chunk(151936, 1000) == 441, "logit_chunk(151936, 1000) = %d, want 441", logit_chunk(151936, 1000));
	CHECK(logit_chunk(151936, 17) == 17, "logit_chunk at 17 rows");
	CHECK(logit_chunk(1 << 30, 5) == 1, "logit_chunk of a vocabulary above the budget");
	for (int vocab : {1, 7, 6000, 151936, 152064})
		for (int R = 1; R < 3000; R += 37) {
			int ch = logit_chunk(vocab, R);
			CHECK(ch >= 1 && ch <= R && (size_t)ch * vocab <= std::max(LOGIT_BUDGET, (size_t)vocab), "logit_chunk(%d, %d) = %d",
			      vocab, R, ch);
		}
	CHECK(ld_keys(1) == 8 && ld_keys(8) == 8 && ld_keys(9) == 16, "ld_keys");
	for (int kv : {1, 2, 4, 8})
		for (int past : {0, 1, 300, 4000})
			for (int T : {1, 7, 255, 256, 511, 512, 513, 700, 1100, 4096, 8192, 32768}) {
				int Tc = (int)round_rows(T);
				size_t buf = attention_scratch(Tc, past, kv); /* what model.cu allocates (past 0) and ops.cu */
				CHECK(attention_scratch(T, past, kv) <= buf, "scratch not monotonic at T=%d", T);
				int ch = att_chunk_rows(T, past, kv);
				CHECK(ch >= 1 && ch <= ATT_MAX_ROWS && ch <= T, "att_chunk_rows(%d, %d, %d) = %d", T, past, kv, ch);
				for (int i0 = 0; i0 < T; i0 += ch) {
					AttChunk c = att_chunk(i0, T, past, ch, 0);
					CHECK(c.nr >= 1 && c.i0 + c.nr <= T && c.keys == past + i0 + c.nr && c.ld >= c.keys && c.ld % 8 == 0,
					      "chunk at %d of %d", i0, T);
					CHECK((size_t)kv * c.nr * c.ld <= buf, "chunk at %d of T=%d past=%d kv=%d: %zu floats in a buffer of %zu",
					      i0, T, past, kv, (size_t)kv * c.nr * c.ld, buf);
				}
			}
	/* The last two are Qwen3 shapes (head norms; 4B: head_dim 128 over hidden 2560). */
	Dims shapes[] = {{128, 384, 4, 2, 32, 0},      {896, 4864, 14, 2, 64, 0},    {1536, 8960, 12, 2, 128, 0},
	                 {3584, 18944, 28, 4, 128, 0}, {256, 768, 4, 2, 96, 1},      {2560, 9728, 32, 8, 128, 1}};
	for (const Dims &d : shapes)
		for (size_t C : {256, 512, 4096}) {
			SeqLayout L = seq_layout(d, C);
			size_t off[] = {L.xin, L.xn1,  L.q,    L.k,    L.v,    L.att,  L.xmid, L.xn2, L.g, L.u,
			                L.h,   L.lse,  L.inv1, L.inv2, L.qraw, L.kraw, L.invq, L.invk, L.end};
			size_t qd = (size_t)d.heads * d.head_dim, kd = (size_t)d.kv_heads * d.head_dim, n = d.qk_norm ? 1 : 0;
			size_t len[] = {C * d.hidden, C * d.hidden, C * qd, C * kd, C * kd, C * qd, C * d.hidden, C * d.hidden,
			                C * d.intermediate, C * d.intermediate, C * d.intermediate, C * d.heads, C, C,
			                n * C * qd, n * C * kd, n * C * d.heads, n * C * d.kv_heads};
			for (int i = 0; i < 18; i++) {
				CHECK(off[i] + len[i] == off[i + 1], "layout: array %d overlaps or leaves a gap", i);
				CHECK(off[i] % 64 == 0, "layout: array %d at %zu not 256-byte aligned", i, off[i]);
			}
			CHECK(L.end == C * slot_floats_per_row(d), "layout: %zu floats, %zu allocated", L.end, C * slot_floats_per_row(d));
		}
	CHECK(sort_items_fit(14134, 151936) && !sort_items_fit(14135, 151936), "sort_items_fit at Qwen's vocabulary");
	CHECK(sort_items_fit(1, INT_MAX) && !sort_items_fit(2, INT_MAX) && !sort_items_fit(-1, 5), "sort_items_fit edges");
	CHECK(!sort_items_fit(65536, 65536), "sort_items_fit: 2^32 items (an int product wraps to 0)");
	done("sizes (rows, logits and attention chunks, score buffers, activation layout, sort limit)");
}

static void check_layout_and_keys() {
	group = "batch layout";
	std::mt19937 rng(3);
	for (int trial = 0; trial < 200; trial++) {
		int n = 1 + rng() % 9, base = rng() % 5;
		std::vector<int32_t> off(n + 1), lens(n);
		off[0] = base;
		for (int i = 0; i < n; i++) {
			off[i + 1] = off[i] + 1 + rng() % 6;
			lens[i] = rng() % 50;
		}
		int T = off[n] - base;
		std::vector<int32_t> rd(T, -1), rp(T, -1), lr(n, -1);
		batch_layout(n, off.data(), lens.data(), rd.data(), rp.data(), lr.data());
		int r = 0;
		for (int i = 0; i < n; i++) {
			for (int j = 0; j < off[i + 1] - off[i]; j++, r++)
				CHECK(rd[r] == i && rp[r] == lens[i] + j, "row %d: decoder %d position %d", r, rd[r], rp[r]);
			CHECK(lr[i] == r - 1, "decoder %d's last row %d, want %d", i, lr[i], r - 1);
		}
	}
	done("batch layout of pc_append_batch");
	group = "graph key";
	CHECK(sampling_mode(false, 1, 0.9f) == 0 && sampling_mode(true, 0, 0.9f) == 1 && sampling_mode(true, 1, 1) == 2 &&
	          sampling_mode(true, 1, 0.9f) == 3 && sampling_mode(true, 1, 0) == 2,
	      "sampling modes");
	GraphKey a = graph_key(8, 8, true, 0.7f, 0.9f, true, 5);
	CHECK(a == graph_key(8, 8, true, 0.7f, 0.9f, true, 5), "equal keys differ");
	CHECK(!(a == graph_key(7, 7, true, 0.7f, 0.9f, true, 5)), "batch size ignored");
	CHECK(!(a == graph_key(8, 8, true, 0.8f, 0.9f, true, 5)), "temperature ignored");
	CHECK(!(a == graph_key(8, 8, true, 0.7f, 0.95f, true, 5)), "top-p ignored");
	CHECK(!(a == graph_key(8, 8, true, 0.7f, 0.9f, true, 6)), "allocation generation ignored");
	CHECK(!(a == graph_key(8, 8, false, 0.7f, 0.9f, true, 5)), "sampling ignored");
	CHECK(graph_key(8, 8, false, 0.7f, 0.9f, true, 5) == graph_key(8, 8, false, 0.1f, 0.2f, true, 5),
	      "constants of no sampling are not part of the key");
	CHECK(graph_step(true, 4, 4) && !graph_step(true, 5, 4) && !graph_step(false, 4, 4), "graph_step");
	done("CUDA graph key");
}

static std::vector<float> randv(std::mt19937 &rng, size_t n, float sd = 1) {
	std::normal_distribution<float> d(0, sd);
	std::vector<float> v(n);
	for (auto &x : v) x = d(rng);
	return v;
}

static void check_gemm() {
	group = "gemm mapping";
	std::mt19937 rng(5);
	int shapes[][3] = {{1, 1, 1}, {3, 5, 7}, {17, 9, 33}, {6, 1, 4}};
	for (auto &s : shapes)
		for (int ta = 0; ta < 2; ta++)
			for (int tb = 0; tb < 2; tb++)
				for (int batch : {1, 3}) {
					int m = s[0], n = s[1], k = s[2];
					int ar = ta ? k : m, ac = ta ? m : k, br = tb ? n : k, bc = tb ? k : n;
					int lda = ac + 2, ldb = bc + 3, ldc = n + 1;
					long long sa = (long long)ar * lda + 5, sb = (long long)br * ldb + 1, sc = (long long)m * ldc + 2;
					auto a = randv(rng, sa * batch), b = randv(rng, sb * batch), c0 = randv(rng, sc * batch);
					auto got = c0, want = c0;
					mapped_gemm(ta, tb, m, n, k, 0.5f, a.data(), lda, sa, b.data(), ldb, sb, 1.5f, got.data(), ldc, sc, batch);
					for (int q = 0; q < batch; q++)
						for (int i = 0; i < m; i++)
							for (int j = 0; j < n; j++) {
								double x = 0;
								for (int p = 0; p < k; p++) {
									double av = ta ? a[q * sa + (size_t)p * lda + i] : a[q * sa + (size_t)i * lda + p];
									double bv = tb ? b[q * sb + (size_t)j * ldb + p] : b[q * sb + (size_t)p * ldb + j];
									x += av * bv;
								}
								float &w = want[q * sc + (size_t)i * ldc + j];
								w = (float)(0.5 * x + 1.5 * w);
							}
					double worst = 0;
					for (size_t i = 0; i < got.size(); i++) worst = std::max(worst, (double)fabsf(got[i] - want[i]));
					CHECK(worst < 1e-4, "m=%d n=%d k=%d ta=%d tb=%d batch=%d: max error %g", m, n, k, ta, tb, batch, worst);
				}
	done("gemm.cu's row-major mapping onto column-major cublasGemmEx / strided batched");
}

/* Attention through the plan, as attention.cu runs it. */
static void plan_gemm(const AttGemm &p, float *const *buf) {
	mapped_gemm(p.ta, p.tb, p.m, p.n, p.k, 1.0f, buf[p.x] + p.xoff, p.ldx, p.sx, buf[p.y] + p.yoff, p.ldy, p.sy, p.beta,
	            buf[p.z] + p.zoff, p.ldz, p.sz, p.batch);
}

static void plant(AttGemm *plan, int n) {
#ifdef PLANT_ATT
	for (int i = 0; i < n; i++) /* the queries' batch stride taken from the keys' (hd, not rep*hd) */
		if (plan[i].x == ATT_Q && plan[i].y == ATT_K) plan[i].sx = plan[i].sy;
#else
	(void)plan;
	(void)n;
#endif
}

static void plan_forward(std::vector<float> &out, std::vector<float> &lse, std::vector<float> q, std::vector<float> k,
                         std::vector<float> v, int rows, int past, int heads, int kv, int hd, int ch) {
	int rep = heads / kv;
	float scale = (float)(1.0 / sqrt((double)hd));
	std::vector<float> S(attention_scratch(rows, past, kv) + 64, NAN);
	float *buf[10] = {};
	buf[ATT_Q] = q.data();
	buf[ATT_K] = k.data();
	buf[ATT_V] = v.data();
	buf[ATT_S] = S.data();
	buf[ATT_OUT] = out.data();
	for (int i0 = 0; i0 < rows; i0 += ch)
		for (int r = 0; r < rep; r++) {
			AttChunk c = att_chunk(i0, rows, past, ch, r);
			AttGemm plan[2];
			att_forward_plan(c, past, heads, kv, hd, plan);
			plant(plan, 2);
			plan_gemm(plan[0], buf);
			for (int g = 0; g < kv; g++) /* k_att_softmax */
				for (int li = 0; li < c.nr; li++) {
					float *s = S.data() + ((size_t)g * c.nr + li) * c.ld;
					int valid = past + i0 + li + 1;
					float mx = -INFINITY;
					for (int j = 0; j < valid; j++) mx = std::max(mx, s[j]);
					double sum = 0;
					for (int j = 0; j < valid; j++) sum += (s[j] = expf(scale * (s[j] - mx)));
					for (int j = 0; j < c.keys; j++) s[j] = j < valid ? (float)(s[j] / sum) : 0.0f;
					lse[(size_t)(g * rep + r) * rows + i0 + li] = scale * mx + (float)log(sum);
				}
			plan_gemm(plan[1], buf);
		}
}

static void plan_backward(std::vector<float> &dq, std::vector<float> &dk, std::vector<float> &dv,
                          std::vector<float> dout, std::vector<float> q, std::vector<float> k, std::vector<float> v,
                          const std::vector<float> &out, const std::vector<float> &lse, int rows, int heads, int kv,
                          int hd, int ch) {
	int rep = heads / kv, qd = heads * hd;
	float scale = (float)(1.0 / sqrt((double)hd));
	size_t sz = attention_scratch(rows, 0, kv);
	std::vector<float> S(sz + 64, NAN), G(sz + 64, NAN), D((size_t)heads * rows);
	for (int i = 0; i < rows; i++) /* k_att_dot */
		for (int h = 0; h < heads; h++) {
			double a = 0;
			for (int e = 0; e < hd; e++) a += (double)dout[(size_t)i * qd + h * hd + e] * out[(size_t)i * qd + h * hd + e];
			D[(size_t)h * rows + i] = (float)a;
		}
	float *buf[10] = {};
	buf[ATT_Q] = q.data();
	buf[ATT_K] = k.data();
	buf[ATT_V] = v.data();
	buf[ATT_S] = S.data();
	buf[ATT_G] = G.data();
	buf[ATT_DOUT] = dout.data();
	buf[ATT_DQ] = dq.data();
	buf[ATT_DK] = dk.data();
	buf[ATT_DV] = dv.data();
	for (int i0 = 0; i0 < rows; i0 += ch)
		for (int r = 0; r < rep; r++) {
			AttChunk c = att_chunk(i0, rows, 0, ch, r);
			AttGemm plan[5];
			att_backward_plan(c, heads, kv, hd, plan);
			plant(plan, 5);
			plan_gemm(plan[0], buf);
			plan_gemm(plan[1], buf);
			for (int g = 0; g < kv; g++) /* k_att_grad */
				for (int li = 0; li < c.nr; li++) {
					size_t o = ((size_t)g * c.nr + li) * c.ld, hi = (size_t)(g * rep + r) * rows + i0 + li;
					int valid = i0 + li + 1;
					for (int j = 0; j < c.keys; j++) {
						float p = 0, ds = 0;
						if (j < valid) {
							p = expf(scale * S[o + j] - lse[hi]);
							ds = p * (G[o + j] - D[hi]) * scale;
						}
						S[o + j] = p;
						G[o + j] = ds;
					}
				}
			for (int j = 2; j < 5; j++) plan_gemm(plan[j], buf);
		}
}

/* Causal grouped-query attention and its backward in float64, directly. */
static void direct(const std::vector<float> &q, const std::vector<float> &k, const std::vector<float> &v,
                   const std::vector<float> &dout, int rows, int past, int heads, int kv, int hd, std::vector<double> &out,
                   std::vector<double> &dq, std::vector<double> &dk, std::vector<double> &dv) {
	int rep = heads / kv, qd = heads * hd, kd = kv * hd, keys = past + rows;
	double scale = 1 / sqrt((double)hd);
	out.assign((size_t)rows * qd, 0);
	dq.assign((size_t)rows * qd, 0);
	dk.assign((size_t)keys * kd, 0);
	dv.assign((size_t)keys * kd, 0);
	for (int h = 0; h < heads; h++) {
		int g = h / rep;
		for (int i = 0; i < rows; i++) {
			int n = past + i + 1;
			std::vector<double> p(n);
			double mx = -INFINITY, sum = 0;
			for (int j = 0; j < n; j++) {
				double s = 0;
				for (int e = 0; e < hd; e++) s += (double)q[(size_t)i * qd + h * hd + e] * k[(size_t)j * kd + g * hd + e];
				p[j] = s * scale;
				mx = std::max(mx, p[j]);
			}
			for (int j = 0; j < n; j++) sum += (p[j] = exp(p[j] - mx));
			for (int j = 0; j < n; j++) p[j] /= sum;
			for (int e = 0; e < hd; e++) {
				double a = 0;
				for (int j = 0; j < n; j++) a += p[j] * v[(size_t)j * kd + g * hd + e];
				out[(size_t)i * qd + h * hd + e] = a;
			}
			if (dout.empty()) continue;
			double D = 0;
			for (int e = 0; e < hd; e++) D += (double)dout[(size_t)i * qd + h * hd + e] * out[(size_t)i * qd + h * hd + e];
			for (int j = 0; j < n; j++) {
				double dp = 0;
				for (int e = 0; e < hd; e++) {
					dp += (double)dout[(size_t)i * qd + h * hd + e] * v[(size_t)j * kd + g * hd + e];
					dv[(size_t)j * kd + g * hd + e] += p[j] * dout[(size_t)i * qd + h * hd + e];
				}
				double ds = p[j] * (dp - D) * scale;
				for (int e = 0; e < hd; e++) {
					dq[(size_t)i * qd + h * hd + e] += ds * k[(size_t)j * kd + g * hd + e];
					dk[(size_t)j * kd + g * hd + e] += ds * q[(size_t)i * qd + h * hd + e];
				}
			}
		}
	}
}

static double rel(const std::vector<float> &got, const std::vector<double> &want) {
	double d = 0, w = 0;
	for (size_t i = 0; i < want.size(); i++) {
		double e = got[i] - want[i];
		if (std::isnan(e)) return INFINITY;
		d = std::max(d, fabs(e));
		w = std::max(w, fabs(want[i]));
	}
	return d / (w ? w : 1);
}

static void check_attention() {
	group = "attention plan";
	std::mt19937 rng(7);
	struct Shape {
		int heads, kv, hd, rows, past, ch;
	} shapes[] = {{2, 2, 4, 5, 0, 5}, {4, 2, 8, 19, 0, 8}, {6, 2, 8, 17, 3, 5}, {6, 1, 4, 33, 0, 10},
	              {12, 2, 8, 40, 0, 16}, {4, 2, 8, 600, 0, 0}};
	for (const Shape &s : shapes) {
		int qd = s.heads * s.hd, kd = s.kv * s.hd, keys = s.past + s.rows;
		int ch = s.ch ? s.ch : att_chunk_rows(s.rows, s.past, s.kv); /* the last: the library's own chunks of 512 */
		auto q = randv(rng, (size_t)s.rows * qd, 1.5f), k = randv(rng, (size_t)keys * kd), v = randv(rng, (size_t)keys * kd);
		auto dout = randv(rng, (size_t)s.rows * qd);
		std::vector<double> wo, wdq, wdk, wdv;
		direct(q, k, v, s.past ? std::vector<float>() : dout, s.rows, s.past, s.heads, s.kv, s.hd, wo, wdq, wdk, wdv);
		std::vector<float> out((size_t)s.rows * qd, NAN), lse((size_t)s.heads * s.rows, NAN);
		plan_forward(out, lse, q, k, v, s.rows, s.past, s.heads, s.kv, s.hd, ch);
		double e = rel(out, wo);
		CHECK(e < 1e-4, "forward heads=%d kv=%d hd=%d rows=%d past=%d chunk=%d: error %g", s.heads, s.kv, s.hd, s.rows,
		      s.past, ch, e);
		if (s.past) continue;
		std::vector<float> dq((size_t)s.rows * qd, 0), dk((size_t)keys * kd, 0), dv((size_t)keys * kd, 0);
		plan_backward(dq, dk, dv, dout, q, k, v, out, lse, s.rows, s.heads, s.kv, s.hd, ch);
		double eq = rel(dq, wdq), ek = rel(dk, wdk), ev = rel(dv, wdv);
		CHECK(eq < 1e-3 && ek < 1e-3 && ev < 1e-3, "backward heads=%d kv=%d hd=%d rows=%d chunk=%d: dq %g dk %g dv %g",
		      s.heads, s.kv, s.hd, s.rows, ch, eq, ek, ev);
	}
	done("attention's strided-batch plan (forward and backward, chunks, grouped-query) against direct attention");
}

/* LoRA's index space (issue 60): walking layers and projections in the
 * order lib/model lists an adapter's tensors (layer by layer, q k v o gate
 * up down, A then B) meets lora_index's A at every targeted projection,
 * for every target set, and ends at lora_tensors. */
static void check_lora() {
	group = "LoRA index space";
	for (int targets = 1; targets < 128; targets++)
		for (int nbase = 0; nbase < 40; nbase += 13) {
			int next = nbase, layers = 3;
			for (int l = 0; l < layers; l++)
				for (int j = 0; j < 7; j++) {
					int got = lora_index(nbase, targets, l, j);
					if (!(targets >> j & 1)) {
						CHECK(got == -1, "targets %d layer %d projection %d: %d, want -1", targets, l, j, got);
						continue;
					}
					CHECK(got == next, "targets %d layer %d projection %d: %d, want %d", targets, l, j, got, next);
					next += 2;
				}
			CHECK(next - nbase == lora_tensors(layers, targets), "targets %d: %d tensors, lora_tensors %d", targets,
			      next - nbase, lora_tensors(layers, targets));
		}
	CHECK(lora_index(0, 127, 0, 7) == -1 && lora_index(0, 127, 0, -1) == -1, "projections outside 0..6");
	done("LoRA adapters' indices after the base's tensors");
}

int main() {
	check_lora();
	check_sizes();
	check_layout_and_keys();
	check_gemm();
	check_attention();
	return 0;
}
