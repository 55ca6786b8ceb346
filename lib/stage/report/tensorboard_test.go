package report

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pats-rl/pats/lib/report"
	"github.com/pats-rl/pats/lib/stage"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tensorboard"
	"github.com/pats-rl/pats/lib/tensorboard/readback"
)

// archivedRun unpacks one whole run of an archived sweep (results/SWEEP/
// RUN.tar.xz) into dir and returns its folder.
func archivedRun(t *testing.T, dir, sweep, run string) string {
	t.Helper()
	if _, err := exec.LookPath("tar"); err != nil {
		t.Skip("tar not found")
	}
	src := filepath.Join("..", "..", "..", "results", sweep, run+".tar.xz")
	if b, err := exec.Command("tar", "-xJf", src, "-C", dir).CombinedOutput(); err != nil {
		t.Fatalf("unpack %s: %v\n%s", src, err, b)
	}
	return filepath.Join(dir, run)
}

// tb runs report tensorboard and returns what it printed.
func tb(t *testing.T, f TensorboardOptions) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := RunTensorboard(context.Background(), f, stage.Streams{Stdout: &out})
	return out.String(), err
}

// folderBytes maps the names in dir to their bytes.
func folderBytes(t *testing.T, dir string) map[string]string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		m[e.Name()] = string(b)
	}
	return m
}

// TestTensorboardArchivedRun writes the event files of an archived run
// (results/s32/pats-s1: 20 iterations, evaluations at 0 and 20) and reads
// them back with the independent reader: every scalar equal to the
// Parquet's, one episode per iteration. A second call writes nothing;
// another folder gets the same bytes; --iteration K writes traj/K's file
// and the files of iterations up to K not yet there (here, in an empty
// folder: traj/0-3's and ckpt/0's evaluations).
func TestTensorboardArchivedRun(t *testing.T) {
	if testing.Short() {
		t.Skip("unpacks an archived run")
	}
	run := archivedRun(t, t.TempDir(), "s32", "pats-s1")
	dir := filepath.Join(run, "tb")
	out, err := tb(t, TensorboardOptions{Run: run, Iteration: -1})
	if err != nil {
		t.Fatal(err)
	}
	got := readback.CheckRun(t, run, dir, 0)
	printed := strings.Fields(out)
	sort.Strings(printed)
	var want []string
	for _, n := range got.Files {
		want = append(want, filepath.Join(dir, n))
	}
	if d := cmp.Diff(want, printed); d != "" {
		t.Errorf("printed paths (-files +printed):\n%s", d)
	}
	// 20 iterations of 8 scalars each (training 3, scaffold 2, GRPO 3),
	// and 8 evaluation files (ckpt/0 and ckpt/20, two splits, with and
	// without the scaffold) of 2
	if len(got.Files) != 20+8 || len(got.Scalars) != 20*8+8*2 {
		t.Errorf("%d files, %d scalars; want 28 and 176", len(got.Files), len(got.Scalars))
	}
	for name, w := range got.Walls {
		if w <= 0 {
			t.Errorf("%s: wall time %v; the run's files are stamped", name, w)
		}
	}
	before := folderBytes(t, dir)
	if out, err := tb(t, TensorboardOptions{Run: run, Iteration: -1}); err != nil || out != "" {
		t.Errorf("a second call: %v, printed %q; want nothing written", err, out)
	}
	if d := cmp.Diff(before, folderBytes(t, dir)); d != "" {
		t.Errorf("a second call changed the folder")
	}
	other := filepath.Join(t.TempDir(), "tb")
	if _, err := tb(t, TensorboardOptions{Run: run, Output: other, Iteration: -1}); err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(before, folderBytes(t, other)) {
		t.Error("two writes of the same run differ")
	}

	// the checker sees a planted change: a scalar off by one float32 step,
	// a text of another iteration, a file missing
	src := report.TBSource{Step: 3, Part: report.TBTraj, Path: filepath.Join("traj", "3.parquet")}
	wall, events, err := report.TensorboardEvents(run, src)
	if err != nil {
		t.Fatal(err)
	}
	_, other4, err := report.TensorboardEvents(run, report.TBSource{Step: 4, Part: report.TBTraj, Path: filepath.Join("traj", "4.parquet")})
	if err != nil {
		t.Fatal(err)
	}
	for i := range events {
		switch {
		case events[i].Tag == "grpo/kl":
			events[i].Scalar = math.Nextafter32(events[i].Scalar, 1)
		case events[i].IsText:
			events[i].Text = other4[len(other4)-1].Text
		}
	}
	planted := filepath.Join(t.TempDir(), "tb")
	if err := os.CopyFS(planted, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	b, err := tensorboard.Encode(wall, events)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(planted, src.File()), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(planted, tensorboard.FileName(20, "eval-bare-valid_seen"))); err != nil {
		t.Fatal(err)
	}
	_, problems, err := readback.Problems(run, planted, 0)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, p := range problems {
		for _, k := range []string{"grpo/kl at step 3 =", "no eval/valid_seen/no_scaffold/success at step 20", "no eval/valid_seen/no_scaffold/tokens at step 20", "the text at step 3 shows no episode"} {
			if strings.Contains(p, k) {
				kinds = append(kinds, k)
			}
		}
	}
	if len(problems) != 4 || len(kinds) != 4 {
		t.Errorf("planted changes: the checker says\n%s", strings.Join(problems, "\n"))
	}

	// as the pipeline calls it at the end of iteration 3
	live := filepath.Join(t.TempDir(), "tb")
	if _, err := tb(t, TensorboardOptions{Run: run, Output: live, Iteration: 3}); err != nil {
		t.Fatal(err)
	}
	var names []string
	for n, b := range folderBytes(t, live) {
		names = append(names, n)
		if b != before[n] {
			t.Errorf("%s differs from the whole run's", n)
		}
	}
	sort.Strings(names)
	wantLive := []string{"events.out.tfevents.0000000000.eval-bare-valid_seen", "events.out.tfevents.0000000000.eval-bare-valid_unseen",
		"events.out.tfevents.0000000000.eval-scaffold-valid_seen", "events.out.tfevents.0000000000.eval-scaffold-valid_unseen",
		"events.out.tfevents.0000000000.traj", "events.out.tfevents.0000000001.traj", "events.out.tfevents.0000000002.traj",
		"events.out.tfevents.0000000003.traj"}
	if d := cmp.Diff(wantLive, names); d != "" {
		t.Errorf("--iteration 3 wrote (-want +got):\n%s", d)
	}
}

