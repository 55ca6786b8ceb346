/* ops.cu: the kernel checks pc_op_* of pats_cuda.h. Each copies its host
 * arrays to device 0, runs one kernel family exactly as the model does
 * (the same functions), and copies the outputs back; they allocate per
 * call and exist for the parity suite, not for speed. Outputs documented
 * as accumulating (RMSNormBackward's dx and dw, AttentionBackward's dq, dk
 * and dv) are copied in first. pc_op_matmul multiplies FP32 operands on
 * tensor cores in BF16 with FP32 accumulation (gemm.cu); pc_op_attention
 * is the whole-sequence path (batched GEMMs and softmax), which also
 * handles past > 0. */
#include <string.h>

#include <vector>

#include "common.h"

using namespace pc;

namespace {

/* Device buffers of one call, freed when it returns. */
struct Mem {
	std::vector<void *> ps;
	~Mem() {
		for (void *p : ps) cudaFree(p);
	}
	template <class T> int get(T **p, size_t n, const char *what) {
		*p = nullptr;
		size_t bytes = n * sizeof(T);
		cudaError_t e = cudaMalloc((void **)p, bytes ? bytes : 256);
		if (e != cudaSuccess) {
			(void)cudaGetLastError();
			*p = nullptr;
			return fail("cudaMalloc of %zu bytes for %s: %s", bytes, what, cudaGetErrorString(e));
		}
		ps.push_back(*p);
		return 0;
	}
	/* A device copy of n host elements (src may be null when n is 0). */
	template <class T> int in(T **p, const T *src, size_t n, const char *what) {
		PC_TRY(get(p, n, what));
		if (n) {
			cudaError_t e = cudaMemcpy(*p, src, n * sizeof(T), cudaMemcpyHostToDevice);
			if (e != cudaSuccess) return cuda_fail(what, "cudaMemcpy to the device", e);
		}
		return 0;
	}
};

template <class T> int out(T *dst, const T *src, size_t n, const char *what) {
	if (!n) return 0;
	cudaError_t e = cudaMemcpy(dst, src, n * sizeof(T), cudaMemcpyDeviceToHost);
	if (e != cudaSuccess) return cuda_fail(what, "cudaMemcpy to the host (or an earlier kernel)", e);
	return 0;
}

/* A cuBLAS handle for one call, destroyed when it returns (a handle kept
 * per thread would leak one per host thread that ever ran a check). */
struct Blas {
	cublasHandle_t h = nullptr;
	~Blas() {
		if (h) cublasDestroy(h);
	}
};

int device0(Blas *b) {
	PC_CUDA(cudaSetDevice(0));
	set_stream(0);
	if (b && !b->h) PC_CUBLAS(cublasCreate(&b->h));
	return 0;
}

int check_heads(const char *what, int rows, int heads, int kv_heads, int hd) {
	if (rows < 0 || heads <= 0 || kv_heads <= 0 || hd <= 0 || heads % kv_heads)
		return fail("%s: bad shape (rows %d, heads %d, kv_heads %d, head_dim %d)", what, rows, heads, kv_heads, hd);
	return 0;
}

} // namespace

extern "C" int pc_op_matmul(int32_t trans_a, int32_t trans_b, int32_t m, int32_t n, int32_t k, float alpha,
                            const float *a, int32_t lda, const float *b, int32_t ldb, float beta, float *c,
                            int32_t ldc) {
	const char *what = "pc_op_matmul";
	if (m < 0 || n < 0 || k < 0) return fail("%s: negative size %d x %d x %d", what, m, n, k);
	if (m == 0 || n == 0) return 0;
	if (ldc < n) return fail("%s: ldc %d below n %d", what, ldc, n);
	size_t nc = (size_t)(m - 1) * ldc + n;
	if (k == 0 || alpha == 0.0f) { /* as lib/gemm: C = beta*C, zero when beta is 0 */
		if (beta == 1.0f) return 0;
		for (int i = 0; i < m; i++)
			for (int j = 0; j < n; j++) {
				float *e = c + (size_t)i * ldc + j;
				*e = beta == 0.0f ? 0.0f : *e * beta;
			}
		return 0;
	}
	int acols = trans_a ? m : k, arows = trans_a ? k : m;
	int bcols = trans_b ? k : n, brows = trans_b ? n : k;
	if (lda < acols || ldb < bcols) return fail("%s: leading dimension below the row length", what);
	size_t na = (size_t)(arows - 1) * lda + acols, nb = (size_t)(brows - 1) * ldb + bcols;
	Blas bl;
	PC_TRY(device0(&bl));
	cublasHandle_t h = bl.h;
	Mem mem;
	float *da, *db, *dc;
	PC_TRY(mem.in(&da, a, na, what));
	PC_TRY(mem.in(&db, b, nb, what));
	PC_TRY(mem.in(&dc, (const float *)c, nc, what));
	PC_TRY(gemm(h, trans_a != 0, trans_b != 0, m, n, k, alpha, da, lda, db, ldb, beta, dc, ldc));
	return out(c, (const float *)dc, nc, what);
}

