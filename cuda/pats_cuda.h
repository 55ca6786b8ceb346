/*
 * pats_cuda.h: the C interface of libpatscuda.so, the CUDA backend of
 * pats's Qwen2 and Qwen3 decoder (issue 13; Qwen3, issue 60). The Go binaries load the library at run
 * time (dlopen) and call only the functions declared here, so one binary
 * serves machines with and without a GPU.
 *
 * Residency. A pc_model owns, on one device, everything a training step or
 * a decoding batch touches: the FP32 master parameters, their gradients,
 * the AdamW moments, the activations a backward needs, scratch space and
 * the KV caches of its decoders. Data crosses the host boundary only at the
 * edges named here: parameters and optimizer state in and out (loading and
 * saving a checkpoint, tests), token ids in, per-token log-probabilities,
 * entropies, loss weights, sampled ids and (on request) logits out.
 *
 * Numerics. Matrix products run in BF16 with FP32 accumulation (tensor
 * cores); storage, reductions, norms, softmax, the optimizer and its state
 * are FP32. Results are therefore close to, not equal to, the CPU backend's;
 * the parity suite states the tolerances.
 *
 * Parameter order: index i is the i-th tensor of the Go model's Params():
 *   0                      model.embed_tokens.weight        [vocab, hidden]
 *   per layer l, 12 tensors starting at 1 + 12*l:
 *     input_layernorm.weight [hidden], q_proj.weight [qdim, hidden],
 *     q_proj.bias [qdim], k_proj.weight [kvdim, hidden], k_proj.bias [kvdim],
 *     v_proj.weight [kvdim, hidden], v_proj.bias [kvdim],
 *     o_proj.weight [hidden, qdim], post_attention_layernorm.weight [hidden],
 *     gate_proj.weight [inter, hidden], up_proj.weight [inter, hidden],
 *     down_proj.weight [hidden, inter]
 *   1 + 12*layers          model.norm.weight                [hidden]
 *   2 + 12*layers          lm_head.weight [vocab, hidden]    (only when not tied)
 * With qk_norm (Qwen3) a layer has 11 tensors, the biases' slots holding
 * the head norms instead: input_layernorm, q_proj.weight, q_norm.weight
 * [head_dim], k_proj.weight, k_norm.weight [head_dim], v_proj.weight,
 * o_proj, post_attention_layernorm, gate, up, down; the final norm is then
 * 1 + 11*layers and lm_head 2 + 11*layers.
 * With an adapter (lora_rank > 0) the adapter's tensors follow the base's
 * (index nbase = the base's count, as above, and on): layer by layer, for
 * each targeted projection in the order of lora_targets' bits, A then B
 * (Hugging Face PEFT's lora_A and lora_B of that module).
 * with qdim = heads*head_dim and kvdim = kv_heads*head_dim. Linear weights
 * are [out, in] row-major, as Hugging Face stores them: y = x W^T + b.
 *
 * The network (same as lib/model): x = embed[tokens]; per layer
 *   a = rmsnorm(x, input_layernorm); q,k,v = linear(a);
 *   with qk_norm each head of q and k (head_dim values) = rmsnorm(head,
 *   q_norm or k_norm), with rms_eps; rope(q), rope(k)
 *   (rotate-half pairs (i, i+head_dim/2), angle pos*theta^(-2i/head_dim));
 *   causal grouped-query attention (query head h reads kv head
 *   h/(heads/kv_heads)), scale 1/sqrt(head_dim); x += o_proj(att);
 *   b = rmsnorm(x, post_attention_layernorm); x += down(silu(gate(b))*up(b))
 * then logits = lm_head(rmsnorm(x, norm)). rmsnorm(x, w) = x / sqrt(mean(x^2)
 * + eps) * w.
 *
 * Errors. Every function returning int returns 0 on success and a non-zero
 * code on failure; pc_error() then returns a one-line message (valid until
 * the next call on the same thread, so a caller reads it on the thread of the
 * failing call). A failed call leaves the model as it
 * was where it can (a failed append leaves its decoders unchanged).
 *
 * Threads. A pc_model and its decoders are used by one host thread at a
 * time; the Go side serialises calls.
 */
