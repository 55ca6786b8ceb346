package model

// Backend is the set of numeric operations the model is built from. Every
// buffer is a host []float32 in row-major order; "rows" is the number of
// token positions in a call. Operations documented as accumulating add into
// their outputs (gradients); all others overwrite.
//
// A backend must give results that do not depend on how many threads it
// uses: a fixed partition of work and a fixed order of every sum. The pure
// Go backend CPU is the model's only Backend; its buffers are host slices,
// moved per operation. A GPU cannot live with that, so the device boundary
// is not here but one level up: an Accelerator (accel.go) is a whole model
// resident on a device (parameters, gradients, moments, activations, KV
// caches), attached with Model.Attach, and the model then sends it whole
// forwards, backwards, optimizer steps and decoding batches, with only
// token ids, scores and sampled ids crossing to the host. The same
// operations, one kernel family each, are what the CUDA library checks
// against these methods (lib/device.Kernels implements Backend over them
// for the parity suite).
type Backend interface {
	// Name identifies the backend ("cpu").
	Name() string
	// MatMul is C = alpha*op(A)*op(B) + beta*C (see gemm.Sgemm).
	MatMul(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int)
	// RMSNorm sets y[r] = x[r] * inv[r] * w with inv[r] = 1/sqrt(mean(x[r]^2)+eps)
	// for rows x dim inputs, and stores inv (rows values) for the backward.
	RMSNorm(y, inv, x, w []float32, rows, dim int, eps float32)
	// RMSNormBackward accumulates dx += d(y)/d(x)^T dy and dw += d(y)/d(w)^T dy.
	RMSNormBackward(dx, dw, dy, x, w, inv []float32, rows, dim int)
	// RoPE rotates, in place, each head of each row of x (rows x heads*headDim)
	// by the angles of position pos0+row in the rotate-half layout: pairs
	// (i, i+headDim/2). cos and sin are tables of [position][headDim/2].
	// inverse rotates by the negative angle, which is the backward.
	RoPE(x []float32, rows, heads, headDim, pos0 int, cos, sin []float32, inverse bool)
	// Attention computes causal grouped-query attention for rows new query
	// positions at absolute positions s.Past.. against s.Past+rows keys:
	// out (rows x heads*headDim) and, if lse is not nil, the log-sum-exp of
	// each row's scaled scores (heads x rows) for the backward. Batched
	// decoding calls it from several goroutines at once, one per decoder,
	// on disjoint outputs.
	Attention(out, lse, q, k, v []float32, s AttnShape)
	// AttentionBackward accumulates dq, dk, dv from dout, given the forward's
	// inputs, out and lse; dk and dv have a row per key (Past+Rows). The
	// CPU backend takes any Past, the CUDA one Past 0 only.
	AttentionBackward(dq, dk, dv, dout, q, k, v, out, lse []float32, s AttnShape)
	// SwiGLU sets h = silu(g) * u elementwise.
	SwiGLU(h, g, u []float32)
	// SwiGLUBackward sets dg and du from dh.
	SwiGLUBackward(dg, du, dh, g, u []float32)
	// LogSoftmax sets, for each of rows rows of logits (rows x vocab),
	// lp[r] = log softmax(logits[r])[target[r]] and, where not nil, the
	// entropy ent[r] of softmax(logits[r]) in nats and the log-sum-exp
	// lse[r] of the row.
	LogSoftmax(lp, ent, lse, logits []float32, target []int32, rows, vocab int)
	// LogSoftmaxBackward sets dlogits[r] = dlp[r] * (onehot(target[r]) -
	// exp(logits[r] - lse[r])), lse from LogSoftmax.
	LogSoftmaxBackward(dlogits, logits, lse []float32, target []int32, dlp []float32, rows, vocab int)
	// AdamW updates one parameter tensor p in place from its gradient g and
	// moment buffers m and v.
	AdamW(p, g, m, v []float32, h AdamWStep)
}

// AttnShape describes one attention call. Query head i reads key/value
// head i / (Heads/KVHeads), as Hugging Face's repeat_kv does.
type AttnShape struct {
	Rows    int // new query positions
	Past    int // cached positions before them; keys = Past+Rows
	Heads   int
	KVHeads int
	HeadDim int
}

// AdamWStep is one AdamW update's constants.
type AdamWStep struct {
	LR, Beta1, Beta2, Eps, WeightDecay float32
	// BC1 = 1-Beta1^t and BC2 = 1-Beta2^t, the bias corrections of step t.
	BC1, BC2 float32
}
