package validate

import (
	"github.com/pats-rl/pats/lib/table"
	"math/rand"
	"testing"
)

// TestFuzzDecoderReachesAcceptance guards the fuzz decoder: random inputs
// must produce accepted proposals of every op, or the fuzz test checks
// little.
func TestFuzzDecoderReachesAcceptance(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	o := DefaultOptions()
	accepted := map[string]int{}
	for n := 0; n < 3000; n++ {
		data := make([]byte, 8*(1+r.Intn(6)))
		r.Read(data)
		props := proposalsFrom(data)
		_, dec := Apply(base(), props, cards(), o)
		for _, d := range dec {
			if d.Accepted {
				accepted[d.Op]++
			}
		}
	}
	for _, op := range []string{table.OpAdd, table.OpEdit, table.OpMerge, table.OpDelete} {
		if accepted[op] == 0 {
			t.Errorf("no accepted %s from the fuzz decoder (%v)", op, accepted)
		}
	}
	t.Logf("accepted by op: %v", accepted)
}
