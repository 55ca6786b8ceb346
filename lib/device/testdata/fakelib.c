/*
 * fakelib.c: stand-ins for libpatscuda.so that the loader tests build with
 * gcc (device_test.go). It runs nothing on a GPU:
 *   -DFAKE_ABI=N      pc_abi returns N (default PATS_CUDA_ABI)
 *   -DONLY_ABI        exports only pc_abi and pc_error
 *   -DFAKE_DEVICES=N  pc_device_count reports N devices (default 1)
 *   -DCOUNT_FAILS     pc_device_count fails with a message
 * With one device, a model stores its parameters and moments in host
 * memory, so that uploads and downloads can be checked; pc_forward
 * writes lp[j] = -(rows[j] + 1) and ent[j] = targets[j], and the other
 * computing calls fail with "not implemented by the fake".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pats_cuda.h"

#ifndef FAKE_ABI
#define FAKE_ABI PATS_CUDA_ABI
#endif
#ifndef FAKE_DEVICES
#define FAKE_DEVICES 1
#endif

static __thread char msg[256];
__attribute__((unused)) static int fail(const char *m) {
	snprintf(msg, sizeof msg, "%s", m);
	return 1;
}

int pc_abi(void) { return FAKE_ABI; }
const char *pc_error(void) { return msg; }

#ifndef ONLY_ABI
struct pc_model {
	int n;
	float **p, **m1, **m2;
	int64_t *len;
};
struct pc_decoder {
	int len;
};

int pc_device_count(int32_t *count) {
#ifdef COUNT_FAILS
	return fail("no driver: fake failure");
#endif
	*count = FAKE_DEVICES;
	return 0;
}
int pc_device_name(int32_t dev, char *buf, int32_t len) {
	snprintf(buf, len, "Fake GPU %d", dev);
	return 0;
}
static int64_t numel(const pc_config *c, int i) {
	int64_t h = c->hidden, q = (int64_t)c->heads * c->head_dim, kv = (int64_t)c->kv_heads * c->head_dim, in = c->intermediate;
	int64_t sizes[12] = {h, q * h, q, kv * h, kv, kv * h, kv, h * q, h, in * h, in * h, h * in};
	if (i == 0) return (int64_t)c->vocab * h;
	if (i <= 12 * c->layers) return sizes[(i - 1) % 12];
	if (i == 1 + 12 * c->layers) return h;
	return (int64_t)c->vocab * h;
}
/* The element count of adapter tensor k (issue 60): per layer, A [r, in]
 * then B [out, r] of each targeted projection in bit order. */
