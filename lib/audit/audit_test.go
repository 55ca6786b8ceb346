package audit

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/table"
)

// roles from a compact string: S system, C scaffold, O observation, A
// action, N skill name.
func roles(s string) []int8 {
	m := map[rune]int8{'S': table.RoleSystem, 'C': table.RoleScaffold, 'O': table.RoleObservation,
		'A': table.RoleAction, 'N': table.RoleSkillName, 'T': table.RoleTask}
	out := make([]int8, 0, len(s))
	for _, r := range s {
		out = append(out, m[r])
	}
	return out
}

// broadcastEpisode makes an episode of the given roles whose every
// policy-written token gets advantage a (the broadcast credit).
func broadcastEpisode(group string, steps int, rs string, a float32, right ...bool) (table.Trajectory, table.TokenAdvantages) {
	ro := roles(rs)
	tr := table.Trajectory{GroupID: group, Steps: int32(steps), Roles: ro, Tokens: make([]int32, len(ro)), ReadsRight: right}
	for range right {
		tr.Reads = append(tr.Reads, "skill")
		tr.ReadsMisleading = append(tr.ReadsMisleading, false)
	}
	ad := table.TokenAdvantages{GroupID: group, Advantages: make([]float32, len(ro)), Channels: make([]int8, len(ro))}
	for t, r := range ro {
		if table.PolicyWritten(r) {
			ad.Advantages[t], ad.Channels[t] = a, 1
		}
	}
	return tr, ad
}

// handMade is four episodes with one read each and broadcast credit:
//
//	steps tokens policy names credit read
//	1     7      5      1     +2     right
//	3     13     9      1     -1     right
//	5     19     13     1     -0.5   wrong
//	7     25     17     1     -1     right
//
// Skill-name shares 2/10, 1/9, 1/13, 1/17 (strictly falling with horizon).
func handMade() ([]table.Trajectory, []table.TokenAdvantages) {
	var traj []table.Trajectory
	var adv []table.TokenAdvantages
	add := func(tr table.Trajectory, a table.TokenAdvantages) {
		traj, adv = append(traj, tr), append(adv, a)
	}
	add(broadcastEpisode("g1", 1, "SANAOAA", 2, true))
	add(broadcastEpisode("g2", 3, "SANAOAAOAAOAA", -1, true))
	add(broadcastEpisode("g3", 5, "SANAOAAOAAOAAOAAOAA", -0.5, false))
	add(broadcastEpisode("g4", 7, "SANAOAAOAAOAAOAAOAAOAAOAA", -1, true))
	return traj, adv
}

func same(a, b float64) bool {
	return (math.IsNaN(a) && math.IsNaN(b)) || math.Abs(a-b) < 1e-9
}

func TestCreditHandMade(t *testing.T) {
	traj, adv := handMade()
	rows, err := Credit(traj, adv, "traj", "adv", 4)
	if err != nil {
		t.Fatal(err)
	}
	nan := math.NaN()
	rho := 1.5 / math.Sqrt(3) // ranks (1,2,3) against (1,2.5,2.5)
	type want struct {
		lo                       float64
		share, neg, rsign, wsign float64
		right, wrong             int32
	}
	wants := []want{
		{1, 0.2, 0, 1, nan, 1, 0},
		{3, 1.0 / 9, 1, -1, nan, 1, 0},
		{5, 1.0 / 13, nan, nan, -1, 0, 1},
		{7, 1.0 / 17, 1, -1, nan, 1, 0},
	}
	if len(rows) != 8 {
		t.Fatalf("%d rows, want 4 per horizon", len(rows))
	}
	for i, r := range rows {
		w := wants[i%4]
		lo := w.lo
		if r.Horizon == "tokens" {
			lo = []float64{7, 13, 19, 25}[i%4]
		}
		if r.Horizon != []string{"steps", "tokens"}[i/4] || r.Bin != int32(i%4) || r.Lo != lo || r.Hi != lo || r.Episodes != 1 {
			t.Errorf("row %d: %s bin %d [%v, %v] %d episodes", i, r.Horizon, r.Bin, r.Lo, r.Hi, r.Episodes)
		}
		if !same(table.OrNaN(r.SkillNameShare), w.share) || !same(table.OrNaN(r.RightNegFrac), w.neg) || !same(table.OrNaN(r.RightSign), w.rsign) ||
			!same(table.OrNaN(r.WrongSign), w.wsign) || r.RightReads != w.right || r.WrongReads != w.wrong {
			t.Errorf("row %d: %+v, want %+v", i, r, w)
		}
		if !same(table.OrNaN(r.RhoSkillNameShare), -1) || !same(table.OrNaN(r.RhoRightNeg), rho) || !same(table.OrNaN(r.RhoRightSign), -rho) || r.RhoWrongSign != nil {
			t.Errorf("row %d: correlations %v %v %v %v, want -1 %v %v NULL", i, table.OrNaN(r.RhoSkillNameShare), table.OrNaN(r.RhoRightNeg), table.OrNaN(r.RhoRightSign), table.OrNaN(r.RhoWrongSign), rho, -rho)
		}
	}
	var md bytes.Buffer
	if err := CreditMarkdown(&md, rows); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"| steps | 0 | 1-1 | 1 | 1 | 0 | 0.2000 | 0.000 | 1.000 | - |", "Spearman with horizon (tokens): skill-name share -1.000"} {
		if !strings.Contains(md.String(), s) {
			t.Errorf("Markdown lacks %q:\n%s", s, md.String())
		}
	}
	var png bytes.Buffer
	if err := PlotCredit(&png, rows); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(png.Bytes(), []byte("\x89PNG")) {
		t.Error("plot is not a PNG")
	}
}

