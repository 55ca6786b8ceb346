package pipelines

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pats-rl/pats/lib/table"
)

// loopArgs size a loop that exercises every stage (B_0 from evidence,
// demonstrations, SFT, two iterations with both branches, evaluations)
// in about a minute on one core.
var loopArgs = []string{
	"pats", "VARIANT=pats", "RUN=t", "RUNS=runs", "PIPE_BUILD=0",
	"ITERS=2", "TASKS=2", "GROUP=2", "BOOT_TASKS=6", "DEMO_TASKS=4",
	"SFT_EPOCHS=1", "SFT_BATCH=1024", "EVAL_TASKS=1", "EVAL_EVERY=2",
	"EVAL_SPLITS=valid_seen valid_unseen", "MAX_CONTEXT=384",
}

// repoRoot is the module root (this package's parent folder).
func repoRoot(t *testing.T) string {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(wd)
}

// buildTools builds the loop's binaries once into a temporary folder.
func buildTools(t *testing.T, root string) string {
	bin := filepath.Join(t.TempDir(), "bin")
	args := []string{"build", "-o", bin + "/"}
	for _, c := range []string{"rollout", "evaluate", "learn", "cards", "control", "validate", "report", "audit"} {
		args = append(args, "./cmd/"+c)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// makeCmd runs the loop's make in dir; the binaries are given by absolute
// path, the outputs by relative ones, so two folders get the same command
// lines (which the files' metadata records).
func makeCmd(root, bin, dir string, extra ...string) *exec.Cmd {
	args := append([]string{"-f", filepath.Join(root, "pipelines", "pats.mk"), "--no-print-directory", "BIN=" + bin}, loopArgs...)
	cmd := exec.Command("make", append(args, extra...)...)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

// hashes maps every output file of a run (relative path) to its SHA-256.
// The per-iteration log lines are left out (they report wall seconds), and
// training metrics are hashed without their seconds column (the wall time
// of each step); every other byte must repeat.
// rowsText prints rows field by field, a nullable field by its value or
// "NULL" (printing the pointer would give its address, which differs
// between two reads of the same file).
func rowsText[T any](rows []T) string {
	var b strings.Builder
	for i := range rows {
		v := reflect.ValueOf(rows[i])
		for f := 0; f < v.NumField(); f++ {
			x := v.Field(f)
			if x.Kind() == reflect.Pointer {
				if x.IsNil() {
					fmt.Fprintf(&b, "%s=NULL ", v.Type().Field(f).Name)
					continue
				}
				x = x.Elem()
			}
			fmt.Fprintf(&b, "%s=%v ", v.Type().Field(f).Name, x)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func hashes(t *testing.T, run string) map[string]string {
	m := map[string]string{}
	err := filepath.WalkDir(run, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(run, p)
		if strings.HasPrefix(rel, "log"+string(filepath.Separator)) {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.HasPrefix(rel, "metrics"+string(filepath.Separator)) {
			rows, _, err := table.ReadFiles[table.TrainMetrics](p)
			if err != nil {
				return err
			}
			for i := range rows {
				rows[i].Seconds = 0
			}
			b = []byte(rowsText(rows))
		}
		s := sha256.Sum256(b)
		m[rel] = hex.EncodeToString(s[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestInterruptedRunResumesToSameFiles runs the loop once straight through,
// and once interrupted (SIGINT to make and its children while the first
// iteration is under way) and resumed; both must end with the same files,
// byte for byte, and a finished run must have nothing left to do. The
// two runs then make a sweep of two seeds for report plots (checkSweepPlots).
func TestInterruptedRunResumesToSameFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the loop with make (about 2 minutes)")
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make not found")
	}
	root := repoRoot(t)
	bin := buildTools(t, root)
	straight, resumed := t.TempDir(), t.TempDir()

	// The straight run goes in the background while the other is interrupted.
	var straightOut bytes.Buffer
	sc := makeCmd(root, bin, straight)
	sc.Stdout, sc.Stderr = &straightOut, &straightOut
	if err := sc.Start(); err != nil {
		t.Fatal(err)
	}

	var out1 bytes.Buffer
	ic := makeCmd(root, bin, resumed)
	ic.Stdout, ic.Stderr = &out1, &out1
	if err := ic.Start(); err != nil {
		t.Fatal(err)
	}
	// Interrupt once iteration 0's rollout has started: after ckpt/0 exists.
	marker := filepath.Join(resumed, "runs", "t", "ckpt", "0", "config.json")
	done := make(chan error, 1)
	go func() { done <- ic.Wait() }()
	interrupted := false
	for !interrupted {
		select {
		case err := <-done:
			t.Fatalf("the run ended before it could be interrupted (%v):\n%s", err, out1.String())
		case <-time.After(100 * time.Millisecond):
			if _, err := os.Stat(marker); err == nil {
				time.Sleep(300 * time.Millisecond)
				syscall.Kill(-ic.Process.Pid, syscall.SIGINT)
				interrupted = true
			}
		}
	}
	if err := <-done; err == nil {
		t.Logf("make finished before the interrupt took effect:\n%s", out1.String())
	}
	if _, err := os.Stat(filepath.Join(resumed, "runs", "t", "summary.md")); err == nil {
		t.Fatalf("the interrupted run finished anyway; interrupt earlier")
	}
	var out2 bytes.Buffer
	rc := makeCmd(root, bin, resumed)
	rc.Stdout, rc.Stderr = &out2, &out2
	if err := rc.Run(); err != nil {
		t.Fatalf("resumed run: %v\n%s", err, out2.String())
	}
	if strings.Contains(out2.String(), "learn sft") {
		t.Errorf("the resumed run redid the warm-up SFT:\n%s", out2.String())
	}
	if err := sc.Wait(); err != nil {
		t.Fatalf("straight run: %v\n%s", err, straightOut.String())
	}

	// Nothing is left to do in either folder.
	for _, dir := range []string{straight, resumed} {
		q := makeCmd(root, bin, dir, "-q")
		if err := q.Run(); err != nil {
			t.Errorf("make -q in a finished run: %v (something would be redone)", err)
		}
	}

	a, b := hashes(t, filepath.Join(straight, "runs", "t")), hashes(t, filepath.Join(resumed, "runs", "t"))
	var names []string
	for n := range a {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, want := range []string{"metrics/grpo-1.parquet", "snap/2.parquet", "ckpt/2/model.safetensors", "eval/2/bare-valid_seen.parquet", "summary.md"} {
		if _, ok := a[want]; !ok {
			t.Errorf("straight run lacks %s; files: %v", want, names)
		}
	}
	for _, n := range names {
		if b[n] != a[n] {
			t.Errorf("%s differs between the straight and the resumed run", n)
		}
	}
	for n := range b {
		if _, ok := a[n]; !ok {
			t.Errorf("the resumed run has an extra file %s", n)
		}
	}

	// The event files, live (log/K) and with the summary: every kind.
	evals := map[string][]int{"traj": {0, 1}, "lift": {0, 1}}
	for _, e := range []string{"bare", "scaffold"} {
		for _, s := range []string{"valid_seen", "valid_unseen"} {
			evals["eval-"+e+"-"+s] = []int{0, 2}
		}
	}
	checkTensorboard(t, filepath.Join(straight, "runs", "t"), true, evals)

	// The two runs as the seeds of a sweep: its audits and plots.
	checkSweepPlots(t, root, bin, []string{filepath.Join(straight, "runs", "t"), filepath.Join(resumed, "runs", "t")}, 2)
}
