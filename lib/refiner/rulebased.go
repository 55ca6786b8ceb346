package refiner

import (
	"context"
	"fmt"

	"github.com/pats-rl/pats/lib/scaffold"
	"github.com/pats-rl/pats/lib/table"
)

// RuleBased is the rule-based refiner: deterministic, and every rule it
// writes is a feature of the run's own episodes, with the statistic behind
// it stated in the proposal's rationale.
//
// Evidence. The scope's cards are the cards of its task type (every card
// for the general layer) of the last Input.Window iterations (k-Window+1
// .. k; Input.Cards carries the earlier iterations' cards beside iteration
// k's),
// each weighted Decay^(k - its iteration): the type's evidence accumulated
// over iterations, newer cards counting more. From a card's feature
// frequencies the counts of episodes per side showing a feature follow;
// summed with the weights they give the smoothed shares p_s(f) and p_f(f)
// of successful and failed episodes showing f, and the smoothed share of
// failed episodes per failure mode. The rationale states the raw counts
// ("source:cabinet in 9/10 successes and 11/30 failures over iterations
// 3-5, 6 cards") and the smoothed figure the rule tested.
//
// The rules. A feature makes an item only through a template
// (DefaultTemplates), whose only content word is the feature's value; a
// feature without one (milestones, visited places, receptacles) makes
// none.
//
//   - Choice rule, for the choice slots (Choices: features of which an
//     episode shows one value, written when it did the slot's step, e.g.
//     source:<place the target was taken from>, heat:<what heated it>): a
//     value's weight is its successful episodes plus Partial times its
//     failed ones (a failed episode showing it got that far: partly
//     successful). The value of the largest weight (ties by name) holds
//     when its share of the slot's weight is at least SlotShare, no
//     other value has more successful episodes, and the step itself
//     (any value) is done by at least SuccessShare of the successful
//     episodes and more often than by the failed ones (with no success
//     in the window: by at least MinShare of the failed ones). This
//     keeps what successes share with the failures that got far
//     (source:cabinet in every success and half the failures), which a
//     success-failure contrast drops, and it needs few successes. A
//     card supports it when the value is the largest in that card.
//   - Shared-contrast rule, for the other features: p_s(f) >= SuccessShare
//     (what most successes share, the card's Phi(G+)) and p_s(f) - p_f(f)
//     >= MinLean. A card supports it when card.Lean(c, f) > 0.
//   - Failure rule, for failure modes (Mistake items): a smoothed share of
//     the failed episodes of at least MinShare. A card supports it when it
//     has a failed episode with the mode.
//
// Every addition needs MinSupport supporting cards of the window. A rule
// goes to the General layer only when it holds in at least two task types
// and in more than GeneralShare of the types whose evidence bears on it
// (for a choice slot: the types that show any value of the slot; each type
// judged on its own smoothed evidence, and a task feature holding there
// only with a successful episode of the type showing it): a place that is
// right for 2 of 6 types stays in those types' Task layers.
//
// An item is linked to a feature when its text is the feature's template
// text, or when every word of the feature's value appears in the item's
// text (task features link to task and general items, failure features to
// mistake and general items). An item's current support is the set of
// window cards supporting a linked feature.
//
// EXPAND adds up to Quota items (never past the caps): the features whose
// rule holds, not linked to an item of the scope or the general layer,
// best first (choice share, contrast or failure share; then name).
//
// REVISE (never grows the item count), up to Quota proposals: first
// corrections. An item whose text is a choice slot's template filled with
// value v ("Look in the drawer first.": source:drawer) is edited to the
// template filled with the value w the slot holds now, when w != v and
// w's rule holds with enough support (for the general layer, widely):
// "Look in the drawer first." -> "Look in the cabinet first." when the
// smoothed evidence now says cabinet. Then merges of near-duplicate items
// (same layer, token Jaccard >= MergeJaccard, and not two slot texts of
// different features, which share a template's words; the text of the
// better-supported one is kept, supports are united), then re-scoping of
// mistake items with no current support to the most frequent failure mode
// whose rule holds and that no item covers, then support updates of items
// whose current support (>= MinSupport cards) differs from the recorded
// one.
//
// COMPRESS (never grows items or tokens), up to Quota proposals: merges of
// near-duplicates keeping the shorter text, then deletions of items none
// of whose linked features' rules holds with enough support any more;
// least supported first, then least recently updated, then id.
//
// FORCED_PRUNE deletes the items least supported by the current cards
// (ordered as for COMPRESS deletions) until the scope is below both caps,
// and at least one.
type RuleBased struct {
	Templates    map[string]string // feature -> text; nil = DefaultTemplates
	Choices      []string          // choice slot prefixes; nil = DefaultChoices
	Decay        float64           // weight per iteration of a card's age; default 0.7
	Partial      float64           // weight of a failed episode in a choice slot; default 0.5
	SlotShare    float64           // share of a choice slot's weight its value needs; default 0.6
	SuccessShare float64           // share of successful episodes a shared-contrast feature needs; default 0.5
	MinLean      float64           // separating difference; default 0.2
	MinShare     float64           // failure-mode share for a mistake; default 0.25
	MergeJaccard float64           // near-duplicate threshold; default 0.6
	GeneralShare float64           // share of the types bearing on a rule it must hold in (more than) to be general; default 0.5
}

