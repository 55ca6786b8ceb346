package pats

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/table"
)

// One set of defaults across the commands, the pipelines and the docs:
//   - evaluation temperature: evaluate's and audit reading's --temperature
//     default alike; the pipelines pass none (or the same), and
//     docs/pipelines.md, docs/results.md and docs/real-models.md name it;
//   - GRPO's learning rate: learn grpo's --lr default is the pipelines'
//     GRPO_LR and docs/pipelines.md's;
//   - the random policy's reads: rollout --text-read has no default value
//     of its own (the policy's: the oracle right, the random policy drawn
//     from the slate), and a random rollout with skills does not read the
//     right skill every time, while --text-read right still does.

// flagDefault is the "(default: V)" of --name in a binary's help.
func flagDefault(t *testing.T, name string, cmd ...string) (string, bool) {
	t.Helper()
	out, err := exec.Command(filepath.Join(binDir, cmd[0]), append(cmd[1:], "--help")...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s --help: %v\n%s", strings.Join(cmd, " "), err, out)
	}
	re := regexp.MustCompile(`^\s+--` + regexp.QuoteMeta(name) + ` value\s.*\(default: "?([^")]*)"?\)\s*$`)
	for _, l := range strings.Split(string(out), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "--"+name+" ") {
			continue
		}
		if m := re.FindStringSubmatch(l); m != nil {
			return m[1], true
		}
		return "", false
	}
	t.Fatalf("%s --help has no --%s", strings.Join(cmd, " "), name)
	return "", false
}

// makeDefault is the value of "NAME ?= VALUE" in a Make file.
func makeDefault(t *testing.T, file, name string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + `\s*\?=[ \t]*(.*)$`).FindStringSubmatch(string(b))
	if m == nil {
		t.Fatalf("%s: no %s ?=", file, name)
	}
	return strings.TrimSpace(m[1])
}

// docHas fails unless the file contains text.
func docHas(t *testing.T, file, text, why string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(strings.Fields(string(b)), " "), text) {
		t.Errorf("%s does not say %q (%s)", file, text, why)
	}
}

func sameNumber(a, b string) bool {
	x, err1 := strconv.ParseFloat(a, 64)
	y, err2 := strconv.ParseFloat(b, 64)
	return err1 == nil && err2 == nil && x == y
}

func TestDefaultsAgree(t *testing.T) {
	built(t)
	const mk = "pipelines/pats.mk"

	// Evaluation temperature.
	evalT, ok := flagDefault(t, "temperature", "evaluate")
	if !ok {
		t.Fatal("evaluate --temperature has no default")
	}
	if auditT, _ := flagDefault(t, "temperature", "audit", "reading"); !sameNumber(auditT, evalT) {
		t.Errorf("audit reading --temperature defaults to %s, evaluate's to %s", auditT, evalT)
	}
	if f := makeDefault(t, mk, "EVAL_FLAGS"); strings.Contains(f, "--temperature") {
		if m := regexp.MustCompile(`--temperature[ =](\S+)`).FindStringSubmatch(f); m == nil || !sameNumber(m[1], evalT) {
			t.Errorf("%s: EVAL_FLAGS %q passes another temperature than evaluate's default %s", mk, f, evalT)
		}
	}
	docHas(t, "docs/pipelines.md", "evaluate's own default samples at temperature "+evalT, "the EVAL_FLAGS row")
	docHas(t, "docs/results.md", "at temperature "+evalT, "the sweep's evaluation")
	docHas(t, "docs/real-models.md", "`evaluate` and `audit reading` sample at temperature "+evalT, "the defaults")

	// GRPO's learning rate.
	lr, _ := flagDefault(t, "lr", "learn", "grpo")
	if m := makeDefault(t, mk, "GRPO_LR"); !sameNumber(m, lr) {
		t.Errorf("%s: GRPO_LR %s, learn grpo --lr defaults to %s", mk, m, lr)
	}
	b, err := os.ReadFile("docs/pipelines.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `GRPO_LR`, `KL`, `MINIBATCH` \\| ([^,]+),").FindSubmatch(b)
	if row == nil || !sameNumber(string(row[1]), lr) {
		t.Errorf("docs/pipelines.md: the GRPO_LR row says %q, learn grpo --lr defaults to %s", row, lr)
	}

	// The random policy's reads.
	if d, ok := flagDefault(t, "text-read", "rollout"); ok && d != "" {
		t.Errorf("rollout --text-read defaults to %q for every policy; want the policy's own", d)
	}
	dir := t.TempDir()
	rightShare := func(extra ...string) float64 {
		out := filepath.Join(dir, "r.parquet")
		args := append([]string{"--env", "household", "--split", "train", "--tasks", "12", "--policy", "random", "--skills", "--seed", "3", "-o", out}, extra...)
		if b, err := exec.Command(filepath.Join(binDir, "rollout"), args...).CombinedOutput(); err != nil {
			t.Fatalf("rollout %s: %v\n%s", strings.Join(args, " "), err, b)
		}
		rows, _, err := table.ReadFiles[table.Trajectory](out)
		if err != nil {
			t.Fatal(err)
		}
		right := 0
		for _, r := range rows {
			if len(r.ReadsRight) > 0 && r.ReadsRight[0] {
				right++
			}
		}
		return float64(right) / float64(len(rows))
	}
	if s := rightShare(); s == 1 {
		t.Errorf("rollout --policy random --skills read the right skill in every episode")
	}
	if s := rightShare("--text-read", "right"); s != 1 {
		t.Errorf("rollout --policy random --skills --text-read right read the right skill in %.0f%% of the episodes", 100*s)
	}
}
