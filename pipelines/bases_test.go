package pipelines

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// fakeShipped writes an empty stand-in of a shipped base (its SHA256SUMS,
// SFT metrics and checkpoint files) and returns its folder.
func fakeShipped(t *testing.T) string {
	t.Helper()
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
	return shipped
}

// TestMoreShippedBases checks the two bases shipped beside the reading
// base, as TestReadingBaseShipped checks that one: the skills twin
// (READING_SKILLS_SHIPPED, recipe 15) and the PATS sweep's base
// (READING_E1_SHIPPED, recipe 14 with seed 1 and one epoch). A run from
// each copies the shipped checkpoint instead of training one; its rebuild
// target trains it from scratch with its recipe and compares the bytes
// with the shipped SHA256SUMS, never copying; its ship target writes the
// built checkpoint into its own folder under pipelines/bases.
func TestMoreShippedBases(t *testing.T) {
	for _, tc := range []struct {
		name    string
		shipVar string   // the variable naming the shipped folder
		run     []string // a run from the base
		base    string   // the base's run folder
		rebuild string   // the rebuild target
		recipe  []string // what the rebuild must run
		ship    string   // the ship target
		shipTo  string   // where it writes
	}{
		{
			name: "skills twin", shipVar: "READING_SKILLS_SHIPPED",
			run:     []string{"warmup", "VARIANT=skillgate", "RUN=x", "BASE=base-reading"},
			base:    "runs/base-reading-skills",
			rebuild: "base-reading-skills",
			recipe: []string{"--skills --text-read right --run base-reading --history 2 --admissible here  -o runs/base-reading-skills/demos/read-right.parquet",
				"--init tiny --traj runs/base-reading-skills/demos.parquet -o runs/base-reading-skills/ckpt/0 --epochs 2",
				"audit reading --policy runs/base-reading-skills/ckpt/0 --env household-rl --split valid_seen --tasks 0 --skills --history 2 --admissible here"},
			ship: "base-reading-skills-ship", shipTo: "pipelines/bases/reading-skills",
		},
		{
			name: "the sweep's base", shipVar: "READING_E1_SHIPPED",
			run:     []string{"warmup", "VARIANT=grpo", "RUN=x", "BASE=base-reading-e1-s1", "READING_BASE=$(RUNS)/base-reading-e1-s1", "READING_SHIPPED=$(READING_E1_SHIPPED)"},
			base:    "runs/base-reading-e1-s1",
			rebuild: "base-reading-e1",
			recipe: []string{"--init tiny --traj runs/base-reading-e1-s1/demos.parquet -o runs/base-reading-e1-s1/ckpt/0 --epochs 1",
				"--lr 2e-3 --seed 1 --metrics runs/base-reading-e1-s1/metrics/sft.parquet",
				"audit reading --policy runs/base-reading-e1-s1/ckpt/0 --env household-rl --split valid_unseen --tasks 0  --history 2 --admissible here"},
			ship: "base-reading-e1-ship", shipTo: "pipelines/bases/reading-e1",
		},
	} {
		shipped := fakeShipped(t)
		set := tc.shipVar + "=" + shipped
		out, err := dryRun(t, append(tc.run, set)...)
		if err != nil {
			t.Fatalf("%s: make -n %v: %v\n%s", tc.name, tc.run, err, out)
		}
		if !strings.Contains(out, "cp -r "+shipped+"/ckpt/0 "+tc.base+"/ckpt/.0.tmp") || strings.Contains(out, "learn sft") {
			t.Errorf("%s: a run from the shipped base: want a copy of %s into %s and no training in\n%s", tc.name, shipped, tc.base, out)
		}

		out, err = dryRun(t, tc.rebuild, set)
		if err != nil {
			t.Fatalf("%s: make -n %s: %v\n%s", tc.name, tc.rebuild, err, out)
		}
		for _, s := range append(tc.recipe, "cmp -s "+tc.base+"/SHA256SUMS "+shipped+"/SHA256SUMS") {
			if !strings.Contains(out, s) {
				t.Errorf("%s: make -n %s lacks %q:\n%s", tc.name, tc.rebuild, s, out)
			}
		}
		if strings.Contains(out, "cp -r "+shipped) {
			t.Errorf("%s: make %s copied the shipped base instead of training:\n%s", tc.name, tc.rebuild, out)
		}

		out, err = dryRun(t, tc.ship, set)
		if err != nil {
			t.Fatalf("%s: make -n %s: %v\n%s", tc.name, tc.ship, err, out)
		}
		for _, s := range []string{
			"cp " + tc.base + "/ckpt/0/config.json " + tc.base + "/ckpt/0/model.safetensors",
			"cp " + tc.base + "/metrics/sft.parquet " + tc.shipTo + "/metrics/",
			"> " + tc.shipTo + "/SHA256SUMS",
		} {
			if !strings.Contains(out, s) {
				t.Errorf("%s: make -n %s lacks %q:\n%s", tc.name, tc.ship, s, out)
			}
		}
		if strings.Contains(out, "cp -r "+shipped) {
			t.Errorf("%s: make %s shipped a copy of the shipped base:\n%s", tc.name, tc.ship, out)
		}
	}
}

