package pipelines

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSweepWarmupsFirst checks the order in which make meets a sweep's
// runs. make -j scans a prerequisite list once and puts off, to the end of
// the list, a target whose prerequisite is still being made; with a
// warm-up listed among the runs, every scaffold run of seed 1 waited
// behind the runs of all later seeds that need no warm-up (a sweep cut
// short then had grpo for every seed and no pats). So the warm-ups come
// first, then the runs in seed-major order: a serial dry run of sweep and
// of sweep-rest starts every warm-up before any run. sweep-rest leaves a
// finished run (summary.md there) and its seed's warm-up out.
func TestSweepWarmupsFirst(t *testing.T) {
	sizes := []string{"ENV=household-rl", "BASE=base", "VARIANTS=pats grpo static", "SEEDS=1 2", "SEEDS_pats=1 2 3", "ITERS=1"}
	sub := regexp.MustCompile(`make --no-print-directory (warmup|pats) PIPE_SUB=1 (?:WARMUP= )?VARIANT=(\S+) SEED=(\d)`)
	order := func(out string) []string {
		var got []string
		for _, m := range sub.FindAllStringSubmatch(out, -1) {
			got = append(got, m[1]+" "+m[2]+" "+m[3])
		}
		return got
	}
	// -k: under -n no warm-up is made, so each run's own make stops at
	// its missing ckpt/0; the calling make's order is what counts here.
	out, _ := dryRun(t, append([]string{"-k", "sweep", "SWEEP=runs/s"}, sizes...)...)
	want := []string{"warmup pats 1", "warmup pats 2", "warmup pats 3",
		"pats pats 1", "pats grpo 1", "pats static 1", "pats pats 2", "pats grpo 2", "pats static 2", "pats pats 3"}
	if d := cmp.Diff(want, order(out)); d != "" {
		t.Errorf("make -n sweep: warm-ups and runs in this order (-want +got):\n%s", d)
	}

	// sweep-rest with pats-s1 and every seed-2 run finished.
	runs := t.TempDir()
	for _, r := range []string{"pats-s1", "pats-s2", "grpo-s2", "static-s2"} {
		if err := os.MkdirAll(filepath.Join(runs, "s", r), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(runs, "s", r, "summary.md"), []byte("done\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, _ = dryRun(t, append([]string{"-k", "sweep-rest", "RUNS=" + runs, "SWEEP=" + filepath.Join(runs, "s")}, sizes...)...)
	want = []string{"warmup pats 1", "warmup pats 3", "pats grpo 1", "pats static 1", "pats pats 3"}
	if d := cmp.Diff(want, order(out)); d != "" {
		t.Errorf("make -n sweep-rest: (-want +got):\n%s", d)
	}
}
