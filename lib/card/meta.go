package card

import (
	"strconv"

	"github.com/pats-rl/pats/lib/table"
)

// Metadata keys of a cards file (table.Meta.Extra): the granularity and the
// contrast length it was built with, so that the controller aggregates the
// type evidence the same way (Aggregate with the same top).
const (
	MetaPer       = "per"
	MetaTop       = "top"
	MetaIteration = "iteration"
)

// TopOf returns the contrast length a cards file was built with (its
// metadata), or def when the metadata does not say.
func TopOf(m table.Meta, def int) int {
	if n, err := strconv.Atoi(m.Extra[MetaTop]); err == nil && n > 0 {
		return n
	}
	return def
}