#ifndef PATS_CUDA_H
#define PATS_CUDA_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this interface. The loader refuses a library whose
 * pc_abi() differs from the PATS_CUDA_ABI it was built with. */
#define PATS_CUDA_ABI 4

typedef struct pc_model pc_model;
typedef struct pc_decoder pc_decoder;

typedef struct {
	int32_t vocab;          /* vocab_size */
	int32_t hidden;         /* hidden_size */
	int32_t intermediate;   /* intermediate_size */
	int32_t layers;         /* num_hidden_layers */
	int32_t heads;          /* num_attention_heads */
	int32_t kv_heads;       /* num_key_value_heads */
	int32_t head_dim;       /* head_dim (Qwen2: hidden_size / num_attention_heads) */
	int32_t max_positions;  /* max_position_embeddings */
	int32_t tied;           /* tie_word_embeddings: lm_head is embed */
	float rms_eps;          /* rms_norm_eps */
	double rope_theta;      /* rope_theta */
	int32_t qk_norm;        /* 1: Qwen3 (q_norm and k_norm, no q/k/v biases; see the parameter order); 0: Qwen2 */
	/* LoRA (issue 60). lora_rank > 0: the model trains a LoRA adapter of
	 * that rank over a frozen base. The base's matrices (the embedding,
	 * q, k, v, o, gate, up, down and lm_head) are then held in BF16 only
	 * (converted on upload, 2 bytes a parameter), with no gradient and no
	 * moments; norms and biases keep FP32 values, also frozen. Bit j of
	 * lora_targets (0: q_proj, 1: k_proj, 2: v_proj, 3: o_proj,
	 * 4: gate_proj, 5: up_proj, 6: down_proj) gives that projection of
	 * every layer an adapter: W x becomes W x + lora_scale * B (A x), A
	 * [lora_rank, in], B [out, lora_rank], each with an FP32 master, a
	 * BF16 copy, a gradient and both AdamW moments. */
	int32_t lora_rank;
	int32_t lora_targets;
	float lora_scale;       /* alpha / rank */
} pc_config;

/* AdamW constants of one step (decoupled weight decay, as lib/model):
 *   m = b1*m + (1-b1)*g;  v = b2*v + (1-b2)*g^2
 *   p -= lr * (wd*p + (m/bc1) / (sqrt(v/bc2) + eps))
 * with wd applied only to tensors whose decay flag is set. */
typedef struct {
	float lr, beta1, beta2, eps, weight_decay;
	float bc1, bc2; /* 1-beta1^t, 1-beta2^t of step t */
} pc_adamw;

/* Sampling of the next token from softmax(logits / temperature), as
 * lib/model.Sample: temperature <= 0 is greedy (first maximum; logp under
 * temperature 1). 0 < top_p < 1 restricts to the nucleus: the smallest set
 * of most probable tokens, ties by lower id, whose mass reaches top_p,
 * renormalised. u in [0, 1) is the one uniform the host drew for this token
 * (the same draw the CPU path makes); the token is the first, in order of
 * decreasing probability (nucleus) or of id (no nucleus), at which the
 * running mass exceeds u times the total. logp is the log-probability of the
 * token before the nucleus cut. */
typedef struct {
	float temperature;
	float top_p;
} pc_sampling;

int pc_abi(void);
const char *pc_error(void);

/* Number of usable CUDA devices (0 with a driver and no device). Non-zero
 * return when the driver or runtime cannot be initialised. */
int pc_device_count(int32_t *count);

/* A short description of device dev ("NVIDIA H200, 139.8 GiB, sm_90"). */
int pc_device_name(int32_t dev, char *buf, int32_t len);

/* A model on device dev with zeroed parameters, gradients and moments. */
int pc_model_new(const pc_config *cfg, int32_t dev, pc_model **out);
/* Frees the model and the caches of its decoders; a decoder of a freed
 * model may then only be passed to pc_decoder_free. */
void pc_model_free(pc_model *m);

/* Bytes of device memory the model holds now (parameters, gradients,
 * moments, activations, caches, scratch). */
