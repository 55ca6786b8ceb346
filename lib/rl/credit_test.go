package rl

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/pats-rl/pats/lib/table"
)

// ep is one episode of a hand-worked selection case: its group and its
// reads (r: right, w: wrong, m: misleading).
type ep struct {
	group string
	reads string
}

func selectionInputs(eps []ep) (reads []int, utility []float64, groups []string) {
	for _, e := range eps {
		var right, mis []bool
		for _, c := range e.reads {
			right = append(right, c == 'r')
			mis = append(mis, c == 'm')
		}
		reads = append(reads, len(e.reads))
		utility = append(utility, ReadUtility(right, mis))
		groups = append(groups, e.group)
	}
	return reads, utility, groups
}

// TestGroupSelectionAdvantages: utility 1 for an episode whose single read
// is right, else 0; the advantage is the utility minus the mean over the
// group's read actions (worked out by hand in each case's comment).
func TestGroupSelectionAdvantages(t *testing.T) {
	cases := []struct {
		name string
		eps  []ep
		want []float64
	}{
		// actions 1, 0, 0, 1: mean 1/2.
		{"mixed group", []ep{{"g", "r"}, {"g", "w"}, {"g", "m"}, {"g", "r"}}, []float64{0.5, -0.5, -0.5, 0.5}},
		// every action has utility 1: no selection credit.
		{"all right", []ep{{"g", "r"}, {"g", "r"}, {"g", "r"}}, []float64{0, 0, 0}},
		// every action has utility 0 (wrong, misleading, a right read among two).
		{"all wrong", []ep{{"g", "w"}, {"g", "m"}, {"g", "rw"}}, []float64{0, 0, 0}},
		// actions 1, 0: mean 1/2; episodes without reads get nothing and
		// do not count in the mean.
		{"without reads", []ep{{"g", "r"}, {"g", ""}, {"g", "w"}, {"g", ""}}, []float64{0.5, 0, -0.5, 0}},
		// the only read action of the group is right: one utility, no credit.
		{"one read in the group", []ep{{"g", ""}, {"g", "r"}, {"g", ""}}, []float64{0, 0, 0}},
		// actions 1 | 0 0 0 (three reads, one right: utility 0) | 0 0:
		// mean 1/6; every read of an episode shares its value.
		{"several reads", []ep{{"g", "r"}, {"g", "wrw"}, {"g", "ww"}, {"g", ""}}, []float64{5.0 / 6, -1.0 / 6, -1.0 / 6, 0}},
		// groups apart: g1 actions 1, 0 (mean 1/2); g2 all 0.
		{"two groups", []ep{{"g1", "r"}, {"g2", "w"}, {"g1", "w"}, {"g2", "w"}}, []float64{0.5, 0, -0.5, 0}},
	}
	for _, c := range cases {
		reads, u, g := selectionInputs(c.eps)
		got := GroupSelectionAdvantages(reads, u, g)
		if diff := cmp.Diff(c.want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}

// readEpisode is a trajectory whose turns are: a read of each skill in
// reads (verb, name, name, end), then one two-token action; rewards and
// step columns are set by the caller.
func readEpisode(group string, sample int32, reads string) table.Trajectory {
	r := table.Trajectory{GroupID: group, Sample: sample}
	add := func(roles ...int8) {
		for _, x := range roles {
			r.Tokens = append(r.Tokens, int32(len(r.Tokens)))
			r.Roles = append(r.Roles, x)
		}
	}
	add(table.RoleSystem, table.RoleTask)
	for _, c := range reads {
		add(table.RoleAction, table.RoleSkillName, table.RoleSkillName, table.RoleAction, table.RoleSkillBody)
		r.Reads = append(r.Reads, "s")
		r.ReadsRight = append(r.ReadsRight, c == 'r')
		r.ReadsMisleading = append(r.ReadsMisleading, c == 'm')
	}
	add(table.RoleAction, table.RoleAction, table.RoleObservation)
	return r
}

// TestSelectionCreditTokens: under skillgate with the group baseline every
// skill-name token of an episode (of every read) carries the episode's
// selection value, in the selection channel, in the advantages rows too;
// the loss scales that channel by select_coef. Under the baseline none
// the old rule holds: +-select_coef, unscaled.
func TestSelectionCreditTokens(t *testing.T) {
	rows := []table.Trajectory{
		readEpisode("g", 0, "r"),
		readEpisode("g", 1, "wrw"),
		readEpisode("g", 2, "ww"),
		readEpisode("g", 3, ""),
	}
	for i := range rows {
		rows[i].Reward = float64(i % 2)
	}
	for _, c := range []struct {
		baseline SelectBaseline
		want     []float64 // selection value per episode
		scale    float64
	}{
		{SelectGroup, []float64{5.0 / 6, -1.0 / 6, -1.0 / 6, 0}, 0.2},
		{SelectNone, []float64{0.2, -0.2, -0.2, 0}, 1},
	} {
		cfg := GRPOConfig{Credit: SkillGate, SelectCoef: 0.2, SelectBaseline: c.baseline}
		prep, adv := Credits(rows, cfg)
		for i, r := range rows {
			if prep[i].SelectScale != c.scale || adv[i].Selection != prep[i].Selection {
				t.Errorf("%v: episode %d: scale %v (want %v), file selection %v, used %v", c.baseline, i, prep[i].SelectScale, c.scale, adv[i].Selection, prep[i].Selection)
			}
			if math.Abs(adv[i].Selection-c.want[i]) > 1e-12 {
				t.Errorf("%v: episode %d: selection %v, want %v", c.baseline, i, adv[i].Selection, c.want[i])
			}
			names := 0
			for tk, role := range r.Roles {
				if role != table.RoleSkillName {
					continue
				}
				names++
				if adv[i].Channels[tk] != ChannelSelection || adv[i].Advantages[tk] != float32(c.want[i]) {
					t.Errorf("%v: episode %d token %d: channel %d advantage %v, want 2 and %v", c.baseline, i, tk, adv[i].Channels[tk], adv[i].Advantages[tk], c.want[i])
				}
			}
			if names != 2*len(r.Reads) {
				t.Errorf("episode %d: %d name tokens", i, names)
			}
		}
	}
}

// TestDropFlatGroups: a group whose rewards are all equal leaves the
// update, its advantages rows all 0 in channel 0; the other group stays.
func TestDropFlatGroups(t *testing.T) {
	rows := []table.Trajectory{readEpisode("flat", 0, "r"), readEpisode("flat", 1, "w"),
		readEpisode("live", 0, "r"), readEpisode("live", 1, "w")}
	rows[2].Reward = 1
	for _, drop := range []bool{false, true} {
		cfg := GRPOConfig{Credit: SkillGate, SelectCoef: 0.2, DropFlat: drop}
		prep, adv := Credits(rows, cfg)
		want := 4
		if drop {
			want = 2
		}
		if len(prep) != want || len(adv) != 4 {
			t.Fatalf("drop %v: %d prepared, %d advantages rows; want %d, 4", drop, len(prep), len(adv), want)
		}
		if drop {
			if prep[0].Row.GroupID != "live" {
				t.Errorf("kept %s", prep[0].Row.GroupID)
			}
			for _, a := range adv[:2] {
				for tk := range a.Channels {
					if a.Channels[tk] != 0 || a.Advantages[tk] != 0 {
						t.Fatalf("dropped episode has credit at token %d", tk)
					}
				}
			}
		} else if prep[0].Selection != 0.5 {
			// Kept, the flat group still has selection credit (actions 1, 0).
			t.Errorf("flat group selection %v, want 0.5", prep[0].Selection)
		}
	}
}

// TestDiscountedReturns: R_t = r_t + gamma R_{t+1}, by hand.
func TestDiscountedReturns(t *testing.T) {
	for _, c := range []struct {
		r     []float64
		gamma float64
		want  []float64
	}{
		{[]float64{0, 0, 1}, 1, []float64{1, 1, 1}},
		{[]float64{0, 0, 1}, 0.95, []float64{0.9025, 0.95, 1}},
		{[]float64{0, 0, 1}, 0, []float64{0, 0, 1}},
		{[]float64{1, 0, 2}, 0.5, []float64{1.5, 1, 2}},
		{nil, 0.9, []float64{}},
	} {
		got := DiscountedReturns(c.r, c.gamma)
		if diff := cmp.Diff(c.want, got, cmpopts.EquateApprox(0, 1e-12), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%v gamma %v (-want +got):\n%s", c.r, c.gamma, diff)
		}
	}
}

// TestStepAdvantages works GiGPO's step groups out by hand on one group of
// three episodes: keys a b c / a b d / a e, step rewards 0 0 1 / 0 0 0 /
// 0 1; states c, d and e are seen once (advantage 0).
func TestStepAdvantages(t *testing.T) {
	keys := [][]string{{"a", "b", "c"}, {"a", "b", "d"}, {"a", "e"}}
	rewards := [][]float64{{0, 0, 1}, {0, 0, 0}, {0, 1}}
	groups := []string{"g", "g", "g"}
	// gamma 1: returns 1 1 1 / 0 0 0 / 1 1. a: {1, 0, 1}, mean 2/3,
	// sample std sqrt((1/9+4/9+1/9)/2) = sqrt(1/3); b: {1, 0}, mean 1/2,
	// std sqrt(1/2).
	sa, sb := math.Sqrt(1.0/3), math.Sqrt(0.5)
	// gamma 0.95: returns 0.9025 0.95 1 / 0 0 0 / 0.95 1. a: {0.9025, 0,
	// 0.95}, mean 0.6175, deviations 0.285 -0.6175 0.3325; b: {0.95, 0},
	// mean 0.475.
	sa95 := math.Sqrt((0.285*0.285 + 0.6175*0.6175 + 0.3325*0.3325) / 2)
	sb95 := math.Sqrt(2 * 0.475 * 0.475)
	cases := []struct {
		name  string
		gamma float64
		norm  AdvNorm
		want  [][]float64
	}{
		{"gamma 1 mean", 1, NormMean, [][]float64{{1.0 / 3, 0.5, 0}, {-2.0 / 3, -0.5, 0}, {1.0 / 3, 0}}},
		{"gamma 1 std", 1, NormStd, [][]float64{
			{(1.0 / 3) / (sa + Eps), 0.5 / (sb + Eps), 0}, {(-2.0 / 3) / (sa + Eps), -0.5 / (sb + Eps), 0}, {(1.0 / 3) / (sa + Eps), 0}}},
		{"gamma 0.95 mean", 0.95, NormMean, [][]float64{{0.285, 0.475, 0}, {-0.6175, -0.475, 0}, {0.3325, 0}}},
		{"gamma 0.95 std", 0.95, NormStd, [][]float64{
			{0.285 / (sa95 + Eps), 0.475 / (sb95 + Eps), 0}, {-0.6175 / (sa95 + Eps), -0.475 / (sb95 + Eps), 0}, {0.3325 / (sa95 + Eps), 0}}},
	}
	for _, c := range cases {
		got, _ := StepAdvantages(keys, rewards, groups, c.gamma, c.norm)
		if diff := cmp.Diff(c.want, got, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
	// All-equal returns in a step group give exactly 0; equal keys in other
	// groups do not meet; repeated states within one episode do.
	keys = [][]string{{"a", "a"}, {"a"}, {"a"}, {"a", "b"}}
	rewards = [][]float64{{0, 1}, {0.5}, {1}, {1, 0}}
	groups = []string{"g1", "g2", "g2", "g3"}
	got, _ := StepAdvantages(keys, rewards, groups, 0.5, NormMean)
	// g1: a {0.5, 1} mean 0.75; g2: a {0.5, 1} mean 0.75; g3: a {1}, b {0}.
	want := [][]float64{{-0.25, 0.25}, {-0.25}, {0.25}, {0, 0}}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("groups apart (-want +got):\n%s", diff)
	}
	got, _ = StepAdvantages([][]string{{"x", "y"}, {"x", "y"}}, [][]float64{{0.1, 0.2}, {0.1, 0.2}}, []string{"g", "g"}, 0.95, NormStd)
	for _, a := range got {
		for _, x := range a {
			if x != 0 {
				t.Errorf("all-equal returns: advantage %v, want exactly 0", x)
			}
		}
	}
	sizes := StepGroupSizes(keys, groups)
	if diff := cmp.Diff([][]int{{2, 2}, {2}, {2}, {1, 1}}, sizes); diff != "" {
		t.Errorf("step group sizes (-want +got):\n%s", diff)
	}
}

// TestTokenCreditSteps: the step advantage of turn t (already weighted)
// adds to the outcome advantage on every outcome-channel token of turn t;
// under skillgate the skill-name tokens keep the selection value alone.
func TestTokenCreditSteps(t *testing.T) {
	// turn 0: two actions; turn 1: a read (verb, name, end); turn 2: one action.
	A, N, O := table.RoleAction, table.RoleSkillName, table.RoleObservation
	roles := []int8{table.RoleTask, A, A, O, A, N, A, table.RoleSkillBody, A}
	step := []float64{0.5, -1, 2}
	turn, n := TurnOf(roles)
	if diff := cmp.Diff([]int{-1, 0, 0, -1, 1, 1, 1, -1, 2}, turn); diff != "" || n != 3 {
		t.Errorf("turns (-want +got):\n%s (n %d)", diff, n)
	}
	adv, ch := TokenCreditSteps(roles, SkillGate, 1, 0.3, true, step)
	wantAdv := []float32{0, 1.5, 1.5, 0, 0, 0.3, 0, 0, 3}
	wantCh := []int8{0, 1, 1, 0, 1, 2, 1, 0, 1}
	if diff := cmp.Diff(wantAdv, adv); diff != "" {
		t.Errorf("skillgate advantages (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantCh, ch); diff != "" {
		t.Errorf("skillgate channels (-want +got):\n%s", diff)
	}
	adv, _ = TokenCreditSteps(roles, Broadcast, 1, 0, true, step)
	if diff := cmp.Diff([]float32{0, 1.5, 1.5, 0, 0, 0, 0, 0, 3}, adv); diff != "" {
		t.Errorf("broadcast advantages (-want +got):\n%s", diff)
	}
}

// TestCreditsSkillGateWithGiGPO: combined, the advantages rows carry the
// step advantages per turn, execution tokens get outcome + weight*step,
// and skill-name tokens get the selection value and nothing of the step.
func TestCreditsSkillGateWithGiGPO(t *testing.T) {
	// Two episodes of one group. Turns: e0 read (right), act, act; e1 act, act.
	rows := []table.Trajectory{readEpisode("g", 0, "r"), readEpisode("g", 1, "")}
	// Give each a second action turn.
	for i := range rows {
		for _, x := range []int8{table.RoleAction, table.RoleAction} {
			rows[i].Tokens = append(rows[i].Tokens, int32(len(rows[i].Tokens)))
			rows[i].Roles = append(rows[i].Roles, x)
		}
	}
	rows[0].StepKeys, rows[0].StepRewards = []string{"s0", "s0", "s1"}, []float64{0, 0, 1}
	rows[1].StepKeys, rows[1].StepRewards = []string{"s0", "s1"}, []float64{0, 0}
	rows[0].Reward, rows[1].Reward = 1, 0
	cfg := GRPOConfig{Credit: SkillGate, Step: StepGiGPO, Norm: NormMean, Gamma: 1, StepWeight: 2, SelectCoef: 0.2}
	if err := CheckSteps(rows, []string{"a", "b"}); err != nil {
		t.Fatal(err)
	}
	_, adv := Credits(rows, cfg)
	// Episode: rewards 1, 0: outcome +-0.5. Returns (gamma 1): e0 1 1 1,
	// e1 0 0. s0: {1, 1, 0} mean 2/3; s1: {1, 0} mean 1/2.
	wantStep := [][]float64{{1.0 / 3, 1.0 / 3, 0.5}, {-2.0 / 3, -0.5}}
	// Selection: e0's single right read is the group's only read action:
	// one utility, no selection credit.
	for i, a := range adv {
		if diff := cmp.Diff(wantStep[i], a.StepAdvantages, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
			t.Errorf("episode %d step advantages (-want +got):\n%s", i, diff)
		}
		if a.Credit != "skillgate+gigpo" {
			t.Errorf("credit %q", a.Credit)
		}
		turn, _ := TurnOf(rows[i].Roles)
		for tk, role := range rows[i].Roles {
			var want float64
			switch role {
			case table.RoleAction:
				want = a.Outcome + 2*wantStep[i][turn[tk]]
			case table.RoleSkillName:
				want = a.Selection
			default:
				continue
			}
			if math.Abs(float64(a.Advantages[tk])-want) > 1e-6 {
				t.Errorf("episode %d token %d (role %d, turn %d): %v, want %v", i, tk, role, turn[tk], a.Advantages[tk], want)
			}
		}
	}
	// Step columns that do not match the turns are refused.
	rows[1].StepKeys = rows[1].StepKeys[:1]
	if err := CheckSteps(rows, []string{"a", "b"}); err == nil {
		t.Error("CheckSteps took 1 key for 2 turns")
	}
}

// TestSelectScale: the selection channel's surrogate (loss and weight) is
// scaled by SelectScale, the outcome channel's is not, and the KL term of
// a selection token is left unscaled.
func TestSelectScale(t *testing.T) {
	rows := []table.Trajectory{readEpisode("g", 0, "r"), readEpisode("g", 1, "w")}
	rows[0].Reward = 1
	for i := range rows {
		rows[i].Logprobs = make([]float32, len(rows[i].Tokens))
		for tk := range rows[i].Logprobs {
			rows[i].Logprobs[tk] = -1
		}
	}
	weights := func(coef, kl float64) (sel, out []float32) {
		cfg := GRPOConfig{Credit: SkillGate, SelectCoef: coef, Clip: 0.2, KL: kl}
		prep, _ := Credits(rows, cfg)
		p := &prep[0]
		p.Ref = make([]float32, len(p.Row.Tokens))
		lp := make([]float32, len(p.Row.Tokens))
		for tk := range lp {
			lp[tk], p.Ref[tk] = -0.9, -1.2
		}
		var st stepStats
		w := grpoWeights(p, lp, lp, Weights{1, 1}, cfg, &st)
		for tk, ch := range p.Channels {
			switch ch {
			case ChannelSelection:
				sel = append(sel, w[tk])
			case ChannelOutcome:
				out = append(out, w[tk])
			}
		}
		return sel, out
	}
	s1, o1 := weights(1, 0)
	s2, o2 := weights(0.2, 0)
	if len(s1) == 0 || len(o1) == 0 {
		t.Fatal("no tokens in a channel")
	}
	for k := range s1 {
		if s1[k] == 0 || math.Abs(float64(s2[k])-0.2*float64(s1[k])) > 1e-7 {
			t.Errorf("selection weight %v at coef 0.2, %v at 1", s2[k], s1[k])
		}
	}
	if diff := cmp.Diff(o1, o2); diff != "" {
		t.Errorf("outcome weights moved with select_coef (-1 +0.2):\n%s", diff)
	}
	// With a KL term: the selection weight is 0.2*surrogate + KL part.
	k1, _ := weights(1, 0.5)
	k2, _ := weights(0.2, 0.5)
	for k := range k1 {
		klPart := k1[k] - s1[k]
		if math.Abs(float64(k2[k])-(0.2*float64(s1[k])+float64(klPart))) > 1e-6 {
			t.Errorf("KL part scaled: %v vs %v", k2[k], 0.2*s1[k]+klPart)
		}
	}
}

// TestCheckCredit: rewards and step rewards each finite whose advantages
// are not (a group's spread, a discounted return, a token sum beyond
// float32) are refused as bad input naming the file and the episode;
// ordinary ones pass.
func TestCheckCredit(t *testing.T) {
	big := math.MaxFloat64
	for _, tc := range []struct {
		name string
		edit func(rows []table.Trajectory)
		cfg  GRPOConfig
		want string // "" passes
	}{
		{"ordinary", func([]table.Trajectory) {}, GRPOConfig{Step: StepGiGPO, Gamma: 0.95, StepWeight: 1}, ""},
		{"step returns overflow", func(r []table.Trajectory) { r[1].StepRewards = []float64{big, big} },
			GRPOConfig{Step: StepGiGPO, Gamma: 0.95, StepWeight: 1}, "b: episode g sample 1: step_rewards overflow: the discounted return of turn 0 is +Inf"},
		{"step rewards not used", func(r []table.Trajectory) { r[1].StepRewards = []float64{big, big} }, GRPOConfig{}, ""},
		{"group spread overflows", func(r []table.Trajectory) { r[0].Reward, r[1].Reward = big, -big },
			GRPOConfig{}, "a: episode g sample 0: reward 1.7976931348623157e+308: its group's advantage overflows"},
		{"token sum beyond float32", func(r []table.Trajectory) { r[0].Reward, r[1].Reward = 1e38, -1e38 },
			GRPOConfig{Norm: NormMean}, "a: episode g sample 0: reward 1e+38: the advantages of its tokens sum to"},
		{"large but fine", func(r []table.Trajectory) { r[0].Reward, r[1].Reward = 1e30, -1e30 }, GRPOConfig{Norm: NormMean}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows := []table.Trajectory{readEpisode("g", 0, "r"), readEpisode("g", 1, "")}
			for i := range rows {
				for _, x := range []int8{table.RoleAction, table.RoleAction} {
					rows[i].Tokens = append(rows[i].Tokens, int32(len(rows[i].Tokens)))
					rows[i].Roles = append(rows[i].Roles, x)
				}
			}
			rows[0].StepKeys, rows[0].StepRewards = []string{"s0", "s0", "s1"}, []float64{0, 0, 1}
			rows[1].StepKeys, rows[1].StepRewards = []string{"s0", "s1"}, []float64{0, 0}
			rows[0].Reward, rows[1].Reward = 1, 0
			tc.edit(rows)
			err := CheckCredit(rows, []string{"a", "b"}, tc.cfg)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want one with %q", err, tc.want)
			case tc.want != "" && !table.IsInputError(err):
				t.Errorf("%v is not an input error (exit 2)", err)
			}
		})
	}
}
