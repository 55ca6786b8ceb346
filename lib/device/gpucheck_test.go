//go:build !cuda

package device_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fakeTest is a stand-in for a prepared parity test binary: it records its
// arguments and environment, writes a large file to the scratch folder and
// a long log, then behaves as $FAKE_MODE says (pass, fail or hang).
const fakeTest = `#!/bin/bash
echo "args: $*" >>"$PATS_GPU_SCRATCH/calls"
echo "dryrun=${PATS_PARITY_DRYRUN:-} out=${PATS_GPU_OUT:+set} lib=${PATS_CUDA_LIB:-none}" >>"$PATS_GPU_SCRATCH/calls"
head -c 20000000 /dev/zero >"$PATS_GPU_SCRATCH/big.bin"
echo "TestParityX: a figure" >>"$PATS_GPU_OUT/parity.txt"
for i in $(seq 1 12000); do echo "=== RUN TestParity line $i"; done
case $FAKE_MODE in
pass) echo PASS ;;
fail) echo "--- FAIL: TestParityX"; exit 1 ;;
hang) sleep 300 ;;
esac
`

// TestGPUCheckDryRun runs scripts/gpu-check.sh --dry-run over fake test
// binaries (the real ones are built by make gpu-tests and need minutes on
// the CPU): its control flow, budgets, summary and exit status, and that
// only small files land in the output folder.
func TestGPUCheckDryRun(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Fatalf("bash is needed: %v", err)
	}
	script, err := filepath.Abs(filepath.Join("..", "..", "scripts", "gpu-check.sh"))
	if err != nil {
		t.Fatal(err)
	}
	// binaries: "" (none), "plain" (in the binaries' folder), "carried"
	// (xz-compressed in the carry folder only, as the device tool brings
	// them) or "stale" (carried, and an older binary that fails in the
	// binaries' folder, as a warm machine keeps the last call's).
	run := func(t *testing.T, mode string, budget int, binaries string) (out, scratch, stdout string, rc int, took time.Duration) {
		t.Helper()
		dir := t.TempDir()
		bin, out, scratch := filepath.Join(dir, "bin"), filepath.Join(dir, "out"), filepath.Join(dir, "scratch")
		carry := filepath.Join(dir, "carry")
		for _, d := range []string{bin, carry} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if binaries != "" {
			for name, text := range map[string]string{"device.test": fakeTest, "gpubench": "#!/bin/sh\nexit 9\n"} {
				p := filepath.Join(bin, name)
				if err := os.WriteFile(p, []byte(text), 0o755); err != nil {
					t.Fatal(err)
				}
				if binaries == "carried" || binaries == "stale" {
					if b, err := exec.Command("xz", "-z", "--suffix=.xz", p).CombinedOutput(); err != nil {
						t.Fatalf("xz: %v: %s", err, b)
					}
					if err := os.Rename(p+".xz", filepath.Join(carry, name+".xz")); err != nil {
						t.Fatal(err)
					}
				}
				if binaries == "stale" {
					if err := os.WriteFile(p, []byte("#!/bin/sh\nexit 7\n"), 0o755); err != nil {
						t.Fatal(err)
					}
					old := time.Now().Add(-time.Hour)
					if err := os.Chtimes(p, old, old); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		cmd := exec.Command("bash", script, "--dry-run")
		cmd.Env = append(os.Environ(), "OUT="+out, "GPU_CHECK_BIN="+bin, "GPU_CHECK_CARRY="+carry, "GPU_CHECK_SCRATCH="+scratch,
			fmt.Sprintf("GPU_CHECK_SECONDS=%d", budget), "FAKE_MODE="+mode, "PATS_CUDA_LIB=")
		t0 := time.Now()
		b, err := cmd.CombinedOutput()
		took = time.Since(t0)
		rc = 0
		if err != nil {
			ee, ok := err.(*exec.ExitError)
			if !ok {
				t.Fatalf("gpu-check.sh: %v", err)
			}
			rc = ee.ExitCode()
		}
		return out, scratch, string(b), rc, took
	}
	// summary returns the step lines as "name status" and the result line.
	summary := func(t *testing.T, out string) ([]string, string) {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(out, "summary.txt"))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(lines) < 3 || !strings.Contains(lines[0], "dry run") {
			t.Fatalf("summary.txt:\n%s", b)
		}
		var steps []string
		for _, l := range lines[2 : len(lines)-1] {
			f := strings.Fields(l)
			steps = append(steps, f[0]+" "+f[1])
		}
		return steps, lines[len(lines)-1]
	}
	hf := "hf-logits skip" // the fake exports no checkpoints
	cases := []struct {
		mode     string
		binaries string
		budget   int
		rc       int
		steps    []string
		result   string
	}{
		{"pass", "plain", 60, 0, []string{"gpu skip", "build-library skip", "test-device pass", "memcheck skip", "racecheck skip", hf, "gpubench skip"}, "result: pass"},
		{"pass", "carried", 60, 0, []string{"gpu skip", "build-library skip", "test-device pass", "memcheck skip", "racecheck skip", hf, "gpubench skip"}, "result: pass"},
		{"pass", "stale", 60, 0, []string{"gpu skip", "build-library skip", "test-device pass", "memcheck skip", "racecheck skip", hf, "gpubench skip"}, "result: pass"},
		{"fail", "plain", 60, 1, []string{"gpu skip", "build-library skip", "test-device FAIL", "memcheck skip", "racecheck skip", hf, "gpubench skip"}, "result: FAIL"},
		{"hang", "plain", 12, 1, []string{"gpu skip", "build-library skip", "test-device tmout", "memcheck skip", "racecheck skip", hf, "gpubench skip"}, "result: FAIL"},
	}
	for _, c := range cases {
		t.Run(c.mode+"/"+c.binaries, func(t *testing.T) {
			out, scratch, stdout, rc, took := run(t, c.mode, c.budget, c.binaries)
			if rc != c.rc {
				t.Errorf("exit %d, want %d; output:\n%s", rc, c.rc, stdout)
			}
			if took > time.Duration(c.budget+10)*time.Second {
				t.Errorf("took %s, budget %ds", took, c.budget)
			}
			steps, result := summary(t, out)
			if diff := cmp.Diff(c.steps, steps); diff != "" {
				t.Errorf("summary steps (-want +got):\n%s\noutput:\n%s", diff, stdout)
			}
			if !strings.HasPrefix(result, c.result+", ") {
				t.Errorf("result line %q, want %q", result, c.result)
			}
			calls, err := os.ReadFile(filepath.Join(scratch, "calls"))
			if err != nil {
				t.Fatal(err)
			}
			m := regexp.MustCompile(`args: -test\.v -test\.timeout (\d+)s\ndryrun=1 out=set lib=none\n`).FindSubmatch(calls)
			if m == nil {
				t.Fatalf("the test binary was called as:\n%s", calls)
			}
			var lim int
			fmt.Sscan(string(m[1]), &lim)
			if lim <= 0 || lim > c.budget {
				t.Errorf("test timeout %ds outside the budget of %ds", lim, c.budget)
			}
			// Only small files come back: the 20 MB file stays in scratch and
			// the 12,000-line log is cut.
			// At most 8 files come back from the GPU machine.
			var total int64
			var files []string
			filepath.Walk(out, func(p string, fi os.FileInfo, err error) error {
				if err == nil && !fi.IsDir() {
					total += fi.Size()
					files = append(files, filepath.Base(p))
				}
				return err
			})
			if total > 2<<20 {
				t.Errorf("%d bytes under the output folder", total)
			}
			if len(files) > 8 {
				t.Errorf("%d files under the output folder (the GPU machine returns 8): %v", len(files), files)
			}
			log, err := os.ReadFile(filepath.Join(out, "steps.log"))
			if err != nil || !strings.Contains(string(log), "=== test-device (") || !strings.Contains(string(log), "lines left out") {
				t.Errorf("steps.log has no cut test-device log (%v)", err)
			}
			if _, err := os.Stat(filepath.Join(out, "parity.txt")); err != nil {
				t.Errorf("parity.txt: %v", err)
			}
		})
	}
	t.Run("no binaries", func(t *testing.T) {
		_, _, stdout, rc, _ := run(t, "pass", 60, "")
		if rc != 2 || strings.Count(strings.TrimSpace(stdout), "\n") != 0 || !strings.Contains(stdout, "no prepared binaries") {
			t.Errorf("exit %d, output %q; want exit 2 and one line", rc, stdout)
		}
	})
}
