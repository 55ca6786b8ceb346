package main

import (
	"testing"

	"github.com/pats-rl/pats/lib/stage/rollouttest"
	"github.com/pats-rl/pats/lib/table"
)

// TestMixedSourcesRefused (evaluate): a folder of trajectories from two
// policies, two environments or two runs is refused with one line and no
// output; one source, or one pooled file, passes; --group-by the mixed
// column writes one summary per value (rollouttest.MixedSourcesRefused).
func TestMixedSourcesRefused(t *testing.T) {
	rollouttest.MixedSourcesRefused(t, run, "metrics.parquet", func(path string) ([]rollouttest.Source, error) {
		rows, _, err := table.ReadFiles[table.EvalMetrics](path)
		var s []rollouttest.Source
		for _, r := range rows {
			s = append(s, rollouttest.Source{Policy: r.Policy, Env: r.Env, Run: r.Run})
		}
		return s, err
	})
}
