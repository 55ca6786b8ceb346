package pipelines

import (
	"bytes"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/pats-rl/pats/lib/report"
	"github.com/pats-rl/pats/lib/table"
)

// checkSweepPlots makes a sweep folder of finished loop runs (pats-sN, one
// per run given), audits it with scripts/sweep-audits.sh, and draws it
// with report plots: every plot decodes, the NLL-gap plot is there, the
// same folder gives the same bytes twice, and the success lines end at
// what report sweep writes from the same files (results.parquet: the
// mean and sample sd over seeds, bare and with the scaffold); then the
// sweep packed and restored (checkSweepArchive) reports the same.
func checkSweepPlots(t *testing.T, root, bin string, runs []string, iters int) {
	t.Helper()
	sweep := t.TempDir()
	var seeds string
	for i, r := range runs {
		seed := itoa(i + 1)
		if err := os.Symlink(r, filepath.Join(sweep, "pats-s"+seed)); err != nil {
			t.Fatal(err)
		}
		seeds += seed + " "
	}
	tool := func(name string, args ...string) string {
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
	tool("bash", filepath.Join(root, "scripts", "sweep-audits.sh"), sweep, itoa(iters))
	results := filepath.Join(t.TempDir(), "results.parquet")
	tool(filepath.Join(bin, "report"), "sweep", "--root", sweep, "--variants", "pats keep", "--seeds", seeds, "-o", results)
	var files map[string][]byte
	for try := 0; try < 2; try++ {
		out := filepath.Join(t.TempDir(), "plots")
		tool(filepath.Join(bin, "report"), "plots", sweep, "-o", out)
		got := readPlots(t, out)
		for name, b := range got {
			if _, err := png.Decode(bytes.NewReader(b)); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
		if files == nil {
			files = got
		} else if !cmp.Equal(files, got) {
			t.Error("report plots of the same sweep twice: different bytes")
		}
	}
	var names []string
	for n := range files {
		names = append(names, n)
	}
	// The mechanism audits' plots (MECHANISM=1, the default): lift.png
	// always, precision.png and recall.png where the environment judges.
	want := []string{"lift.png", "nll-gap.png", "scaffold.png", "success-valid_seen.png", "success-valid_unseen.png", "zero-variance.png"}
	for _, n := range []string{"precision.png", "recall.png"} {
		if files[n] != nil {
			want = append(want, n)
		}
	}
	if files["recall.png"] == nil {
		t.Errorf("sweep plots: no recall.png, though household states rules")
	}
	if d := cmp.Diff(want, names, cmpopts.SortSlices(func(a, b string) bool { return a < b })); d != "" {
		t.Errorf("sweep plots (-want +got):\n%s", d)
	}
	var refs []report.SweepRunRef
	for i := range runs {
		refs = append(refs, report.SweepRunRef{Variant: "pats", Seed: int64(i + 1)})
	}
	d, err := report.LoadSweepPlots(sweep, refs)
	if err != nil {
		t.Fatal(err)
	}
	rows, _, err := table.ReadFiles[report.SweepResult](results)
	if err != nil {
		t.Fatal(err)
	}
	res := map[string]report.SweepResult{}
	for _, r := range rows {
		res[r.Variant] = r
	}
	last := func(label string) report.Point {
		for _, s := range d.Success {
			if s.Variant == "pats" && s.Label == label {
				return s.Points[len(s.Points)-1]
			}
		}
		t.Fatalf("no pats line %q", label)
		return report.Point{}
	}
	n := len(runs)
	if int(res["pats"].Seeds) != n {
		t.Errorf("report sweep aggregated %d seeds, want %d", res["pats"].Seeds, n)
	}
	cases := []struct {
		label string
		want  report.Point
	}{
		{"valid_seen", report.Point{Mean: res["pats"].SeenMean, Std: res["pats"].SeenStd, Seeds: n}},
		{"valid_unseen", report.Point{Mean: res["pats"].UnseenMean, Std: res["pats"].UnseenStd, Seeds: n}},
		{"valid_seen, scaffold", report.Point{Mean: *res["pats"].ReattachSeenMean, Std: *res["pats"].ReattachSeenStd, Seeds: n}},
		{"valid_unseen, scaffold", report.Point{Mean: res["keep"].UnseenMean, Std: res["keep"].UnseenStd, Seeds: n}},
	}
	for _, c := range cases {
		c.want.Iteration = iters // the final evaluation
		got := last(c.label)
		if diff := cmp.Diff(c.want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
			t.Errorf("pats %s, final point (-report sweep +plot):\n%s", c.label, diff)
		}
	}
	if len(d.Gap) == 0 || len(d.Items) == 0 || len(d.ZeroVar) == 0 {
		t.Errorf("sweep lines: %d gap, %d scaffold, %d zero-variance; want each", len(d.Gap), len(d.Items), len(d.ZeroVar))
	}
	checkSweepArchive(t, root, bin, sweep, seeds, files)
}

// readPlots maps each file of a plots folder to its bytes.
func readPlots(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = b
	}
	return files
}
