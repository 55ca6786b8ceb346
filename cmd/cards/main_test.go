package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/card"
	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/stage/rollouttest"
	"github.com/pats-rl/pats/lib/table"
)

func run(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var e bytes.Buffer
	code := command.Run(app(), append([]string{"cards"}, args...), &e)
	return code, e.String()
}

func TestCardsOnHousehold(t *testing.T) {
	dir := t.TempDir()
	p := func(f string) string { return filepath.Join(dir, f) }
	trajs := rollouttest.Household(t, 2, 2, 4, "")
	if err := table.WriteFile(p("traj.parquet"), trajs, table.Meta{}); err != nil {
		t.Fatal(err)
	}
	// flags after the positional argument
	if code, stderr := run(t, p("traj.parquet"), "-o", p("cards/2.parquet"), "--evidence", p("evidence/2.parquet"), "--top", "5"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	cards, metas, err := table.ReadFiles[table.Card](p("cards/2.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cards) != 12 {
		t.Fatalf("%d cards, want one per group (12)", len(cards))
	}
	mixed := 0
	for _, c := range cards {
		if c.Iteration != 2 || c.NEpisodes != 4 || len(c.Contrast) > 5 {
			t.Errorf("card %+v", c)
		}
		if c.SuccessRate > 0 && c.SuccessRate < 1 {
			mixed++
			if len(c.Contrast) == 0 || c.RepSuccessSample == nil || c.RepFailureSample == nil {
				t.Errorf("card %s with both sides lacks a contrast or representatives", c.CardID)
			}
		}
	}
	if mixed == 0 {
		t.Error("no card has a success rate between 0 and 1")
	}
	if metas[0].Inputs[p("traj.parquet")] == "" || metas[0].Extra[card.MetaTop] != "5" || metas[0].Command == "" {
		t.Errorf("metadata %+v", metas[0])
	}
	ev, _, err := table.ReadFiles[table.TypeEvidence](p("evidence/2.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ev) < 2 || ev[0].TaskType != "" || ev[0].NCards != 12 {
		t.Errorf("evidence %+v", ev)
	}
	// per trajectory: one card per episode
	if code, stderr := run(t, "--per", "trajectory", "-o", p("per-traj.parquet"), p("traj.parquet")); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if cs, _, err := table.ReadFiles[table.Card](p("per-traj.parquet")); err != nil || len(cs) != len(trajs) {
		t.Errorf("per trajectory: %d cards for %d episodes (%v)", len(cs), len(trajs), err)
	}
	// same input, same bytes
	if code, _ := run(t, p("traj.parquet"), "-o", p("again.parquet"), "--top", "5"); code != 0 {
		t.Fatal("rerun failed")
	}
	a, _ := os.ReadFile(p("cards/2.parquet"))
	b, _ := os.ReadFile(p("again.parquet"))
	if !bytes.Equal(a, b) {
		t.Error("the same trajectories gave different bytes")
	}
}

func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	p := func(f string) string { return filepath.Join(dir, f) }
	if err := table.WriteFile(p("cards.parquet"), []table.Card{{CardID: "c"}}, table.Meta{}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p("junk.parquet"), []byte("not parquet"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := map[string][]string{
		"no input":     {"-o", p("out.parquet")},
		"no output":    {p("cards.parquet")},
		"missing":      {p("none.parquet"), "-o", p("out.parquet")},
		"wrong kind":   {p("cards.parquet"), "-o", p("out.parquet")},
		"junk":         {p("junk.parquet"), "-o", p("out.parquet")},
		"bad per":      {p("cards.parquet"), "--per", "task", "-o", p("out.parquet")},
		"unknown flag": {"--frobnicate"},
	}
	for name, args := range cases {
		code, stderr := run(t, args...)
		if code != command.ExitUsage || stderr == "" || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and one line", name, code, stderr)
		}
		if _, err := os.Stat(p("out.parquet")); err == nil {
			t.Errorf("%s: output written", name)
		}
	}
}