extern "C" int pc_op_rmsnorm(float *y, float *inv, const float *x, const float *w, int32_t rows, int32_t dim,
                             float eps) {
	const char *what = "pc_op_rmsnorm";
	if (rows < 0 || dim <= 0) return fail("%s: bad shape %d x %d", what, rows, dim);
	if (rows == 0) return 0;
	PC_TRY(device0(nullptr));
	Mem mem;
	size_t n = (size_t)rows * dim;
	float *dy, *dinv, *dx, *dw;
	PC_TRY(mem.get(&dy, n, what));
	PC_TRY(mem.get(&dinv, rows, what));
	PC_TRY(mem.in(&dx, x, n, what));
	PC_TRY(mem.in(&dw, w, dim, what));
	PC_TRY(rmsnorm(dy, dinv, dx, dw, rows, dim, eps, nullptr));
	PC_TRY(out(y, (const float *)dy, n, what));
	if (inv) PC_TRY(out(inv, (const float *)dinv, rows, what));
	return 0;
}

extern "C" int pc_op_rmsnorm_backward(float *dx, float *dw, const float *dy, const float *x, const float *w,
                                      const float *inv, int32_t rows, int32_t dim) {
	const char *what = "pc_op_rmsnorm_backward";
	if (rows < 0 || dim <= 0) return fail("%s: bad shape %d x %d", what, rows, dim);
	if (rows == 0) return 0;
	PC_TRY(device0(nullptr));
	Mem mem;
	size_t n = (size_t)rows * dim;
	float *ddx, *ddw, *ddy, *dxx, *dww, *dinv, *scratch;
	PC_TRY(mem.in(&ddx, (const float *)dx, n, what));
	PC_TRY(mem.in(&ddw, (const float *)dw, dim, what));
	PC_TRY(mem.in(&ddy, dy, n, what));
	PC_TRY(mem.in(&dxx, x, n, what));
	PC_TRY(mem.in(&dww, w, dim, what));
	PC_TRY(mem.in(&dinv, inv, rows, what));
	PC_TRY(mem.get(&scratch, colsum_scratch(rows, dim), what));
	PC_TRY(rmsnorm_backward(ddx, ddw, ddy, dxx, dww, dinv, rows, dim, scratch));
	PC_TRY(out(dx, (const float *)ddx, n, what));
	return out(dw, (const float *)ddw, dim, what);
}

extern "C" int pc_op_rope(float *x, int32_t rows, int32_t heads, int32_t head_dim, int32_t pos0, const float *cos,
                          const float *sin, int32_t npos, int32_t inverse) {
	const char *what = "pc_op_rope";
	if (rows < 0 || heads <= 0 || head_dim <= 0 || head_dim % 2 || pos0 < 0 || npos < 0)
		return fail("%s: bad shape (rows %d, heads %d, head_dim %d, pos0 %d, npos %d)", what, rows, heads, head_dim,
		            pos0, npos);
	if (pos0 + rows > npos) return fail("%s: positions %d..%d beyond the %d of the tables", what, pos0, pos0 + rows - 1, npos);
	if (rows == 0) return 0;
	PC_TRY(device0(nullptr));
	Mem mem;
	size_t n = (size_t)rows * heads * head_dim, nt = (size_t)npos * (head_dim / 2);
	float *dx, *dc, *ds;
	PC_TRY(mem.in(&dx, (const float *)x, n, what));
	PC_TRY(mem.in(&dc, cos, nt, what));
	PC_TRY(mem.in(&ds, sin, nt, what));
	PC_TRY(rope(dx, rows, heads, head_dim, pos0, nullptr, dc, ds, inverse));
	return out(x, (const float *)dx, n, what);
}

