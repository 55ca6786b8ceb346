package pipelines

import (
	"crypto/sha256"
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

// dryRun prints the commands make would run for the top Makefile's
// targets and variables (make -n), with stand-in binaries and an empty
// RUNS folder (written as bin/ and runs/ in the output).
func dryRun(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := repoRoot(t)
	bin := t.TempDir()
	for _, c := range []string{"rollout", "evaluate", "learn", "cards", "control", "validate", "report", "audit"} {
		if err := os.WriteFile(filepath.Join(bin, c), nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	runs := t.TempDir()
	all := append([]string{"-n", "--no-print-directory", "PIPE_BUILD=0", "BIN=" + bin, "RUNS=" + runs}, args...)
	cmd := exec.Command("make", all...)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	s := strings.ReplaceAll(string(out), bin+"/", "bin/")
	return strings.ReplaceAll(s, runs+"/", "runs/"), err
}

// TestReadingBaseRecipe checks that make base-reading runs the recorded
// recipe (14): one oracle shard per READING_MIX entry with its own seed,
// task count and flags, their mix, the SFT and the reading test of both
// splits, every shard and both tests under the two-turn window with the
// admissible actions listed, and 2 epochs of SFT; and that READING_HISTORY and
// READING_ADMISSIBLE give the earlier recipes' contexts (5: neither; 12:
// the window alone).
func TestReadingBaseRecipe(t *testing.T) {
	want := []string{
		"mixed 3200 1991 --hints mixed",
		"misleading 1200 1992 --hints misleading",
		"none 1600 1993 --hints none",
		"preread-right 1200 1994 --preread right",
		"preread-random 800 1995 --preread random",
		"mixed.2 3200 1996 --hints mixed",
		"misleading.2 1200 1997 --hints misleading",
		"none.2 1600 1998 --hints none",
		"preread-right.2 1200 1999 --preread right",
		"preread-random.2 800 19910 --preread random",
	}
	for _, c := range []struct {
		name    string
		vars    []string
		context string // what follows --run base-reading on every shard and the test's flags
	}{
		{"recipe 14 (recorded)", nil, " --history 2 --admissible here"},
		{"recipe 5", []string{"READING_HISTORY=0", "READING_ADMISSIBLE=none"}, ""},
		{"recipe 12", []string{"READING_HISTORY=2", "READING_ADMISSIBLE=none"}, " --history 2"},
	} {
		out, err := dryRun(t, append([]string{"base-reading"}, c.vars...)...)
		if err != nil {
			t.Fatalf("%s: make -n base-reading: %v\n%s", c.name, err, out)
		}
		if !strings.Contains(out, "rollout --env household-drawn ") {
			t.Errorf("%s: the demonstrations are not household-drawn's:\n%s", c.name, out)
		}
		shard := regexp.MustCompile(`--tasks (\d+) --group 1 \\\n\s+--seed (\d+) --policy oracle (.*?) --run base-reading` + regexp.QuoteMeta(c.context) + `\s+-o runs/base-reading/demos/(\S+)\.parquet`)
		var got []string
		for _, m := range shard.FindAllStringSubmatch(out, -1) {
			got = append(got, m[4]+" "+m[1]+" "+m[2]+" "+m[3])
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: demonstration shards (-want +got):\n%s\n%s", c.name, diff, out)
		}
		for _, s := range []string{
			"--init tiny --traj runs/base-reading/demos.parquet -o runs/base-reading/ckpt/0 --epochs 2",
			"--lr 2e-3 --seed 1",
			"audit reading --policy runs/base-reading/ckpt/0 --env household-rl --split valid_seen --tasks 0 " + c.context + " \\",
			"audit reading --policy runs/base-reading/ckpt/0 --env household-rl --split valid_unseen --tasks 0 " + c.context + " \\",
		} {
			if !strings.Contains(out, s) {
				t.Errorf("%s: make -n base-reading lacks %q:\n%s", c.name, s, out)
			}
		}
		if n := strings.Count(out, "--history"); c.context == "" && n != 0 {
			t.Errorf("%s passes --history:\n%s", c.name, out)
		}
		if n := strings.Count(out, "--admissible"); !strings.Contains(c.context, "--admissible") && n != 0 {
			t.Errorf("%s passes --admissible:\n%s", c.name, out)
		}
	}

	// common-* kinds play their rules in the common-sense world
	out, err := dryRun(t, "base-reading", "READING_MIX=mixed:10 common-none:5 common-misleading.2:4")
	if err != nil {
		t.Fatalf("make -n base-reading with common-* shards: %v\n%s", err, out)
	}
	world := regexp.MustCompile(`rollout --env (\S+) .*--tasks (\d+) --group 1 \\\n\s+--seed (\d+) --policy oracle (.*?) --run base-reading --history 2 --admissible here\s+-o runs/base-reading/demos/(\S+)\.parquet`)
	var got []string
	for _, m := range world.FindAllStringSubmatch(out, -1) {
		got = append(got, m[5]+" "+m[1]+" "+m[2]+" "+m[3]+" "+m[4])
	}
	want = []string{
		"mixed household-drawn 10 1991 --hints mixed",
		"common-none household 5 1992 --hints none",
		"common-misleading.2 household 4 1993 --hints misleading",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("shards with common-* kinds (-want +got):\n%s\n%s", diff, out)
	}

	out, err = dryRun(t, "base-reading", "READING_MIX=mixed:10 bogus:5")
	if err == nil || !strings.Contains(out, "unknown shard kind bogus") {
		t.Errorf("READING_MIX with an unknown kind: err %v, output\n%s", err, out)
	}
}

// TestReadingSkillsBase checks that runs with skills on from the reading
// base start from its skills twin, built by the reading recipe with a
// share of slate-and-read shards (READING_SKILLS_MIX, no generic warm-up
// in the RL world) in the recorded recipe's context, while another base
// keeps its generic -skills twin.
func TestReadingSkillsBase(t *testing.T) {
	for _, tc := range []struct {
		base, want, notWant string
	}{
		{"base-reading", "--skills --text-read right --run base-reading --history 2 --admissible here  -o runs/base-reading-skills/demos/read-right.parquet", "RUN=base-reading-skills"},
		{"other", "RUN=other-skills", "RUN=other "},
	} {
		// the recipe, not the shipped copy (TestShippedBasesByDefault)
		out, err := dryRun(t, "warmup", "VARIANT=skillgate", "RUN=x", "BASE="+tc.base, "READING_SKILLS_SHIPPED=")
		if err != nil {
			t.Fatalf("BASE=%s: make -n warmup: %v\n%s", tc.base, err, out)
		}
		if !strings.Contains(out, tc.want) || strings.Contains(out, tc.notWant) {
			t.Errorf("BASE=%s: want %q and no %q in\n%s", tc.base, tc.want, tc.notWant, out)
		}
	}
}

// TestReadingBaseShipped checks the shipped base: with READING_SHIPPED set,
// a run from the reading base copies the shipped checkpoint instead of
// training one, while make base-reading still trains from scratch and then
// compares the checkpoint's bytes with the shipped SHA256SUMS.
func TestReadingBaseShipped(t *testing.T) {
	shipped := t.TempDir()
	for _, d := range []string{"ckpt/0", "metrics"} {
		if err := os.MkdirAll(filepath.Join(shipped, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"SHA256SUMS", "metrics/sft.parquet", "ckpt/0/config.json", "ckpt/0/model.safetensors", "ckpt/0/tokenizer.json", "ckpt/0/optimizer.json", "ckpt/0/optimizer.safetensors", "ckpt/0/agent.json"} {
		if err := os.WriteFile(filepath.Join(shipped, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, err := dryRun(t, "warmup", "VARIANT=grpo", "RUN=x", "BASE=base-reading", "READING_SHIPPED="+shipped)
	if err != nil {
		t.Fatalf("make -n warmup: %v\n%s", err, out)
	}
	if !strings.Contains(out, "cp -r "+shipped+"/ckpt/0 runs/base-reading/ckpt/.0.tmp") || strings.Contains(out, "--init tiny") {
		t.Errorf("a run from the shipped reading base: want a copy of %s and no training in\n%s", shipped, out)
	}
	out, err = dryRun(t, "base-reading", "READING_SHIPPED="+shipped)
	if err != nil {
		t.Fatalf("make -n base-reading: %v\n%s", err, out)
	}
	for _, s := range []string{"READING_SHIPPED=", "--init tiny --traj runs/base-reading/demos.parquet", "cmp -s runs/base-reading/SHA256SUMS " + shipped + "/SHA256SUMS"} {
		if !strings.Contains(out, s) {
			t.Errorf("make -n base-reading with a shipped base lacks %q:\n%s", s, out)
		}
	}
	if strings.Contains(out, "cp -r "+shipped) {
		t.Errorf("make base-reading copied the shipped base instead of training:\n%s", out)
	}
}

// TestShippedBaseCopyKeepsTimes runs the copy of a shipped base for real:
// the first call copies it; a second call after the shipped files got
// newer times (as a fresh clone gives them) leaves the matching copy and
// its times alone, so the runs made from it stay up to date; a shipped file
// whose bytes changed is copied again.
func TestShippedBaseCopyKeepsTimes(t *testing.T) {
	root := repoRoot(t)
	shipped, runs := t.TempDir(), t.TempDir()
	files := map[string]string{"metrics/sft.parquet": "metrics"}
	var sums strings.Builder
	for _, f := range []string{"config.json", "model.safetensors", "tokenizer.json", "optimizer.json", "optimizer.safetensors", "agent.json"} {
		files["ckpt/0/"+f] = "bytes of " + f
		fmt.Fprintf(&sums, "%x  %s\n", sha256.Sum256([]byte("bytes of "+f)), f)
	}
	files["SHA256SUMS"] = sums.String()
	for f, body := range files {
		p := filepath.Join(shipped, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	base := filepath.Join(runs, "base-reading")
	copyBase := func() string {
		t.Helper()
		cmd := exec.Command("make", "--no-print-directory", "PIPE_BUILD=0", "RUNS="+runs, "READING_SHIPPED="+shipped, filepath.Join(base, "ckpt/0/config.json"))
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("make the shipped base's copy: %v\n%s", err, out)
		}
		return string(out)
	}
	setTimes := func(dir string, at time.Time) {
		t.Helper()
		for f := range files {
			if f == "SHA256SUMS" && dir == base {
				continue
			}
			if err := os.Chtimes(filepath.Join(dir, f), at, at); err != nil {
				t.Fatal(err)
			}
		}
	}
	check := func(f string) {
		t.Helper()
		got, err := os.ReadFile(filepath.Join(base, f))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(files[f], string(got)); diff != "" {
			t.Errorf("%s of the copy (-shipped +copy):\n%s", f, diff)
		}
	}

	out := copyBase()
	if !strings.Contains(out, "copy "+shipped) {
		t.Errorf("first call: want a copy, got\n%s", out)
	}
	old := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	setTimes(base, old)
	setTimes(shipped, time.Now())
	if out := copyBase(); strings.Contains(out, "copy ") {
		t.Errorf("second call copied a matching base again:\n%s", out)
	}
	for f := range files {
		if f == "SHA256SUMS" {
			continue
		}
		check(f)
		st, err := os.Stat(filepath.Join(base, f))
		if err != nil {
			t.Fatal(err)
		}
		if !st.ModTime().Equal(old) {
			t.Errorf("%s of a matching copy: time %v, want it left at %v", f, st.ModTime(), old)
		}
	}

	files["metrics/sft.parquet"] = "new metrics"
	if err := os.WriteFile(filepath.Join(shipped, "metrics/sft.parquet"), []byte(files["metrics/sft.parquet"]), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := copyBase(); !strings.Contains(out, "copy "+shipped) {
		t.Errorf("changed shipped metrics: want a copy, got\n%s", out)
	}
	check("metrics/sft.parquet")
	check("ckpt/0/model.safetensors")
}

// TestFormatWarmup checks the interface warm-up: every scaffold variant
// (static included) trains it from its base on oracle demonstrations that
// carry the environment's stated rules in the scaffold's place, from the
// reading base in its pretraining world (household-drawn, not the RL
// world), and none renders the run's own scaffold; no-warmup, grpo and
// FORMAT_SFT=0 start from a copy of the base; every scaffold variant
// builds its own B_0, pats an empty one.
func TestFormatWarmup(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		wantSFT bool
		env     string // the demonstrations' world
		b0      string // the command that makes snap/0; "" for none
	}{
		{"pats, reading base", []string{"VARIANT=pats", "BASE=base-reading"}, true, "household-drawn", "validate init -o runs/x/snap/0.parquet"},
		{"static, reading base", []string{"VARIANT=static", "BASE=base-reading"}, true, "household-drawn", ""},
		{"warm-start, reading base", []string{"VARIANT=warm-start", "BASE=base-reading"}, true, "household-drawn", "validate init --from pipelines/expert/household-rl.yaml -o runs/x/snap/0.parquet"},
		{"oracle-boot, reading base", []string{"VARIANT=oracle-boot", "BASE=base-reading"}, true, "household-drawn", "-o runs/x/snap/0.parquet --decisions runs/x/boot/decisions.parquet"},
		{"no-warmup, reading base", []string{"VARIANT=no-warmup", "BASE=base-reading"}, false, "", "validate init -o runs/x/snap/0.parquet"},
		{"pats, FORMAT_SFT=0", []string{"VARIANT=pats", "BASE=base-reading", "FORMAT_SFT=0"}, false, "", "validate init -o runs/x/snap/0.parquet"},
		{"grpo, reading base", []string{"VARIANT=grpo", "BASE=base-reading"}, false, "", ""},
		{"pats, other base", []string{"VARIANT=pats", "BASE=other"}, true, "household-rl", "validate init -o runs/x/snap/0.parquet"},
	} {
		args := append([]string{"warmup", "RUN=x", "ENV=household-rl"}, tc.args...)
		out, err := dryRun(t, args...)
		if err != nil {
			t.Fatalf("%s: make -n warmup: %v\n%s", tc.name, err, out)
		}
		sft := strings.Contains(out, "-o runs/x/ckpt/0 --epochs")
		base := strings.TrimPrefix(tc.args[1], "BASE=")
		copied := strings.Contains(out, "cp -r runs/"+base+"/ckpt/0 runs/x/ckpt/.0.tmp")
		if sft != tc.wantSFT || copied == tc.wantSFT {
			t.Errorf("%s: format SFT %v (want %v), copy of the base %v, in\n%s", tc.name, sft, tc.wantSFT, copied, out)
		}
		for _, line := range strings.Split(out, "\n") {
			if !strings.Contains(line, "-o runs/x/demos.parquet") {
				continue
			}
			if !strings.Contains(line, "--env "+tc.env+" ") || !strings.Contains(line, "--policy oracle --hints mixed ") || strings.Contains(line, "--scaffold") {
				t.Errorf("%s: the warm-up's demonstrations are not %s's oracle episodes with its stated rules and no scaffold: %q", tc.name, tc.env, line)
			}
		}
		if tc.b0 == "" {
			if strings.Contains(out, "runs/x/snap/0.parquet") {
				t.Errorf("%s: a run without a scaffold builds B_0:\n%s", tc.name, out)
			}
		} else if !strings.Contains(out, tc.b0) {
			t.Errorf("%s: B_0 is not made by %q:\n%s", tc.name, tc.b0, out)
		}
		if boot := strings.Contains(out, "--policy oracle --iteration -1") || strings.Contains(out, "--policy random"); boot != strings.HasPrefix(tc.name, "oracle-boot") {
			t.Errorf("%s: oracle or random-policy evidence %v:\n%s", tc.name, boot, out)
		}
	}
}

// TestReadingBaseContext: a run from the reading base rolls out and
// evaluates in the context the base was trained in (the recorded recipe's
// window and admissible actions, on every rollout and evaluation of its
// iterations), and so does a run with skills on (from the skills twin,
// trained in that context); a run from another base gets neither.
func TestReadingBaseContext(t *testing.T) {
	for _, c := range []struct {
		name string
		vars []string
		want bool
	}{
		{"reading base", []string{"VARIANT=grpo", "BASE=base-reading"}, true},
		{"recipe 5's context", []string{"VARIANT=grpo", "BASE=base-reading", "READING_HISTORY=0", "READING_ADMISSIBLE=none"}, false},
		{"skills twin", []string{"VARIANT=skillgate", "BASE=base-reading"}, true},
		{"other base", []string{"VARIANT=grpo", "BASE=other"}, false},
	} {
		out, err := dryRun(t, append([]string{"pats", "RUN=x", "ITERS=1"}, c.vars...)...)
		if err != nil {
			t.Fatalf("%s: make -n pats: %v\n%s", c.name, err, out)
		}
		n := 0
		for _, line := range strings.Split(out, "\n") {
			if !strings.Contains(line, "--policy runs/x/ckpt/0") {
				continue
			}
			n++
			if has := strings.Contains(line, "--history 2 --admissible here "); has != c.want {
				t.Errorf("%s: the window and the admissible actions %v in %q", c.name, map[bool]string{true: "missing", false: "present"}[c.want], line)
			}
			if !c.want && (strings.Contains(line, "--history") || strings.Contains(line, "--admissible")) {
				t.Errorf("%s: %q", c.name, line)
			}
		}
		if n < 3 {
			t.Errorf("%s: %d rollouts and evaluations of iteration 0, want 3 or more:\n%s", c.name, n, out)
		}
	}
}

// TestRebuildReport runs make base-reading's comparison for real on a
// stand-in base whose targets are all up to date, so that make trains
// nothing: a rebuild that differs from the shipped base is reported with
// the differing hashes and make still succeeds; one that matches is
// reported byte-identical.
func TestRebuildReport(t *testing.T) {
	root := repoRoot(t)
	bin, runs, shipped := t.TempDir(), t.TempDir(), t.TempDir()
	for _, c := range []string{"rollout", "evaluate", "learn", "cards", "control", "validate", "report", "audit"} {
		if err := os.WriteFile(filepath.Join(bin, c), nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	base := filepath.Join(runs, "base-reading")
	var files []string
	for _, s := range []string{"mixed", "misleading", "none", "preread-right", "preread-random"} {
		files = append(files, "demos/"+s+".parquet", "demos/"+s+".2.parquet")
	}
	files = append(files, "demos.parquet")
	ckpt := []string{"config.json", "model.safetensors", "tokenizer.json", "optimizer.json", "optimizer.safetensors", "agent.json"}
	for _, f := range ckpt {
		files = append(files, "ckpt/0/"+f)
	}
	files = append(files, "metrics/sft.parquet", "reading/household-rl/valid_seen.md", "reading/household-rl/valid_unseen.md")
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i, f := range files {
		p := filepath.Join(base, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("bytes of "+f), 0o644); err != nil {
			t.Fatal(err)
		}
		// each stage newer than the one before it
		stamp := at.Add(time.Duration(strings.Count(f, "/")+i/10) * time.Minute)
		if err := os.Chtimes(p, stamp, stamp); err != nil {
			t.Fatal(err)
		}
	}
	writeSums := func(model string) {
		t.Helper()
		var sums strings.Builder
		for _, f := range ckpt {
			body := "bytes of ckpt/0/" + f
			if f == "model.safetensors" {
				body = model
			}
			fmt.Fprintf(&sums, "%x  %s\n", sha256.Sum256([]byte(body)), f)
		}
		if err := os.WriteFile(filepath.Join(shipped, "SHA256SUMS"), []byte(sums.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rebuild := func() string {
		t.Helper()
		cmd := exec.Command("make", "--no-print-directory", "PIPE_BUILD=0", "BIN="+bin, "RUNS="+runs, "READING_SHIPPED="+shipped, "base-reading")
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("make base-reading: %v\n%s", err, out)
		}
		if strings.Contains(string(out), "bin/learn") || strings.Contains(string(out), bin+"/") {
			t.Fatalf("make base-reading ran a stage of an up-to-date base:\n%s", out)
		}
		return string(out)
	}

	writeSums("other weights")
	out := rebuild()
	if !strings.Contains(out, "differs from "+shipped) || !strings.Contains(out, "model.safetensors") {
		t.Errorf("a rebuild with other weights: want it reported as different, got\n%s", out)
	}
	writeSums("bytes of ckpt/0/model.safetensors")
	if out := rebuild(); !strings.Contains(out, "byte-identical to "+shipped) {
		t.Errorf("a matching rebuild: want it reported byte-identical, got\n%s", out)
	}
}
