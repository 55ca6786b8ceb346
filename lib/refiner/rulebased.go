package refiner

import (
	"context"
	"fmt"

	"github.com/pats-rl/pats/lib/scaffold"
	"github.com/pats-rl/pats/lib/table"
)

// RuleBased is the rule-based refiner: deterministic and contrastive.
//
// Terms. The scope's cards are the cards of its task type (all cards for the
// general layer). A feature's pooled difference d(f) = p_success(f) -
// p_failure(f) over the scope's episodes. A card supports a task feature f
// when card.Lean(c, f) > 0, and a failure mode m when c has a failed episode
// with mode m (or the feature "failure:m" on its failure side). An item is
// linked to a feature when its text is the feature's template text, or when
// every word of the feature's value appears in the item's text (task
// features link to task and general items, failure features to mistake and
// general items). An item's current support is the set of scope cards
// supporting a linked feature.
//
// EXPAND adds up to Quota items (and never past the caps): task items for
// task features with d(f) >= MinLean and >= MinSupport supporting cards,
// mistake items for failure modes in at least MinShare of the failed
// episodes with >= MinSupport cards; features already linked to an item of
// the scope are skipped; candidates are ranked by d(f) or mode share, then
// name. For the general layer a candidate must be supported in at least two
// task types and hold in at least half of the types that show it
// (GeneralShare), and becomes a general item: a feature that separates
// success from failure in only some of the types it occurs in is a
// type-specific fact, which the Task (or Mistake) layer of those types
// takes. A task feature holds in a type when its pooled difference there is
// >= MinLean; a failure mode when it is in at least MinShare of the type's
// failed episodes.
//
// REVISE (never grows the item count), up to Quota proposals: first
// corrections of items the evidence contradicts. A slot template is one
// whose key is a prefix and whose text holds {value} ("source:" -> "Look
// in the {value} first."); an item whose text is a slot template filled
// with value v states P:v. When a sibling feature P:w (w != v) separates
// success from failure (d >= MinLean, >= MinSupport supporting cards) and
// P:v does not (d(P:v) < MinLean), the item's text is edited to the
// template filled with the best such w (highest d, then name): the rule's
// content changes ("Look in the cabinet first." -> "Look in the drawer
// first." when successful episodes took the object from drawers and failed
// ones did not). Then merges of
// near-duplicate items (same layer, token Jaccard >= MergeJaccard; the text
// of the better-supported one is kept, supports are united), then re-scoping
// of mistake items with no current support (their failure mode no longer
// occurs, or they name none the cards show) to the most frequent
// uncovered failure mode, then support updates of items whose current
// support (>= MinSupport cards) differs from the recorded one.
//
// COMPRESS (never grows items or tokens), up to Quota proposals: merges of
// near-duplicates keeping the shorter text, then deletions of items with no
// current evidence: linked features that no longer separate success from
// failure (|d| < MinLean, or fewer than MinSupport supporting cards), or no
// current support at all; least supported first, then least recently
// updated, then id.
//
// FORCED_PRUNE deletes the items least supported by the current cards
// (ordered as for COMPRESS deletions) until the scope is below both caps,
// and at least one.
type RuleBased struct {
	Templates    map[string]string // feature -> text; nil = DefaultTemplates
	MinLean      float64           // separating difference; default 0.2
	MinShare     float64           // failure-mode share for a mistake; default 0.25
	MergeJaccard float64           // near-duplicate threshold; default 0.6
	GeneralShare float64           // share of the types showing a feature where it must hold to be general; default 0.5
}

// NewRuleBased returns a RuleBased with the defaults.
func NewRuleBased() *RuleBased {
	return &RuleBased{Templates: DefaultTemplates, MinLean: 0.2, MinShare: 0.25, MergeJaccard: 0.6, GeneralShare: 0.5}
}

// Name implements Refiner: "builtin", the --refiner value that selects it
// and what its proposals record as their refiner.
func (b *RuleBased) Name() string { return "builtin" }

func (b *RuleBased) defaults() *RuleBased {
	c := *b
	if c.Templates == nil {
		c.Templates = DefaultTemplates
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
		props, reason = b.compress(s)
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