// TestTensorboardBadInput: a folder that is not a run, an iteration
// without rollouts and a damaged trajectory file each give one error
// naming the path; nothing is written and the folder of event files is
// as it was.
func TestTensorboardBadInput(t *testing.T) {
	if testing.Short() {
		t.Skip("unpacks an archived run")
	}
	run := archivedRun(t, t.TempDir(), "s32", "grpo-s1")
	empty := t.TempDir()
	if _, err := tb(t, TensorboardOptions{Run: empty, Iteration: -1}); err == nil || !strings.Contains(err.Error(), empty+": not a run folder") {
		t.Errorf("an empty folder: %v", err)
	}
	if _, err := os.Stat(filepath.Join(empty, "tb")); err == nil {
		t.Error("an empty folder got a tb folder")
	}
	var ie *table.InputError
	if _, err := tb(t, TensorboardOptions{Run: run, Iteration: 999}); !errors.As(err, &ie) || !strings.Contains(err.Error(), filepath.Join(run, "traj", "999.parquet")) {
		t.Errorf("--iteration 999: %v", err)
	}
	if _, err := os.Stat(filepath.Join(run, "tb")); err == nil {
		t.Error("--iteration 999 made a tb folder")
	}
	if _, err := tb(t, TensorboardOptions{Run: run, Iteration: 1}); err != nil {
		t.Fatal(err)
	}
	before := folderBytes(t, filepath.Join(run, "tb"))
	bad := filepath.Join(run, "traj", "5.parquet")
	if err := os.WriteFile(bad, []byte("not parquet"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := tb(t, TensorboardOptions{Run: run, Iteration: -1}); err == nil || !strings.Contains(err.Error(), bad) || strings.Contains(strings.TrimSpace(err.Error()), "\n") {
		t.Errorf("a damaged traj/5: %v, want one line naming %s", err, bad)
	}
	if d := cmp.Diff(before, folderBytes(t, filepath.Join(run, "tb"))); d != "" {
		t.Errorf("a failed call changed the tb folder (-before +after):\n%s", d)
	}
	if b, err := os.ReadFile(bad); err != nil || string(b) != "not parquet" {
		t.Error("the input was touched")
	}
}