int pc_model_memory(pc_model *m, int64_t *bytes);

/* Copies of tensor i (see the parameter order) between host and device; n
 * is its element count and must match. With an adapter, a base matrix is
 * stored in BF16: pc_param_set rounds it (nearest even) and pc_param_get
 * returns the rounded values; the base (every tensor before the adapter's)
 * has no gradient or moments, and pc_grad_get, pc_moments_set and
 * pc_moments_get refuse it. */
int pc_param_set(pc_model *m, int32_t i, const float *src, int64_t n);
int pc_param_get(pc_model *m, int32_t i, float *dst, int64_t n);
int pc_grad_get(pc_model *m, int32_t i, float *dst, int64_t n);
int pc_moments_set(pc_model *m, int32_t i, const float *mom1, const float *mom2, int64_t n);
int pc_moments_get(pc_model *m, int32_t i, float *mom1, float *mom2, int64_t n);

/* Clears every gradient. */
int pc_zero_grad(pc_model *m);

/* Forward of one sequence of t tokens (positions 0..t-1). For each of the
 * r scored rows: rows[j] is the hidden row (a position) projected to the
 * vocabulary and targets[j] the token it predicts; lp[j] = log
 * softmax(logits[rows[j]])[targets[j]] and ent[j] the entropy in nats of
 * that softmax (ent may be NULL). r may be 0. With keep != 0 the
 * activations are kept for pc_backward (replacing any kept before). */
int pc_forward(pc_model *m, const int32_t *tokens, int32_t t, const int32_t *rows, const int32_t *targets,
               int32_t r, float *lp, float *ent, int32_t keep);

/* Backward of the last kept forward: accumulates into the gradients the
 * gradient of sum_j dlp[j] * lp[j] (dlp has that forward's r values). With
 * an adapter only the adapter's gradients accumulate (the base is frozen). */
int pc_backward(pc_model *m, const float *dlp);

/* Logits of every position of a sequence (t x vocab, row-major) into the
 * host buffer logits: row p scores the token after tokens[p]. */
int pc_logits(pc_model *m, const int32_t *tokens, int32_t t, float *logits);

/* Switches the adapter's contribution on (1, the default) or off (0): off,
 * every forward, logits and decoding step computes the frozen base alone
 * (the reference of GRPO's KL term under LoRA). Refused without an
 * adapter. A kept forward must be backpropagated with the setting it ran
 * with. */
int pc_adapter_enable(pc_model *m, int32_t on);

/* Global L2 norm of all gradients (before clipping) into *norm; when
 * max_norm > 0 and the norm exceeds it, every gradient is scaled by
 * max_norm / (norm + 1e-6). */
int pc_clip_grad_norm(pc_model *m, double max_norm, double *norm);

/* One AdamW step over every parameter from its gradient; decay has one
 * entry per parameter tensor (with an adapter: the base's and the
 * adapter's) and decay[i] != 0 applies weight_decay to tensor i. With an
 * adapter only the adapter's tensors step (the base is frozen). Gradients
 * are left as they are. */
int pc_adamw_step(pc_model *m, const pc_adamw *h, const uint8_t *decay);

/* A decoder: a KV cache over the model for up to capacity positions. */
int pc_decoder_new(pc_model *m, int32_t capacity, pc_decoder **out);
void pc_decoder_free(pc_decoder *d);
/* An independent copy (its own cache) of d, with the same capacity. */
int pc_decoder_clone(pc_decoder *d, pc_decoder **out);
int32_t pc_decoder_len(pc_decoder *d);

/* How decoding steps ran: *captures CUDA graphs captured, *replays steps
 * run by replaying one, *direct steps launched directly (a prompt chunk,
 * graphs off with PATS_CUDA_GRAPHS=0, or after a capture failed), and
 * *enabled 1 while graphs are in use. */
int pc_model_graphs(pc_model *m, int64_t *captures, int64_t *replays, int64_t *direct, int32_t *enabled);