// TestReadCredit: reads pair with runs of skill-name tokens; when they do
// not pair up every read gets the mean over all skill-name tokens.
func TestReadCredit(t *testing.T) {
	tr := table.Trajectory{Roles: roles("SANNAOANAA"), ReadsRight: []bool{false, true}, Reads: []string{"x", "y"}}
	adv := []float32{0, 0.5, -1, -1, 0.5, 0, 0.5, 2, 0.5, 0.5}
	e := reduce(&tr, adv, nil)
	// Two reads: the right one among them is not a right choice.
	if len(e.reads) != 2 || e.reads[0].credit != -1 || e.reads[1].credit != 2 || e.reads[0].right || e.reads[1].right {
		t.Errorf("paired reads: %+v", e.reads)
	}
	one := table.Trajectory{Roles: roles("SANNAOAAAA"), ReadsRight: []bool{true}, Reads: []string{"y"}}
	if e := reduce(&one, adv, nil); len(e.reads) != 1 || !e.reads[0].right || e.reads[0].credit != -1 {
		t.Errorf("single right read: %+v", e.reads)
	}
	if !same(e.share, 4.0/6.5) {
		t.Errorf("share %v, want 4/6.5", e.share)
	}
	tr.Reads, tr.ReadsRight = []string{"x", "y", "z"}, []bool{true, true, false}
	e = reduce(&tr, adv, nil)
	for _, r := range e.reads {
		if !same(r.credit, 0) { // (-1-1+2)/3
			t.Errorf("unpaired read credit %v, want 0", r.credit)
		}
	}
	// With read_advantages (one per read) each read takes its own value;
	// with read_turns only the recorded reads' names count: the run of
	// skill-name tokens in answer 1 (no recorded read) counts as
	// execution tokens in the share.
	tr.Reads, tr.ReadsRight, tr.ReadTurns = []string{"x"}, []bool{false}, []int32{0}
	e = reduce(&tr, adv, []float64{0.25})
	if len(e.reads) != 1 || e.reads[0].credit != 0.25 {
		t.Errorf("reads with read_advantages: %+v", e.reads)
	}
	if !same(e.share, 2.0/6.5) {
		t.Errorf("share over the recorded reads' names %v, want 2/6.5", e.share)
	}
	tr.Reads, tr.ReadsRight, tr.ReadTurns = []string{"x", "y", "z"}, []bool{true, true, false}, nil
	// No credit at all: the share is undefined.
	e = reduce(&tr, make([]float32, len(adv)), nil)
	if !math.IsNaN(e.share) {
		t.Errorf("uncredited share %v", e.share)
	}
}

func TestCreditJoinErrors(t *testing.T) {
	traj, adv := handMade()
	if _, err := Credit(traj, adv[:3], "traj", "adv", 4); !table.IsInputError(err) || !strings.Contains(err.Error(), "no advantages for episode g4") {
		t.Errorf("missing row: %v", err)
	}
	adv[1].Advantages = adv[1].Advantages[:3]
	if _, err := Credit(traj, adv, "traj", "adv", 4); !table.IsInputError(err) {
		t.Errorf("short advantages: %v", err)
	}
}

