package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/table"
)

// creditVariant writes the fixture's rollouts with hand-set step rewards
// (0.5 on every third turn, the episode's reward on its last turn) and,
// in each group, a right read in sample 0 and a wrong one in sample 1: the
// first policy-written token of their first turn is relabelled as a skill
// name. Step keys are the rollout's own (the model's episodes repeat
// states, so step groups of two and more occur), but for the last turn of
// sample 2, whose state is made unique.
func creditVariant(t *testing.T, f fixture) (string, []table.Trajectory) {
	t.Helper()
	rows := make([]table.Trajectory, len(f.rows))
	for i, r := range f.rows {
		r.Roles = append([]int8(nil), r.Roles...)
		r.StepRewards = make([]float64, len(r.StepKeys))
		for k := range r.StepRewards {
			if k%3 == 1 {
				r.StepRewards[k] = 0.5
			}
		}
		if n := len(r.StepRewards); n > 0 {
			r.StepRewards[n-1] = r.Reward
			if r.Sample == 2 { // a state no other turn of the group saw
				r.StepKeys = append([]string(nil), r.StepKeys...)
				r.StepKeys[n-1] = "seen-once"
			}
		}
		if r.Sample < 2 {
			for tk, role := range r.Roles {
				if table.PolicyWritten(role) {
					r.Roles[tk] = table.RoleSkillName
					break
				}
			}
			r.Reads, r.ReadsRight, r.ReadsMisleading = []string{"s"}, []bool{r.Sample == 0}, []bool{false}
		}
		rows[i] = r
	}
	p := filepath.Join(t.TempDir(), "credit.parquet")
	if err := table.WriteFile(p, rows, table.Meta{}); err != nil {
		t.Fatal(err)
	}
	return p, rows
}

// recompute is the second route to the advantages learn grpo used, from a
// trajectories file alone (step_keys, step_rewards, reward, roles, reads):
// written apart from lib/rl, with the formulas applied directly (pairwise
// scans instead of maps, returns as explicit sums of gamma^k r).
func recompute(rows []table.Trajectory, gamma, weight, coef float64, skillgate, std bool) (tok [][]float64, step [][]float64) {
	norm := func(xs []float64, x float64) float64 {
		allEq := true
		m := 0.0
		for _, v := range xs {
			m += v
			allEq = allEq && v == xs[0]
		}
		if allEq {
			return 0
		}
		m /= float64(len(xs))
		if !std {
			return x - m
		}
		ss := 0.0
		for _, v := range xs {
			ss += (v - m) * (v - m)
		}
		return (x - m) / (math.Sqrt(ss/float64(len(xs)-1)) + 1e-6)
	}
	ret := make([][]float64, len(rows))
	for i, r := range rows {
		ret[i] = make([]float64, len(r.StepRewards))
		for t := range r.StepRewards {
			for k := t; k < len(r.StepRewards); k++ {
				ret[i][t] += math.Pow(gamma, float64(k-t)) * r.StepRewards[k]
			}
		}
	}
	step = make([][]float64, len(rows))
	episode := make([]float64, len(rows))
	selection := make([]float64, len(rows))
	for i, r := range rows {
		var rewards, utils []float64
		for _, o := range rows {
			if o.GroupID != r.GroupID {
				continue
			}
			rewards = append(rewards, o.Reward)
			for range o.Reads {
				u := 0.0
				if len(o.Reads) == 1 && o.ReadsRight[0] {
					u = 1
				}
				utils = append(utils, u)
			}
		}
		episode[i] = norm(rewards, r.Reward)
		if len(r.Reads) > 0 {
			u := 0.0
			if len(r.Reads) == 1 && r.ReadsRight[0] {
				u = 1
			}
			same := true
			mean := 0.0
			for _, v := range utils {
				mean += v
				same = same && v == utils[0]
			}
			if !same {
				selection[i] = u - mean/float64(len(utils))
			}
		}
		step[i] = make([]float64, len(r.StepKeys))
		for t, key := range r.StepKeys {
			var peers []float64
			for j, o := range rows {
				if o.GroupID != r.GroupID {
					continue
				}
				for u, k2 := range o.StepKeys {
					if k2 == key {
						peers = append(peers, ret[j][u])
					}
				}
			}
			if len(peers) > 1 {
				step[i][t] = norm(peers, ret[i][t])
			}
		}
	}
	tok = make([][]float64, len(rows))
	for i, r := range rows {
		tok[i] = make([]float64, len(r.Roles))
		turn := -1
		for t, role := range r.Roles {
			written := role == table.RoleAction || role == table.RoleSkillName
			if written && (t == 0 || !(r.Roles[t-1] == table.RoleAction || r.Roles[t-1] == table.RoleSkillName)) {
				turn++
			}
			switch {
			case !written:
			case role == table.RoleSkillName && skillgate:
				if len(r.Reads) > 0 {
					tok[i][t] = selection[i]
				}
			default:
				tok[i][t] = episode[i] + weight*step[i][turn]
			}
		}
	}
	return tok, step
}

