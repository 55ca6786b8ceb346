package control

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pats-rl/pats/lib/card"
	"github.com/pats-rl/pats/lib/card/cardtest"
	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/control"
	"github.com/pats-rl/pats/lib/refiner"
	"github.com/pats-rl/pats/lib/scaffold"
	"github.com/pats-rl/pats/lib/stage"
	"github.com/pats-rl/pats/lib/table"
)

// controlFiles writes cards of iteration 3 (a weak heat type, a strong
// cool type) and an empty snapshot 3.
func controlFiles(t *testing.T, dir string) (cardsPath, snapPath string) {
	t.Helper()
	r := rand.New(rand.NewSource(5))
	trajs := append(cardtest.Episodes(r, cardtest.Heat, "heat", 3, 0.15), cardtest.Episodes(r, cardtest.Cool, "cool", 3, 0.95)...)
	cards, _, err := card.Build(trajs, card.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	cardsPath = filepath.Join(dir, "cards.parquet")
	if err := table.WriteFile(cardsPath, cards, table.Meta{}); err != nil {
		t.Fatal(err)
	}
	snapPath = filepath.Join(dir, "snap3.parquet")
	if err := scaffold.WriteSnapshot(snapPath, scaffold.Snapshot{Version: 3, Parent: "sha256:p"}, table.Meta{}); err != nil {
		t.Fatal(err)
	}
	return cardsPath, snapPath
}

func TestExecuteControl(t *testing.T) {
	dir := t.TempDir()
	cardsPath, snapPath := controlFiles(t, dir)
	out := filepath.Join(dir, "proposals.parquet")
	stOut := filepath.Join(dir, "state3.parquet")
	f := Options{Cards: cardsPath, Scaffold: snapPath, Output: out, StateOut: stOut, Loop: stage.DefaultLoop()}
	if err := Run(context.Background(), f, stage.Streams{}); err != nil {
		t.Fatal(err)
	}
	states, _, err := table.ReadFiles[table.ControllerState](stOut)
	if err != nil {
		t.Fatal(err)
	}
	prim := map[string]string{}
	for _, s := range states {
		prim[s.TaskType] = s.Primitive
		if s.Iteration != 3 {
			t.Errorf("state of iteration %d, want the cards' 3", s.Iteration)
		}
	}
	if prim[cardtest.Heat] != scaffold.Expand || prim[cardtest.Cool] != scaffold.Compress {
		t.Errorf("primitives %v, want heat EXPAND and cool COMPRESS", prim)
	}
	props, pm, err := table.ReadFiles[table.Proposal](out)
	if err != nil {
		t.Fatal(err)
	}
	adds := 0
	for _, p := range props {
		if p.Iteration != 3 || p.Refiner != "builtin" {
			t.Errorf("proposal %+v", p)
		}
		if p.TaskType == cardtest.Heat && p.Op == "add" {
			adds++
		}
	}
	if adds == 0 {
		t.Errorf("no addition for the weak type: %+v", props)
	}
	m := pm[0]
	if m.Extra[scaffold.MetaIteration] != "3" || m.Extra[scaffold.MetaScaffoldVersion] != "3" || m.Extra[scaffold.MetaScaffold] != scaffold.Hash(nil) || len(m.Inputs) != 2 {
		t.Errorf("metadata %+v", m)
	}
	// COMPRESS of an empty type has nothing to do: the reason is recorded
	if !strings.Contains(m.Extra[refiner.MetaReasonPrefix+cardtest.Cool], "every item still states a rule that holds") {
		t.Errorf("reason for cool %q", m.Extra[refiner.MetaReasonPrefix+cardtest.Cool])
	}
	// the next iteration reads the state; a state of the same iteration is refused
	f2 := f
	f2.State, f2.StateOut, f2.Output = stOut, filepath.Join(dir, "state-again.parquet"), filepath.Join(dir, "p2.parquet")
	err = Run(context.Background(), f2, stage.Streams{})
	if command.Code(err) != command.ExitUsage || !strings.Contains(err.Error(), "state3.parquet: holds the state of iteration 3") {
		t.Errorf("state of the same iteration: %v", err)
	}
	// determinism
	f3 := f
	f3.Output, f3.StateOut = filepath.Join(dir, "again", "p.parquet"), filepath.Join(dir, "again", "s.parquet")
	if err := Run(context.Background(), f3, stage.Streams{}); err != nil {
		t.Fatal(err)
	}
	for _, pair := range [][2]string{{out, f3.Output}, {stOut, f3.StateOut}} {
		a, _ := os.ReadFile(pair[0])
		b, _ := os.ReadFile(pair[1])
		if !bytes.Equal(a, b) {
			t.Errorf("%s and %s differ", pair[0], pair[1])
		}
	}
}

// TestExecuteControlOpenAIUnusable: a model answering nonsense gives no
// proposals and a recorded reason, and the command succeeds.
func TestExecuteControlOpenAIUnusable(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, chat("Heat things, I suppose."))
	}))
	defer srv.Close()
	dir := t.TempDir()
	cardsPath, snapPath := controlFiles(t, dir)
	out := filepath.Join(dir, "proposals.parquet")
	f := Options{Cards: cardsPath, Scaffold: snapPath, Output: out, StateOut: filepath.Join(dir, "s.parquet"),
		Loop: stage.DefaultLoop(), Refiner: "openai", Endpoint: srv.URL, Model: "m", Timeout: 5 * time.Second}
	if err := Run(context.Background(), f, stage.Streams{}); err != nil {
		t.Fatal(err)
	}
	props, pm, err := table.ReadFiles[table.Proposal](out)
	if err != nil {
		t.Fatal(err)
	}
	if len(props) != 0 || !strings.Contains(pm[0].Extra[refiner.MetaReasonPrefix+cardtest.Heat], "no JSON") || pm[0].Extra[refiner.MetaRefiner] != "openai:m" {
		t.Errorf("%d proposals, metadata %v", len(props), pm[0].Extra)
	}
}

