package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/card"
	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/control"
	"github.com/pats-rl/pats/lib/refiner"
	"github.com/pats-rl/pats/lib/scaffold"
	"github.com/pats-rl/pats/lib/stage"
	"github.com/pats-rl/pats/lib/stage/cards"
	"github.com/pats-rl/pats/lib/stage/rollouttest"
	"github.com/pats-rl/pats/lib/table"
)

func run(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var e bytes.Buffer
	code := command.Run(app(), append([]string{"control"}, args...), &e)
	return code, e.String()
}

// cardsOf writes household cards of iteration k (nOracle of 4 episodes per
// group by the oracle) and returns their path.
func cardsOf(t *testing.T, dir string, k, nOracle int) string {
	t.Helper()
	tp := filepath.Join(dir, "traj.parquet")
	if err := table.WriteFile(tp, rollouttest.Household(t, k, nOracle, 4, ""), table.Meta{}); err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(dir, "cards.parquet")
	if err := cards.Run(context.Background(), cards.Options{Inputs: []string{tp}, Output: cp, Per: card.PerGroup, Top: 8}, stage.Streams{}); err != nil {
		t.Fatal(err)
	}
	return cp
}

func TestHelpStatesDefaults(t *testing.T) {
	a := app()
	var out bytes.Buffer
	a.Writer = &out
	if err := a.Run([]string{"control", "--help"}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"--rho-r 0.4", "--rho-c 0.75", "--ema 0.5", "--expand-quota 3", "--max-items 12", "Examples:", "--refiner openai"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("--help lacks %q", want)
		}
	}
}