// TestGiGPOAdvantagesRecomputed runs learn grpo with step credit and checks
// the advantages file it wrote, token by token and turn by turn, against
// recompute, for gigpo under both normalisations and for skillgate with
// gigpo (where the skill-name tokens must carry the selection value alone).
func TestGiGPOAdvantagesRecomputed(t *testing.T) {
	f := setup(t)
	traj, rows := creditVariant(t, f)
	multi, turns := 0, 0
	for _, r := range rows {
		for _, k := range r.StepKeys {
			n := 0
			for _, o := range rows {
				if o.GroupID != r.GroupID {
					continue
				}
				for _, k2 := range o.StepKeys {
					if k2 == k {
						n++
					}
				}
			}
			if n > 1 {
				multi++
			}
			turns++
		}
	}
	t.Logf("%d of %d turns in step groups of two or more", multi, turns)
	if multi == 0 {
		t.Fatal("the fixture has no step group of two or more: the test would check nothing")
	}
	for _, c := range []struct {
		name      string
		args      []string
		gamma     float64
		weight    float64
		skillgate bool
		std       bool
	}{
		{"gigpo std", []string{"--credit", "gigpo", "--gamma", "0.9"}, 0.9, 1, false, true},
		{"gigpo mean", []string{"--credit", "gigpo", "--adv-norm", "mean", "--gamma", "1", "--step-weight", "0.5"}, 1, 0.5, false, false},
		{"skillgate+gigpo", []string{"--credit", "skillgate", "--step-credit", "gigpo"}, 0.95, 1, true, true},
	} {
		dir := t.TempDir()
		adv := filepath.Join(dir, "adv.parquet")
		args := append([]string{"grpo", "--init", f.ckpt, "--ref", f.ckpt, traj, "-o", filepath.Join(dir, "ckpt"),
			"--advantages", adv, "--lr", "1e-4"}, c.args...)
		if code, stderr := run(t, args...); code != 0 {
			t.Fatalf("%s: exit %d: %s", c.name, code, stderr)
		}
		got, _, err := table.ReadFiles[table.TokenAdvantages](adv)
		if err != nil {
			t.Fatal(err)
		}
		tok, step := recompute(rows, c.gamma, c.weight, 0.2, c.skillgate, c.std)
		nonzero := 0
		for i, a := range got {
			if len(a.StepAdvantages) != len(step[i]) {
				t.Fatalf("%s: episode %d: %d step advantages, want %d", c.name, i, len(a.StepAdvantages), len(step[i]))
			}
			for k := range step[i] {
				if math.Abs(a.StepAdvantages[k]-step[i][k]) > 1e-9 {
					t.Errorf("%s: episode %d turn %d: step advantage %v, recomputed %v", c.name, i, k, a.StepAdvantages[k], step[i][k])
				}
				if step[i][k] != 0 {
					nonzero++
				}
			}
			for tk := range tok[i] {
				if math.Abs(float64(a.Advantages[tk])-tok[i][tk]) > 1e-5*math.Max(1, math.Abs(tok[i][tk])) {
					t.Errorf("%s: episode %d token %d (role %d): advantage %v, recomputed %v", c.name, i, tk, rows[i].Roles[tk], a.Advantages[tk], tok[i][tk])
					break
				}
			}
		}
		if nonzero == 0 {
			t.Errorf("%s: every step advantage is 0", c.name)
		}
		if c.skillgate {
			// By hand: per group, sample 0's single right read (utility 1)
			// and sample 1's wrong read (0): mean 1/2, values +1/2 and -1/2
			// on the name tokens; sample 2 made no read.
			for i, a := range got {
				want := []float64{0.5, -0.5, 0}[rows[i].Sample]
				if a.Selection != want {
					t.Errorf("episode %d sample %d: selection %v, want %v", i, rows[i].Sample, a.Selection, want)
				}
				for tk, role := range rows[i].Roles {
					if role == table.RoleSkillName && (a.Channels[tk] != 2 || float64(a.Advantages[tk]) != want) {
						t.Errorf("episode %d name token %d: channel %d value %v, want 2, %v", i, tk, a.Channels[tk], a.Advantages[tk], want)
					}
				}
			}
		}
	}
}