func TestExecuteControlBadInputs(t *testing.T) {
	dir := t.TempDir()
	cardsPath, snapPath := controlFiles(t, dir)
	noVersion := filepath.Join(dir, "nov.parquet")
	if err := table.WriteFile(noVersion, []table.ScaffoldItem{}, table.Meta{}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out", "p.parquet")
	st := filepath.Join(dir, "out", "s.parquet")
	ok := Options{Cards: cardsPath, Scaffold: snapPath, Output: out, StateOut: st, Loop: stage.DefaultLoop()}
	with := func(fn func(*Options)) Options { f := ok; fn(&f); return f }
	cases := map[string]struct {
		f    Options
		want string
	}{
		"no cards flag":   {with(func(f *Options) { f.Cards = "" }), "--cards is required"},
		"no state-out":    {with(func(f *Options) { f.StateOut = "" }), "--state-out is required"},
		"cards kind":      {with(func(f *Options) { f.Cards = snapPath }), "holds scaffold_item rows, want card rows"},
		"no version":      {with(func(f *Options) { f.Scaffold = noVersion }), "nov.parquet: snapshot metadata has no version"},
		"state kind":      {with(func(f *Options) { f.State = cardsPath }), "holds card rows, want controller_state rows"},
		"refiner":         {with(func(f *Options) { f.Refiner = "gpt" }), "unknown --refiner"},
		"openai no model": {with(func(f *Options) { f.Refiner = "openai"; f.Endpoint = "http://x" }), "needs --endpoint and --model"},
		"stray endpoint":  {with(func(f *Options) { f.Endpoint = "http://x" }), "go with --refiner openai"},
	}
	for name, c := range cases {
		err := Run(context.Background(), c.f, stage.Streams{})
		if command.Code(err) != command.ExitUsage || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v (exit %d), want exit 2 with %q", name, err, command.Code(err), c.want)
		}
		for _, p := range []string{out, st} {
			if _, err := os.Stat(p); err == nil {
				t.Errorf("%s: %s written", name, p)
			}
		}
	}
}

