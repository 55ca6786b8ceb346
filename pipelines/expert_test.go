package pipelines

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pats-rl/pats/lib/env"
	_ "github.com/pats-rl/pats/lib/env/household"
	"github.com/pats-rl/pats/lib/scaffold"
)

// TestExpertScaffolds checks the warm-start variant's hand-written
// scaffolds: each parses, and household-rl's states the house's own
// conventions, i.e. for every task type the rules the environment gives as
// right for most of its train tasks.
func TestExpertScaffolds(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(repoRoot(t), "pipelines", "expert", "*.yaml"))
	if err != nil || len(files) < 2 {
		t.Fatalf("expert scaffolds: %v %v", files, err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		e, err := env.Open(name)
		if err != nil {
			t.Errorf("%s: no environment %s: %v", f, name, err)
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		items, err := scaffold.ParseItems(strings.NewReader(string(src)), f, nil)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		byType := map[string][]string{}
		for _, it := range items {
			if it.Layer == "task" {
				byType[it.TaskType] = append(byType[it.TaskType], it.Text)
			}
		}
		for _, typ := range e.TaskTypes() {
			if len(byType[typ]) == 0 {
				t.Errorf("%s: no task-layer item for %s", f, typ)
			}
		}
		if name != "household-rl" {
			continue
		}
		want := majorityRules(t, e)
		for typ, rules := range want {
			got := append([]string(nil), byType[typ]...)
			var stated []string
			for _, r := range got {
				if strings.HasPrefix(r, "Look in") || strings.Contains(r, "before placing it") {
					stated = append(stated, r)
				}
			}
			sort.Strings(stated)
			if diff := cmp.Diff(rules, stated); diff != "" {
				t.Errorf("%s, %s: the expert's rules are not the house's (-house +expert):\n%s", f, typ, diff)
			}
		}
	}
}

// majorityRules returns per task type the right rules shared by most of
// the environment's train tasks of that type, sorted.
func majorityRules(t *testing.T, e env.Env) map[string][]string {
	t.Helper()
	h, ok := e.(env.Hinter)
	if !ok {
		t.Fatalf("%s states no rules", e.Name())
	}
	ids, err := e.Tasks("train")
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]map[string]int{}
	for _, id := range ids {
		ep, err := e.Reset(id, 1)
		if err != nil {
			t.Fatal(err)
		}
		hs, err := h.Hints(id)
		if err != nil {
			t.Fatal(err)
		}
		rules := append([]string(nil), hs.Right...)
		sort.Strings(rules)
		key := strings.Join(rules, "\n")
		if counts[ep.TaskType()] == nil {
			counts[ep.TaskType()] = map[string]int{}
		}
		counts[ep.TaskType()][key]++
	}
	out := map[string][]string{}
	for typ, c := range counts {
		best, n := "", -1
		for k, v := range c {
			if v > n || (v == n && k < best) {
				best, n = k, v
			}
		}
		out[typ] = strings.Split(best, "\n")
	}
	return out
}

// TestExpertOfLargeWorld: warm-start in a large world takes the expert
// scaffold of its ordinary world (the same conventions), and an ordinary
// world its own.
func TestExpertOfLargeWorld(t *testing.T) {
	for env, want := range map[string]string{
		"household-rl-large": "validate init --from pipelines/expert/household-rl.yaml",
		"household-rl":       "validate init --from pipelines/expert/household-rl.yaml",
		"household":          "validate init --from pipelines/expert/household.yaml",
	} {
		out, err := dryRun(t, "warmup", "VARIANT=warm-start", "RUN=x", "ENV="+env, "BASE=base-reading")
		if err != nil {
			t.Fatalf("%s: make -n warmup: %v\n%s", env, err, out)
		}
		if !strings.Contains(out, want) {
			t.Errorf("%s: warm-start's B_0 is not %q:\n%s", env, want, out)
		}
	}
}
