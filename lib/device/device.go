package device

import (
	"fmt"
	"runtime"

	"github.com/pats-rl/pats/lib/model"
)

// Names of the devices a --device flag accepts.
const (
	CPU  = "cpu"
	CUDA = "cuda"
)

// LibName is the file name of the CUDA library.
const LibName = "libpatscuda.so"

// EnvLib is the environment variable naming the CUDA library's path.
const EnvLib = "PATS_CUDA_LIB"

// Parse checks a --device value: cpu or cuda.
func Parse(s string) (string, error) {
	switch s {
	case CPU, CUDA:
		return s, nil
	}
	return "", fmt.Errorf("unknown device %q: want cpu or cuda", s)
}

// Device is an opened device. The zero of a cpu Device is ready to use.
type Device struct {
	name string // cpu or cuda
	desc string // what was found ("NVIDIA H200, 139.8 GiB, sm_90")
	cuda *cudaLib
}

// Open opens the device called name (see Parse): cpu always opens; cuda
// loads the library, checks its interface version and that a CUDA device
// is present, and otherwise returns one line saying what is missing.
func Open(name string) (*Device, error) {
	if _, err := Parse(name); err != nil {
		return nil, err
	}
	if name == CPU {
		return &Device{name: CPU, desc: "cpu"}, nil
	}
	l, desc, err := openCUDA()
	if err != nil {
		return nil, err
	}
	return &Device{name: CUDA, desc: desc, cuda: l}, nil
}

// Name is cpu or cuda.
func (d *Device) Name() string { return d.name }

// String describes the device ("cuda: NVIDIA H200, 139.8 GiB, sm_90").
func (d *Device) String() string {
	if d.name == CPU {
		return CPU
	}
	return d.name + ": " + d.desc
}

// Attach puts m on the device: a no-op on the cpu; on cuda a device model
// is made, m's parameters are uploaded and m dispatches to it from then on
// (see model.Model.Attach).
func (d *Device) Attach(m *model.Model) error {
	if d == nil || d.name == CPU {
		return nil
	}
	var lora *model.LoRAConfig
	if ad := m.Adapter(); ad != nil { // issue 60: the adapter over a frozen BF16 base
		lora = &ad.Cfg
	}
	acc, err := newAccel(d.cuda, m.Cfg, lora, d.desc)
	if err != nil {
		return err
	}
	if err := m.Attach(acc); err != nil {
		acc.Close()
		return err
	}
	// The device model is freed with the model (a reference model after
	// its log-probabilities, for one).
	runtime.AddCleanup(m, func(a model.Accelerator) { a.Close() }, acc)
	return nil
}
