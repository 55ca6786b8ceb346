// Package model is a Qwen2- and Qwen3-architecture decoder-only transformer in pure
// Go, float32: forward, hand-written backward, log-probabilities of given
// tokens, KV-cache decoding with sampling, AdamW, and Hugging Face
// checkpoint folders.
//
// # Architecture
//
// For a sequence of T token ids, with hidden size H, nh query heads and nkv
// key/value heads of width d (head_dim from config.json, else H/nh):
//
//	x = embed_tokens[ids]                                  T x H
//	for each layer:
//	    n = RMSNorm(x) * input_layernorm
//	    q = n Wq^T + bq, k = n Wk^T + bk, v = n Wv^T + bv  T x nh*d, T x nkv*d
//	    Qwen3: no biases; q, k = RMSNorm(each head) * q_norm, * k_norm  (d weights each)
//	    q, k = RoPE(q), RoPE(k)
//	    a = softmax(q k^T / sqrt(d) + causal mask) v      query head i reads kv head i/(nh/nkv)
//	    x = x + a Wo^T                                     (o_proj has no bias)
//	    n = RMSNorm(x) * post_attention_layernorm
//	    x = x + (silu(n Wg^T) * (n Wu^T)) Wd^T            SwiGLU MLP
//	logits = (RMSNorm(x) * norm) Wlm^T                     Wlm = embed_tokens when tied
//
// RMSNorm(x) = x / sqrt(mean(x^2) + rms_norm_eps). RoPE uses the Hugging
// Face rotate-half layout: within each head, element i pairs with i+d/2
// and both rotate by angle pos * rope_theta^(-2i/d), positions counting
// from 0 at the first token. cos/sin tables are precomputed (in float64,
// stored as float32) for every position below max_position_embeddings,
// which is also the longest sequence accepted.
//
// Qwen3 (model_type qwen3) differs from Qwen2 only as marked: its head
// norms take the place of the three biases in Params' order (q_proj,
// q_norm, k_proj, k_norm, v_proj per layer) and use rms_norm_eps.
//
// # Tensors and units
//
// Every tensor is a row-major []float32. Linear weights keep Hugging Face's
// [out, in] layout, so y = x W^T; parameter names are the Hugging Face
// names (model.embed_tokens.weight, model.layers.N.self_attn.q_proj.weight,
// ..., model.norm.weight, lm_head.weight when untied), listed by Params in
// a fixed order. Log-probabilities and entropies are in nats.
//
// LogProbs(seqs, masks) returns lp[i][t] = log p(seqs[i][t] | seqs[i][:t])
// aligned with the scored token (lp[i][0] = 0), so a trajectory's per-token
// roles index it directly. Backward takes d(loss)/d(lp) of the same shape
// and accumulates the gradient of every parameter; positions with zero
// weight skip the vocabulary projection. ForwardBackward does both in one
// pass when the weights depend on the current log-probs;
// ForwardBackwardPrefix is ForwardBackward for sequences that share their
// first p tokens (the turn sequences of a windowed episode), which run
// once, the rest of each sequence attending to their keys and values and
// sending their gradients back before the prefix's own backward (the same
// gradients up to rounding). Sequences are
// processed one at a time (no padding); activations of one sequence are
// kept for its backward, attention probabilities are recomputed from a
// per-row log-sum-exp rather than stored, so memory is O(T) per layer
// apart from the T x vocab logits of the scored rows.
//
// A Decoder holds a KV cache: Append takes a prompt chunk or one token
// and returns the next-token logits; Clone copies the cache so several
// continuations share one computed prompt. Sample draws with temperature
// and top-p from a caller-seeded math/rand/v2 PCG generator (temperature 0
// is greedy).
//
// AdamW has decoupled weight decay (on matrices and embeddings only) and
// bias correction; Schedule is linear warmup then constant or cosine
// decay; ClipGradNorm scales gradients to a global L2 norm.
//
// # Checkpoints
//
// A checkpoint is a folder: config.json (Qwen2ForCausalLM or
// Qwen3ForCausalLM keys),
// model.safetensors (F32 by default, BF16 optional, or shards with
// model.safetensors.index.json), tokenizer.json (bytes supplied by the
// caller) and, when saved with an optimizer, optimizer.safetensors
// (<name>.exp_avg and <name>.exp_avg_sq in F32) with optimizer.json
// (step count and constants). Saving writes a temporary folder beside the
// target and renames it into place; Load accepts F32, BF16 and F16 weights.
//
// # LoRA adapters and recomputation
//
// AddAdapter attaches a LoRA adapter (lora.go): each targeted projection
// (q, k, v, o, gate, up, down; LoRAConfig.Targets) computes W x + (alpha/r)
// B A x, A [r, in] drawn as PEFT draws it (uniform in +-1/sqrt(in)) and B
// [out, r] zero, so a fresh adapter leaves every log-probability bit for
// bit the base's. While one is attached the base is frozen: Trainable
// lists the adapter's tensors only, and ZeroGrad, GradNorm, ClipGradNorm,
// AdamW and the optimizer state cover them alone (the base gets no
// gradient buffers). Adapter.SetEnabled(false) computes the base alone
// (the KL reference under LoRA); MergeAdapter folds the adapter into the
// weights. The forward, the backward and the decoders (single and batched)
// all run the adapter; an accelerator does not (Attach refuses a model
// with one: merge it first). Saving a model with an adapter writes an
// adapter folder in PEFT's layout (lora_checkpoint.go: adapter_config.json,
// adapter_model.safetensors with PEFT's tensor names, adapter_base.json
// with the base's hash); Load of such a folder loads the base it names,
// checks its hash, and attaches the adapter; WeightsHash of it covers the
// base's hash and both PEFT files.
//
// SetRecompute (recompute.go) keeps only each layer's input during a
// training forward and recomputes the layer just before its backward; the
// gradients are the same bits, at most one layer's activations are held
// at a time. PlanMemory (trainmem.go) is what an update holds on a device
// under full training or LoRA, with or without recomputation.
//
// # Backends
//
// All arithmetic goes through the Backend interface: MatMul (every matrix
// product, which the CPU backend hands to gemm.Sgemm), RMSNorm and its
// backward, RoPE (the inverse rotation is its backward), attention forward
// and backward, SwiGLU forward and backward, log-softmax with entropy and
// its backward, and the AdamW update. CPU is the default. Buffers are host
// slices; the interface is kept to what the model actually calls.
//
// # Devices
//
// A model can instead run on a device: Attach hands it an Accelerator (a
// copy of the whole model resident on a GPU; lib/device implements one over
// the CUDA library) and uploads the parameters once. From then on LogProbs,
// ForwardBackward, Backward, Logits, ZeroGrad, GradNorm, ClipGradNorm,
// AdamW.Step and decoders (NewDecoder, Clone, Append, AppendBatch) run on
// the device, which keeps gradients, moments, activations and KV caches;
// the host tensors' W and G, and the optimizer's M and V, are not kept in
// step (Sync brings parameters and moments back; saving a checkpoint does
// so itself). AppendSample and AppendSampleBatch draw the next token where
// the model is, from a uniform the caller draws on the host (SampleDraw:
// the same one rng.Float64 per token Sample takes; SampleU is Sample with
// that uniform given), so decoding on a device moves no logits per token.
// Device results are close to the CPU's, not equal (BF16 products); the
// CPU path is unchanged by any of this. A device error inside a method
// that returns none (ZeroGrad, ClipGradNorm) is reported by the next one
// that does. NewHostAccelerator runs the same boundary on the CPU, for
// tests of the dispatch.
//
// # Determinism
//
// Same parameters and inputs give bit-identical results whatever
// GOMAXPROCS is: work is split over fixed partitions (attention by head,
// and by decoder in batched decoding; per-head key/value gradients summed
// in head order afterwards; softmax by row), and every sum has a fixed
// order. Matrix products give the same bits on the AVX2 and AVX-512
// kernels of lib/gemm. Initialisation and sampling use seeded PCG
// generators; Sample finds the top-p nucleus by partial selection, in the
// order a stable sort would give. Exponentials and the other vector loops run on
// lib/vecmath's kernels (AVX2+FMA assembly, or pure Go; exp within about
// 1e-7 relative).
//
// # Built-in sizes (tied embeddings, vocabulary 6000)
//
//	Tiny:  hidden 128, 2 layers, 4 heads, 2 kv heads, intermediate 384: 1,162,368 parameters
//	Small: hidden 256, 4 layers, 4 heads, 2 kv heads, intermediate 768: 4,686,080 parameters
//
// Both have max_position_embeddings 4096, rope_theta 10000, rms_norm_eps 1e-6.
//
// # Concurrency
//
// LogProbs, Logits and Decoders only read parameters and may run from many
// goroutines at once (one goroutine per Decoder). On a device the
// Accelerator serialises its calls. Backward,
// ForwardBackward, ZeroGrad, ClipGradNorm and AdamW.Step write and must
// run alone.
package model