static int64_t lora_numel(const pc_config *c, int k) {
	int64_t h = c->hidden, q = (int64_t)c->heads * c->head_dim, kv = (int64_t)c->kv_heads * c->head_dim, in = c->intermediate;
	int64_t io[7][2] = {{h, q}, {h, kv}, {h, kv}, {q, h}, {h, in}, {h, in}, {in, h}};
	int per = __builtin_popcount(c->lora_targets & 127), pair = (k / 2) % per, j = 0;
	for (;; j++)
		if (c->lora_targets >> j & 1 && pair-- == 0) break;
	return k % 2 == 0 ? c->lora_rank * io[j][0] : io[j][1] * c->lora_rank;
}
int pc_model_new(const pc_config *cfg, int32_t dev, pc_model **out) {
	if (dev != 0) return fail("no such device");
	pc_model *m = calloc(1, sizeof *m);
	int nbase = 2 + 12 * cfg->layers + (cfg->tied ? 0 : 1);
	m->n = nbase + (cfg->lora_rank > 0 ? 2 * cfg->layers * __builtin_popcount(cfg->lora_targets & 127) : 0);
	m->p = calloc(m->n, sizeof(float *));
	m->m1 = calloc(m->n, sizeof(float *));
	m->m2 = calloc(m->n, sizeof(float *));
	m->len = calloc(m->n, sizeof(int64_t));
	for (int i = 0; i < m->n; i++) {
		m->len[i] = i < nbase ? numel(cfg, i) : lora_numel(cfg, i - nbase);
		m->p[i] = calloc(m->len[i], sizeof(float));
		m->m1[i] = calloc(m->len[i], sizeof(float));
		m->m2[i] = calloc(m->len[i], sizeof(float));
	}
	*out = m;
	return 0;
}
void pc_model_free(pc_model *m) {
	for (int i = 0; i < m->n; i++) {
		free(m->p[i]);
		free(m->m1[i]);
		free(m->m2[i]);
	}
	free(m->p), free(m->m1), free(m->m2), free(m->len), free(m);
}
int pc_model_memory(pc_model *m, int64_t *bytes) {
	*bytes = 0;
	for (int i = 0; i < m->n; i++) *bytes += 12 * m->len[i];
	return 0;
}
static int check(pc_model *m, int32_t i, int64_t n) {
	if (i < 0 || i >= m->n) return fail("tensor index out of range");
	if (n != m->len[i]) return fail("element count does not match");
	return 0;
}
int pc_param_set(pc_model *m, int32_t i, const float *src, int64_t n) {
	if (check(m, i, n)) return 1;
	memcpy(m->p[i], src, n * sizeof(float));
	return 0;
}
int pc_param_get(pc_model *m, int32_t i, float *dst, int64_t n) {
	if (check(m, i, n)) return 1;
	memcpy(dst, m->p[i], n * sizeof(float));
	return 0;
}
int pc_grad_get(pc_model *m, int32_t i, float *dst, int64_t n) { return fail("not implemented by the fake"); }
int pc_moments_set(pc_model *m, int32_t i, const float *a, const float *b, int64_t n) {
	if (check(m, i, n)) return 1;
	memcpy(m->m1[i], a, n * sizeof(float));
	memcpy(m->m2[i], b, n * sizeof(float));
	return 0;
}
int pc_moments_get(pc_model *m, int32_t i, float *a, float *b, int64_t n) {
	if (check(m, i, n)) return 1;
	memcpy(a, m->m1[i], n * sizeof(float));
	memcpy(b, m->m2[i], n * sizeof(float));
	return 0;
}
int pc_zero_grad(pc_model *m) { return 0; }
int pc_forward(pc_model *m, const int32_t *tokens, int32_t t, const int32_t *rows, const int32_t *targets, int32_t r,
               float *lp, float *ent, int32_t keep) {
	for (int j = 0; j < r; j++) {
		lp[j] = -(float)(rows[j] + 1);
		if (ent) ent[j] = (float)targets[j];
	}
	return 0;
}
int pc_backward(pc_model *m, const float *dlp) { return fail("not implemented by the fake"); }
int pc_logits(pc_model *m, const int32_t *tokens, int32_t t, float *logits) { return fail("not implemented by the fake"); }
int pc_clip_grad_norm(pc_model *m, double max_norm, double *norm) { return fail("not implemented by the fake"); }
int pc_adamw_step(pc_model *m, const pc_adamw *h, const uint8_t *decay) { return fail("not implemented by the fake"); }
int pc_decoder_new(pc_model *m, int32_t capacity, pc_decoder **out) {
	*out = calloc(1, sizeof(pc_decoder));
	return 0;
}
void pc_decoder_free(pc_decoder *d) { free(d); }
int pc_decoder_clone(pc_decoder *d, pc_decoder **out) {
	*out = malloc(sizeof **out);
	**out = *d;
	return 0;
}
int32_t pc_decoder_len(pc_decoder *d) { return d->len; }
int pc_append_batch(pc_decoder *const *decs, int32_t n, const int32_t *tokens, const int32_t *offsets, float *logits,
                    const pc_sampling *s, const double *u, int32_t *tok, float *logp) {
	return fail("not implemented by the fake");
}
#define NOOP(name, ...) int name(__VA_ARGS__) { return fail("not implemented by the fake"); }
NOOP(pc_op_matmul, int32_t a, int32_t b, int32_t m, int32_t n, int32_t k, float al, const float *x, int32_t lda, const float *y,
     int32_t ldb, float be, float *c, int32_t ldc)
NOOP(pc_op_rmsnorm, float *y, float *inv, const float *x, const float *w, int32_t rows, int32_t dim, float eps)
NOOP(pc_op_rmsnorm_backward, float *dx, float *dw, const float *dy, const float *x, const float *w, const float *inv, int32_t rows,
     int32_t dim)
NOOP(pc_op_rope, float *x, int32_t rows, int32_t heads, int32_t hd, int32_t pos0, const float *c, const float *s, int32_t npos,
     int32_t inv)
NOOP(pc_op_attention, float *out, float *lse, const float *q, const float *k, const float *v, int32_t rows, int32_t past,
     int32_t heads, int32_t kvh, int32_t hd)
NOOP(pc_op_attention_backward, float *dq, float *dk, float *dv, const float *dout, const float *q, const float *k, const float *v,
     const float *out, const float *lse, int32_t rows, int32_t heads, int32_t kvh, int32_t hd)
NOOP(pc_op_swiglu, float *h, const float *g, const float *u, int64_t n)
NOOP(pc_op_swiglu_backward, float *dg, float *du, const float *dh, const float *g, const float *u, int64_t n)
NOOP(pc_op_log_softmax, float *lp, float *ent, float *lse, const float *logits, const int32_t *target, int32_t rows, int32_t vocab)
NOOP(pc_op_log_softmax_backward, float *dl, const float *lg, const float *lse, const int32_t *tg, const float *dlp, int32_t rows,
     int32_t vocab)
NOOP(pc_op_adamw, float *p, const float *g, float *m, float *v, int64_t n, const pc_adamw *h)
NOOP(pc_op_sample, const float *logits, int32_t vocab, const pc_sampling *s, double u, int32_t *tok, float *logp)
NOOP(pc_op_decode_attention, float *out, const float *q, const float *kn, const float *vn, float *kc, float *vc, int32_t ndec,
     int32_t cap, const int32_t *rowdec, const int32_t *rowpos, int32_t rows, int32_t heads, int32_t kvh, int32_t hd)
NOOP(pc_model_graphs, pc_model *m, int64_t *captures, int64_t *replays, int64_t *direct, int32_t *enabled)
int pc_adapter_enable(pc_model *m, int32_t on) { return 0; }
#endif
