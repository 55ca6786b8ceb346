package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
)

func run(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var e bytes.Buffer
	code := command.Run(app(), append([]string{"audit"}, args...), &e)
	return code, e.String()
}

// episode: system, task, then per step one action (with a read of a right
// skill first) and an observation; broadcast credit a on policy tokens.
func episode(group string, steps int, a float32) (table.Trajectory, table.TokenAdvantages) {
	ro := []int8{table.RoleSystem, table.RoleScaffold, table.RoleScaffold, table.RoleTask,
		table.RoleAction, table.RoleSkillName, table.RoleAction, table.RoleSkillBody}
	for s := 0; s < steps; s++ {
		ro = append(ro, table.RoleAction, table.RoleAction, table.RoleObservation)
	}
	tr := table.Trajectory{GroupID: group, Steps: int32(steps), Roles: ro, Reads: []string{"s"},
		ReadsRight: []bool{true}, ReadsMisleading: []bool{false}}
	ad := table.TokenAdvantages{GroupID: group, Credit: "broadcast"}
	for t, r := range ro {
		tr.Tokens = append(tr.Tokens, int32(10+t%7))
		var v float32
		var ch int8
		if table.PolicyWritten(r) {
			v, ch = a, 1
		}
		ad.Advantages = append(ad.Advantages, v)
		ad.Channels = append(ad.Channels, ch)
	}
	return tr, ad
}

func TestCredit(t *testing.T) {
	dir := t.TempDir()
	var traj []table.Trajectory
	var adv []table.TokenAdvantages
	// Right reads: credited +1 on short episodes, -1 on long ones.
	for i, s := range []int{1, 2, 6, 8} {
		a := float32(1)
		if s > 4 {
			a = -1
		}
		tr, ad := episode(string(rune('a'+i)), s, a)
		traj, adv = append(traj, tr), append(adv, ad)
	}
	tp, ap := filepath.Join(dir, "traj.parquet"), filepath.Join(dir, "adv.parquet")
	if err := table.WriteFile(tp, traj, table.Meta{}); err != nil {
		t.Fatal(err)
	}
	if err := table.WriteFile(ap, adv, table.Meta{}); err != nil {
		t.Fatal(err)
	}
	out, png := filepath.Join(dir, "credit.parquet"), filepath.Join(dir, "credit.png")
	code, stderr := run(t, "credit", tp, "--advantages", ap, "-o", out, "--plot", png, "--bins", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows, metas, err := table.ReadFiles[table.CreditAudit](out)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 || metas[0].Inputs[tp] == "" || metas[0].Inputs[ap] == "" {
		t.Fatalf("%d rows, inputs %v", len(rows), metas[0].Inputs)
	}
	// Steps bins: {1,2} and {6,8}. Share per episode: 1 name token of
	// 3+2s policy tokens: 1/5, 1/7 in the first bin, 1/15, 1/19 in the second.
	wantShare := []float64{(1.0/5 + 1.0/7) / 2, (1.0/15 + 1.0/19) / 2}
	for b := 0; b < 2; b++ {
		r := rows[b]
		if r.Horizon != "steps" || r.Episodes != 2 || math.Abs(table.OrNaN(r.SkillNameShare)-wantShare[b]) > 1e-9 ||
			table.OrNaN(r.RightNegFrac) != float64(b) || table.OrNaN(r.RightSign) != float64(1-2*b) {
			t.Errorf("bin %d: %+v", b, r)
		}
		if math.Abs(table.OrNaN(r.RhoRightSign)+math.Sqrt(0.8)) > 1e-9 { // ranks 1..4 against (3.5,3.5,1.5,1.5)
			t.Errorf("bin %d: rho of the right-read sign %v", b, table.OrNaN(r.RhoRightSign))
		}
	}
	b, err := os.ReadFile(png)
	if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Errorf("plot: %v", err)
	}

	// Bad input: an advantages file that misses an episode; wrong kind.
	short := filepath.Join(dir, "short.parquet")
	if err := table.WriteFile(short, adv[:2], table.Meta{}); err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string][]string{
		"missing episode": {"credit", tp, "--advantages", short},
		"wrong kind":      {"credit", tp, "--advantages", tp},
		"no advantages":   {"credit", tp},
		"no trajectories": {"credit", "--advantages", ap},
		"bad bins":        {"credit", tp, "--advantages", ap, "--bins", "0"},
	} {
		o := filepath.Join(dir, "bad.parquet")
		code, stderr := run(t, append(args, "-o", o)...)
		if code != command.ExitUsage || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%s: exit %d, stderr %q", name, code, stderr)
		}
		if _, err := os.Stat(o); err == nil {
			t.Errorf("%s: output written", name)
		}
	}
}

