/* abicheck.c: built and run by `make cuda-check`. Linking it against
 * bin/libpatscuda.so checks that the library defines every function of
 * pats_cuda.h with the header's types (a C compiler, as the Go loader's
 * cgo sees them); running it checks that the library loads, that pc_abi
 * and pc_device_count answer, and that calls refused before touching a
 * device return non-zero with their one-line message, with or without a
 * GPU. */

#include <stdio.h>
#include <string.h>

#include "pats_cuda.h"

/* want checks that rc is non-zero and pc_error() contains text. */
static int want(const char *what, int rc, const char *text) {
	if (rc == 0) {
		fprintf(stderr, "abicheck: %s: accepted, want an error\n", what);
		return 1;
	}
	if (!strstr(pc_error(), text) || strchr(pc_error(), '\n')) {
		fprintf(stderr, "abicheck: %s: message \"%s\" does not say \"%s\" in one line\n", what, pc_error(), text);
		return 1;
	}
	return 0;
}

typedef void (*fn)(void);

int main(void) {
	fn all[] = {
	    (fn)pc_abi, (fn)pc_error, (fn)pc_device_count, (fn)pc_device_name, (fn)pc_model_new, (fn)pc_model_free,
	    (fn)pc_model_memory, (fn)pc_param_set, (fn)pc_param_get, (fn)pc_grad_get, (fn)pc_moments_set,
	    (fn)pc_moments_get, (fn)pc_zero_grad, (fn)pc_forward, (fn)pc_backward, (fn)pc_logits, (fn)pc_clip_grad_norm,
	    (fn)pc_adamw_step, (fn)pc_decoder_new, (fn)pc_decoder_free, (fn)pc_decoder_clone, (fn)pc_decoder_len,
	    (fn)pc_append_batch, (fn)pc_op_matmul, (fn)pc_op_rmsnorm, (fn)pc_op_rmsnorm_backward, (fn)pc_op_rope,
	    (fn)pc_op_attention, (fn)pc_op_attention_backward, (fn)pc_op_swiglu, (fn)pc_op_swiglu_backward,
	    (fn)pc_op_log_softmax, (fn)pc_op_log_softmax_backward, (fn)pc_op_adamw, (fn)pc_op_sample,
	    (fn)pc_op_decode_attention, (fn)pc_model_graphs, (fn)pc_adapter_enable,
	};
	for (unsigned i = 0; i < sizeof all / sizeof all[0]; i++)
		if (!all[i]) return 1;
	if (pc_abi() != PATS_CUDA_ABI) {
		fprintf(stderr, "abicheck: library ABI %d, header %d\n", pc_abi(), PATS_CUDA_ABI);
		return 1;
	}
	int bad = 0;
	pc_config c = {100, 64, 128, 2, 3, 2, 16, 64, 1, 1e-6f, 10000.0};
	pc_model *m = NULL;
	bad |= want("pc_model_new with 3 heads over 2 kv heads", pc_model_new(&c, 0, &m), "kv_heads");
	c.heads = 4;
	c.head_dim = 15;
	bad |= want("pc_model_new with an odd head_dim", pc_model_new(&c, 0, &m), "odd");
	bad |= want("pc_forward without a model", pc_forward(NULL, NULL, 0, NULL, NULL, 0, NULL, NULL, 0), "no model");
	pc_sampling sp = {1.0f, 0.9f};
	float lg[3] = {0, 1, 2}, lp = 0;
	int32_t tok = -1;
	bad |= want("pc_op_sample with u = 1", pc_op_sample(lg, 3, &sp, 1.0, &tok, &lp), "outside [0, 1)");
	bad |= want("pc_model_graphs without a model", pc_model_graphs(NULL, NULL, NULL, NULL, NULL), "null argument");
	bad |= want("pc_adapter_enable without a model", pc_adapter_enable(NULL, 0), "no model");
	c.head_dim = 16;
	c.lora_rank = 4;
	c.lora_targets = 0;
	bad |= want("pc_model_new with LoRA and no target", pc_model_new(&c, 0, &m), "lora_targets");
	c.lora_rank = 0;
	if (pc_op_matmul(0, 0, 0, 4, 4, 1.0f, NULL, 4, NULL, 4, 0.0f, NULL, 4) != 0) {
		fprintf(stderr, "abicheck: an empty product was refused: %s\n", pc_error());
		bad = 1;
	}
	if (bad) return 1;
	int32_t n = -1;
	if (pc_device_count(&n) != 0)
		printf("abicheck: %u functions, ABI %d; no usable CUDA driver: %s\n", (unsigned)(sizeof all / sizeof all[0]),
		       pc_abi(), pc_error());
	else
		printf("abicheck: %u functions, ABI %d; %d CUDA device(s)\n", (unsigned)(sizeof all / sizeof all[0]), pc_abi(),
		       (int)n);
	return 0;
}