// TestShippedBasesByDefault: with no variable set, the skills twin of the
// reading base comes from pipelines/bases/reading-skills, and the sweep's
// command block in docs/results.md takes its base from
// pipelines/bases/reading-e1 (copied, not trained), keeping its recipe's
// variables for a rebuild; READING_SHIPPED= (a rebuilt reading base) trains
// the skills twin too.
func TestShippedBasesByDefault(t *testing.T) {
	out, err := dryRun(t, "warmup", "VARIANT=skillgate", "RUN=x", "BASE=base-reading")
	if err != nil {
		t.Fatalf("make -n warmup: %v\n%s", err, out)
	}
	if !strings.Contains(out, "cp -r pipelines/bases/reading-skills/ckpt/0 runs/base-reading-skills/ckpt/.0.tmp") || strings.Contains(out, "learn sft") {
		t.Errorf("the skills twin by default: want a copy of pipelines/bases/reading-skills in\n%s", out)
	}
	out, err = dryRun(t, "warmup", "VARIANT=skillgate", "RUN=x", "BASE=base-reading", "READING_SHIPPED=")
	if err != nil {
		t.Fatalf("make -n warmup READING_SHIPPED=: %v\n%s", err, out)
	}
	if strings.Contains(out, "pipelines/bases/reading-skills") || !strings.Contains(out, "--init tiny --traj runs/base-reading-skills/demos.parquet") {
		t.Errorf("READING_SHIPPED=: want the skills twin trained, not copied, in\n%s", out)
	}

	md, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", "results.md"))
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile(`(?s)S="PIPE_BUILD=0 SWEEP=runs/s32 (.*?)"\n`).FindSubmatch(md)
	if block == nil {
		t.Fatal("docs/results.md: no sweep command block S=\"PIPE_BUILD=0 SWEEP=runs/s32 ...\"")
	}
	args := []string{"warmup", "VARIANT=grpo", "RUN=x"}
	vars := map[string]string{}
	for _, m := range regexp.MustCompile(`(?:^|\s)((?:READING_\w+|BASE|ENV)=(\S*))`).FindAllSubmatch(block[1], -1) {
		kv := strings.Replace(string(m[1]), "=runs/", "=$(RUNS)/", 1)
		args = append(args, kv)
		k, v, _ := strings.Cut(string(m[1]), "=")
		vars[k] = v
	}
	for k, want := range map[string]string{"READING_BASE": "runs/base-reading-e1-s1", "BASE": "base-reading-e1-s1", "READING_SEED": "1",
		"READING_EPOCHS": "1", "READING_SHIPPED": "pipelines/bases/reading-e1"} {
		if vars[k] != want {
			t.Errorf("docs/results.md's sweep block: %s=%q, want %q", k, vars[k], want)
		}
	}
	out, err = dryRun(t, args...)
	if err != nil {
		t.Fatalf("make -n %v: %v\n%s", args, err, out)
	}
	if !strings.Contains(out, "cp -r pipelines/bases/reading-e1/ckpt/0 runs/base-reading-e1-s1/ckpt/.0.tmp") || strings.Contains(out, "learn sft") {
		t.Errorf("the sweep block's base: want a copy of pipelines/bases/reading-e1 and no training in\n%s", out)
	}
}
