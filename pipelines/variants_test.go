package pipelines

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pats-rl/pats/lib/table"
)

// iterationCommands prints the commands make would run for one small run
// with the given variables (make -n: nothing runs), one a line (a line
// continued with a backslash joined).
func iterationCommands(t *testing.T, vars ...string) []string {
	t.Helper()
	out, err := dryRun(t, append([]string{"pats", "RUN=r", "BASE=", "ITERS=2"}, vars...)...)
	if err != nil {
		t.Fatalf("make -n pats %s: %v\n%s", strings.Join(vars, " "), err, out)
	}
	return strings.Split(strings.ReplaceAll(out, "\\\n", " "), "\n")
}

// commandFlags returns the flags of the first command line that starts
// with prefix and contains all of has, as name -> value ("" for a flag
// without a value), and whether there was one.
func commandFlags(lines []string, prefix string, has ...string) (map[string]string, bool) {
next:
	for _, l := range lines {
		if !strings.HasPrefix(l, prefix) {
			continue
		}
		for _, h := range has {
			if !strings.Contains(l, h) {
				continue next
			}
		}
		f := strings.Fields(l)
		out := map[string]string{}
		for i := 0; i < len(f); i++ {
			if !strings.HasPrefix(f[i], "--") {
				continue
			}
			out[f[i]] = ""
			if i+1 < len(f) && !strings.HasPrefix(f[i+1], "--") {
				out[f[i]] = f[i+1]
			}
		}
		return out, true
	}
	return nil, false
}

// TestVariantFlags: each variant resolves to the flags of its method in
// the commands of an iteration (make -n, nothing runs): the credit and the
// step credit of learn grpo, a skill slate and a scaffold in the training
// rollout, the scaffold branch, and the warm-up's demonstrations. The
// composed run pats-skillgate-gigpo has pats's scaffold loop, the skill
// slate with SkillGate's selection credit and GiGPO's step credit at once,
// where VARIANT=pats with CREDIT=gigpo SKILLS=1 keeps broadcast credit;
// its parts pats-skillgate and pats-gigpo drop one credit each, and gigpo
// with SKILLS=1 reads with neither the scaffold nor the selection credit.
func TestVariantFlags(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make not found")
	}
	type want struct {
		credit, step     string
		skills, scaffold bool   // in the training rollout
		branch           bool   // cards, control and validate run
		demoReads        string // the warm-up demonstrations' --text-read modes, space separated ("" for none)
		hints            bool   // the warm-up demonstrations carry stated rules (the interface warm-up)
		demoEnv          string // the warm-up demonstrations' world
		history          string // the training rollout's --history ("" without a window)
	}
	cases := []struct {
		name string
		vars []string
		want want
	}{
		{"grpo", []string{"VARIANT=grpo"}, want{credit: "broadcast", step: "none", demoEnv: "household"}},
		{"gigpo", []string{"VARIANT=gigpo"}, want{credit: "broadcast", step: "gigpo", demoEnv: "household"}},
		{"skillgate", []string{"VARIANT=skillgate"}, want{credit: "skillgate", step: "none", skills: true, demoReads: "right random", demoEnv: "household"}},
		{"broadcast", []string{"VARIANT=broadcast"}, want{credit: "broadcast", step: "none", skills: true, demoReads: "right random", demoEnv: "household"}},
		{"pats", []string{"VARIANT=pats"}, want{credit: "broadcast", step: "none", scaffold: true, branch: true, hints: true, demoEnv: "household"}},
		{"pats with skills and gigpo", []string{"VARIANT=pats", "SKILLS=1", "CREDIT=gigpo"},
			want{credit: "broadcast", step: "gigpo", skills: true, scaffold: true, branch: true, demoReads: "right random", hints: true, demoEnv: "household"}},
		{"pats-skillgate-gigpo", []string{"VARIANT=pats-skillgate-gigpo"},
			want{credit: "skillgate", step: "gigpo", skills: true, scaffold: true, branch: true, demoReads: "right random", hints: true, demoEnv: "household"}},
		// The composed run's parts (issue 51): without the step credit,
		// without the selection credit, and gigpo with the slate.
		{"pats-skillgate", []string{"VARIANT=pats-skillgate"},
			want{credit: "skillgate", step: "none", skills: true, scaffold: true, branch: true, demoReads: "right random", hints: true, demoEnv: "household"}},
		{"pats-gigpo", []string{"VARIANT=pats-gigpo"},
			want{credit: "broadcast", step: "gigpo", skills: true, scaffold: true, branch: true, demoReads: "right random", hints: true, demoEnv: "household"}},
		{"gigpo with skills", []string{"VARIANT=gigpo", "SKILLS=1"},
			want{credit: "broadcast", step: "gigpo", skills: true, demoReads: "right random", demoEnv: "household"}},
		// From the reading base: its skills twin's window, and the
		// interface warm-up in its pretraining world, not the RL world.
		{"pats-skillgate-gigpo from the reading base", []string{"VARIANT=pats-skillgate-gigpo", "BASE=base-reading", "ENV=household-rl"},
			want{credit: "skillgate", step: "gigpo", skills: true, scaffold: true, branch: true, demoReads: "right random", hints: true,
				demoEnv: "household-drawn", history: "2"}},
		{"pats-skillgate from the reading base", []string{"VARIANT=pats-skillgate", "BASE=base-reading", "ENV=household-rl"},
			want{credit: "skillgate", step: "none", skills: true, scaffold: true, branch: true, demoReads: "right random", hints: true,
				demoEnv: "household-drawn", history: "2"}},
		{"pats-gigpo from the reading base", []string{"VARIANT=pats-gigpo", "BASE=base-reading", "ENV=household-rl"},
			want{credit: "broadcast", step: "gigpo", skills: true, scaffold: true, branch: true, demoReads: "right random", hints: true,
				demoEnv: "household-drawn", history: "2"}},
		// gigpo from the skills twin starts from it (no warm-up, so no
		// demonstrations) and keeps its window
		{"gigpo with skills from the reading base", []string{"VARIANT=gigpo", "SKILLS=1", "BASE=base-reading", "ENV=household-rl"},
			want{credit: "broadcast", step: "gigpo", skills: true, history: "2"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			lines := iterationCommands(t, c.vars...)
			var got want
			learn, ok := commandFlags(lines, "bin/learn grpo")
			if !ok {
				t.Fatalf("no learn grpo command:\n%s", strings.Join(lines, "\n"))
			}
			got.credit, got.step = learn["--credit"], learn["--step-credit"]
			roll, ok := commandFlags(lines, "bin/rollout", "-o runs/r/traj/0.parquet")
			if !ok {
				t.Fatalf("no training rollout:\n%s", strings.Join(lines, "\n"))
			}
			_, got.skills = roll["--skills"]
			_, got.scaffold = roll["--scaffold"]
			got.history = roll["--history"]
			_, got.branch = commandFlags(lines, "bin/validate --scaffold runs/r/snap/0.parquet")
			var reads []string
			for _, l := range lines {
				if !strings.HasPrefix(l, "bin/rollout") || !strings.Contains(l, "--policy oracle") || !strings.Contains(l, "-o runs/r/demos") {
					continue
				}
				f, _ := commandFlags([]string{l}, "bin/rollout")
				if m, ok := f["--text-read"]; ok {
					reads = append(reads, m)
				}
				got.demoEnv = f["--env"]
				_, h := f["--hints"]
				got.hints = got.hints || h
			}
			got.demoReads = strings.Join(reads, " ")
			if diff := cmp.Diff(c.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("resolved flags (-want +got):\n%s", diff)
			}
		})
	}
}

