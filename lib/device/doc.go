// Package device selects where the model runs: "cpu" (the pure Go
// backend of lib/model, the default) or "cuda" (libpatscuda.so, the CUDA
// backend built from cuda/ by make cuda).
//
// The CUDA library is loaded at run time with dlopen, so one binary serves
// machines with and without a GPU and no CUDA toolkit is needed to build
// it; only -ldl is linked. The library is looked for at $PATS_CUDA_LIB when
// set, else as libpatscuda.so beside the executable, else by the dynamic
// loader's search path (LD_LIBRARY_PATH, the system folders). The loader
// refuses a library whose pc_abi() differs from the PATS_CUDA_ABI of
// cuda/pats_cuda.h this package was built with, and a machine with no CUDA
// device. A binary built with CGO_ENABLED=0 compiles and reports cuda as
// unavailable.
//
// Device.Attach puts a model.Model on the device (model.Model.Attach with
// this package's model.Accelerator): the parameters are uploaded once and
// training steps and decoding run there until the checkpoint is written.
// A model with a LoRA adapter gets a device model made for that adapter
// (model.LoRAAccelerator: the frozen base in BF16, the adapter trained),
// and SetRecompute reaches the device (model.RecomputeAccelerator: kept
// forwards keep each layer's input only); issue 60.
// Every error of the library is wrapped with the name of the call that
// failed and the library's own message (pc_error, read in the same C call,
// on the same thread).
//
// Kernels (build tag cgo) runs the library's single-kernel checks
// (pc_op_*) behind the model.Backend interface, for the parity suite
// (go test -tags cuda, which fails rather than skips without a GPU).
package device
