//go:build cgo

package device

/*
#cgo CFLAGS: -I${SRCDIR}/../../cuda
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pats_cuda.h"

// The library's functions, found with dlsym; their types come from the
// header itself.
#define PC_FUNCS(X) \
	X(device_count) X(device_name) X(model_new) X(model_free) X(model_memory) \
	X(param_set) X(param_get) X(grad_get) X(moments_set) X(moments_get) X(zero_grad) \
	X(forward) X(backward) X(logits) X(clip_grad_norm) X(adamw_step) \
	X(decoder_new) X(decoder_free) X(decoder_clone) X(decoder_len) X(append_batch) X(model_graphs) \
	X(op_matmul) X(op_rmsnorm) X(op_rmsnorm_backward) X(op_rope) X(op_attention) \
	X(op_attention_backward) X(op_swiglu) X(op_swiglu_backward) X(op_log_softmax) \
	X(op_log_softmax_backward) X(op_adamw) X(op_sample) X(op_decode_attention) X(adapter_enable)

#define PC_FIELD(n) __typeof__(pc_##n) *n;
typedef struct {
	void *handle;
	__typeof__(pc_abi) *abi;
	__typeof__(pc_error) *error;
	PC_FUNCS(PC_FIELD)
} pc_lib;

#define ERRLEN 512

// pc_open loads path and checks its interface version. On failure it
// returns non-zero with a message in err: 1 the library cannot be loaded,
// 2 pc_abi or pc_error is missing, 3 another version (its number in *abi),
// 4 a function is missing.
static int pc_open(const char *path, pc_lib *l, int *abi, char *err) {
	memset(l, 0, sizeof *l);
	l->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!l->handle) {
		const char *e = dlerror();
		snprintf(err, ERRLEN, "%s", e ? e : "dlopen failed");
		return 1;
	}
	l->abi = (__typeof__(l->abi))dlsym(l->handle, "pc_abi");
	l->error = (__typeof__(l->error))dlsym(l->handle, "pc_error");
	if (!l->abi || !l->error) {
		snprintf(err, ERRLEN, "%s", l->abi ? "pc_error" : "pc_abi");
		dlclose(l->handle);
		return 2;
	}
	*abi = l->abi();
	if (*abi != PATS_CUDA_ABI) {
		dlclose(l->handle);
		return 3;
	}
#define PC_SYM(n) \
	if (!(l->n = (__typeof__(l->n))dlsym(l->handle, "pc_" #n))) { \
		snprintf(err, ERRLEN, "pc_" #n); \
		dlclose(l->handle); \
		return 4; \
	}
	PC_FUNCS(PC_SYM)
	return 0;
}

// pc_fail copies the library's message of the call that just failed on
// this thread (pc_error is per thread, and Go may move a goroutine between
// threads between two cgo calls, so it is read inside the same C call).
static int pc_fail(const pc_lib *l, int rc, char *err) {
	if (rc != 0) {
		const char *e = l->error();
		snprintf(err, ERRLEN, "%s", e && *e ? e : "failed without a message");
	}
	return rc;
}

#define PCW(expr) return pc_fail(l, (expr), err)

static int w_device_count(const pc_lib *l, int32_t *n, char *err) { PCW(l->device_count(n)); }
static int w_device_name(const pc_lib *l, int32_t dev, char *buf, int32_t len, char *err) { PCW(l->device_name(dev, buf, len)); }
static int w_model_new(const pc_lib *l, const pc_config *c, int32_t dev, pc_model **m, char *err) { PCW(l->model_new(c, dev, m)); }
static void w_model_free(const pc_lib *l, pc_model *m) { l->model_free(m); }
static int w_model_memory(const pc_lib *l, pc_model *m, int64_t *b, char *err) { PCW(l->model_memory(m, b)); }
static int w_param_set(const pc_lib *l, pc_model *m, int32_t i, const float *s, int64_t n, char *err) { PCW(l->param_set(m, i, s, n)); }
static int w_param_get(const pc_lib *l, pc_model *m, int32_t i, float *d, int64_t n, char *err) { PCW(l->param_get(m, i, d, n)); }
static int w_grad_get(const pc_lib *l, pc_model *m, int32_t i, float *d, int64_t n, char *err) { PCW(l->grad_get(m, i, d, n)); }
static int w_moments_set(const pc_lib *l, pc_model *m, int32_t i, const float *a, const float *b, int64_t n, char *err) { PCW(l->moments_set(m, i, a, b, n)); }
static int w_moments_get(const pc_lib *l, pc_model *m, int32_t i, float *a, float *b, int64_t n, char *err) { PCW(l->moments_get(m, i, a, b, n)); }
static int w_zero_grad(const pc_lib *l, pc_model *m, char *err) { PCW(l->zero_grad(m)); }
static int w_forward(const pc_lib *l, pc_model *m, const int32_t *tok, int32_t t, const int32_t *rows, const int32_t *tg,
                     int32_t r, float *lp, float *ent, int32_t keep, char *err) { PCW(l->forward(m, tok, t, rows, tg, r, lp, ent, keep)); }
static int w_backward(const pc_lib *l, pc_model *m, const float *dlp, char *err) { PCW(l->backward(m, dlp)); }
static int w_adapter_enable(const pc_lib *l, pc_model *m, int32_t on, char *err) { PCW(l->adapter_enable(m, on)); }
static int w_logits(const pc_lib *l, pc_model *m, const int32_t *tok, int32_t t, float *out, char *err) { PCW(l->logits(m, tok, t, out)); }
static int w_clip(const pc_lib *l, pc_model *m, double mx, double *nrm, char *err) { PCW(l->clip_grad_norm(m, mx, nrm)); }
static int w_adamw_step(const pc_lib *l, pc_model *m, const pc_adamw *h, const uint8_t *d, char *err) { PCW(l->adamw_step(m, h, d)); }
static int w_decoder_new(const pc_lib *l, pc_model *m, int32_t cap, pc_decoder **d, char *err) { PCW(l->decoder_new(m, cap, d)); }
static void w_decoder_free(const pc_lib *l, pc_decoder *d) { l->decoder_free(d); }
static int w_decoder_clone(const pc_lib *l, pc_decoder *d, pc_decoder **o, char *err) { PCW(l->decoder_clone(d, o)); }
static int32_t w_decoder_len(const pc_lib *l, pc_decoder *d) { return l->decoder_len(d); }
static int w_append_batch(const pc_lib *l, pc_decoder *const *decs, int32_t n, const int32_t *tok, const int32_t *off,
                          float *logits, const pc_sampling *s, const double *u, int32_t *out, float *logp, char *err) {
	PCW(l->append_batch(decs, n, tok, off, logits, s, u, out, logp));
}
static int w_model_graphs(const pc_lib *l, pc_model *m, int64_t *c, int64_t *r, int64_t *d, int32_t *on, char *err) {
	PCW(l->model_graphs(m, c, r, d, on));
}
static int w_op_decode_attention(const pc_lib *l, float *out, const float *q, const float *kn, const float *vn, float *kc,
                                 float *vc, int32_t ndec, int32_t cap, const int32_t *rd, const int32_t *rp, int32_t rows,
                                 int32_t heads, int32_t kvh, int32_t hd, char *err) {
	PCW(l->op_decode_attention(out, q, kn, vn, kc, vc, ndec, cap, rd, rp, rows, heads, kvh, hd));
}
static int w_op_matmul(const pc_lib *l, int32_t ta, int32_t tb, int32_t m, int32_t n, int32_t k, float alpha, const float *a,
                       int32_t lda, const float *b, int32_t ldb, float beta, float *c, int32_t ldc, char *err) {
	PCW(l->op_matmul(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc));
}
static int w_op_rmsnorm(const pc_lib *l, float *y, float *inv, const float *x, const float *w, int32_t rows, int32_t dim, float eps, char *err) {
	PCW(l->op_rmsnorm(y, inv, x, w, rows, dim, eps));
}
static int w_op_rmsnorm_backward(const pc_lib *l, float *dx, float *dw, const float *dy, const float *x, const float *w, const float *inv,
                                 int32_t rows, int32_t dim, char *err) {
	PCW(l->op_rmsnorm_backward(dx, dw, dy, x, w, inv, rows, dim));
}
static int w_op_rope(const pc_lib *l, float *x, int32_t rows, int32_t heads, int32_t hd, int32_t pos0, const float *c, const float *s,
                     int32_t npos, int32_t inv, char *err) {
	PCW(l->op_rope(x, rows, heads, hd, pos0, c, s, npos, inv));
}
static int w_op_attention(const pc_lib *l, float *out, float *lse, const float *q, const float *k, const float *v, int32_t rows,
                          int32_t past, int32_t heads, int32_t kvh, int32_t hd, char *err) {
	PCW(l->op_attention(out, lse, q, k, v, rows, past, heads, kvh, hd));
}
static int w_op_attention_backward(const pc_lib *l, float *dq, float *dk, float *dv, const float *dout, const float *q, const float *k,
                                   const float *v, const float *out, const float *lse, int32_t rows, int32_t heads, int32_t kvh,
                                   int32_t hd, char *err) {
	PCW(l->op_attention_backward(dq, dk, dv, dout, q, k, v, out, lse, rows, heads, kvh, hd));
}
static int w_op_swiglu(const pc_lib *l, float *h, const float *g, const float *u, int64_t n, char *err) { PCW(l->op_swiglu(h, g, u, n)); }
static int w_op_swiglu_backward(const pc_lib *l, float *dg, float *du, const float *dh, const float *g, const float *u, int64_t n, char *err) {
	PCW(l->op_swiglu_backward(dg, du, dh, g, u, n));
}
static int w_op_log_softmax(const pc_lib *l, float *lp, float *ent, float *lse, const float *lg, const int32_t *tg, int32_t rows,
                            int32_t vocab, char *err) {
	PCW(l->op_log_softmax(lp, ent, lse, lg, tg, rows, vocab));
}
static int w_op_log_softmax_backward(const pc_lib *l, float *dl, const float *lg, const float *lse, const int32_t *tg, const float *dlp,
                                     int32_t rows, int32_t vocab, char *err) {
	PCW(l->op_log_softmax_backward(dl, lg, lse, tg, dlp, rows, vocab));
}
static int w_op_adamw(const pc_lib *l, float *p, const float *g, float *m, float *v, int64_t n, const pc_adamw *h, char *err) {
	PCW(l->op_adamw(p, g, m, v, n, h));
}
static int w_op_sample(const pc_lib *l, const float *lg, int32_t vocab, const pc_sampling *s, double u, int32_t *tok, float *logp, char *err) {
	PCW(l->op_sample(lg, vocab, s, u, tok, logp));
}
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"unsafe"

	"github.com/pats-rl/pats/lib/model"
)

// ABI is the interface version this package was built with
// (PATS_CUDA_ABI of cuda/pats_cuda.h).
const ABI = int(C.PATS_CUDA_ABI)

// cudaLib is the loaded library: its function table, in C memory.
type cudaLib struct {
	l    *C.pc_lib
	path string
}

// errBuf is the message buffer every wrapper fills on failure.
type errBuf [C.ERRLEN]C.char

func (e *errBuf) p() *C.char { return &e[0] }

// check wraps a failed call's message with the call's name.
func check(call string, rc C.int, e *errBuf) error {
	if rc == 0 {
		return nil
	}
	return fmt.Errorf("cuda: %s: %s", call, C.GoString(e.p()))
}

var (
	loadOnce sync.Once
	loaded   *cudaLib
	loadErr  error
)

// libPath is where the library is looked for: $PATS_CUDA_LIB, else
// LibName beside the executable when it is there, else LibName for the
// dynamic loader's search path.
func libPath() string {
	if p := os.Getenv(EnvLib); p != "" {
		return p
	}
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), LibName)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return LibName
}

// load loads the library at path and checks its interface version.
func load(path string) (*cudaLib, error) {
	l := (*C.pc_lib)(C.calloc(1, C.size_t(unsafe.Sizeof(C.pc_lib{}))))
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var e errBuf
	var abi C.int
	switch C.pc_open(cpath, l, &abi, e.p()) {
	case 0:
		return &cudaLib{l: l, path: path}, nil
	case 1:
		C.free(unsafe.Pointer(l))
		msg := C.GoString(e.p())
		if path == LibName {
			return nil, fmt.Errorf("cannot load %s (%s); build it with make cuda, put it beside the binary or set %s", LibName, msg, EnvLib)
		}
		return nil, fmt.Errorf("cannot load %s: %s", path, msg)
	case 3:
		C.free(unsafe.Pointer(l))
		return nil, fmt.Errorf("%s has interface version %d, this binary wants %d: rebuild it with make cuda", path, int(abi), ABI)
	default:
		C.free(unsafe.Pointer(l))
		return nil, fmt.Errorf("%s is not the pats CUDA library: it has no %s", path, C.GoString(e.p()))
	}
}

// LoadPath loads the CUDA library at path and checks its interface version,
// without looking for a device (tests). The library stays loaded.
func LoadPath(path string) error {
	_, err := load(path)
	return err
}

// openCUDA loads the library once per process and finds device 0.
func openCUDA() (*cudaLib, string, error) {
	loadOnce.Do(func() { loaded, loadErr = load(libPath()) })
	if loadErr != nil {
		return nil, "", loadErr
	}
	return findDevice(loaded)
}

// openPath is openCUDA for the library at path, loaded afresh (tests).
func openPath(path string) (*Device, error) {
	l, err := load(path)
	if err != nil {
		return nil, err
	}
	l, desc, err := findDevice(l)
	if err != nil {
		return nil, err
	}
	return &Device{name: CUDA, desc: desc, cuda: l}, nil
}

// findDevice checks that l sees a device and describes device 0.
func findDevice(l *cudaLib) (*cudaLib, string, error) {
	var e errBuf
	var n C.int32_t
	if err := check("pc_device_count", C.w_device_count(l.l, &n, e.p()), &e); err != nil {
		return nil, "", err
	}
	if n < 1 {
		return nil, "", errors.New("no CUDA device found (" + l.path + " loaded, the driver sees none)")
	}
	var name [256]C.char
	if err := check("pc_device_name", C.w_device_name(l.l, 0, &name[0], C.int32_t(len(name)), e.p()), &e); err != nil {
		return nil, "", err
	}
	return l, C.GoString(&name[0]), nil
}

var errClosed = errors.New("cuda: the device model was freed (model.Detach)")

// accel is a model on the CUDA device: model.Accelerator. Calls are
// serialised by mu (the library wants one host thread at a time per
// model).
type accel struct {
	mu   sync.Mutex
	lib  *cudaLib
	m    *C.pc_model
	cfg  model.Config
	desc string
	// issue 60: the adapter the device model was made with (nil: none),
	// and whether a kept forward keeps each layer's input only (keep = 2).
	lora      *model.LoRAConfig
	recompute bool
}

func pcConfig(c model.Config, lora *model.LoRAConfig) C.pc_config {
	tied, qkNorm := C.int32_t(0), C.int32_t(0)
	if c.TieWordEmbeddings {
		tied = 1
	}
	if c.QKNorm() { // Qwen3 (issue 60)
		qkNorm = 1
	}
	return C.pc_config{
		vocab: C.int32_t(c.VocabSize), hidden: C.int32_t(c.HiddenSize), intermediate: C.int32_t(c.IntermediateSize),
		layers: C.int32_t(c.NumHiddenLayers), heads: C.int32_t(c.NumAttentionHeads), kv_heads: C.int32_t(c.NumKeyValueHeads),
		head_dim: C.int32_t(c.HeadDim()), max_positions: C.int32_t(c.MaxPositionEmbeddings), tied: tied,
		rms_eps: C.float(c.RMSNormEps), rope_theta: C.double(c.RopeTheta), qk_norm: qkNorm,
		lora_rank: C.int32_t(loraRank(lora)), lora_targets: C.int32_t(loraTargets(lora)), lora_scale: C.float(loraScale(lora)),
	}
}

// loraRank, loraTargets and loraScale are pc_config's LoRA fields (issue
// 60): the rank, one bit per targeted projection in model.LoRAModules'
// order (the header's bit order), and alpha/rank as the CPU computes it.
func loraRank(l *model.LoRAConfig) int {
	if l == nil {
		return 0
	}
	return l.Rank
}

func loraTargets(l *model.LoRAConfig) int {
	if l == nil {
		return 0
	}
	bits := 0
	for j, name := range model.LoRAModules {
		if l.Targets == nil || slices.Contains(l.Targets, name) {
			bits |= 1 << j
		}
	}
	return bits
}

func loraScale(l *model.LoRAConfig) float32 {
	if l == nil {
		return 0
	}
	return float32(l.Alpha / float64(l.Rank))
}

func newAccel(l *cudaLib, c model.Config, lora *model.LoRAConfig, desc string) (model.Accelerator, error) {
	if lora != nil {
		lc := *lora
		if lc.Targets == nil {
			lc.Targets = slices.Clone(model.LoRAModules)
		}
		lora = &lc
	}
	cfg := pcConfig(c, lora)
	var e errBuf
	var m *C.pc_model
	if err := check("pc_model_new", C.w_model_new(l.l, &cfg, 0, &m, e.p()), &e); err != nil {
		return nil, err
	}
	return &accel{lib: l, m: m, cfg: c, desc: desc, lora: lora}, nil
}

// NewModel makes a device model for a configuration without attaching it
// (benchmarks and the parity suite); the device must be cuda.
func (d *Device) NewModel(c model.Config) (model.Accelerator, error) {
	if d.cuda == nil {
		return nil, errors.New("device: NewModel needs cuda")
	}
	return newAccel(d.cuda, c, nil, d.desc)
}

// NewLoRAModel is NewModel for a model that trains a LoRA adapter of lora
// over a frozen BF16 base (issue 60; model.LoRAAccelerator): the
// benchmark's memory and speed figures use it.
func (d *Device) NewLoRAModel(c model.Config, lora model.LoRAConfig) (model.Accelerator, error) {
	if d.cuda == nil {
		return nil, errors.New("device: NewLoRAModel needs cuda")
	}
	return newAccel(d.cuda, c, &lora, d.desc)
}

// LoRA is the adapter configuration the device model was made with.
func (a *accel) LoRA() *model.LoRAConfig { return a.lora }

// EnableAdapter switches the adapter on or off (pc_adapter_enable).
func (a *accel) EnableAdapter(on bool) error {
	v := C.int32_t(0)
	if on {
		v = 1
	}
	return a.call("pc_adapter_enable", func(e *errBuf) C.int {
		return C.w_adapter_enable(a.lib.l, a.m, v, e.p())
	})
}

// SetRecompute makes kept forwards keep each layer's input only (keep = 2
// of pc_forward).
func (a *accel) SetRecompute(on bool) {
	a.mu.Lock()
	a.recompute = on
	a.mu.Unlock()
}

func (a *accel) Name() string { return "cuda: " + a.desc }

func f32(s []float32) *C.float {
	if len(s) == 0 {
		return nil
	}
	return (*C.float)(unsafe.Pointer(&s[0]))
}

func i32(s []int32) *C.int32_t {
	if len(s) == 0 {
		return nil
	}
	return (*C.int32_t)(unsafe.Pointer(&s[0]))
}

// call runs one library call on the open device model, holding the lock,
// and names the call in its error.
func (a *accel) call(name string, f func(e *errBuf) C.int) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.m == nil {
		return errClosed
	}
	var e errBuf
	return check(name, f(&e), &e)
}

func (a *accel) SetParam(i int, w []float32) error {
	return a.call("pc_param_set", func(e *errBuf) C.int {
		return C.w_param_set(a.lib.l, a.m, C.int32_t(i), f32(w), C.int64_t(len(w)), e.p())
	})
}

func (a *accel) Param(i int, dst []float32) error {
	return a.call("pc_param_get", func(e *errBuf) C.int {
		return C.w_param_get(a.lib.l, a.m, C.int32_t(i), f32(dst), C.int64_t(len(dst)), e.p())
	})
}

func (a *accel) Grad(i int, dst []float32) error {
	return a.call("pc_grad_get", func(e *errBuf) C.int {
		return C.w_grad_get(a.lib.l, a.m, C.int32_t(i), f32(dst), C.int64_t(len(dst)), e.p())
	})
}

func (a *accel) SetMoments(i int, m, v []float32) error {
	if len(m) != len(v) {
		return fmt.Errorf("cuda: pc_moments_set: %d and %d values", len(m), len(v))
	}
	return a.call("pc_moments_set", func(e *errBuf) C.int {
		return C.w_moments_set(a.lib.l, a.m, C.int32_t(i), f32(m), f32(v), C.int64_t(len(m)), e.p())
	})
}

func (a *accel) Moments(i int, m, v []float32) error {
	if len(m) != len(v) {
		return fmt.Errorf("cuda: pc_moments_get: %d and %d values", len(m), len(v))
	}
	return a.call("pc_moments_get", func(e *errBuf) C.int {
		return C.w_moments_get(a.lib.l, a.m, C.int32_t(i), f32(m), f32(v), C.int64_t(len(m)), e.p())
	})
}

func (a *accel) ZeroGrad() error {
	return a.call("pc_zero_grad", func(e *errBuf) C.int {
		return C.w_zero_grad(a.lib.l, a.m, e.p())
	})
}

func (a *accel) Forward(tokens, rows, targets []int32, lp, ent []float32, keep bool) error {
	if len(rows) != len(targets) || len(lp) != len(rows) || (ent != nil && len(ent) != len(rows)) {
		return fmt.Errorf("cuda: pc_forward: %d rows, %d targets, %d lp, %d ent", len(rows), len(targets), len(lp), len(ent))
	}
	k := C.int32_t(0)
	if keep {
		k = 1
	}
	return a.call("pc_forward", func(e *errBuf) C.int {
		if keep && a.recompute {
			k = 2
		}
		return C.w_forward(a.lib.l, a.m, i32(tokens), C.int32_t(len(tokens)), i32(rows), i32(targets),
			C.int32_t(len(rows)), f32(lp), f32(ent), k, e.p())
	})
}

func (a *accel) Backward(dlp []float32) error {
	return a.call("pc_backward", func(e *errBuf) C.int {
		return C.w_backward(a.lib.l, a.m, f32(dlp), e.p())
	})
}

func (a *accel) Logits(tokens []int32, out []float32) error {
	if len(out) != len(tokens)*a.cfg.VocabSize {
		return fmt.Errorf("cuda: pc_logits: %d values for %d tokens", len(out), len(tokens))
	}
	return a.call("pc_logits", func(e *errBuf) C.int {
		return C.w_logits(a.lib.l, a.m, i32(tokens), C.int32_t(len(tokens)), f32(out), e.p())
	})
}

func (a *accel) ClipGradNorm(maxNorm float64) (float64, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.m == nil {
		return 0, errClosed
	}
	var e errBuf
	var n C.double
	err := check("pc_clip_grad_norm", C.w_clip(a.lib.l, a.m, C.double(maxNorm), &n, e.p()), &e)
	return float64(n), err
}

func pcAdamW(h model.AdamWStep) C.pc_adamw {
	return C.pc_adamw{lr: C.float(h.LR), beta1: C.float(h.Beta1), beta2: C.float(h.Beta2), eps: C.float(h.Eps),
		weight_decay: C.float(h.WeightDecay), bc1: C.float(h.BC1), bc2: C.float(h.BC2)}
}

func (a *accel) AdamW(h model.AdamWStep, decay []bool) error {
	flags := make([]uint8, len(decay)+1)
	for i, d := range decay {
		if d {
			flags[i] = 1
		}
	}
	ch := pcAdamW(h)
	return a.call("pc_adamw_step", func(e *errBuf) C.int {
		return C.w_adamw_step(a.lib.l, a.m, &ch, (*C.uint8_t)(unsafe.Pointer(&flags[0])), e.p())
	})
}

func (a *accel) Memory() (int64, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.m == nil {
		return 0, errClosed
	}
	var e errBuf
	var b C.int64_t
	err := check("pc_model_memory", C.w_model_memory(a.lib.l, a.m, &b, e.p()), &e)
	return int64(b), err
}

func (a *accel) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.m != nil {
		C.w_model_free(a.lib.l, a.m)
		a.m = nil
	}
	return nil
}

// decoder is a KV cache on the device; it is freed when it becomes
// unreachable (runtime.AddCleanup).
type decoder struct {
	a *accel
	d *C.pc_decoder
}

func (a *accel) wrap(d *C.pc_decoder) *decoder {
	dd := &decoder{a: a, d: d}
	runtime.AddCleanup(dd, func(p *C.pc_decoder) {
		a.mu.Lock()
		defer a.mu.Unlock()
		// After the model was freed the decoder holds no device memory
		// (pc_model_free released its caches), but its handle still
		// has to be freed.
		C.w_decoder_free(a.lib.l, p)
		cleanupsRun.Add(1)
	}, d)
	return dd
}

func (a *accel) NewDecoder(capacity int) (model.DeviceDecoder, error) {
	var d *C.pc_decoder
	err := retry(func() error {
		a.mu.Lock()
		defer a.mu.Unlock()
		if a.m == nil {
			return errClosed
		}
		var e errBuf
		return check("pc_decoder_new", C.w_decoder_new(a.lib.l, a.m, C.int32_t(capacity), &d, e.p()), &e)
	})
	if err != nil {
		return nil, err
	}
	return a.wrap(d), nil
}

func (d *decoder) Clone() (model.DeviceDecoder, error) {
	a := d.a
	var c *C.pc_decoder
	err := retry(func() error {
		a.mu.Lock()
		defer a.mu.Unlock()
		if a.m == nil {
			return errClosed
		}
		var e errBuf
		return check("pc_decoder_clone", C.w_decoder_clone(a.lib.l, d.d, &c, e.p()), &e)
	})
	runtime.KeepAlive(d)
	if err != nil {
		return nil, err
	}
	return a.wrap(c), nil
}

func (d *decoder) Len() int {
	d.a.mu.Lock()
	defer d.a.mu.Unlock()
	if d.a.m == nil {
		return 0
	}
	n := int(C.w_decoder_len(d.a.lib.l, d.d))
	runtime.KeepAlive(d)
	return n
}

func (a *accel) AppendBatch(decs []model.DeviceDecoder, tokens, offsets []int32, logits []float32, s *model.Sampling, u []float64, tok []int32, logp []float32) error {
	n := len(decs)
	if len(offsets) != n+1 || n == 0 {
		return fmt.Errorf("cuda: pc_append_batch: %d offsets for %d decoders", len(offsets), n)
	}
	if logits != nil && len(logits) != n*a.cfg.VocabSize {
		return fmt.Errorf("cuda: pc_append_batch: %d logits for %d decoders", len(logits), n)
	}
	// The decoder handles are C pointers, kept in C memory for the call.
	ptrs := (*[1 << 28]*C.pc_decoder)(C.malloc(C.size_t(n) * C.size_t(unsafe.Sizeof((*C.pc_decoder)(nil)))))[:n:n]
	defer C.free(unsafe.Pointer(&ptrs[0]))
	for i, d := range decs {
		dd, ok := d.(*decoder)
		if !ok || dd.a != a {
			return fmt.Errorf("cuda: pc_append_batch: decoder %d belongs to another model", i)
		}
		ptrs[i] = dd.d
	}
	var cs *C.pc_sampling
	var sv C.pc_sampling
	var cu *C.double
	if s != nil {
		if len(u) != n || len(tok) != n || len(logp) != n {
			return fmt.Errorf("cuda: pc_append_batch: %d uniforms, %d tokens, %d logps for %d decoders", len(u), len(tok), len(logp), n)
		}
		sv = C.pc_sampling{temperature: C.float(s.Temperature), top_p: C.float(s.TopP)}
		cs = &sv
		cu = (*C.double)(unsafe.Pointer(&u[0]))
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.m == nil {
		return errClosed
	}
	var e errBuf
	err := check("pc_append_batch", C.w_append_batch(a.lib.l, &ptrs[0], C.int32_t(n), i32(tokens), i32(offsets),
		f32(logits), cs, cu, i32(tok), f32(logp), e.p()), &e)
	runtime.KeepAlive(decs)
	return err
}

// GraphStats reports how the model's decoding steps ran: CUDA graphs
// captured, steps replayed from one, steps launched directly, and whether
// graphs are still in use (pc_model_graphs).
func (a *accel) GraphStats() (captures, replays, direct int64, enabled bool, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.m == nil {
		return 0, 0, 0, false, errClosed
	}
	var e errBuf
	var c, r, d C.int64_t
	var on C.int32_t
	err = check("pc_model_graphs", C.w_model_graphs(a.lib.l, a.m, &c, &r, &d, &on, e.p()), &e)
	return int64(c), int64(r), int64(d), on != 0, err
}

// Kernels runs the library's single-kernel checks (pc_op_*) on device 0
// behind model.Backend, and Sample for pc_op_sample; a failing call
// panics with its message (they serve the parity suite).
type Kernels struct{ lib *cudaLib }

// Kernels returns the kernel checks of an opened cuda device.
func (d *Device) Kernels() (*Kernels, error) {
	if d.cuda == nil {
		return nil, errors.New("device: kernels need cuda")
	}
	return &Kernels{lib: d.cuda}, nil
}

func must(call string, rc C.int, e *errBuf) {
	if err := check(call, rc, e); err != nil {
		panic(err)
	}
}

func b32(b bool) C.int32_t {
	if b {
		return 1
	}
	return 0
}

// Name implements model.Backend.
func (k *Kernels) Name() string { return "cuda-kernels" }

// MatMul implements model.Backend.
func (k *Kernels) MatMul(transA, transB bool, m, n, kk int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	var e errBuf
	must("pc_op_matmul", C.w_op_matmul(k.lib.l, b32(transA), b32(transB), C.int32_t(m), C.int32_t(n), C.int32_t(kk), C.float(alpha),
		f32(a), C.int32_t(lda), f32(b), C.int32_t(ldb), C.float(beta), f32(c), C.int32_t(ldc), e.p()), &e)
}

// RMSNorm implements model.Backend.
func (k *Kernels) RMSNorm(y, inv, x, w []float32, rows, dim int, eps float32) {
	var e errBuf
	must("pc_op_rmsnorm", C.w_op_rmsnorm(k.lib.l, f32(y), f32(inv), f32(x), f32(w), C.int32_t(rows), C.int32_t(dim), C.float(eps), e.p()), &e)
}

// RMSNormBackward implements model.Backend.
func (k *Kernels) RMSNormBackward(dx, dw, dy, x, w, inv []float32, rows, dim int) {
	var e errBuf
	must("pc_op_rmsnorm_backward", C.w_op_rmsnorm_backward(k.lib.l, f32(dx), f32(dw), f32(dy), f32(x), f32(w), f32(inv),
		C.int32_t(rows), C.int32_t(dim), e.p()), &e)
}

// RoPE implements model.Backend.
func (k *Kernels) RoPE(x []float32, rows, heads, headDim, pos0 int, cos, sin []float32, inverse bool) {
	var e errBuf
	npos := len(cos) / (headDim / 2)
	must("pc_op_rope", C.w_op_rope(k.lib.l, f32(x), C.int32_t(rows), C.int32_t(heads), C.int32_t(headDim), C.int32_t(pos0),
		f32(cos), f32(sin), C.int32_t(npos), b32(inverse), e.p()), &e)
}

// Attention implements model.Backend.
func (k *Kernels) Attention(out, lse, q, kk, v []float32, s model.AttnShape) {
	var e errBuf
	must("pc_op_attention", C.w_op_attention(k.lib.l, f32(out), f32(lse), f32(q), f32(kk), f32(v), C.int32_t(s.Rows), C.int32_t(s.Past),
		C.int32_t(s.Heads), C.int32_t(s.KVHeads), C.int32_t(s.HeadDim), e.p()), &e)
}

// AttentionBackward implements model.Backend.
func (k *Kernels) AttentionBackward(dq, dk, dv, dout, q, kk, v, out, lse []float32, s model.AttnShape) {
	if s.Past != 0 {
		panic("device: AttentionBackward with cached positions (the CPU backend's only)")
	}
	var e errBuf
	must("pc_op_attention_backward", C.w_op_attention_backward(k.lib.l, f32(dq), f32(dk), f32(dv), f32(dout), f32(q), f32(kk), f32(v),
		f32(out), f32(lse), C.int32_t(s.Rows), C.int32_t(s.Heads), C.int32_t(s.KVHeads), C.int32_t(s.HeadDim), e.p()), &e)
}

// SwiGLU implements model.Backend.
func (k *Kernels) SwiGLU(h, g, u []float32) {
	var e errBuf
	must("pc_op_swiglu", C.w_op_swiglu(k.lib.l, f32(h), f32(g), f32(u), C.int64_t(len(h)), e.p()), &e)
}

// SwiGLUBackward implements model.Backend.
func (k *Kernels) SwiGLUBackward(dg, du, dh, g, u []float32) {
	var e errBuf
	must("pc_op_swiglu_backward", C.w_op_swiglu_backward(k.lib.l, f32(dg), f32(du), f32(dh), f32(g), f32(u), C.int64_t(len(dh)), e.p()), &e)
}

// LogSoftmax implements model.Backend.
func (k *Kernels) LogSoftmax(lp, ent, lse, logits []float32, target []int32, rows, vocab int) {
	var e errBuf
	must("pc_op_log_softmax", C.w_op_log_softmax(k.lib.l, f32(lp), f32(ent), f32(lse), f32(logits), i32(target),
		C.int32_t(rows), C.int32_t(vocab), e.p()), &e)
}

// LogSoftmaxBackward implements model.Backend.
func (k *Kernels) LogSoftmaxBackward(dlogits, logits, lse []float32, target []int32, dlp []float32, rows, vocab int) {
	var e errBuf
	must("pc_op_log_softmax_backward", C.w_op_log_softmax_backward(k.lib.l, f32(dlogits), f32(logits), f32(lse), i32(target), f32(dlp),
		C.int32_t(rows), C.int32_t(vocab), e.p()), &e)
}

// AdamW implements model.Backend.
func (k *Kernels) AdamW(p, g, m, v []float32, h model.AdamWStep) {
	var e errBuf
	ch := pcAdamW(h)
	must("pc_op_adamw", C.w_op_adamw(k.lib.l, f32(p), f32(g), f32(m), f32(v), C.int64_t(len(p)), &ch, e.p()), &e)
}

// Sample is pc_op_sample: model.SampleU on the device.
func (k *Kernels) Sample(logits []float32, s model.Sampling, u float64) (int32, float32) {
	var e errBuf
	cs := C.pc_sampling{temperature: C.float(s.Temperature), top_p: C.float(s.TopP)}
	var tok C.int32_t
	var lp C.float
	must("pc_op_sample", C.w_op_sample(k.lib.l, f32(logits), C.int32_t(len(logits)), &cs, C.double(u), &tok, &lp, e.p()), &e)
	return int32(tok), float32(lp)
}

// DecodeAttention is pc_op_decode_attention: row r's key and value are
// stored at position rowpos[r] of decoder rowdec[r]'s caches (kc and vc,
// ndec x capacity x kvdim, updated), then its query attends over
// positions 0..rowpos[r] of that cache.
func (k *Kernels) DecodeAttention(out, q, knew, vnew, kc, vc []float32, ndec, capacity int, rowdec, rowpos []int32, heads, kvHeads, headDim int) {
	var e errBuf
	must("pc_op_decode_attention", C.w_op_decode_attention(k.lib.l, f32(out), f32(q), f32(knew), f32(vnew), f32(kc), f32(vc),
		C.int32_t(ndec), C.int32_t(capacity), i32(rowdec), i32(rowpos), C.int32_t(len(rowdec)), C.int32_t(heads),
		C.int32_t(kvHeads), C.int32_t(headDim), e.p()), &e)
}

var _ model.Backend = (*Kernels)(nil)