// TestComposedRun runs pats-skillgate-gigpo for real, small, through make
// (a skills base of 4 demonstrations, the interface warm-up, three
// iterations of 3 tasks x 2 episodes) and checks from its files that the
// three methods ran together: the warm-up's demonstrations carry the stated
// rules in the scaffold's place and a skill read, every training episode
// shows a skill slate and records its step keys, every iteration after the
// first rolls out with the snapshot the scaffold branch committed, and
// every update's advantages are SkillGate's selection credit with GiGPO's
// step credit.
func TestComposedRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a small loop with make")
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make not found")
	}
	root := repoRoot(t)
	bin := buildTools(t, root)
	dir := t.TempDir()
	const v = "pats-skillgate-gigpo"
	// the skills base first (the rule that builds a missing base calls
	// make without -f); a context that holds the slate of 16
	ctx := "MAX_CONTEXT=2048"
	protocolRun(t, root, bin, dir, "skillgate", "RUN=b-skills", "BASE=", "DEMO_TASKS=4", ctx, "warmup")
	protocolRun(t, root, bin, dir, v, ctx, "runs/"+v+"/log/2.txt")
	run := func(p ...string) string { return filepath.Join(append([]string{dir, "runs", v}, p...)...) }

	demos, _, err := table.ReadFiles[table.Trajectory](run("demos.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	// The interface warm-up's mix (WARMUP_HINTS=mixed): rules in the
	// scaffold's place in some demonstrations, none or a skill body in
	// others; every one with a slate and a read.
	withRules := 0
	for _, r := range demos {
		if r.NScaffoldTokens > 0 {
			withRules++
		}
		if len(r.Slate) == 0 || len(r.Reads) == 0 {
			t.Errorf("demonstration %s: slate of %d, %d reads; want a slate and a read", r.TaskID, len(r.Slate), len(r.Reads))
		}
	}
	if withRules == 0 {
		t.Errorf("no demonstration of %d carries stated rules in the scaffold's place", len(demos))
	}
	for k := 0; k < 3; k++ {
		p := run("traj", fmt.Sprintf("%d.parquet", k))
		rows, metas, err := table.ReadFiles[table.Trajectory](p)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if len(r.Slate) == 0 || len(r.StepKeys) != len(r.Actions) || r.ScaffoldVersion == nil {
				t.Errorf("traj/%d %s: slate of %d, %d step keys for %d actions, scaffold version %v", k, r.TaskID, len(r.Slate), len(r.StepKeys), len(r.Actions), r.ScaffoldVersion)
				break
			}
		}
		snap := fmt.Sprintf("runs/%s/snap/%d.parquet", v, k)
		if _, ok := metas[0].Inputs[snap]; !ok {
			t.Errorf("traj/%d was not rolled out with %s: inputs %v", k, snap, metas[0].Inputs)
		}
		adv, _, err := table.ReadFiles[table.TokenAdvantages](run("adv", fmt.Sprintf("%d.parquet", k)))
		if err != nil {
			t.Fatal(err)
		}
		if len(adv) != len(rows) {
			t.Errorf("adv/%d: %d rows for %d episodes", k, len(adv), len(rows))
		}
		for _, a := range adv {
			if a.Credit != "skillgate+gigpo" {
				t.Errorf("adv/%d: credit %q, want skillgate+gigpo", k, a.Credit)
				break
			}
		}
	}
	if _, err := os.Stat(run("snap", "3.parquet")); err != nil {
		t.Errorf("the scaffold branch did not commit snap/3: %v", err)
	}
}
