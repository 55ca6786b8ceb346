package refiner_test

import (
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/card"
	"github.com/pats-rl/pats/lib/control"
	"github.com/pats-rl/pats/lib/env"
	_ "github.com/pats-rl/pats/lib/env/shipped"
	"github.com/pats-rl/pats/lib/refiner"
	"github.com/pats-rl/pats/lib/rollout"
	"github.com/pats-rl/pats/lib/scaffold"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
	"github.com/pats-rl/pats/lib/validate"
	"github.com/pats-rl/pats/lib/words"
)

// realCards rolls out household-rl's train tasks for iterations 0..iters-1
// with groups mixing the oracle's episodes (2 per task) and the random
// policy's (6 per task, samples 2-7), and returns the cards of each
// iteration.
func realCards(t *testing.T, iters int) [][]table.Card {
	t.Helper()
	e, err := env.Open("household-rl")
	if err != nil {
		t.Fatal(err)
	}
	tok, err := tokenizer.ShippedWordLevel()
	if err != nil {
		t.Fatal(err)
	}
	var out [][]table.Card
	for k := 0; k < iters; k++ {
		var trajs []table.Trajectory
		for _, p := range []struct {
			pol   rollout.Policy
			group int
		}{
			{rollout.TextPolicy{PolicyName: "oracle", New: e.Oracle}, 2},
			{rollout.TextPolicy{PolicyName: "random", New: env.RandomAgent}, 6},
		} {
			rows, err := rollout.Run(context.Background(), rollout.Options{Env: e, Split: "train", Tasks: 10, Group: p.group,
				Seed: int64(100 + k), Iteration: k, Policy: p.pol, Tok: tok, MaxContext: 4096})
			if err != nil {
				t.Fatal(err)
			}
			if p.group == 6 {
				for i := range rows {
					rows[i].Sample += 2
				}
			}
			trajs = append(trajs, rows...)
		}
		cards, _, err := card.Build(trajs, card.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, cards)
	}
	return out
}

// shows reports whether card c shows feature f: on either side, or as a
// failure mode.
func shows(c table.Card, f string) bool {
	for _, x := range append(append([]string{}, c.SuccessFeatures...), c.FailureFeatures...) {
		if x == f {
			return true
		}
	}
	if m, ok := strings.CutPrefix(f, "failure:"); ok {
		return card.ModeCount(c, m) > 0
	}
	return false
}

// TestItemsTraceToOwnCards: on cards of real household-rl rollouts over
// four iterations, the rule-based refiner's items (EXPAND every scope, the
// validator applying them, then REVISE) each state a feature of the cards
// they cite: the rationale names the feature, the text is its template's,
// the text's words beyond the template's frame are the feature's value
// words, and every cited card exists and shows the feature.
func TestItemsTraceToOwnCards(t *testing.T) {
	byIter := realCards(t, 4)
	ref := refiner.NewRuleBased()
	co := control.DefaultOptions()
	var snap []table.ScaffoldItem
	var all []table.Card
	n := 0
	for k, cards := range byIter {
		all = append(all, cards...)
		types := map[string]bool{"": true}
		for _, c := range cards {
			types[c.TaskType] = true
		}
		var scopes []string
		for s := range types {
			scopes = append(scopes, s)
		}
		sort.Strings(scopes)
		for _, prim := range []string{scaffold.Expand, scaffold.Revise} {
			var props []table.Proposal
			for _, sc := range scopes {
				mi, mt := co.Caps(sc)
				res, err := ref.Propose(context.Background(), refiner.Input{Iteration: int32(k), TaskType: sc, Primitive: prim,
					Cards: all, Items: snap, Quota: co.ExpandQuota, MaxItems: mi, MaxTokens: mt})
				if err != nil {
					t.Fatal(err)
				}
				props = append(props, res.Proposals...)
			}
			byID := map[string]table.Card{}
			for _, c := range all {
				byID[c.CardID] = c
			}
			for _, p := range props {
				if p.Op != "add" && !(p.Op == "edit" && strings.HasPrefix(p.Rationale, "corrected ")) {
					continue
				}
				n++
				f := feature(p)
				t.Logf("%s %s %q <- %s", p.ProposalID, p.Op, p.Text, p.Rationale)
				if got := ref.Text(f); got != p.Text {
					t.Errorf("%s: text %q is not the template text %q of its feature %s", p.ProposalID, p.Text, got, f)
				}
				checkWords(t, ref, p, f)
				if len(p.Support) < co.MinSupport {
					t.Errorf("%s: %d supporting cards", p.ProposalID, len(p.Support))
				}
				for _, id := range p.Support {
					c, ok := byID[id]
					if !ok {
						t.Errorf("%s cites card %s, which the run does not have", p.ProposalID, id)
						continue
					}
					if !shows(c, f) {
						t.Errorf("%s cites card %s, which does not show %s", p.ProposalID, id, f)
					}
					if c.Iteration > int32(k) {
						t.Errorf("%s cites card %s of a later iteration", p.ProposalID, id)
					}
				}
			}
			next, dec := validate.Apply(snap, props, all, validate.Options{Iteration: int32(k), Limits: co.Limits})
			for i, d := range dec {
				if !d.Accepted && d.Reason != validate.Duplicate {
					t.Errorf("%+v rejected: %s %s", props[i], d.Reason, d.Message)
				}
			}
			snap = next
		}
	}
	if n < 5 {
		t.Fatalf("only %d items proposed over 4 iterations: the test checks too little", n)
	}
	// The audit's judge (never an input of the refiner) on the final
	// snapshot: what the judgeable items claim holds in household-rl.
	e, _ := env.Open("household-rl")
	judge := e.(env.Judge)
	right, wrong := 0, 0
	for _, it := range snap {
		j, err := judge.JudgeItem(it.TaskType, it.Text)
		if err != nil {
			t.Fatal(err)
		}
		switch j.Verdict {
		case env.VerdictTrue:
			right++
		case env.VerdictFalse:
			wrong++
		}
		t.Logf("final %s [%s] %s: %s", it.ID, it.Layer, it.Text, j.Verdict)
	}
	if right < 4 || wrong*5 > right+wrong {
		t.Errorf("%d items judged true, %d false: want at least 4 and a precision of at least 0.8", right, wrong)
	}
}

// feature is the feature a proposal states: the first word of its
// rationale (an addition's) or the word after "to" (a correction's).
func feature(p table.Proposal) string {
	w := strings.Fields(p.Rationale)
	if p.Op == "edit" {
		return strings.TrimSuffix(w[3], ":")
	}
	return w[0]
}

// checkWords checks that the words of p's text beyond its template's frame
// are the value words of f.
func checkWords(t *testing.T, ref *refiner.RuleBased, p table.Proposal, f string) {
	t.Helper()
	tm, ok := refiner.DefaultTemplates[f]
	if !ok {
		prefix, _, _ := strings.Cut(f, ":")
		tm = refiner.DefaultTemplates[prefix+":"]
	}
	frame := words.Set(strings.ReplaceAll(tm, "{value}", " "))
	_, v, _ := strings.Cut(f, ":")
	value := words.Set(strings.NewReplacer("_", " ", "-", " ").Replace(v))
	for w := range words.Set(p.Text) {
		if !frame[w] && !value[w] {
			t.Errorf("%s: word %q of %q is neither the template's nor the value of %s", p.ProposalID, w, p.Text, f)
		}
	}
	if strings.Contains(tm, "{value}") {
		for w := range value {
			if !words.Set(p.Text)[w] {
				t.Errorf("%s: %q lacks the value word %q of %s", p.ProposalID, p.Text, w, f)
			}
		}
	}
}
