package pipelines

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pats-rl/pats/lib/report"
	"github.com/pats-rl/pats/lib/table"
)

// checkSweepArchive packs an audited sweep of finished runs with
// scripts/sweep-archive.sh, unpacks it into an empty folder with
// scripts/sweep-restore.sh, and checks that the restored sweep is reported
// as the original: report sweep's rows and report plots' bytes are equal,
// no weights travelled, a second archive call packs nothing, and a
// restore leaves a finished run as it is but replaces an unfinished one.
func checkSweepArchive(t *testing.T, root, bin, sweep, seeds string, plots map[string][]byte) {
	t.Helper()
	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "BIN="+bin)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
		return string(out)
	}
	archive := filepath.Join(t.TempDir(), "archive")
	out := run("bash", filepath.Join(root, "scripts", "sweep-archive.sh"), sweep, archive)
	if !strings.Contains(out, "2 runs packed") {
		t.Errorf("sweep-archive: %s", out)
	}
	if out := run("bash", filepath.Join(root, "scripts", "sweep-archive.sh"), sweep, archive); !strings.Contains(out, "0 runs packed") {
		t.Errorf("a second sweep-archive packed again: %s", out)
	}
	restored := filepath.Join(t.TempDir(), "sweep")
	// An unfinished copy of seed 2 is replaced; nothing else is there.
	if err := os.MkdirAll(filepath.Join(restored, "pats-s2", "traj"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(restored, "pats-s2", "traj", "0.parquet"), []byte("partial"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := run("bash", filepath.Join(root, "scripts", "sweep-restore.sh"), archive, restored); !strings.Contains(out, "2 runs restored") {
		t.Errorf("sweep-restore: %s", out)
	}
	if out := run("bash", filepath.Join(root, "scripts", "sweep-restore.sh"), archive, restored); !strings.Contains(out, "0 runs restored") {
		t.Errorf("a second sweep-restore restored again: %s", out)
	}
	weights, _ := filepath.Glob(filepath.Join(restored, "*", "ckpt", "*", "*.safetensors"))
	if len(weights) > 0 {
		t.Errorf("the archive carried weights: %v", weights)
	}
	for _, f := range []string{"pats-s1/summary.md", "pats-s2/traj/0.parquet", "pats-s1/ckpt/0/config.json"} {
		if _, err := os.Stat(filepath.Join(restored, f)); err != nil {
			t.Errorf("restored sweep: %v", err)
		}
	}

	rows := func(dir string) []report.SweepResult {
		t.Helper()
		p := filepath.Join(t.TempDir(), "results.parquet")
		run(filepath.Join(bin, "report"), "sweep", "--root", dir, "--variants", "pats keep", "--seeds", seeds, "-o", p)
		r, _, err := table.ReadFiles[report.SweepResult](p)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if d := cmp.Diff(rows(sweep), rows(restored)); d != "" {
		t.Errorf("report sweep, original (-) against restored (+):\n%s", d)
	}
	plotDir := filepath.Join(t.TempDir(), "plots")
	run(filepath.Join(bin, "report"), "plots", restored, "-o", plotDir)
	if !cmp.Equal(plots, readPlots(t, plotDir)) {
		t.Error("report plots of the restored sweep: not the original's bytes")
	}
}
