package pipelines

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pats-rl/pats/lib/report"
	"github.com/pats-rl/pats/lib/table"
)

// TestIssue51Experiments runs issue 51's two experiment targets end to
// end through the top Makefile at tiny sizes (one seed, one iteration of
// 1 task x 2 episodes, one evaluation task per split, a reading test of
// one task per split), with the real shipped bases:
//
//   - skillgate-choose-experiment copies the choosing base from
//     pipelines/bases/reading-choose (byte for byte), runs its reading
//     test, runs skillgate and broadcast (runs/sgb) and skillgate without a
//     baseline (runs/sgb-nobaseline) from it with the slate in its window,
//     and writes the table of the three across both folders, with the
//     skill reads at evaluation paired with broadcast;
//   - composed-split-experiment runs gigpo (with the slate), pats-skillgate,
//     pats-gigpo and the composed run from the skills base (runs/sgs),
//     restores skillgate and broadcast from an archive (make sweep-archive
//     of the runs above, a stand-in for results/sg) into runs/sg, takes
//     issue 33's composed run's row from runs/sgc (a stand-in: a link to
//     the composed run the target makes) and writes the tables of all
//     seven paired with broadcast and with the composed run.
//
// A second call of each target trains nothing again (resumable through
// make: every run is finished).
func TestIssue51Experiments(t *testing.T) {
	if testing.Short() {
		t.Skip("runs small sweeps with make")
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make not found")
	}
	root := repoRoot(t)
	bin := buildTools(t, root)
	tmp := t.TempDir()
	runs := filepath.Join(tmp, "runs")
	sizes := []string{"-j2", "--no-print-directory", "PIPE_BUILD=0", "BIN=" + bin, "RUNS=" + runs,
		"SG_SEEDS=1", "CS_SEEDS=1", "SG_ITERS=1", "SG_TASKS=1", "SG_GROUP=2", "SG_EVAL_TASKS=1", "READING_EVAL=1",
		"MECHANISM=0", "DEMO_TASKS=4", "SFT_EPOCHS=1", "SFT_BATCH=1024"}
	mk := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("make", append(append([]string{}, sizes...), args...)...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "BIN="+bin)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		t0 := time.Now()
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("make %v: %v\n%s", args, err, out)
		}
		t.Logf("make %s: %v", args[0], time.Since(t0).Round(time.Second))
		return string(out)
	}
	p := func(parts ...string) string { return filepath.Join(append([]string{runs}, parts...)...) }
	trained := func(out string) bool { return strings.Contains(out, "/rollout ") || strings.Contains(out, "/learn ") }

	// Part 3: from the choosing base.
	out := mk("skillgate-choose-experiment")
	for _, f := range []string{"model.safetensors", "config.json"} {
		a, err := os.ReadFile(filepath.Join(root, "pipelines", "bases", "reading-choose", "ckpt", "0", f))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(p("base-reading-choose", "ckpt", "0", f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("runs/base-reading-choose/ckpt/0/%s: not the shipped base's bytes", f)
		}
	}
	for _, s := range []string{"valid_seen", "valid_unseen"} {
		if _, err := os.Stat(p("base-reading-choose", "reading", "household-rl", s+".md")); err != nil {
			t.Errorf("the choosing base's reading test: %v", err)
		}
	}
	for _, run := range []string{"sgb/skillgate-s1", "sgb/broadcast-s1", "sgb-nobaseline/skillgate-s1"} {
		rows, metas, err := table.ReadFiles[table.Trajectory](p(run, "traj", "0.parquet"))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if len(r.Slate) == 0 {
				t.Errorf("%s: episode %s has no slate", run, r.TaskID)
			}
		}
		if cmd := metas[0].Command; !strings.Contains(cmd, "--skills") || !strings.Contains(cmd, "--history 2") ||
			!strings.Contains(cmd, "--policy "+p(run, "ckpt", "0")) {
			t.Errorf("%s: training rollout %q: want the slate and the window", run, cmd)
		}
		set, err := os.ReadFile(p(run, "settings.json"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(set), "base-reading-choose") {
			t.Errorf("%s/settings.json does not name the choosing base", run)
		}
		if nb := strings.Contains(string(set), "--select-baseline none"); nb != strings.HasPrefix(run, "sgb-nobaseline") {
			t.Errorf("%s/settings.json: --select-baseline none %v", run, nb)
		}
	}
	md, err := os.ReadFile(p("sgb", "results-choose.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"| skillgate | 1 |", "| broadcast | 1 |", "| skillgate-nobaseline | 1 |",
		"| skillgate-nobaseline | valid_unseen | 1 |", "Paired differences from broadcast (",
		"Paired differences from broadcast in skill reads at evaluation", "| skillgate-nobaseline | 1 | "} {
		if !strings.Contains(string(md), s) {
			t.Errorf("results-choose.md lacks %q:\n%s", s, md)
		}
	}
	choose, _, err := table.ReadFiles[report.SweepRun](p("sgb", "runs-choose.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range choose {
		if r.SeenExposure == nil || r.UnseenExposure == nil {
			t.Errorf("%s: no misleading exposure at evaluation", r.Run)
		}
		if r.Variant == "skillgate-nobaseline" && r.Run != p("sgb-nobaseline", "skillgate-s1") {
			t.Errorf("skillgate-nobaseline reads %s", r.Run)
		}
	}
	if out = mk("skillgate-choose-experiment"); trained(out) {
		t.Errorf("a second skillgate-choose-experiment trained again:\n%s", out)
	}

	// Part 4. Skillgate and broadcast come from an archive, here sgb's
	// (the choosing base's: the machinery, not the experiment), restored
	// into runs/sg by the target. Issue 33's composed run (runs/sgc) is
	// a stand-in too: a link to the composed run the target makes, so that
	// its row is read from another sweep folder.
	if err := os.MkdirAll(p("sgc"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("..", "sgs", "pats-skillgate-gigpo-s1"), p("sgc", "pats-skillgate-gigpo-s1")); err != nil {
		t.Fatal(err)
	}
	arch := filepath.Join(tmp, "results", "sgb")
	mk("sweep-archive", "SWEEP="+p("sgb"), "SWEEP_ARCHIVE="+arch)
	parts := []string{"CMP_ARCHIVE=", "SG_ARCHIVE=" + arch}
	out = mk(append([]string{"composed-split-experiment"}, parts...)...)
	for _, run := range []string{"gigpo-s1", "pats-skillgate-s1", "pats-gigpo-s1", "pats-skillgate-gigpo-s1"} {
		adv, _, err := table.ReadFiles[table.TokenAdvantages](p("sgs", run, "adv", "0.parquet"))
		if err != nil {
			t.Fatal(err)
		}
		// gigpo: broadcast with GiGPO's step credit (lib/rl CreditName)
		want := map[string]string{"gigpo-s1": "gigpo", "pats-skillgate-s1": "skillgate", "pats-gigpo-s1": "gigpo", "pats-skillgate-gigpo-s1": "skillgate+gigpo"}[run]
		for _, a := range adv {
			if a.Credit != want {
				t.Errorf("sgs/%s: credit %q, want %q", run, a.Credit, want)
				break
			}
		}
		if len(adv) == 0 {
			t.Errorf("sgs/%s: no advantages", run)
		}
		rows, metas, err := table.ReadFiles[table.Trajectory](p("sgs", run, "traj", "0.parquet"))
		if err != nil {
			t.Fatal(err)
		}
		scaffold := strings.Contains(metas[0].Command, "--scaffold ")
		if len(rows) == 0 || len(rows[0].Slate) == 0 || scaffold == (run == "gigpo-s1") {
			t.Errorf("sgs/%s: slate of %d, scaffold %v in %q", run, len(rows[0].Slate), scaffold, metas[0].Command)
		}
		if _, err := os.Stat(p("sgs", run, "audit", "credit.md")); err != nil {
			t.Errorf("sgs/%s: no credit audit: %v", run, err)
		}
	}
	if !strings.Contains(out, "runs restored into") {
		t.Errorf("composed-split-experiment restored no part:\n%s", out)
	}
	split, _, err := table.ReadFiles[report.SweepRun](p("sgs", "runs-split.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range split {
		got[r.Variant] = r.Run
	}
	want := map[string]string{"broadcast": p("sg", "broadcast-s1"), "skillgate": p("sg", "skillgate-s1"), // restored
		"gigpo": p("sgs", "gigpo-s1"), "pats-skillgate": p("sgs", "pats-skillgate-s1"), "pats-gigpo": p("sgs", "pats-gigpo-s1"),
		"pats-skillgate-gigpo": p("sgs", "pats-skillgate-gigpo-s1"), "pats-skillgate-gigpo-33": p("sgc", "pats-skillgate-gigpo-s1")}
	for v, r := range want {
		if got[v] != r {
			t.Errorf("runs-split.parquet: %s from %q, want %q", v, got[v], r)
		}
	}
	md, err = os.ReadFile(p("sgs", "results-split.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"| pats-gigpo | 1 | ", "| pats-skillgate-gigpo | 1 | ", "| pats-skillgate-gigpo-33 | 1 | ", "Paired differences from broadcast in skill reads at evaluation"} {
		if !strings.Contains(string(md), s) {
			t.Errorf("results-split.md lacks %q:\n%s", s, md)
		}
	}
	md, err = os.ReadFile(p("sgs", "results-split-composed.md"))
	if err != nil {
		t.Fatal(err)
	}
	// the parts paired with the composed run; issue 33's stand-in is the
	// same run, so its difference is 0
	for _, s := range []string{"Paired differences from pats-skillgate-gigpo (", "| pats-gigpo | 1 | ",
		"| pats-skillgate-gigpo-33 | 1 | +0.0 [+0.0, +0.0] | +0.0 [+0.0, +0.0] | +0 [+0, +0] |"} {
		if !strings.Contains(string(md), s) {
			t.Errorf("results-split-composed.md lacks %q:\n%s", s, md)
		}
	}
	if out = mk(append([]string{"composed-split-experiment"}, parts...)...); trained(out) {
		t.Errorf("a second composed-split-experiment trained again:\n%s", out)
	}
}