// TestLoopDefaultsAreTheControllers: the loop options' defaults give the
// controller's defaults.
func TestLoopDefaultsAreTheControllers(t *testing.T) {
	want := control.DefaultOptions()
	want.Enabled = scaffold.Primitives
	if diff := cmp.Diff(want, Controller(stage.DefaultLoop())); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestExecuteControlHistory: with one card of the weak type per
// iteration, iteration 3's card alone supports no addition; with the cards
// of iterations 1 and 2 as --history the refiner's additions cite cards of
// the three iterations. History of iteration k, or the --cards file again,
// is refused.
func TestExecuteControlHistory(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewSource(8))
	paths := map[int32]string{}
	for k := int32(1); k <= 3; k++ {
		trajs := cardtest.Episodes(r, cardtest.Heat, "heat", 1, 0.3)
		for i := range trajs {
			trajs[i].Iteration = k
		}
		cards, _, err := card.Build(trajs, card.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		paths[k] = filepath.Join(dir, fmt.Sprintf("cards%d.parquet", k))
		if err := table.WriteFile(paths[k], cards, table.Meta{}); err != nil {
			t.Fatal(err)
		}
	}
	snapPath := filepath.Join(dir, "snap3.parquet")
	if err := scaffold.WriteSnapshot(snapPath, scaffold.Snapshot{Version: 3, Parent: "sha256:p"}, table.Meta{}); err != nil {
		t.Fatal(err)
	}
	run := func(name string, history ...string) ([]table.Proposal, table.Meta, error) {
		out := filepath.Join(dir, name, "p.parquet")
		f := Options{Cards: paths[3], History: history, Scaffold: snapPath, Output: out, StateOut: filepath.Join(dir, name, "s.parquet"), Loop: stage.DefaultLoop()}
		if err := Run(context.Background(), f, stage.Streams{}); err != nil {
			return nil, table.Meta{}, err
		}
		props, pm, err := table.ReadFiles[table.Proposal](out)
		if err != nil {
			t.Fatal(err)
		}
		return props, pm[0], nil
	}
	alone, _, err := run("alone")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range alone {
		if p.TaskType == cardtest.Heat {
			t.Errorf("one card supported %+v", p)
		}
	}
	props, meta, err := run("window", paths[1], paths[2])
	if err != nil {
		t.Fatal(err)
	}
	cited := map[string]bool{}
	for _, p := range props {
		if p.TaskType == cardtest.Heat && p.Op == "add" {
			for _, c := range p.Support {
				cited[c] = true
			}
			if !strings.Contains(p.Rationale, "over iterations 1-3, 3 cards") {
				t.Errorf("rationale %q", p.Rationale)
			}
		}
	}
	want := map[string]bool{"c-1-" + cardtest.Heat + "-g0": true, "c-2-" + cardtest.Heat + "-g0": true, "c-3-" + cardtest.Heat + "-g0": true}
	if diff := cmp.Diff(want, cited); diff != "" {
		t.Errorf("cited cards (-want +got):\n%s\n%+v", diff, props)
	}
	if len(meta.Inputs) != 4 {
		t.Errorf("inputs %v: want the cards, the snapshot and the two history files", meta.Inputs)
	}
	if _, _, err := run("late", paths[1], paths[3]); err == nil || !strings.Contains(err.Error(), "cards3.parquet") {
		t.Errorf("history with the cards file: %v", err)
	}
	f := Options{Cards: paths[2], History: []string{paths[3]}, Scaffold: snapPath, Output: filepath.Join(dir, "x", "p.parquet"), StateOut: filepath.Join(dir, "x", "s.parquet"), Loop: stage.DefaultLoop()}
	if err := Run(context.Background(), f, stage.Streams{}); command.Code(err) != command.ExitUsage || !strings.Contains(err.Error(), "cards3.parquet: holds cards of iteration 3") {
		t.Errorf("history of a later iteration: %v", err)
	}
}
