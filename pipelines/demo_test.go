package pipelines

import (
	"regexp"
	"strings"
	"testing"
)

// TestDemoConfig checks make demo's commands: the configuration of the
// headline results in short. The base is the PATS sweep's, copied from
// the shipped pipelines/bases/reading-e1 into runs/demo/base once, before
// the two runs (never trained); both runs play household-rl in the base's
// context (the two-turn window and the admissible actions) on every
// rollout and evaluation, 8 tasks x 8 episodes per iteration; the pats
// run's interface warm-up is the sweep's (256 household-drawn
// demonstrations from the base), the grpo run starts from the base
// itself; the table is labelled a short run with its sizes, not the
// sweep's result, and points to docs/results.md.
func TestDemoConfig(t *testing.T) {
	out, err := dryRun(t, "demo")
	if err != nil {
		t.Fatalf("make -n demo: %v\n%s", err, out)
	}
	if !strings.Contains(out, "cp -r pipelines/bases/reading-e1/ckpt/0 runs/demo/base/ckpt/.0.tmp") {
		t.Errorf("the demo's base is not a copy of pipelines/bases/reading-e1:\n%s", out)
	}
	if strings.Contains(out, "--init tiny") || strings.Contains(out, "pipelines/bases/demo") {
		t.Errorf("the demo trains a base or uses the household base:\n%s", out)
	}
	lines := strings.Split(out, "\n")
	// the base is made by the calling make before either run starts
	first := map[string]int{}
	for i, l := range lines {
		for _, k := range []string{"make --no-print-directory runs/demo/base/ckpt/0/config.json", "VARIANT=pats RUN=demo/pats", "VARIANT=grpo RUN=demo/grpo"} {
			if _, ok := first[k]; !ok && strings.Contains(l, k) {
				first[k] = i + 1
			}
		}
	}
	if b, p, g := first["make --no-print-directory runs/demo/base/ckpt/0/config.json"], first["VARIANT=pats RUN=demo/pats"], first["VARIANT=grpo RUN=demo/grpo"]; b == 0 || p == 0 || g == 0 || b > p || b > g {
		t.Errorf("the base's make (line %d) must come before the runs' (pats %d, grpo %d):\n%s", b, p, g, out)
	}
	runs := map[string]int{}
	for _, l := range lines {
		m := regexp.MustCompile(`^bin/(rollout|evaluate) --policy runs/demo/(pats|grpo)/ckpt/\d+ |^bin/rollout .* --policy runs/demo/(pats|grpo)/ckpt/\d+ `).FindStringSubmatch(l)
		if m == nil {
			continue
		}
		runs[m[2]+m[3]]++
		if !strings.Contains(l, "--env household-rl ") || !strings.Contains(l, "--history 2 --admissible here ") {
			t.Errorf("not household-rl in the base's context: %q", l)
		}
		if strings.HasPrefix(l, "bin/rollout") && !strings.Contains(l, "--tasks 8 --group 8 ") {
			t.Errorf("an iteration's rollout is not 8 tasks x 8 episodes: %q", l)
		}
	}
	// 3 iterations (pats: each also played bare, its absorption signal);
	// evaluations of ckpt/0 and ckpt/3 on two splits, the pats run's with
	// and without its scaffold
	if runs["pats"] != 3+3+8 || runs["grpo"] != 3+4 {
		t.Errorf("rollouts and evaluations per run %v, want pats 14, grpo 7:\n%s", runs, out)
	}
	for _, s := range []string{
		"bin/rollout --env household-drawn --max-context 4096  --history 2 --admissible here --split train --tasks 256 --group 1",
		"bin/learn sft --init runs/demo/base/ckpt/0 --traj runs/demo/pats/demos.parquet -o runs/demo/pats/ckpt/0 --epochs 2",
		"cp -r runs/demo/base/ckpt/0 runs/demo/grpo/ckpt/.0.tmp",
		"demo: a short run (3 iterations of 8 tasks x 8 episodes, 32 evaluation tasks per split, seed 1) of the PATS sweep's configuration",
		"not the sweep's result, which is in docs/results.md.",
	} {
		if !strings.Contains(out, s) {
			t.Errorf("make -n demo lacks %q:\n%s", s, out)
		}
	}

	// DEMO_SHIPPED= trains the base with the sweep base's recipe instead
	out, err = dryRun(t, "demo", "DEMO_SHIPPED=")
	if err != nil {
		t.Fatalf("make -n demo DEMO_SHIPPED=: %v\n%s", err, out)
	}
	if !strings.Contains(out, "--init tiny --traj runs/demo/base/demos.parquet -o runs/demo/base/ckpt/0 --epochs 1") || strings.Contains(out, "cp -r pipelines/bases") {
		t.Errorf("DEMO_SHIPPED=: want the base trained (one epoch), no copy, in\n%s", out)
	}
}

// TestEnvsDemo: make envs-demo still plays oracle and random on every
// built-in environment.
func TestEnvsDemo(t *testing.T) {
	out, err := dryRun(t, "envs-demo")
	if err != nil {
		t.Fatalf("make -n envs-demo: %v\n%s", err, out)
	}
	want := "for e in household household-rl household-drawn household-rl-large household-drawn-large household-drawn-places shop searchqa; do"
	for _, s := range []string{want, "for p in oracle random; do", "bin/rollout --env $e --split valid_seen --tasks 40 --group 2 --policy $p", "bin/evaluate runs/demo/$e-$p.parquet"} {
		if !strings.Contains(out, s) {
			t.Errorf("make -n envs-demo lacks %q:\n%s", s, out)
		}
	}
}
