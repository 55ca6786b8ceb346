package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pats-rl/pats/lib/card"
	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/control"
	"github.com/pats-rl/pats/lib/scaffold"
	"github.com/pats-rl/pats/lib/stage"
	"github.com/pats-rl/pats/lib/stage/cards"
	controlstage "github.com/pats-rl/pats/lib/stage/control"
	"github.com/pats-rl/pats/lib/stage/play"
	"github.com/pats-rl/pats/lib/stage/rollout"
	"github.com/pats-rl/pats/lib/stage/rollouttest"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// childEnv makes the test binary run validate's main instead of the tests
// (the kill test runs it as a child process).
const childEnv = "PATS_VALIDATE_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		os.Args = append([]string{"validate"}, os.Args[1:]...)
		main()
		return
	}
	os.Exit(m.Run())
}

func run(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var e bytes.Buffer
	code := command.Run(app(), append([]string{"validate"}, args...), &e)
	return code, e.String()
}

func mustRun(t *testing.T, args ...string) {
	t.Helper()
	if code, stderr := run(t, args...); code != 0 {
		t.Fatalf("validate %v: exit %d: %s", args, code, stderr)
	}
}

func tok(t *testing.T) tokenizer.Tokenizer {
	t.Helper()
	tk, err := tokenizer.ShippedWordLevel()
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// iterationRecord is what one loop iteration left.
type iterationRecord struct {
	success    float64        // mean success rate of the iteration's episodes
	primitives map[string]int // primitive -> scopes that got it
	accepted   map[string]int // op -> accepted proposals
	decisions  int
	items      int    // items of the next snapshot
	hash       string // its content hash
}

// loop runs the scaffold loop in dir from an empty snapshot: iteration k
// plays household with nOracle[k] of 4 episodes per group by the oracle,
// then cards, control and validate (validate through app()).
func loop(t *testing.T, dir string, nOracle []int) []iterationRecord {
	t.Helper()
	p := func(f string, a ...any) string { return filepath.Join(dir, fmt.Sprintf(f, a...)) }
	mustRun(t, "init", "-o", p("snap/0.parquet"))
	var recs []iterationRecord
	for k, no := range nOracle {
		snap := p("snap/%d.parquet", k)
		trajs := rollouttest.Household(t, k, no, 4, snap)
		rec := iterationRecord{primitives: map[string]int{}, accepted: map[string]int{}}
		for _, tr := range trajs {
			if tr.Success {
				rec.success++
			}
			if tr.ScaffoldVersion == nil || *tr.ScaffoldVersion != int32(k) {
				t.Fatalf("iteration %d: trajectory records scaffold version %v", k, tr.ScaffoldVersion)
			}
		}
		rec.success /= float64(len(trajs))
		if err := table.WriteFile(p("traj/%d.parquet", k), trajs, table.Meta{}); err != nil {
			t.Fatal(err)
		}
		if err := cards.Run(context.Background(), cards.Options{Inputs: []string{p("traj/%d.parquet", k)},
			Output: p("cards/%d.parquet", k), Per: card.PerGroup, Top: 8}, stage.Streams{}); err != nil {
			t.Fatal(err)
		}
		cf := controlstage.Options{Cards: p("cards/%d.parquet", k), Scaffold: snap, Output: p("proposals/%d.parquet", k),
			StateOut: p("state/%d.parquet", k), Loop: stage.DefaultLoop(), Tok: tok(t)}
		if k > 0 {
			cf.State = p("state/%d.parquet", k-1)
		}
		if err := controlstage.Run(context.Background(), cf, stage.Streams{}); err != nil {
			t.Fatal(err)
		}
		states, _, err := table.ReadFiles[table.ControllerState](cf.StateOut)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range states {
			rec.primitives[s.Primitive]++
		}
		next := p("snap/%d.parquet", k+1)
		mustRun(t, "--scaffold", snap, "--proposals", cf.Output, "--cards", cf.Cards, "-o", next,
			"--decisions", p("decisions/%d.parquet", k))
		prev, err := scaffold.ReadSnapshot(snap)
		if err != nil {
			t.Fatal(err)
		}
		s, err := scaffold.ReadSnapshot(next)
		if err != nil {
			t.Fatal(err)
		}
		if s.Version != k+1 || s.Parent != scaffold.Hash(prev.Items) {
			t.Fatalf("snapshot %d: version %d, parent %s, want parent %s", k+1, s.Version, s.Parent, scaffold.Hash(prev.Items))
		}
		if err := scaffold.Check(s.Items, tokenizer.Counter(tok(t))); err != nil {
			t.Fatalf("snapshot %d: %v", k+1, err)
		}
		props, _, err := table.ReadFiles[table.Proposal](cf.Output)
		if err != nil {
			t.Fatal(err)
		}
		decs, dm, err := table.ReadFiles[table.Decision](p("decisions/%d.parquet", k))
		if err != nil {
			t.Fatal(err)
		}
		if len(decs) != len(props) {
			t.Fatalf("iteration %d: %d decisions for %d proposals", k, len(decs), len(props))
		}
		for i, d := range decs {
			if d.ProposalID != props[i].ProposalID || d.Iteration != int32(k) || d.Reason == "" {
				t.Errorf("iteration %d: decision %+v for proposal %s", k, d, props[i].ProposalID)
			}
			if d.Accepted {
				rec.accepted[d.Op]++
			}
		}
		if dm[0].Inputs[snap] == "" || dm[0].Inputs[cf.Output] == "" || dm[0].Inputs[cf.Cards] == "" {
			t.Errorf("decisions metadata lacks input hashes: %v", dm[0].Inputs)
		}
		rec.decisions, rec.items, rec.hash = len(decs), len(s.Items), scaffold.Hash(s.Items)
		recs = append(recs, rec)
		t.Logf("k=%d success %.2f primitives %v accepted %v of %d; snapshot %d has %d items", k, rec.success, rec.primitives, rec.accepted, rec.decisions, k+1, rec.items)
	}
	return recs
}

// TestLoop runs cards, control and validate for six iterations: three with
// a weak policy (one oracle episode in four), three with a strong one
// (all oracle). The controller EXPANDs while success is low and the
// scaffold gets its first items then (the refiner adds a rule only when
// its evidence holds; the built-in policies ignore the scaffold, so the
// same rules keep holding and later iterations need add nothing new), and
// it shrinks once the policy succeeds; the whole loop is deterministic.
func TestLoop(t *testing.T) {
	nOracle := []int{1, 1, 1, 4, 4, 4}
	dir := t.TempDir()
	recs := loop(t, dir, nOracle)
	for k := 0; k < 3; k++ {
		if recs[k].success <= 0 || recs[k].success >= control.DefaultOptions().RhoR {
			t.Errorf("iteration %d: success %.2f, want a weak policy in (0, rho_r)", k, recs[k].success)
		}
		if recs[k].primitives[scaffold.Expand] == 0 {
			t.Errorf("iteration %d: a weak policy should EXPAND: %+v", k, recs[k])
		}
		if k > 0 && recs[k].items < recs[k-1].items {
			t.Errorf("iteration %d: the scaffold shrank under EXPAND (%d -> %d items)", k, recs[k-1].items, recs[k].items)
		}
	}
	if recs[0].accepted["add"] == 0 || recs[0].items == 0 {
		t.Errorf("iteration 0: a weak policy's first EXPAND should add items: %+v", recs[0])
	}
	peak := recs[2].items
	last := recs[len(recs)-1]
	if last.items >= peak || last.primitives[scaffold.Compress] == 0 {
		t.Errorf("a strong policy should COMPRESS the scaffold: %d items at the peak, %d at the end (%+v)", peak, last.items, last)
	}
	// the rendered scaffold was in the context from iteration 1 on
	trajs, _, err := table.ReadFiles[table.Trajectory](filepath.Join(dir, "traj/1.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	shown := 0
	for _, tr := range trajs {
		if tr.NScaffoldTokens > 0 {
			shown++
		}
	}
	if shown == 0 {
		t.Error("no episode of iteration 1 saw the scaffold")
	}
	// the items the rule-based refiner wrote are in the built-in vocabulary
	trajs, _, err = table.ReadFiles[table.Trajectory](filepath.Join(dir, "traj/3.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range trajs {
		if n := unknown(tok(t), tr); n > 0 {
			t.Errorf("%s: %d scaffold tokens outside the vocabulary", tr.TaskID, n)
		}
	}
	// determinism: the same loop elsewhere gives the same snapshots
	again := loop(t, t.TempDir(), nOracle)
	for k := range recs {
		if recs[k].hash != again[k].hash || recs[k].decisions != again[k].decisions {
			t.Errorf("iteration %d: rerun gave snapshot %s (%d decisions), first run %s (%d)", k, again[k].hash, again[k].decisions, recs[k].hash, recs[k].decisions)
		}
	}
	// and validate rerun on the same files writes the same bytes
	p := func(f string, a ...any) string { return filepath.Join(dir, fmt.Sprintf(f, a...)) }
	mustRun(t, "-o", p("again/6.parquet"), "--decisions", p("again/d5.parquet"), "--scaffold", p("snap/5.parquet"),
		"--proposals", p("proposals/5.parquet"), "--cards", p("cards/5.parquet"))
	for _, pair := range [][2]string{{p("snap/6.parquet"), p("again/6.parquet")}, {p("decisions/5.parquet"), p("again/d5.parquet")}} {
		a, _ := os.ReadFile(pair[0])
		b, _ := os.ReadFile(pair[1])
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s and %s differ", pair[0], pair[1])
		}
	}
}

// TestKilledCommit kills validate after it wrote the temporary snapshot and
// before the rename: snapshot k is intact, no snapshot k+1 exists, and the
// next run removes the leftover temporary file and commits.
func TestKilledCommit(t *testing.T) {
	dir := t.TempDir()
	p := func(f string) string { return filepath.Join(dir, f) }
	yaml := p("items.yaml")
	if err := os.WriteFile(yaml, []byte("items:\n  - layer: general\n    text: Read the task and plan before acting.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "init", "--from", yaml, "-o", p("snap/0.parquet"))
	trajs := rollouttest.Household(t, 0, 1, 4, p("snap/0.parquet"))
	if err := table.WriteFile(p("traj.parquet"), trajs, table.Meta{}); err != nil {
		t.Fatal(err)
	}
	if err := cards.Run(context.Background(), cards.Options{Inputs: []string{p("traj.parquet")}, Output: p("cards.parquet"), Per: card.PerGroup, Top: 8}, stage.Streams{}); err != nil {
		t.Fatal(err)
	}
	if err := controlstage.Run(context.Background(), controlstage.Options{Cards: p("cards.parquet"), Scaffold: p("snap/0.parquet"),
		Output: p("proposals.parquet"), StateOut: p("state.parquet"), Loop: stage.DefaultLoop(), Tok: tok(t)}, stage.Streams{}); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(p("snap/0.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"--scaffold", p("snap/0.parquet"), "--proposals", p("proposals.parquet"), "--cards", p("cards.parquet"),
		"-o", p("snap/1.parquet"), "--decisions", p("decisions.parquet")}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), childEnv+"=1", scaffold.PauseEnv+"=60s")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// wait for the complete temporary file
	deadline := time.Now().Add(60 * time.Second)
	var tmp string
	for tmp == "" && time.Now().Before(deadline) {
		m, _ := filepath.Glob(p("snap/.1.parquet.tmp-*"))
		if len(m) == 1 {
			if st, err := os.Stat(m[0]); err == nil && st.Size() > 0 {
				tmp = m[0]
				break
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	if tmp == "" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("validate never wrote its temporary snapshot: %s", stderr.String())
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	after, err := os.ReadFile(p("snap/0.parquet"))
	if err != nil || !bytes.Equal(before, after) {
		t.Fatalf("snapshot 0 changed by a killed validate: %v", err)
	}
	if _, err := scaffold.ReadSnapshot(p("snap/0.parquet")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p("snap/1.parquet")); !os.IsNotExist(err) {
		t.Fatalf("snapshot 1 exists after a killed commit: %v", err)
	}
	// the rerun commits and cleans up
	mustRun(t, args...)
	s, err := scaffold.ReadSnapshot(p("snap/1.parquet"))
	if err != nil || s.Version != 1 {
		t.Fatalf("snapshot 1 after the rerun: %+v %v", s, err)
	}
	if m, _ := filepath.Glob(p("snap/.*")); len(m) != 0 {
		t.Errorf("temporary files left after the rerun: %v", m)
	}
}

// TestRolloutScaffold: rollout --scaffold puts the rendered scaffold into
// the context with role scaffold and records the version; without it no
// token has that role.
func TestRolloutScaffold(t *testing.T) {
	dir := t.TempDir()
	p := func(f string) string { return filepath.Join(dir, f) }
	tk := tok(t)
	items := []table.ScaffoldItem{
		{ID: "g-0001", Layer: scaffold.LayerGeneral, Text: "Open closed receptacles to look inside them."},
		{ID: "m-x-0001", Layer: scaffold.LayerMistake, TaskType: "pick_heat_then_place_in_recep", Text: "Do not waste steps; go to the most likely places first."},
	}
	scaffold.Retokenize(items, tokenizer.Counter(tk))
	for i := range items {
		items[i].Support = []string{}
	}
	if err := scaffold.WriteSnapshot(p("snap/2.parquet"), scaffold.Snapshot{Items: items, Version: 2, Parent: "sha256:p"}, table.Meta{}); err != nil {
		t.Fatal(err)
	}
	f := rollout.Options{Options: play.Options{Env: "household", Split: "train", Tasks: 6, Group: 2, Seed: 3, Policy: "oracle", Iteration: 2,
		Scaffold: p("snap/2.parquet"), ScaffoldBudget: play.DefaultScaffoldBudget, PolicyOptions: play.PolicyOptions{MaxContext: play.DefaultMaxContext}}, Output: p("with.parquet")}
	if err := rollout.Run(context.Background(), f, stage.Streams{}); err != nil {
		t.Fatal(err)
	}
	f.Scaffold, f.Output = "", p("without.parquet")
	if err := rollout.Run(context.Background(), f, stage.Streams{}); err != nil {
		t.Fatal(err)
	}
	with, wm, err := table.ReadFiles[table.Trajectory](p("with.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if wm[0].Inputs[p("snap/2.parquet")] == "" {
		t.Error("the trajectories do not record the snapshot's hash")
	}
	for _, tr := range with {
		var ids []int32
		for i, r := range tr.Roles {
			if r == table.RoleScaffold {
				ids = append(ids, tr.Tokens[i])
			}
		}
		text := tk.Decode(ids)
		z, _, _ := scaffold.Render(items, tr.TaskType, 400, tokenizer.Counter(tk))
		if tr.ScaffoldVersion == nil || *tr.ScaffoldVersion != 2 || int(tr.NScaffoldTokens) != len(ids) || len(ids) == 0 {
			t.Fatalf("%s: scaffold version %v, %d scaffold tokens (%d counted)", tr.TaskID, tr.ScaffoldVersion, len(ids), tr.NScaffoldTokens)
		}
		if !strings.Contains(text, "open closed receptacles to look inside them") {
			t.Errorf("%s: scaffold tokens decode to %q", tr.TaskID, text)
		}
		hasMistake := strings.Contains(text, "mistakes to avoid")
		if hasMistake != (tr.TaskType == "pick_heat_then_place_in_recep") || hasMistake != strings.Contains(z, "Mistakes to avoid:") {
			t.Errorf("%s (%s): the type's mistakes shown: %v", tr.TaskID, tr.TaskType, hasMistake)
		}
		if n := unknown(tk, tr); n > 0 {
			t.Errorf("%s: %d scaffold tokens are outside the vocabulary: %q", tr.TaskID, n, text)
		}
	}
	without, _, err := table.ReadFiles[table.Trajectory](p("without.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range without {
		for _, r := range tr.Roles {
			if r == table.RoleScaffold {
				t.Fatalf("%s: a scaffold token without --scaffold", tr.TaskID)
			}
		}
		if tr.ScaffoldVersion != nil || tr.NScaffoldTokens != 0 {
			t.Errorf("%s: scaffold version %v, %d scaffold tokens without --scaffold", tr.TaskID, tr.ScaffoldVersion, tr.NScaffoldTokens)
		}
	}
	// a snapshot without its version is a usage error
	if err := table.WriteFile(p("bare.parquet"), items, table.Meta{}); err != nil {
		t.Fatal(err)
	}
	f.Scaffold, f.Output = p("bare.parquet"), p("bad.parquet")
	if err := rollout.Run(context.Background(), f, stage.Streams{}); command.Code(err) != command.ExitUsage || !strings.Contains(err.Error(), "bare.parquet") {
		t.Errorf("rollout with a bare snapshot: %v", err)
	}
}

// unknown counts the scaffold tokens of tr that are the unknown token.
func unknown(tk tokenizer.Tokenizer, tr table.Trajectory) int {
	unk, _ := tk.TokenID(tokenizer.Unk)
	n := 0
	for i, r := range tr.Roles {
		if r == table.RoleScaffold && tr.Tokens[i] == unk {
			n++
		}
	}
	return n
}

func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	p := func(f string) string { return filepath.Join(dir, f) }
	mustRun(t, "init", "-o", p("snap/0.parquet"))
	if err := table.WriteFile(p("bare.parquet"), []table.ScaffoldItem{}, table.Meta{}); err != nil {
		t.Fatal(err)
	}
	cases := map[string][]string{
		"init without -o":   {"init"},
		"init bad yaml":     {"init", "--from", p("none.yaml"), "-o", p("out.parquet")},
		"step missing":      {"--scaffold", p("snap/0.parquet"), "--proposals", p("none.parquet"), "--cards", p("none.parquet"), "-o", p("out.parquet"), "--decisions", p("d.parquet")},
		"step no version":   {"--scaffold", p("bare.parquet"), "--proposals", p("bare.parquet"), "--cards", p("bare.parquet"), "-o", p("out.parquet"), "--decisions", p("d.parquet")},
		"step stray arg":    {"extra", "--scaffold", p("snap/0.parquet")},
		"bad rho":           {"--rho-r", "0.9", "--rho-c", "0.1", "--scaffold", p("snap/0.parquet")},
		"bad tokenizer":     {"show", p("snap/0.parquet"), "--tokenizer", p("none.json")},
		"diff one argument": {"diff", p("snap/0.parquet")},
		"diff no version":   {"diff", p("snap/0.parquet"), p("bare.parquet")},
		"show no version":   {"show", p("bare.parquet")},
		"unknown flag":      {"--frobnicate"},
	}
	for name, args := range cases {
		code, stderr := run(t, args...)
		if code != command.ExitUsage {
			t.Errorf("%s: exit %d, want 2 (%q)", name, code, stderr)
		}
		if stderr == "" || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%s: stderr %q is not one line", name, stderr)
		}
		for _, out := range []string{p("out.parquet"), p("d.parquet")} {
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s: %s written", name, out)
			}
		}
	}
	// show and diff print; flags may follow the positional arguments
	var out bytes.Buffer
	code := command.Run(app(), []string{"validate", "show", p("snap/0.parquet"), "--budget", "50"}, &out)
	if code != 0 {
		t.Errorf("show: exit %d %s", code, out.String())
	}
}

// TestCheckBeforeTokenizer: validate show and validate init check their
// options before they load --tokenizer, so a bad option beside a
// tokenizer that cannot be read reports the option.
func TestCheckBeforeTokenizer(t *testing.T) {
	dir := t.TempDir()
	tok := filepath.Join(dir, "none.json")
	cases := map[string]struct {
		args []string
		want string
	}{
		"show --budget -1": {[]string{"show", filepath.Join(dir, "snap.parquet"), "--budget", "-1", "--tokenizer", tok}, "--budget"},
		"init -o -":        {[]string{"init", "-o", "-", "--tokenizer", tok}, "written to a file, not stdout"},
	}
	for name, c := range cases {
		code, stderr := run(t, c.args...)
		if code != command.ExitUsage || !strings.Contains(stderr, c.want) || strings.Contains(stderr, tok) {
			t.Errorf("%s: exit %d, %q: want the option's refusal (%q)", name, code, stderr, c.want)
		}
	}
}