func TestControlOnHousehold(t *testing.T) {
	dir := t.TempDir()
	p := func(f string) string { return filepath.Join(dir, f) }
	cards := cardsOf(t, dir, 0, 1)
	if err := scaffold.WriteSnapshot(p("snap/0.parquet"), scaffold.Snapshot{Version: 0}, table.Meta{}); err != nil {
		t.Fatal(err)
	}
	args := []string{"--cards", cards, "--scaffold", p("snap/0.parquet"), "-o", p("proposals/0.parquet"), "--state-out", p("state/0.parquet")}
	if code, stderr := run(t, args...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	states, _, err := table.ReadFiles[table.ControllerState](p("state/0.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range states {
		if s.Observed && s.Primitive != scaffold.Expand {
			t.Errorf("scope %q at success %s got %s, want EXPAND", s.TaskType, control.Rate(s.SmoothedSuccess), s.Primitive)
		}
	}
	props, pm, err := table.ReadFiles[table.Proposal](p("proposals/0.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if len(props) == 0 {
		t.Fatal("no proposal for a weak policy")
	}
	for _, q := range props {
		if q.Op != "add" || q.Primitive != scaffold.Expand || q.Refiner != "builtin" || len(q.Support) < 2 {
			t.Errorf("proposal %+v", q)
		}
	}
	if pm[0].Extra[scaffold.MetaIteration] != "0" || len(pm[0].Inputs) != 2 {
		t.Errorf("metadata %+v", pm[0])
	}
	// --frozen: states, no proposals
	frozen := append(append([]string{}, args...), "--frozen", "-o", p("frozen.parquet"), "--state-out", p("frozen-state.parquet"))
	if code, stderr := run(t, frozen...); code != 0 {
		t.Fatalf("frozen: exit %d: %s", code, stderr)
	}
	if fp, _, err := table.ReadFiles[table.Proposal](p("frozen.parquet")); err != nil || len(fp) != 0 {
		t.Errorf("frozen: %d proposals (%v)", len(fp), err)
	}
	// An unreachable refiner is a failure: exit 1, one line naming the
	// endpoint, nothing written.
	oa := append(append([]string{}, args...), "--refiner", "openai", "--endpoint", "http://127.0.0.1:9", "--model", "m",
		"--retries", "1", "--timeout", "2s", "-o", p("openai.parquet"), "--state-out", p("openai-state.parquet"))
	code, stderr := run(t, oa...)
	if code != 1 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "http://127.0.0.1:9") ||
		!strings.Contains(stderr, "request failed") || !strings.Contains(stderr, "2 attempt(s)") {
		t.Errorf("unreachable refiner: exit %d, stderr %q; want exit 1 and one line naming the endpoint and the attempts", code, stderr)
	}
	for _, f := range []string{"openai.parquet", "openai-state.parquet"} {
		if _, err := os.Stat(p(f)); err == nil {
			t.Errorf("unreachable refiner: %s written", f)
		}
	}
	// --on-refiner-failure continue: the iteration goes on with no
	// proposals, says so on stderr and records the reason.
	code, stderr = run(t, append(oa, "--on-refiner-failure", "continue")...)
	if code != 0 || !strings.Contains(stderr, "this iteration has no proposals") {
		t.Fatalf("continue: exit %d, stderr %q", code, stderr)
	}
	op, om, err := table.ReadFiles[table.Proposal](p("openai.parquet"))
	if err != nil || len(op) != 0 || !strings.Contains(om[0].Extra[refiner.MetaReasonPrefix+"general"], "request failed") {
		t.Errorf("openai: %d proposals, metadata %v (%v)", len(op), om[0].Extra, err)
	}
}

func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	p := func(f string) string { return filepath.Join(dir, f) }
	if err := scaffold.WriteSnapshot(p("snap.parquet"), scaffold.Snapshot{Version: 0}, table.Meta{}); err != nil {
		t.Fatal(err)
	}
	if err := table.WriteFile(p("bare.parquet"), []table.ScaffoldItem{}, table.Meta{}); err != nil {
		t.Fatal(err)
	}
	cards := []table.Card{{CardID: "c-1-a", TaskType: "a", Iteration: 1, NEpisodes: 1}}
	if err := table.WriteFile(p("cards.parquet"), cards, table.Meta{}); err != nil {
		t.Fatal(err)
	}
	states := []table.ControllerState{{TaskType: "a", Iteration: 1, Primitive: "NONE"}}
	if err := table.WriteFile(p("state1.parquet"), states, table.Meta{}); err != nil {
		t.Fatal(err)
	}
	base := []string{"--cards", p("cards.parquet"), "--scaffold", p("snap.parquet"), "-o", p("out.parquet"), "--state-out", p("st.parquet")}
	with := func(extra ...string) []string { return append(append([]string{}, base...), extra...) }
	cases := map[string][]string{
		"missing cards":   {"--cards", p("none.parquet"), "--scaffold", p("snap.parquet"), "-o", p("out.parquet"), "--state-out", p("st.parquet")},
		"no state-out":    {"--cards", p("cards.parquet"), "--scaffold", p("snap.parquet"), "-o", p("out.parquet")},
		"bare snapshot":   with("--scaffold", p("bare.parquet")),
		"state too new":   with("--state", p("state1.parquet")),
		"state kind":      with("--state", p("cards.parquet")),
		"bad primitives":  with("--primitives", "grow"),
		"bad thresholds":  with("--rho-r", "0.9", "--rho-c", "0.2"),
		"refiner":         with("--refiner", "oracle"),
		"openai no model": with("--refiner", "openai", "--endpoint", "http://x"),
		"openai bad port": with("--refiner", "openai", "--endpoint", "http://127.0.0.1:99999/v1", "--model", "m"),
		"openai port 0":   with("--refiner", "openai", "--endpoint", "http://127.0.0.1:0", "--model", "m"),
		"stray argument":  with("extra"),
		"bad tokenizer":   with("--tokenizer", p("none.json")),
	}
	for name, args := range cases {
		code, stderr := run(t, args...)
		if code != command.ExitUsage || stderr == "" || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and one line", name, code, stderr)
		}
		for _, out := range []string{p("out.parquet"), p("st.parquet")} {
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s: %s written", name, out)
			}
		}
	}
}
