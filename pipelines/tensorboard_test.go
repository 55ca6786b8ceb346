package pipelines

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/tensorboard/readback"
)

// sourceDateEpoch is the time stamp_test.go fixes for every file the
// tests' commands write, which the event files take as their wall time.
const sourceDateEpoch = 1764547200

// checkTensorboard reads a pipeline run's event files (RUN/tb) back with
// the independent reader (lib/tensorboard/readback): every scalar equal
// to the run's Parquet files, one episode per iteration, the wall time
// the files' stamps record; a run with a scaffold in its rollouts has its
// size at every iteration, one without has none. parts are the parts
// (traj, lift, eval-...) that must have a file at each of their steps.
func checkTensorboard(t *testing.T, run string, scaffold bool, parts map[string][]int) {
	t.Helper()
	got := readback.CheckRun(t, run, filepath.Join(run, "tb"), sourceDateEpoch)
	have := map[string]bool{}
	for _, f := range got.Files {
		have[f] = true
	}
	var missing []string
	for part, ks := range parts {
		for _, k := range ks {
			name := "events.out.tfevents." + strings.Repeat("0", 10-len(strconv.Itoa(k))) + strconv.Itoa(k) + "." + part
			if !have[name] {
				missing = append(missing, name)
			}
		}
	}
	if len(missing) > 0 {
		t.Errorf("%s: no %v among %v", run, missing, got.Files)
	}
	for _, k := range parts["traj"] {
		_, ok := got.Scalars[readback.Point{Tag: "scaffold/items", Step: int64(k)}]
		if ok != scaffold {
			t.Errorf("%s: scaffold/items at step %d: %v, want %v", run, k, ok, scaffold)
		}
		if _, ok := got.Scalars[readback.Point{Tag: "grpo/loss", Step: int64(k)}]; !ok {
			t.Errorf("%s: no grpo/loss at step %d", run, k)
		}
	}
}