extern "C" int pc_op_attention(float *out_, float *lse, const float *q, const float *k, const float *v, int32_t rows,
                               int32_t past, int32_t heads, int32_t kv_heads, int32_t head_dim) {
	const char *what = "pc_op_attention";
	PC_TRY(check_heads(what, rows, heads, kv_heads, head_dim));
	if (past < 0) return fail("%s: past %d", what, past);
	if (rows == 0) return 0;
	Blas bl;
	PC_TRY(device0(&bl));
	cublasHandle_t h = bl.h;
	Mem mem;
	size_t nq = (size_t)rows * heads * head_dim, nk = (size_t)(past + rows) * kv_heads * head_dim;
	float *dq, *dk, *dv, *dout, *dlse, *scratch;
	PC_TRY(mem.in(&dq, q, nq, what));
	PC_TRY(mem.in(&dk, k, nk, what));
	PC_TRY(mem.in(&dv, v, nk, what));
	PC_TRY(mem.get(&dout, nq, what));
	PC_TRY(mem.get(&dlse, (size_t)heads * rows, what));
	PC_TRY(mem.get(&scratch, attention_scratch(rows, past, kv_heads), what));
	PC_TRY(attention_forward(h, dout, dlse, dq, dk, dv, rows, past, heads, kv_heads, head_dim, scratch));
	PC_TRY(out(out_, (const float *)dout, nq, what));
	if (lse) PC_TRY(out(lse, (const float *)dlse, (size_t)heads * rows, what));
	return 0;
}

extern "C" int pc_op_attention_backward(float *dq, float *dk, float *dv, const float *dout, const float *q,
                                        const float *k, const float *v, const float *o, const float *lse,
                                        int32_t rows, int32_t heads, int32_t kv_heads, int32_t head_dim) {
	const char *what = "pc_op_attention_backward";
	PC_TRY(check_heads(what, rows, heads, kv_heads, head_dim));
	if (rows == 0) return 0;
	Blas bl;
	PC_TRY(device0(&bl));
	cublasHandle_t h = bl.h;
	Mem mem;
	size_t nq = (size_t)rows * heads * head_dim, nk = (size_t)rows * kv_heads * head_dim;
	float *ddq, *ddk, *ddv, *ddout, *dq_, *dk_, *dv_, *dout_, *dlse, *scratch, *dsc;
	PC_TRY(mem.in(&ddq, (const float *)dq, nq, what));
	PC_TRY(mem.in(&ddk, (const float *)dk, nk, what));
	PC_TRY(mem.in(&ddv, (const float *)dv, nk, what));
	PC_TRY(mem.in(&ddout, dout, nq, what));
	PC_TRY(mem.in(&dq_, q, nq, what));
	PC_TRY(mem.in(&dk_, k, nk, what));
	PC_TRY(mem.in(&dv_, v, nk, what));
	PC_TRY(mem.in(&dout_, o, nq, what));
	PC_TRY(mem.in(&dlse, lse, (size_t)heads * rows, what));
	PC_TRY(mem.get(&scratch, 2 * attention_scratch(rows, 0, kv_heads), what));
	PC_TRY(mem.get(&dsc, (size_t)heads * rows, what));
	PC_TRY(attention_backward(h, ddq, ddk, ddv, ddout, dq_, dk_, dv_, dout_, dlse, rows, heads, kv_heads, head_dim,
	                          scratch, dsc));
	PC_TRY(out(dq, (const float *)ddq, nq, what));
	PC_TRY(out(dk, (const float *)ddk, nk, what));
	return out(dv, (const float *)ddv, nk, what);
}

extern "C" int pc_op_swiglu(float *h, const float *g, const float *u, int64_t n) {
	const char *what = "pc_op_swiglu";
	if (n < 0) return fail("%s: %lld elements", what, (long long)n);
	if (n == 0) return 0;
	PC_TRY(device0(nullptr));
	Mem mem;
	float *dh, *dg, *du;
	PC_TRY(mem.get(&dh, (size_t)n, what));
	PC_TRY(mem.in(&dg, g, (size_t)n, what));
	PC_TRY(mem.in(&du, u, (size_t)n, what));
	PC_TRY(swiglu(dh, dg, du, (size_t)n, nullptr));
	return out(h, (const float *)dh, (size_t)n, what);
}

