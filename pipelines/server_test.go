package pipelines

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPolicyServer: with POLICY_SERVER each iteration's training rollouts
// (traj/k and the mechanism's bare/k) go through the server, with ckpt/k
// as the tokenizer and the restart hook called on ckpt/k before them, and
// the evaluations and the warm-up stay on the toolkit's model; without it
// no hook runs and ckpt/k plays. A POLICY_SERVER with a shell character
// is refused, and the default hook says what to do and fails (make -n:
// nothing runs).
func TestPolicyServer(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make not found")
	}
	const url = "http://127.0.0.1:8000/v1"
	lines := iterationCommands(t, "POLICY_SERVER="+url, "POLICY_MODEL=qwen", "POLICY_SERVER_RESTART=my-restart")
	for _, k := range []string{"0", "1"} {
		ckpt := "runs/r/ckpt/" + k
		for _, out := range []string{"runs/r/traj/" + k + ".parquet", "runs/r/bare/" + k + ".parquet"} {
			i := -1
			for j, l := range lines {
				if strings.HasPrefix(l, "bin/rollout") && strings.Contains(l, "-o "+out) {
					i = j
				}
			}
			if i < 1 {
				t.Fatalf("no rollout writing %s:\n%s", out, strings.Join(lines, "\n"))
			}
			f, _ := commandFlags(lines[i:i+1], "bin/rollout")
			if f["--policy"] != url || f["--model"] != "qwen" || f["--tokenizer"] != ckpt {
				t.Errorf("%s: rollout flags %v, want the server with %s", out, f, ckpt)
			}
			if got := strings.TrimSpace(lines[i-1]); got != "my-restart "+ckpt+" "+url+" qwen" {
				t.Errorf("%s: before the rollout %q, want the restart hook on %s", out, got, ckpt)
			}
		}
	}
	for _, l := range lines {
		if strings.HasPrefix(l, "bin/evaluate") && strings.Contains(l, url) || strings.Contains(l, "--policy oracle") && strings.Contains(l, url) {
			t.Errorf("an evaluation or the warm-up goes to the server: %s", l)
		}
	}
	for _, l := range iterationCommands(t) {
		if strings.HasPrefix(l, "pipelines/policy-server-restart") || strings.HasPrefix(l, "bin/rollout") && strings.Contains(l, "--model") {
			t.Errorf("without POLICY_SERVER: %s", l)
		}
	}
	if out, err := dryRun(t, "pats", "RUN=r", "POLICY_SERVER=http://h:1/v1;rm"); err == nil || !strings.Contains(out, "POLICY_SERVER holds a shell character") {
		t.Errorf("a shell character in POLICY_SERVER: %v\n%s", err, out)
	}
	cmd := exec.Command("sh", filepath.Join(repoRoot(t), "pipelines", "policy-server-restart.sh"), "runs/r/ckpt/2", url, "qwen")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "must now serve runs/r/ckpt/2 as qwen") || !strings.Contains(string(out), "POLICY_SERVER_RESTART") {
		t.Errorf("default hook: %v\n%s", err, out)
	}
}
