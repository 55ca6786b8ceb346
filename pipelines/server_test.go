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

// TestPipelineCredentials: make prints every recipe line it runs, so a
// credential in any variable that reaches one (a FLAGS variable in every
// spelling of a key flag, a URL's user:password in POLICY_SERVER or an
// endpoint), given on the command line or in the environment, stops make
// before anything runs, with a line that does not repeat it (under make -n
// as under make settings); a blank or tab in POLICY_SERVER or POLICY_MODEL
// (extra rollout flags) is refused too; and the default restart hook
// prints the server's URL without its password.
func TestPipelineCredentials(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make not found")
	}
	const secret = "s3cretK"
	spellings := []string{"--api-key " + secret, "--api-key=" + secret, "--token " + secret, "-api-key " + secret,
		"--refiner openai --endpoint http://alice:" + secret + "@h:1/v1 --model m"}
	flags := []string{"ROLLOUT_FLAGS", "DEMO_FLAGS", "SFT_FLAGS", "GRPO_FLAGS", "CONTROL_FLAGS", "CARDS_FLAGS", "REFINER_FLAGS", "EVAL_FLAGS"}
	var cases [][]string
	for i, v := range flags {
		cases = append(cases, []string{v + "=" + spellings[i%len(spellings)]})
	}
	cases = append(cases, []string{"POLICY_SERVER=http://alice:" + secret + "@127.0.0.1:1/v1"}, []string{"POLICY_SERVER=https://" + secret + "@h/v1"})
	for _, target := range []string{"pats", "settings"} {
		for _, c := range cases {
			out, err := dryRun(t, append([]string{target, "RUN=r"}, c...)...)
			if err == nil || !strings.Contains(out, "holds a credential") || strings.Contains(out, secret) || strings.Count(strings.TrimSpace(out), "\n") != 0 {
				t.Errorf("make %s %q: %v\n%s", target, c, err, out)
			}
		}
	}
	t.Run("environment", func(t *testing.T) {
		t.Setenv("ROLLOUT_FLAGS", "--api-key "+secret)
		if out, err := dryRun(t, "pats", "RUN=r"); err == nil || strings.Contains(out, secret) {
			t.Errorf("ROLLOUT_FLAGS from the environment: %v\n%s", err, out)
		}
	})
	for _, c := range []string{"POLICY_SERVER=http://h:1/v1 --env exec:prog", "POLICY_SERVER=http://h:1/v1\t--env", "POLICY_MODEL=m --env exec:prog"} {
		if out, err := dryRun(t, "pats", "RUN=r", c); err == nil || !strings.Contains(out, "must be one word") || strings.Contains(out, "exec:prog") {
			t.Errorf("%q: %v\n%s", c, err, out)
		}
	}
	cmd := exec.Command("sh", filepath.Join(repoRoot(t), "pipelines", "policy-server-restart.sh"), "runs/r/ckpt/2", "http://alice:"+secret+"@h:1/v1", "qwen")
	out, err := cmd.CombinedOutput()
	if err == nil || strings.Contains(string(out), secret) || !strings.Contains(string(out), "http://REDACTED@h:1/v1") {
		t.Errorf("default hook with a password: %v\n%s", err, out)
	}
}
