package stage

import (
	"os/exec"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The layers of docs/architecture.md, as package patterns relative to the
// module ("x/..." is x and every package below it).
var (
	commandLayer = []string{"cmd/..."}
	stageLayer   = []string{"lib/stage/...", "lib/command"}
	domainLayer  = []string{"lib/env/...", "lib/skill", "lib/scaffold", "lib/card", "lib/card/cardtest", "lib/control", "lib/refiner",
		"lib/validate", "lib/rl/...", "lib/toolcall", "lib/agent", "lib/policy", "lib/policy/servedtest", "lib/rollout", "lib/rollout/episodetest", "lib/eval", "lib/audit", "lib/report"}
	groundLayer = []string{"lib/table", "lib/remote", "lib/remote/remotetest", "lib/model/...", "lib/device", "lib/tokenizer", "lib/chattemplate", "lib/words", "lib/gemm", "lib/vecmath", "lib/output", "lib/cleanup", "lib/progress", "lib/plotcolor", "lib/tensorboard", "lib/table/interop/duckdb"}
	cliPkg      = "github.com/urfave/cli/..."
	// modelStack is what running the model takes; only the commands that
	// run it (rollout, evaluate, learn, audit) link it.
	modelStack = []string{"lib/model/...", "lib/device", "lib/gemm", "lib/vecmath"}
	// modelFree are the commands that never run the model, with their stages.
	modelFree = []string{"cmd/cards", "cmd/control", "cmd/validate", "cmd/report",
		"lib/stage/cards", "lib/stage/control", "lib/stage/validate", "lib/stage/report"}
	// commandStages are the stages of the commands, one per cmd/NAME
	// (TestArchitecture checks the list against cmd/); what several of
	// them share lives in lib/stage or a package of its own
	// (lib/stage/play, lib/stage/deviceflag), never in one of them.
	commandStages = []string{"lib/stage/audit", "lib/stage/cards", "lib/stage/control", "lib/stage/evaluate",
		"lib/stage/learn", "lib/stage/report", "lib/stage/rollout", "lib/stage/validate"}
	// testOnly are the fixtures only tests import.
	testOnly = []string{"lib/vocabulary", "lib/remote/remotetest", "lib/rollout/episodetest", "lib/stage/rollouttest", "lib/policy/servedtest", "lib/tensorboard/readback"}
)

func join(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// rule: no package matching pkgs may depend (directly or through other
// packages) on a package matching never.
type rule struct {
	name  string
	pkgs  []string
	never []string
}

// rules are the never-imports of docs/architecture.md.
var rules = []rule{
	{"the domain and the ground know no command, stage or CLI package",
		join(domainLayer, groundLayer), join(commandLayer, stageLayer, []string{cliPkg})},
	{"only tests import the vocabulary's sources and the episode fixtures", join(domainLayer, groundLayer, stageLayer, commandLayer), testOnly},
	{"the ground knows no domain package", groundLayer, domainLayer},
	{"the model knows no environment, scaffold or skill", []string{"lib/model/..."}, []string{"lib/env/...", "lib/scaffold", "lib/skill"}},
	{"the model knows no device: devices implement its Accelerator", []string{"lib/model/..."}, []string{"lib/device"}},
	{"environments know no tokenizer, model, scaffold or agent", []string{"lib/env/..."},
		[]string{"lib/tokenizer", "lib/model/...", "lib/scaffold", "lib/agent", "lib/policy", "lib/rl"}},
	{"rl knows no environment, scaffold, cards, controller or refiner", []string{"lib/rl/..."},
		[]string{"lib/env/...", "lib/scaffold", "lib/card", "lib/control", "lib/refiner", "lib/skill", "lib/rollout", "lib/policy"}},
	{"the validator knows neither the controller nor the refiner", []string{"lib/validate"}, []string{"lib/control", "lib/refiner", "lib/card"}},
	{"the binaries that never run the model link none of its stack", modelFree, modelStack},
	{"the exit point knows no stage, domain package or model", []string{"lib/command"},
		join(commandLayer, []string{"lib/stage/..."}, domainLayer, modelStack, []string{"lib/tokenizer", "lib/progress"})},
	{"a command stage imports no other command stage", commandStages, commandStages},
	// issue 59: the absorption signal reaches the loop through cards of the
	// policy's own bare replay only; no environment's rules (lib/env, whose
	// worlds hold the oracle and the rules audit truth judges by), audit,
	// rollout or policy is linked into the binaries that decide the scaffold
	{"the scaffold loop (cards, control, validate) knows no environment, oracle, audit, rollout or policy",
		[]string{"cmd/cards", "cmd/control", "cmd/validate", "lib/stage/cards", "lib/stage/control", "lib/stage/validate",
			"lib/card", "lib/control", "lib/refiner", "lib/validate", "lib/scaffold"},
		[]string{"lib/env/...", "lib/audit", "lib/rollout", "lib/policy", "lib/skill"}},
	{"the validate binary links no refiner and no controller", []string{"cmd/validate", "lib/stage/validate"}, []string{"lib/refiner", "lib/control"}},
	{"the table layer knows no other package of the project but the output discipline", []string{"lib/table", "lib/words"},
		join(commandLayer, stageLayer, domainLayer, []string{"lib/model/...", "lib/tokenizer", "lib/words", "lib/gemm", "lib/vecmath", "lib/vocabulary"})},
	{"the output discipline knows no other package of the project", []string{"lib/output", "lib/cleanup"},
		join(commandLayer, stageLayer, domainLayer, []string{"lib/table", "lib/model/...", "lib/tokenizer", "lib/words", "lib/gemm", "lib/vecmath", "lib/vocabulary"})},
}

// match reports whether package p matches pattern pat.
func match(pat, p string) bool {
	if base, ok := strings.CutSuffix(pat, "/..."); ok {
		return p == base || strings.HasPrefix(p, base+"/")
	}
	return p == pat
}

func matchAny(pats []string, p string) bool {
	for _, pat := range pats {
		if match(pat, p) {
			return true
		}
	}
	return false
}

// violations lists, sorted, every package of deps (package -> every
// package it depends on) that breaks a rule, as "PKG -> DEP: RULE".
func violations(deps map[string][]string, rules []rule) []string {
	var out []string
	for p, ds := range deps {
		for _, r := range rules {
			if !matchAny(r.pkgs, p) {
				continue
			}
			for _, d := range ds {
				if d != p && matchAny(r.never, d) {
					out = append(out, p+" -> "+d+": "+r.name)
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

const module = "github.com/pats-rl/pats/"

// listDeps runs go list over the module and returns each package's
// dependencies, the module's own paths relative to the module.
func listDeps(t *testing.T) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Deps}} {{.}}{{end}}", module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		for i := range f {
			f[i] = strings.TrimPrefix(f[i], module)
		}
		deps[f[0]] = f[1:]
	}
	return deps
}

// TestArchitecture: no package of the module breaks a never-import of
// docs/architecture.md, and every rule names packages that exist.
func TestArchitecture(t *testing.T) {
	deps := listDeps(t)
	if len(deps) < 40 {
		t.Fatalf("go list gave %d packages", len(deps))
	}
	for _, r := range rules {
		for _, pat := range r.pkgs {
			found := false
			for p := range deps {
				found = found || match(pat, p)
			}
			if !found {
				t.Errorf("rule %q: no package matches %s (renamed?)", r.name, pat)
			}
		}
	}
	for _, v := range violations(deps, rules) {
		t.Error(v)
	}
	for p := range deps {
		if name, ok := strings.CutPrefix(p, "cmd/"); ok && !strings.Contains(name, "/") && !matchAny(commandStages, "lib/stage/"+name) {
			t.Errorf("command %s: lib/stage/%s is not among the command stages of the architecture test", p, name)
		}
	}
}

// TestArchitectureCatchesPlanted: the checker reports a forbidden import
// planted in a package list, directly or through another package, and
// nothing on a clean list.
func TestArchitectureCatchesPlanted(t *testing.T) {
	clean := map[string][]string{
		"cmd/learn":          {"lib/stage/learn", "lib/command", "github.com/urfave/cli/v2", "lib/rl", "lib/model"},
		"lib/stage/learn":    {"lib/command", "github.com/urfave/cli/v2", "lib/rl", "lib/model", "lib/table", "lib/tokenizer"},
		"lib/rl":             {"lib/model", "lib/table"},
		"lib/env/household":  {"lib/env", "lib/words"},
		"lib/validate":       {"lib/scaffold", "lib/table", "lib/words"},
		"lib/table":          {"github.com/parquet-go/parquet-go"},
		"cmd/cards":          {"lib/stage/cards", "lib/command", "github.com/urfave/cli/v2", "lib/card", "lib/table"},
		"lib/command":        {"lib/table", "lib/output", "lib/cleanup", "github.com/urfave/cli/v2"},
		"lib/stage/validate": {"lib/stage", "lib/command", "lib/validate", "lib/scaffold", "lib/table", "lib/tokenizer"},
		"lib/stage/rollout":  {"lib/stage/deviceflag", "lib/device", "lib/rollout", "lib/model", "lib/env"},
	}
	if got := violations(clean, rules); len(got) != 0 {
		t.Errorf("clean list: %v", got)
	}
	planted := func(pkg string, extra ...string) map[string][]string {
		m := map[string][]string{}
		for k, v := range clean {
			m[k] = append([]string(nil), v...)
		}
		m[pkg] = append(m[pkg], extra...)
		return m
	}
	cases := []struct {
		name string
		deps map[string][]string
		want []string
	}{
		{"rl imports the scaffold", planted("lib/rl", "lib/scaffold"),
			[]string{"lib/rl -> lib/scaffold: rl knows no environment, scaffold, cards, controller or refiner"}},
		{"an environment reaches the tokenizer", planted("lib/env/household", "lib/tokenizer"),
			[]string{"lib/env/household -> lib/tokenizer: environments know no tokenizer, model, scaffold or agent"}},
		{"the validator imports the controller", planted("lib/validate", "lib/control"),
			[]string{"lib/validate -> lib/control: the validator knows neither the controller nor the refiner"}},
		{"a domain package imports the CLI", planted("lib/rl", "github.com/urfave/cli/v2"),
			[]string{"lib/rl -> github.com/urfave/cli/v2: the domain and the ground know no command, stage or CLI package"}},
		{"the table imports a stage", planted("lib/table", "lib/stage"),
			[]string{
				"lib/table -> lib/stage: the domain and the ground know no command, stage or CLI package",
				"lib/table -> lib/stage: the table layer knows no other package of the project but the output discipline",
			}},
	}
	// The rules of docs/architecture.md's second round, each on a planted
	// violation.
	cases = append(cases, []struct {
		name string
		deps map[string][]string
		want []string
	}{
		{"the cards binary links the model", planted("cmd/cards", "lib/model"),
			[]string{"cmd/cards -> lib/model: the binaries that never run the model link none of its stack"}},
		{"the report stage reaches a matrix kernel", planted("lib/stage/report", "lib/report", "lib/vecmath"),
			[]string{"lib/stage/report -> lib/vecmath: the binaries that never run the model link none of its stack"}},
		{"the control binary links the device", planted("cmd/control", "lib/device"),
			[]string{"cmd/control -> lib/device: the binaries that never run the model link none of its stack"}},
		{"the validate stage imports the controller", planted("lib/stage/validate", "lib/control"),
			[]string{"lib/stage/validate -> lib/control: the validate binary links no refiner and no controller"}},
		{"the exit point imports the device", planted("lib/command", "lib/device"),
			[]string{"lib/command -> lib/device: the exit point knows no stage, domain package or model"}},
		{"the exit point imports the progress options", planted("lib/command", "lib/progress"),
			[]string{"lib/command -> lib/progress: the exit point knows no stage, domain package or model"}},
		{"the exit point imports the controller", planted("lib/command", "lib/control"),
			[]string{"lib/command -> lib/control: the exit point knows no stage, domain package or model"}},
		{"a package below rl plays episodes", planted("lib/rl/rltest", "lib/rollout", "lib/env/household"),
			[]string{
				"lib/rl/rltest -> lib/env/household: rl knows no environment, scaffold, cards, controller or refiner",
				"lib/rl/rltest -> lib/rollout: rl knows no environment, scaffold, cards, controller or refiner",
			}},
		{"evaluate imports the rollout stage", planted("lib/stage/evaluate", "lib/stage/rollout"),
			[]string{"lib/stage/evaluate -> lib/stage/rollout: a command stage imports no other command stage"}},
		{"the audit stage reaches the rollout stage through another package", planted("lib/stage/audit", "lib/stage/play", "lib/stage/rollout"),
			[]string{"lib/stage/audit -> lib/stage/rollout: a command stage imports no other command stage"}},
		{"a stage imports the episode fixture", planted("lib/stage/rollout", "lib/rollout/episodetest"),
			[]string{"lib/stage/rollout -> lib/rollout/episodetest: only tests import the vocabulary's sources and the episode fixtures"}},
	}...)
	for _, c := range cases {
		if diff := cmp.Diff(c.want, violations(c.deps, rules)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}