// TestCreditFlagErrors: bad credit settings and trajectories without step
// columns under step credit are one line, exit 2, nothing written.
func TestCreditFlagErrors(t *testing.T) {
	f := setup(t)
	dir := t.TempDir()
	rows := append([]table.Trajectory(nil), f.rows...)
	for i := range rows {
		rows[i].StepKeys, rows[i].StepRewards = nil, nil
	}
	nokeys := filepath.Join(dir, "nokeys.parquet")
	if err := table.WriteFile(nokeys, rows, table.Meta{}); err != nil {
		t.Fatal(err)
	}
	grpo := func(traj string, extra ...string) []string {
		return append([]string{"grpo", "--init", f.ckpt, "--ref", f.ckpt, traj}, extra...)
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"bad step credit", grpo(f.traj, "--step-credit", "gae"), "--step-credit"},
		{"bad credit", grpo(f.traj, "--credit", "gipo"), "gigpo"},
		{"bad baseline", grpo(f.traj, "--credit", "skillgate", "--select-baseline", "mean"), "--select-baseline"},
		{"bad gamma", grpo(f.traj, "--credit", "gigpo", "--gamma", "1.5"), "--gamma"},
		{"negative step weight", grpo(f.traj, "--credit", "gigpo", "--step-weight", "-1"), "--step-weight"},
		{"no step keys", grpo(nokeys, "--credit", "gigpo"), "no step_keys"},
	} {
		out := filepath.Join(dir, "out")
		code, stderr := run(t, append(c.args, "-o", out)...)
		t.Logf("%s: %s", c.name, strings.TrimSpace(stderr))
		if code != command.ExitUsage || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and one line mentioning %q", c.name, code, stderr, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: checkpoint written", c.name)
		}
	}
	// Without step credit the same file trains.
	if code, stderr := run(t, grpo(nokeys, "-o", filepath.Join(dir, "ok"))...); code != 0 {
		t.Errorf("broadcast on trajectories without step keys: exit %d: %s", code, stderr)
	}
}

// TestDropFlatGroupsAll: when every group is flat, --drop-flat-groups
// leaves nothing to train: the checkpoint is written unchanged, with no
// metrics rows and a note on stderr.
func TestDropFlatGroupsAll(t *testing.T) {
	f := setup(t)
	dir := t.TempDir()
	rows := append([]table.Trajectory(nil), f.rows...)
	for i := range rows {
		rows[i].Reward = 1
	}
	flat := filepath.Join(dir, "flat.parquet")
	if err := table.WriteFile(flat, rows, table.Meta{}); err != nil {
		t.Fatal(err)
	}
	out, met := filepath.Join(dir, "ckpt"), filepath.Join(dir, "m.parquet")
	code, stderr := run(t, "grpo", "--init", f.ckpt, "--ref", f.ckpt, flat, "-o", out, "--metrics", met, "--drop-flat-groups")
	if code != 0 || !strings.Contains(stderr, "unchanged") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	a, err := os.ReadFile(filepath.Join(f.ckpt, "model.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, "model.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Error("weights changed with nothing to train on")
	}
	ms, _, err := table.ReadFiles[table.TrainMetrics](met)
	if err != nil || len(ms) != 0 {
		t.Errorf("metrics: %v, %d rows", err, len(ms))
	}
}

// TestAllFlatSaysSo: an update in which every group's rewards are equal
// still trains (the KL term) but says on stderr that no advantage moved
// it; an update with one varied group says nothing of the kind.
func TestAllFlatSaysSo(t *testing.T) {
	f := setup(t)
	dir := t.TempDir()
	rows := append([]table.Trajectory(nil), f.rows...)
	for i := range rows {
		rows[i].Reward = 1
	}
	flat := filepath.Join(dir, "flat.parquet")
	if err := table.WriteFile(flat, rows, table.Meta{}); err != nil {
		t.Fatal(err)
	}
	code, stderr := run(t, "grpo", "--init", f.ckpt, "--ref", f.ckpt, flat, "-o", filepath.Join(dir, "ckpt"))
	if code != 0 || !strings.Contains(stderr, "every group's rewards are equal") || !strings.Contains(stderr, "advantages are all 0") {
		t.Errorf("all flat: exit %d, stderr %q", code, stderr)
	}
	code, stderr = run(t, "grpo", "--init", f.ckpt, "--ref", f.ckpt, f.traj, "-o", filepath.Join(dir, "ckpt2"))
	if code != 0 || strings.Contains(stderr, "every group's rewards are equal") {
		t.Errorf("varied groups: exit %d, stderr %q", code, stderr)
	}
}
