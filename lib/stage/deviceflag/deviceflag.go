// Package deviceflag is the --device option of the commands that run the
// model (learn, rollout, evaluate, audit). It is a package of its own so
// that only their binaries link lib/device and the model stack.
package deviceflag

import (
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/device"
)

// Usage is the --device flag's help line.
const Usage = "where the model runs: cpu, or cuda (libpatscuda.so from make cuda; $PATS_CUDA_LIB, beside the binary, or the loader's path)"

// Flag declares --device.
func Flag() cli.Flag {
	return &cli.StringFlag{Name: "device", Value: device.CPU, Usage: Usage}
}

// Open opens the device a --device value names ("" is cpu). An unknown
// name, and a cuda whose library is missing, fails to load or finds no GPU,
// is a usage error of one line (exit 2).
func Open(name string) (*device.Device, error) {
	if name == "" {
		name = device.CPU
	}
	if _, err := device.Parse(name); err != nil {
		return nil, command.Usagef("--device: %v", err)
	}
	d, err := device.Open(name)
	if err != nil {
		return nil, command.Usagef("--device %s: %s", name, strings.TrimPrefix(err.Error(), name+": "))
	}
	return d, nil
}

// IsCPU says whether a --device value names the cpu ("" is cpu): the one
// test of it wherever a stage treats the cpu apart.
func IsCPU(name string) bool { return name == "" || name == device.CPU }