func TestBins(t *testing.T) {
	cases := []struct {
		h    []float64
		n    int
		want []int
	}{
		{[]float64{5, 1, 3, 3, 2, 8, 9, 7}, 3, []int{1, 0, 1, 1, 0, 2, 2, 2}},
		{[]float64{4, 2, 4, 2}, 4, []int{1, 0, 1, 0}},             // few distinct values: one bin each
		{[]float64{1, 1, 1, 1, 1, 2}, 1, []int{0, 0, 0, 0, 0, 0}}, // one bin
		// Ten episodes at the step limit: their run's middle position is in
		// the third quantile, so it is a bin of its own, after 1-4 and 5.
		{[]float64{1, 2, 3, 4, 5, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9}, 4, []int{0, 0, 0, 0, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2}},
		// The step-limit run first in the order of the input.
		{[]float64{50, 50, 50, 7, 50, 12, 50, 50, 3}, 3, []int{1, 1, 1, 0, 1, 0, 1, 1, 0}},
	}
	for _, c := range cases {
		got := Bins(c.h, c.n)
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("Bins(%v, %d) = %v, want %v", c.h, c.n, got, c.want)
				break
			}
		}
	}
}

func TestSpearman(t *testing.T) {
	cases := []struct {
		x, y []float64
		want float64
	}{
		{[]float64{1, 2, 3, 4}, []float64{10, 20, 30, 45}, 1},
		{[]float64{1, 2, 3, 4}, []float64{9, 4, 1, 0}, -1},
		{[]float64{1, 3, 7}, []float64{0, 1, 1}, 1.5 / math.Sqrt(3)},
		{[]float64{1, 2}, []float64{3, 3}, math.NaN()},
		{[]float64{1}, []float64{3}, math.NaN()},
	}
	for _, c := range cases {
		if got := Spearman(c.x, c.y); !same(got, c.want) {
			t.Errorf("Spearman(%v, %v) = %v, want %v", c.x, c.y, got, c.want)
		}
	}
}

func microModel(t *testing.T, seed uint64) *model.Model {
	t.Helper()
	c := model.Tiny(17)
	c.HiddenSize, c.NumHiddenLayers, c.NumAttentionHeads, c.NumKeyValueHeads, c.IntermediateSize = 16, 1, 2, 1, 24
	c.InitializerRange = 0.3
	m, err := model.New(c, seed)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestScaffoldNLL: removing the scaffold changes nothing when it comes
// after every policy-written token (gap exactly 0), and otherwise matches
// scoring the shortened sequence directly; the relative change of the gap
// is against the first checkpoint.
func TestScaffoldNLL(t *testing.T) {
	late := table.Trajectory{Tokens: []int32{1, 2, 3, 4, 5, 6, 7}, Roles: roles("SAAOACC")}
	early := table.Trajectory{Tokens: []int32{1, 9, 9, 3, 4, 5, 6, 7, 8}, Roles: roles("SCCTAAOAA")}
	noScaffold := table.Trajectory{Tokens: []int32{1, 2, 3}, Roles: roles("STA")}
	models := map[string]*model.Model{"a": microModel(t, 1), "b": microModel(t, 2), "a2": microModel(t, 1)}
	load := func(n string) (*model.Model, error) { return models[n], nil }

	rows, err := Scaffold([]string{"a"}, load, []table.Trajectory{late, noScaffold})
	if err != nil {
		t.Fatal(err)
	}
	if table.OrNaN(rows[0].Gap) != 0 || rows[0].Episodes != 1 || rows[0].Tokens != 3 {
		t.Errorf("scaffold after the policy's tokens: %+v, want gap 0, 1 episode, 3 tokens", rows[0])
	}

	rows, err = Scaffold([]string{"a", "b", "a2"}, load, []table.Trajectory{early})
	if err != nil {
		t.Fatal(err)
	}
	short := []int32{1, 3, 4, 5, 6, 7, 8}
	for k, name := range []string{"a", "b"} {
		with, _, _ := NLL(models[name], [][]int32{early.Tokens}, [][]int8{early.Roles})
		without, _, _ := NLL(models[name], [][]int32{short}, [][]int8{roles("STAAOAA")})
		if !same(table.OrNaN(rows[k].NLLWith), with) || !same(table.OrNaN(rows[k].NLLWithout), without) || !same(table.OrNaN(rows[k].Gap), without-with) {
			t.Errorf("%s: %+v, want with %v without %v", name, rows[k], with, without)
		}
	}
	g0 := *rows[0].Gap
	rel := func(k int) float64 { return table.OrNaN(rows[k].GapRelative) }
	if !same(rel(1), (*rows[1].Gap-g0)/math.Abs(g0)) || rel(2) != 0 || rel(0) != 0 {
		t.Errorf("relative gap changes %v %v %v", rel(0), rel(1), rel(2))
	}
	if _, err := Scaffold([]string{"a"}, load, []table.Trajectory{noScaffold}); err != ErrNoScaffold {
		t.Errorf("no scaffold: %v", err)
	}
	var md, png bytes.Buffer
	if err := ScaffoldMarkdown(&md, rows); err != nil || !strings.Contains(md.String(), "| a2 |") {
		t.Errorf("Markdown: %v\n%s", err, md.String())
	}
	if err := PlotScaffold(&png, rows); err != nil || !bytes.HasPrefix(png.Bytes(), []byte("\x89PNG")) {
		t.Errorf("plot: %v", err)
	}

	// Scaffold tokens but no policy-written token to score: the NLLs,
	// the gap and its change are NULL (no NaN), the table shows "-" and
	// the plot has no point for them.
	silent := table.Trajectory{Tokens: []int32{1, 9, 9, 3, 4}, Roles: roles("SCCTO")}
	rows, err = Scaffold([]string{"a", "b"}, load, []table.Trajectory{silent})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.NLLWith != nil || r.NLLWithout != nil || r.Gap != nil || r.GapRelative != nil || r.Tokens != 0 || r.Episodes != 1 {
			t.Errorf("no scored tokens: %s NLL %v/%v gap %v change %v, %d tokens; want NULLs and 0 tokens", r.Checkpoint,
				table.OrNaN(r.NLLWith), table.OrNaN(r.NLLWithout), table.OrNaN(r.Gap), table.OrNaN(r.GapRelative), r.Tokens)
		}
	}
	md.Reset()
	png.Reset()
	if err := ScaffoldMarkdown(&md, rows); err != nil || !strings.Contains(md.String(), "| b | 1 | 0 | - | - | - | - |") {
		t.Errorf("Markdown without scored tokens: %v\n%s", err, md.String())
	}
	if err := PlotScaffold(&png, rows); err != nil {
		t.Errorf("plot without scored tokens: %v", err)
	}
}

