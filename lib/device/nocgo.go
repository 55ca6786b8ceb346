//go:build !cgo

package device

import (
	"errors"

	"github.com/pats-rl/pats/lib/model"
)

// cudaLib is empty: without cgo the library cannot be loaded.
type cudaLib struct{}

var errNoCgo = errors.New("cuda is unavailable: this binary was built without cgo (CGO_ENABLED=0)")

func openCUDA() (*cudaLib, string, error) { return nil, "", errNoCgo }

func newAccel(*cudaLib, model.Config, *model.LoRAConfig, string) (model.Accelerator, error) {
	return nil, errNoCgo
}

// LoadPath loads the CUDA library at path and checks its interface
// version (tests); without cgo it always fails.
func LoadPath(path string) error { return errNoCgo }
