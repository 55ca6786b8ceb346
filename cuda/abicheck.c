/* abicheck.c: built and run by `make cuda-check`. Linking it against
 * bin/libpatscuda.so checks that the library defines every function of
 * pats_cuda.h with the header's types (a C compiler, as the Go loader's
 * cgo sees them); running it checks that the library loads and that
 * pc_abi and pc_device_count answer, with or without a GPU. */
#include <stdio.h>

#include "pats_cuda.h"

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
	};
	for (unsigned i = 0; i < sizeof all / sizeof all[0]; i++)
		if (!all[i]) return 1;
	if (pc_abi() != PATS_CUDA_ABI) {
		fprintf(stderr, "abicheck: library ABI %d, header %d\n", pc_abi(), PATS_CUDA_ABI);
		return 1;
	}
	int32_t n = -1;
	if (pc_device_count(&n) != 0)
		printf("abicheck: %u functions, ABI %d; no usable CUDA driver: %s\n", (unsigned)(sizeof all / sizeof all[0]),
		       pc_abi(), pc_error());
	else
		printf("abicheck: %u functions, ABI %d; %d CUDA device(s)\n", (unsigned)(sizeof all / sizeof all[0]), pc_abi(),
		       (int)n);
	return 0;
}