// TestAnchorCoverage works the anchor coverage out by hand: group g (2
// steps each) keys a b / a c: a is shared, 2 of 4 turns; group h (4 steps
// each) keys a x x y / z1 z2 z3 z4: x repeats within one episode and a
// meets no a of group g, 2 of 8 turns. The mean step-group sizes: g
// (2+1+2+1)/4 = 1.5, h (1+2+2+1+1+1+1+1)/8 = 1.25, both bins together
// 16/12. Episodes without step keys give NaN.
func TestAnchorCoverage(t *testing.T) {
	var traj []table.Trajectory
	var adv []table.TokenAdvantages
	for i, c := range []struct {
		group string
		steps int
		keys  []string
	}{
		{"g", 2, []string{"a", "b"}}, {"g", 2, []string{"a", "c"}},
		{"h", 4, []string{"a", "x", "x", "y"}}, {"h", 4, []string{"z1", "z2", "z3", "z4"}},
	} {
		tr, a := broadcastEpisode(c.group, c.steps, "SAOA", 1)
		tr.Sample, a.Sample = int32(i), int32(i)
		tr.StepKeys = c.keys
		traj, adv = append(traj, tr), append(adv, a)
	}
	rows, err := Credit(traj, adv, "traj", "adv", 2)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][3]float64{}
	for _, r := range rows {
		got[fmt.Sprintf("%s %d", r.Horizon, r.Bin)] = [3]float64{float64(r.Turns), table.OrNaN(r.AnchorCoverage), table.OrNaN(r.StepGroupSize)}
	}
	want := map[string][3]float64{"steps 0": {4, 0.5, 1.5}, "steps 1": {8, 0.25, 1.25}, "tokens 0": {12, 4.0 / 12, 16.0 / 12}}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("turns, coverage and step-group size by bin (-want +got):\n%s", diff)
	}
	for i := range traj {
		traj[i].StepKeys = nil
	}
	rows, err = Credit(traj, adv, "traj", "adv", 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Turns != 0 || r.AnchorCoverage != nil || r.StepGroupSize != nil {
			t.Errorf("without step keys: %d turns, coverage %v, step-group size %v (want NULL)", r.Turns, r.AnchorCoverage, r.StepGroupSize)
		}
	}
}