func TestScaffold(t *testing.T) {
	dir := t.TempDir()
	tok, err := tokenizer.ShippedWordLevel()
	if err != nil {
		t.Fatal(err)
	}
	var ckpts []string
	for i, seed := range []uint64{1, 2} {
		p := filepath.Join(dir, "ckpt", string(rune('0'+i)))
		tinyCheckpoint(t, p, seed)
		ckpts = append(ckpts, p)
	}
	var traj []table.Trajectory
	for i, s := range []int{1, 3} {
		tr, _ := episode(string(rune('a'+i)), s, 0)
		tr.Tokenizer = tok.Hash()
		traj = append(traj, tr)
	}
	tp := filepath.Join(dir, "traj.parquet")
	if err := table.WriteFile(tp, traj, table.Meta{}); err != nil {
		t.Fatal(err)
	}
	out, png := filepath.Join(dir, "nll.parquet"), filepath.Join(dir, "nll.png")
	code, stderr := run(t, "scaffold", "--checkpoints", strings.Join(ckpts, ","), "--traj", tp, "--scaffold", tp, "-o", out, "--plot", png)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows, _, err := table.ReadFiles[table.ScaffoldAudit](out)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Checkpoint != ckpts[0] || rows[1].Index != 1 || rows[0].Episodes != 2 || rows[0].Tokens != (3+2)+(3+6) {
		t.Errorf("rows %+v", rows)
	}
	if table.OrNaN(rows[1].GapRelative) != (table.OrNaN(rows[1].Gap)-table.OrNaN(rows[0].Gap))/math.Abs(table.OrNaN(rows[0].Gap)) || table.OrNaN(rows[0].NLLWith) <= 0 {
		t.Errorf("rows %+v", rows)
	}
	// Bad input: another tokenizer; no scaffold tokens; missing checkpoint.
	other := append([]table.Trajectory(nil), traj...)
	other[0].Tokenizer = "feedfacefeedface"
	op := filepath.Join(dir, "other.parquet")
	table.WriteFile(op, other, table.Meta{})
	bare := append([]table.Trajectory(nil), traj...)
	for i := range bare {
		bare[i].Roles = append([]int8(nil), bare[i].Roles...)
		for k, r := range bare[i].Roles {
			if r == table.RoleScaffold {
				bare[i].Roles[k] = table.RoleTask
			}
		}
	}
	bp := filepath.Join(dir, "bare.parquet")
	table.WriteFile(bp, bare, table.Meta{})
	for name, args := range map[string][]string{
		"other tokenizer":    {"--checkpoints", ckpts[0], "--traj", op},
		"no scaffold tokens": {"--checkpoints", ckpts[0], "--traj", bp},
		"missing checkpoint": {"--checkpoints", filepath.Join(dir, "nope"), "--traj", tp},
		"no checkpoints":     {"--traj", tp},
	} {
		o := filepath.Join(dir, "bad.parquet")
		code, stderr := run(t, append(append([]string{"scaffold"}, args...), "-o", o)...)
		if code != command.ExitUsage || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%s: exit %d, stderr %q", name, code, stderr)
		}
		if _, err := os.Stat(o); err == nil {
			t.Errorf("%s: output written", name)
		}
	}
}