// NewRuleBased returns a RuleBased with the defaults.
func NewRuleBased() *RuleBased {
	return (&RuleBased{}).defaults()
}

// Name implements Refiner: "builtin", the --refiner value that selects it
// and what its proposals record as their refiner.
func (b *RuleBased) Name() string { return "builtin" }

func (b *RuleBased) defaults() *RuleBased {
	c := *b
	if c.Templates == nil {
		c.Templates = DefaultTemplates
	}
	if c.Choices == nil {
		c.Choices = DefaultChoices
	}
	if c.Decay <= 0 || c.Decay > 1 {
		c.Decay = 0.7
	}
	if c.Partial <= 0 {
		c.Partial = 0.5
	}
	if c.SlotShare <= 0 {
		c.SlotShare = 0.6
	}
	if c.SuccessShare <= 0 {
		c.SuccessShare = 0.5
	}
	if c.MinLean <= 0 {
		c.MinLean = 0.2
	}
	if c.MinShare <= 0 {
		c.MinShare = 0.25
	}
	if c.MergeJaccard <= 0 {
		c.MergeJaccard = 0.6
	}
	if c.GeneralShare <= 0 {
		c.GeneralShare = 0.5
	}
	return &c
}

// Propose implements Refiner.
func (b *RuleBased) Propose(ctx context.Context, in Input) (Result, error) {
	b = b.defaults()
	in = in.withDefaults()
	s := b.state(in)
	var props []table.Proposal
	var reason string
	switch in.Primitive {
	case scaffold.Expand:
		props, reason = b.expand(s)
	case scaffold.Revise:
		props, reason = b.revise(s)
	case scaffold.Compress:
		if in.fading() {
			props, reason = b.fade(s)
		} else {
			props, reason = b.compress(s)
		}
	case scaffold.ForcedPrune:
		props, reason = b.prune(s)
	case scaffold.None, "":
		return Result{Reason: "primitive NONE: nothing to propose"}, nil
	default:
		return Result{}, fmt.Errorf("refiner: unknown primitive %q", in.Primitive)
	}
	for i := range props {
		p := &props[i]
		p.ProposalID = ProposalID(in.Iteration, in.TaskType, i+1)
		p.Iteration = in.Iteration
		p.TaskType = in.TaskType
		p.Primitive = in.Primitive
		p.Refiner = b.Name()
		if p.Targets == nil {
			p.Targets = []string{}
		}
		if p.Support == nil {
			p.Support = []string{}
		}
	}
	if len(props) > 0 {
		reason = ""
	}
	return Result{Proposals: props, Reason: reason}, nil
}