extern "C" int pc_op_swiglu_backward(float *dg, float *du, const float *dh, const float *g, const float *u, int64_t n) {
	const char *what = "pc_op_swiglu_backward";
	if (n < 0) return fail("%s: %lld elements", what, (long long)n);
	if (n == 0) return 0;
	PC_TRY(device0(nullptr));
	Mem mem;
	float *ddg, *ddu, *ddh, *dg_, *du_;
	PC_TRY(mem.get(&ddg, (size_t)n, what));
	PC_TRY(mem.get(&ddu, (size_t)n, what));
	PC_TRY(mem.in(&ddh, dh, (size_t)n, what));
	PC_TRY(mem.in(&dg_, g, (size_t)n, what));
	PC_TRY(mem.in(&du_, u, (size_t)n, what));
	PC_TRY(swiglu_backward(ddg, ddu, ddh, dg_, du_, (size_t)n));
	PC_TRY(out(dg, (const float *)ddg, (size_t)n, what));
	return out(du, (const float *)ddu, (size_t)n, what);
}

static int check_targets(const char *what, const int32_t *target, int rows, int vocab) {
	for (int r = 0; r < rows; r++)
		if (target[r] < 0 || target[r] >= vocab)
			return fail("%s: target %d of row %d outside vocabulary of %d", what, target[r], r, vocab);
	return 0;
}

extern "C" int pc_op_log_softmax(float *lp, float *ent, float *lse, const float *logits, const int32_t *target,
                                 int32_t rows, int32_t vocab) {
	const char *what = "pc_op_log_softmax";
	if (rows < 0 || vocab <= 0) return fail("%s: bad shape %d x %d", what, rows, vocab);
	if (rows == 0) return 0;
	PC_TRY(check_targets(what, target, rows, vocab));
	PC_TRY(device0(nullptr));
	Mem mem;
	float *dlp, *dent, *dlse, *dlog;
	int32_t *dt;
	PC_TRY(mem.get(&dlp, rows, what));
	PC_TRY(mem.get(&dent, rows, what));
	PC_TRY(mem.get(&dlse, rows, what));
	PC_TRY(mem.in(&dlog, logits, (size_t)rows * vocab, what));
	PC_TRY(mem.in(&dt, target, rows, what));
	PC_TRY(log_softmax(dlp, dent, dlse, dlog, dt, rows, vocab));
	PC_TRY(out(lp, (const float *)dlp, rows, what));
	if (ent) PC_TRY(out(ent, (const float *)dent, rows, what));
	if (lse) PC_TRY(out(lse, (const float *)dlse, rows, what));
	return 0;
}

extern "C" int pc_op_log_softmax_backward(float *dlogits, const float *logits, const float *lse,
                                          const int32_t *target, const float *dlp, int32_t rows, int32_t vocab) {
	const char *what = "pc_op_log_softmax_backward";
	if (rows < 0 || vocab <= 0) return fail("%s: bad shape %d x %d", what, rows, vocab);
	if (rows == 0) return 0;
	PC_TRY(check_targets(what, target, rows, vocab));
	PC_TRY(device0(nullptr));
	Mem mem;
	size_t n = (size_t)rows * vocab;
	float *dd, *dlog, *dlse, *ddlp;
	int32_t *dt;
	PC_TRY(mem.get(&dd, n, what));
	PC_TRY(mem.in(&dlog, logits, n, what));
	PC_TRY(mem.in(&dlse, lse, rows, what));
	PC_TRY(mem.in(&dt, target, rows, what));
	PC_TRY(mem.in(&ddlp, dlp, rows, what));
	PC_TRY(log_softmax_backward(dd, dlog, dlse, dt, ddlp, rows, vocab));
	return out(dlogits, (const float *)dd, n, what);
}

extern "C" int pc_op_adamw(float *p, const float *g, float *m, float *v, int64_t n, const pc_adamw *h) {
	const char *what = "pc_op_adamw";
	if (n < 0 || !h) return fail("%s: bad arguments", what);
	if (n == 0) return 0;
	PC_TRY(device0(nullptr));
	Mem mem;
	float *dp, *dg, *dm, *dv;
	PC_TRY(mem.in(&dp, (const float *)p, (size_t)n, what));
	PC_TRY(mem.in(&dg, g, (size_t)n, what));
	PC_TRY(mem.in(&dm, (const float *)m, (size_t)n, what));
	PC_TRY(mem.in(&dv, (const float *)v, (size_t)n, what));
	PC_TRY(adamw(dp, dg, dm, dv, (size_t)n, h, h->weight_decay, nullptr));
	PC_TRY(out(p, (const float *)dp, (size_t)n, what));
	PC_TRY(out(m, (const float *)dm, (size_t)n, what));
	return out(v, (const float *)dv, (size_t)n, what);
}