/* Appends, for each of n decoders of one model, its chunk of tokens:
 * chunk i is tokens[offsets[i] .. offsets[i+1]), non-empty. All rows go
 * through each linear layer together; each decoder attends over its own
 * cache. Then, per decoder, for the token after its chunk:
 *   - logits != NULL: its logits (vocab floats) at logits + i*vocab;
 *   - s != NULL: a token drawn as pc_sampling says with uniform u[i],
 *     written to tok[i] with its log-probability logp[i].
 * Both may be asked for at once. Decoders must be distinct. */
int pc_append_batch(pc_decoder *const *decs, int32_t n, const int32_t *tokens, const int32_t *offsets,
                    float *logits, const pc_sampling *s, const double *u, int32_t *tok, float *logp);

/* Kernel checks. Each runs one kernel family on device 0 over host arrays
 * (copied in, run, copied out), with the semantics of the Go Backend
 * method of the same name (lib/model/backend.go: MatMul, RMSNorm,
 * RMSNormBackward, RoPE, Attention, AttentionBackward, SwiGLU,
 * SwiGLUBackward, LogSoftmax, LogSoftmaxBackward, AdamW) or of
 * lib/model.Sample. They exist for the parity suite, which checks every
 * kernel against the CPU backend on ragged shapes, and are not fast.
 * Pointers documented as optional in the Go method (lse, ent) may be NULL.
 * cos and sin are the [npos][head_dim/2] tables of lib/model. */
int pc_op_matmul(int32_t trans_a, int32_t trans_b, int32_t m, int32_t n, int32_t k, float alpha, const float *a,
                 int32_t lda, const float *b, int32_t ldb, float beta, float *c, int32_t ldc);
int pc_op_rmsnorm(float *y, float *inv, const float *x, const float *w, int32_t rows, int32_t dim, float eps);
int pc_op_rmsnorm_backward(float *dx, float *dw, const float *dy, const float *x, const float *w, const float *inv,
                           int32_t rows, int32_t dim);
int pc_op_rope(float *x, int32_t rows, int32_t heads, int32_t head_dim, int32_t pos0, const float *cos,
               const float *sin, int32_t npos, int32_t inverse);
int pc_op_attention(float *out, float *lse, const float *q, const float *k, const float *v, int32_t rows,
                    int32_t past, int32_t heads, int32_t kv_heads, int32_t head_dim);
int pc_op_attention_backward(float *dq, float *dk, float *dv, const float *dout, const float *q, const float *k,
                             const float *v, const float *out, const float *lse, int32_t rows, int32_t heads,
                             int32_t kv_heads, int32_t head_dim);
int pc_op_swiglu(float *h, const float *g, const float *u, int64_t n);
int pc_op_swiglu_backward(float *dg, float *du, const float *dh, const float *g, const float *u, int64_t n);
int pc_op_log_softmax(float *lp, float *ent, float *lse, const float *logits, const int32_t *target, int32_t rows,
                      int32_t vocab);
int pc_op_log_softmax_backward(float *dlogits, const float *logits, const float *lse, const int32_t *target,
                               const float *dlp, int32_t rows, int32_t vocab);
int pc_op_adamw(float *p, const float *g, float *m, float *v, int64_t n, const pc_adamw *h);
int pc_op_sample(const float *logits, int32_t vocab, const pc_sampling *s, double u, int32_t *tok, float *logp);
/* Decoding attention as pc_append_batch runs it for one layer: row r's
 * key and value (knew, vnew: rows x kv_heads*head_dim) are stored at
 * position rowpos[r] of decoder rowdec[r]'s caches (kcache, vcache: ndec x
 * cap x kv_heads*head_dim, updated in place), then its query (q: rows x
 * heads*head_dim) attends over positions 0..rowpos[r] of that cache
 * (out: rows x heads*head_dim). Rows must not share a (decoder,
 * position). */
int pc_op_decode_attention(float *out, const float *q, const float *knew, const float *vnew, float *kcache,
                           float *vcache, int32_t ndec, int32_t cap, const int32_t *rowdec, const int32_t *rowpos,
                           int32_t rows, int32_t heads, int32_t kv_heads, int32_t head_dim);

#ifdef __cplusplus
}
#endif

#endif
