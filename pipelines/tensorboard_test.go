package pipelines

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
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

// TestDemoTensorboard runs make demo, shrunk (DEMO_SIZES: two iterations
// of 2 tasks x 2 episodes, 2 evaluation tasks per split, an evaluation
// after every iteration, a warm-up of 4 demonstrations, the mechanism
// audits on), otherwise as the demo is: household-rl, the shipped
// reading-e1 base and its context, the pats and grpo runs side by side.
// Both runs' event files read back with the independent reader.
func TestDemoTensorboard(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the demo, shrunk, with make (about a minute)")
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make not found")
	}
	root := repoRoot(t)
	bin := buildTools(t, root)
	runs := t.TempDir()
	sizes := "DEMO_SIZES=ENV=household-rl ITERS=2 TASKS=2 GROUP=2 BOOT_TASKS=2 EVAL_TASKS=2 EVAL_EVERY=1 SEED=1 BASE=demo/base " +
		"READING_BASE=" + filepath.Join(runs, "demo", "base") + " READING_SHIPPED=pipelines/bases/reading-e1 READING_SEED=1 READING_EPOCHS=1 " +
		"MECHANISM=1 DEMO_TASKS=4 SFT_EPOCHS=1"
	cmd := exec.Command("make", "--no-print-directory", "demo", "PIPE_BUILD=0", "BIN="+bin, "RUNS="+runs, sizes)
	cmd.Dir = root
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make demo: %v\n%s", err, out)
	}
	evals := func(kinds ...string) map[string][]int {
		m := map[string][]int{"traj": {0, 1}}
		for _, e := range kinds {
			for _, s := range []string{"valid_seen", "valid_unseen"} {
				m["eval-"+e+"-"+s] = []int{0, 1, 2}
			}
		}
		return m
	}
	pats := evals("bare", "scaffold")
	pats["lift"] = []int{0, 1}
	checkTensorboard(t, filepath.Join(runs, "demo", "pats"), true, pats)
	checkTensorboard(t, filepath.Join(runs, "demo", "grpo"), false, evals("bare"))
}
