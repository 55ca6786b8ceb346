package cards

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/pats-rl/pats/lib/card"
	"github.com/pats-rl/pats/lib/card/cardtest"
	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/stage"
	"github.com/pats-rl/pats/lib/table"
)

func TestExecuteWritesCardsAndEvidence(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "traj.parquet")
	if err := table.WriteFile(in, cardtest.HandMade(), table.Meta{}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "cards", "2.parquet")
	evp := filepath.Join(dir, "evidence", "2.parquet")
	f := Options{Inputs: []string{in}, Output: out, Evidence: evp, Per: card.PerGroup, Top: 3}
	if err := Run(context.Background(), f, stage.Streams{}); err != nil {
		t.Fatal(err)
	}
	cards, metas, err := table.ReadFiles[table.Card](out)
	if err != nil {
		t.Fatal(err)
	}
	want, wantEv, _ := card.Build(cardtest.HandMade(), card.Options{Per: card.PerGroup, TopContrast: 3})
	if len(cards) != len(want) || cards[1].CardID != want[1].CardID || cards[1].SuccessRate != want[1].SuccessRate {
		t.Fatalf("cards %+v", cards)
	}
	m := metas[0]
	if m.Kind != "card" || m.Extra[card.MetaPer] != card.PerGroup || m.Extra[card.MetaTop] != "3" || m.Extra[card.MetaIteration] != "2" || m.Inputs[in] == "" {
		t.Errorf("metadata %+v", m)
	}
	if card.TopOf(m, 8) != 3 || card.TopOf(table.Meta{}, 8) != 8 {
		t.Error("TopOf")
	}
	ev, _, err := table.ReadFiles[table.TypeEvidence](evp)
	if err != nil {
		t.Fatal(err)
	}
	if len(ev) != len(wantEv) || ev[0].TaskType != "" || ev[0].NCards != 3 {
		t.Fatalf("evidence %+v", ev)
	}
	// the evidence control recomputes from the cards file equals the file
	again := card.Aggregate(cards, card.TopOf(m, 8))
	for i := range again {
		if again[i].TaskType != ev[i].TaskType || again[i].SuccessRate != ev[i].SuccessRate || strings.Join(again[i].Contrast, ",") != strings.Join(ev[i].Contrast, ",") {
			t.Errorf("evidence row %d differs when aggregated from the cards file", i)
		}
	}
	// same inputs, same bytes
	first, _ := os.ReadFile(out)
	if err := Run(context.Background(), f, stage.Streams{}); err != nil {
		t.Fatal(err)
	}
	second, _ := os.ReadFile(out)
	if !bytes.Equal(first, second) {
		t.Error("rerun wrote different bytes")
	}
}

func TestExecuteBadInput(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "traj.parquet")
	if err := table.WriteFile(good, cardtest.HandMade(), table.Meta{}); err != nil {
		t.Fatal(err)
	}
	mixed := filepath.Join(dir, "mixed.parquet")
	tr := cardtest.HandMade()
	tr[0].Iteration = 3
	if err := table.WriteFile(mixed, tr, table.Meta{}); err != nil {
		t.Fatal(err)
	}
	noGroup := filepath.Join(dir, "nogroup.parquet")
	tr = cardtest.HandMade()
	tr[2].GroupID = ""
	if err := table.WriteFile(noGroup, tr, table.Meta{}); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.parquet")
	if err := table.WriteFile(empty, []table.Trajectory{}, table.Meta{}); err != nil {
		t.Fatal(err)
	}
	wrongKind := filepath.Join(dir, "cards.parquet")
	if err := table.WriteFile(wrongKind, []table.Card{{CardID: "c"}}, table.Meta{}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.parquet")
	cases := map[string]struct {
		f    Options
		want string
	}{
		"no output":      {Options{Inputs: []string{good}, Per: card.PerGroup, Top: 8}, "-o is required"},
		"bad per":        {Options{Inputs: []string{good}, Output: out, Per: "task", Top: 8}, "--per"},
		"bad top":        {Options{Inputs: []string{good}, Output: out, Per: card.PerGroup, Top: 0}, "--top"},
		"missing":        {Options{Inputs: []string{filepath.Join(dir, "none.parquet")}, Output: out, Per: card.PerGroup, Top: 8}, "none.parquet"},
		"two iterations": {Options{Inputs: []string{mixed}, Output: out, Per: card.PerGroup, Top: 8}, "mixed.parquet: trajectory 1 is of iteration 2, the first of iteration 3"},
		"no group":       {Options{Inputs: []string{noGroup}, Output: out, Per: card.PerGroup, Top: 8}, "nogroup.parquet: trajectory 2"},
		"empty":          {Options{Inputs: []string{empty}, Output: out, Per: card.PerGroup, Top: 8}, "no trajectories"},
		"wrong kind":     {Options{Inputs: []string{wrongKind}, Output: out, Per: card.PerGroup, Top: 8}, "holds card rows"},
		"same outputs":   {Options{Inputs: []string{good}, Output: out, Evidence: out, Per: card.PerGroup, Top: 8}, "same file"},
	}
	for name, c := range cases {
		err := Run(context.Background(), c.f, stage.Streams{})
		if command.Code(err) != command.ExitUsage || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v (exit %d), want exit 2 with %q", name, err, command.Code(err), c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: output written", name)
		}
	}
}

// TestRunOnStreams: the stage driven with buffers and no files: the
// trajectories come as an Arrow stream on Stdin ("-"), the cards go as an
// Arrow stream to Stdout ("-"), and they are the cards the domain builds.
func TestRunOnStreams(t *testing.T) {
	var in, out bytes.Buffer
	if err := table.Write(&in, table.ArrowStream, cardtest.HandMade(), table.Meta{}); err != nil {
		t.Fatal(err)
	}
	f := Options{Inputs: []string{"-"}, Output: "-", Per: card.PerGroup, Top: 3}
	if err := Run(context.Background(), f, stage.Streams{Stdin: &in, Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	got, meta, err := table.Read[table.Card](&out, "-")
	if err != nil {
		t.Fatal(err)
	}
	want, _, _ := card.Build(cardtest.HandMade(), card.Options{Per: card.PerGroup, TopContrast: 3})
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("cards (-want +got):\n%s", diff)
	}
	if meta.Kind != "card" || meta.Extra[card.MetaIteration] != "2" {
		t.Errorf("metadata %+v", meta)
	}
	// Without a standard input "-" is an input error, not a read of the
	// process's stdin.
	err = Run(context.Background(), f, stage.Streams{Stdout: &out})
	if command.Code(err) != command.ExitUsage || !strings.Contains(err.Error(), "no standard input") {
		t.Errorf("no stdin: %v", err)
	}
}
