package pipelines

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRunSettings: a run's settings.json records every knob, and two runs
// that differ in one knob differ in their settings files in exactly that
// knob (and, for a seed, in the seeds it lists); report settings reads the
// file back.
func TestRunSettings(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make not found")
	}
	root := repoRoot(t)
	bin := buildTools(t, root)
	settings := func(t *testing.T, extra ...string) (map[string]any, string) {
		dir := t.TempDir()
		args := append([]string{"-f", filepath.Join(root, "pipelines", "pats.mk"), "--no-print-directory", "BIN=" + bin,
			"settings", "RUN=t", "RUNS=runs", "PIPE_BUILD=0"}, extra...)
		cmd := exec.Command("make", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("make settings: %v\n%s", err, out)
		}
		b, err := os.ReadFile(filepath.Join(dir, "runs", "t", "settings.json"))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		show := exec.Command(filepath.Join(bin, "report"), "settings", filepath.Join(dir, "runs", "t"))
		out, err := show.CombinedOutput()
		if err != nil {
			t.Fatalf("report settings: %v\n%s", err, out)
		}
		return m, string(out)
	}
	base, shown := settings(t)
	for _, want := range []string{"| KL | 0.01 |", "| VARIANT | pats |", "| V_SCAFFOLD | 1 |", "seeds BASE_SEED=1 EVAL_SEED=7 SEED=1"} {
		if !strings.Contains(shown, want) {
			t.Errorf("report settings lacks %q:\n%s", want, shown)
		}
	}
	cases := []struct {
		knob string
		want []string // the keys that differ
	}{
		{"KL=0.02", []string{"settings.KL"}},
		{"GRPO_FLAGS=--clip 0.3", []string{"settings.GRPO_FLAGS"}},
		{"SEED=2", []string{"seeds.SEED", "settings.SEED"}},
		{"EVAL_TASKS=6", []string{"settings.EVAL_TASKS"}},
	}
	for _, c := range cases {
		t.Run(c.knob, func(t *testing.T) {
			other, _ := settings(t, c.knob)
			if diff := cmp.Diff(c.want, differing(base, other)); diff != "" {
				t.Errorf("keys that differ (-want +got):\n%s", diff)
			}
		})
	}
}

// differing lists the keys (a.b for nested objects) whose values differ.
func differing(a, b map[string]any) []string {
	var out []string
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	for k := range keys {
		am, aok := a[k].(map[string]any)
		bm, bok := b[k].(map[string]any)
		if aok && bok {
			for _, sub := range differing(am, bm) {
				out = append(out, k+"."+sub)
			}
			continue
		}
		if !cmp.Equal(a[k], b[k]) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