extern "C" int pc_op_sample(const float *logits, int32_t vocab, const pc_sampling *s, double u, int32_t *tok,
                            float *logp) {
	const char *what = "pc_op_sample";
	if (vocab <= 0 || !s || !tok || !logp || !logits) return fail("%s: bad arguments", what);
	if (!(u >= 0 && u < 1)) return fail("%s: uniform %g outside [0, 1)", what, u);
	PC_TRY(device0(nullptr));
	Mem mem;
	float *dl, *dlogp;
	double *du;
	int32_t *dt;
	char *ws;
	size_t wsb = sample_workspace(1, vocab, s);
	if (wsb == (size_t)-1) return fail("%s: the sampling workspace size query failed", what);
	PC_TRY(mem.in(&dl, logits, vocab, what));
	PC_TRY(mem.in(&du, &u, 1, what));
	PC_TRY(mem.get(&dt, 1, what));
	PC_TRY(mem.get(&dlogp, 1, what));
	PC_TRY(mem.get(&ws, wsb, what));
	PC_TRY(sample_rows(dl, 1, vocab, s, du, dt, dlogp, ws));
	PC_TRY(out(tok, (const int32_t *)dt, 1, what));
	return out(logp, (const float *)dlogp, 1, what);
}

extern "C" int pc_op_decode_attention(float *out_, const float *q, const float *knew, const float *vnew, float *kcache,
                                      float *vcache, int32_t ndec, int32_t cap, const int32_t *rowdec,
                                      const int32_t *rowpos, int32_t rows, int32_t heads, int32_t kv_heads,
                                      int32_t head_dim) {
	const char *what = "pc_op_decode_attention";
	PC_TRY(check_heads(what, rows, heads, kv_heads, head_dim));
	if (ndec <= 0 || cap <= 0) return fail("%s: %d decoders of capacity %d", what, ndec, cap);
	if (head_dim > 256) return fail("%s: head_dim %d above 256", what, head_dim);
	if (rows == 0) return 0;
	for (int r = 0; r < rows; r++)
		if (rowdec[r] < 0 || rowdec[r] >= ndec || rowpos[r] < 0 || rowpos[r] >= cap)
			return fail("%s: row %d: decoder %d position %d outside %d decoders of capacity %d", what, r, rowdec[r],
			            rowpos[r], ndec, cap);
	PC_TRY(device0(nullptr));
	Mem mem;
	size_t kd = (size_t)kv_heads * head_dim, nq = (size_t)rows * heads * head_dim, nc = (size_t)ndec * cap * kd;
	float *dq, *dkn, *dvn, *dkc, *dvc, *dout;
	int32_t *drd, *drp;
	DecInfo *dinfo;
	PC_TRY(mem.in(&dq, q, nq, what));
	PC_TRY(mem.in(&dkn, knew, (size_t)rows * kd, what));
	PC_TRY(mem.in(&dvn, vnew, (size_t)rows * kd, what));
	PC_TRY(mem.in(&dkc, (const float *)kcache, nc, what));
	PC_TRY(mem.in(&dvc, (const float *)vcache, nc, what));
	PC_TRY(mem.in(&drd, rowdec, rows, what));
	PC_TRY(mem.in(&drp, rowpos, rows, what));
	PC_TRY(mem.get(&dout, nq, what));
	std::vector<DecInfo> info(ndec);
	for (int i = 0; i < ndec; i++) {
		info[i].k = dkc + (size_t)i * cap * kd;
		info[i].v = dvc + (size_t)i * cap * kd;
		info[i].cap = cap;
		info[i].pad = 0;
	}
	PC_TRY(mem.in(&dinfo, (const DecInfo *)info.data(), (size_t)ndec, what));
	PC_TRY(kv_store(dkn, dvn, drd, drp, dinfo, 0, rows, (int)kd));
	PC_TRY(attention_decode(dout, dq, drd, drp, dinfo, 0, rows, heads, kv_heads, head_dim));
	PC_TRY(out(out_, (const float *)dout, nq, what));
	PC_TRY(out(kcache, (const float *)dkc, nc, what));
	return out(vcache, (const float *)dvc, nc, what);
}