// TestReading runs audit reading with an untrained tiny checkpoint on
// household: every condition is played on the same tasks, the rows and the
// table agree, and the right rules and skill bodies lengthen the context.
func TestReading(t *testing.T) {
	dir := t.TempDir()
	ck := filepath.Join(dir, "ckpt")
	tinyCheckpoint(t, ck, 3)
	out := filepath.Join(dir, "reading.parquet")
	code, stderr := run(t, "reading", "--policy", ck, "--env", "household", "--split", "valid_seen", "--tasks", "3",
		"--max-context", "400", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows, _, err := table.ReadFiles[table.ReadingAudit](out)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 5 {
		t.Fatalf("rows %+v", rows)
	}
	for i, r := range rows {
		if r.Episodes != 3 || r.Tasks != 3 || r.Policy != ck || r.Env != "household" || r.Split != "valid_seen" {
			t.Errorf("row %d: %+v", i, r)
		}
	}
	// A history window (--history 1) bounds the context each answer sees,
	// not the episode: under the same 400-token limit every condition's
	// episodes run longer than with the whole episode in the context.
	win := filepath.Join(dir, "window.parquet")
	if code, stderr := run(t, "reading", "--policy", ck, "--env", "household", "--split", "valid_seen", "--tasks", "3",
		"--max-context", "400", "--history", "1", "-o", win); code != 0 {
		t.Fatalf("--history 1: exit %d: %s", code, stderr)
	}
	wrows, _, err := table.ReadFiles[table.ReadingAudit](win)
	if err != nil {
		t.Fatal(err)
	}
	if len(wrows) != len(rows) {
		t.Fatalf("--history 1: %d rows, want %d", len(wrows), len(rows))
	}
	for i := range rows {
		if wrows[i].Condition != rows[i].Condition || wrows[i].Steps <= rows[i].Steps {
			t.Errorf("%s: steps %.1f with --history 1, %.1f without", rows[i].Condition, wrows[i].Steps, rows[i].Steps)
		}
	}
	// --admissible all follows each observation with what the environment
	// admits then (an untrained policy rarely gets past the first
	// observation, where "here" lists nothing): more context tokens per
	// step in every condition.
	adm := filepath.Join(dir, "admissible.parquet")
	if code, stderr := run(t, "reading", "--policy", ck, "--env", "household", "--split", "valid_seen", "--tasks", "3",
		"--max-context", "400", "--admissible", "all", "-o", adm); code != 0 {
		t.Fatalf("--admissible all: exit %d: %s", code, stderr)
	}
	arows, _, err := table.ReadFiles[table.ReadingAudit](adm)
	if err != nil {
		t.Fatal(err)
	}
	if len(arows) != len(rows) {
		t.Fatalf("--admissible all: %d rows, want %d", len(arows), len(rows))
	}
	for i := range rows {
		if arows[i].Condition != rows[i].Condition || arows[i].Tokens/arows[i].Steps <= rows[i].Tokens/rows[i].Steps {
			t.Errorf("%s: %.1f tokens a step with --admissible all, %.1f without", rows[i].Condition,
				arows[i].Tokens/arows[i].Steps, rows[i].Tokens/rows[i].Steps)
		}
	}
	// Bad usage: one line on stderr, exit 2, no output.
	for name, args := range map[string][]string{
		"negative history": {"--policy", ck, "--history", "-1", "-o", filepath.Join(dir, "bad.parquet")},
		"bad admissible":   {"--policy", ck, "--admissible", "some", "-o", filepath.Join(dir, "bad.parquet")},
		"no output":        {"--policy", ck},
		"no policy":        {"-o", filepath.Join(dir, "bad.parquet")},
		"unknown env":      {"--policy", "oracle", "--env", "nope", "-o", filepath.Join(dir, "bad.parquet")},
		"unknown split":    {"--policy", "oracle", "--split", "nope", "-o", filepath.Join(dir, "bad.parquet")},
		"unknown policy":   {"--policy", filepath.Join(dir, "nope"), "-o", filepath.Join(dir, "bad.parquet")},
	} {
		code, stderr := run(t, append([]string{"reading"}, args...)...)
		if code != command.ExitUsage || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%s: exit %d, stderr %q", name, code, stderr)
		}
		if _, err := os.Stat(filepath.Join(dir, "bad.parquet")); err == nil {
			t.Errorf("%s: output written", name)
		}
	}
}

// tinyCheckpoint saves an untrained one-layer checkpoint on the shipped
// word-level tokenizer, weights drawn from seed, into dir and returns its
// model.
func tinyCheckpoint(t *testing.T, dir string, seed uint64) *model.Model {
	t.Helper()
	tok, err := tokenizer.ShippedWordLevel()
	if err != nil {
		t.Fatal(err)
	}
	js, err := tok.JSON()
	if err != nil {
		t.Fatal(err)
	}
	c := model.Tiny(tok.VocabSize())
	c.HiddenSize, c.NumHiddenLayers, c.NumAttentionHeads, c.NumKeyValueHeads, c.IntermediateSize = 16, 1, 2, 1, 24
	m, err := model.New(c, seed)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Save(dir, js); err != nil {
		t.Fatal(err)
	}
	return m
}
