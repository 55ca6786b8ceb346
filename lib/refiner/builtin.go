package refiner

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/pats-rl/pats/lib/card"
	"github.com/pats-rl/pats/lib/scaffold"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/words"
)

// DefaultTemplates turn features into item text. A key is a whole feature
// ("action:heat") or a prefix ending in ':' ("action:"); the empty key is the
// fallback. In a value, {value} is the feature's value with '_' and '-' as
// spaces and {prefix} its prefix. Failure features ("failure:<mode>") and
// failure modes become Mistake items.
var DefaultTemplates = map[string]string{
	"action:heat":             "Heat the object with the microwave before placing it.",
	"action:cool":             "Cool the object with the fridge before placing it.",
	"action:clean":            "Clean the object in the sinkbasin before placing it.",
	"action:use":              "Turn on the desklamp and look at the object under it.",
	"action:take":             "Take the target object before going to the destination.",
	"action:put":              "Put the object in or on the target receptacle.",
	"action:open":             "Open closed receptacles to look inside them.",
	"action:examine":          "Examine the object to check it is the right one.",
	"action:search":           "Search with the key words of the instruction.",
	"action:click":            "Click the item that matches every attribute of the instruction.",
	"action:answer":           "Answer only when the retrieved text supports the answer.",
	"failure:loop":            "Do not repeat the same action again and again; try a new place.",
	"failure:max_steps":       "Do not waste steps; go to the most likely places first.",
	"failure:invalid_action":  "Only send actions from the admissible list.",
	"failure:invalid_actions": "Only send actions from the admissible list.",
	"failure:wrong_object":    "Check the object name against the task before taking it.",
	"source:":                 "Look in the {value} first.",
	"heat:":                   "Heat the object with the {value} before placing it.",
	"cool:":                   "Cool the object with the {value} before placing it.",
	"clean:":                  "Clean the object in the {value} before placing it.",
	"action:":                 "Use the {value} action when the task calls for it.",
	"object:":                 "Find the {value} first; the task is about it.",
	"milestone:":              "Make sure you reach this step: {value}.",
	"failure:":                "Avoid this failure: {value}.",
	"":                        "Aim for {prefix} {value}.",
}

// Builtin is the deterministic contrastive refiner.
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
type Builtin struct {
	Templates    map[string]string // feature -> text; nil = DefaultTemplates
	MinLean      float64           // separating difference; default 0.2
	MinShare     float64           // failure-mode share for a mistake; default 0.25
	MergeJaccard float64           // near-duplicate threshold; default 0.6
	GeneralShare float64           // share of the types showing a feature where it must hold to be general; default 0.5
}

// NewBuiltin returns a Builtin with the defaults.
func NewBuiltin() *Builtin {
	return &Builtin{Templates: DefaultTemplates, MinLean: 0.2, MinShare: 0.25, MergeJaccard: 0.6, GeneralShare: 0.5}
}

// Name implements Refiner.
func (b *Builtin) Name() string { return "builtin" }

func (b *Builtin) defaults() *Builtin {
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

// Text is the item text for feature f.
func (b *Builtin) Text(f string) string {
	tm := b.Templates
	if tm == nil {
		tm = DefaultTemplates
	}
	prefix, value := splitFeature(f)
	t, ok := tm[f]
	if !ok {
		t, ok = tm[prefix+":"]
	}
	if !ok {
		t = tm[""]
	}
	if t == "" {
		t = "Aim for {prefix} {value}."
	}
	t = strings.ReplaceAll(t, "{value}", humanize(value))
	t = strings.ReplaceAll(t, "{prefix}", humanize(prefix))
	return strings.Join(strings.Fields(t), " ")
}

func isFailure(f string) bool { p, _ := splitFeature(f); return p == "failure" }

// scopeState is what the primitives work from.
type scopeState struct {
	in      Input
	cards   []table.Card
	items   []table.ScaffoldItem
	ps, pf  map[string]float64
	nS, nF  float64
	feats   []string            // all features seen in the scope's cards, sorted
	modes   map[string]int32    // failure mode -> failed episodes
	support map[string][]string // feature ("failure:<mode>" for modes) -> supporting card ids
	links   map[string][]string // item id -> linked features
}

func (b *Builtin) state(in Input) *scopeState {
	s := &scopeState{in: in, cards: ScopeCards(in.Cards, in.TaskType), items: ScopeItems(in.Items, in.TaskType)}
	s.ps, s.pf, s.nS, s.nF = pooled(s.cards)
	fs := map[string]bool{}
	for f := range s.ps {
		fs[f] = true
	}
	for f := range s.pf {
		fs[f] = true
	}
	s.modes = map[string]int32{}
	s.support = map[string][]string{}
	for _, c := range s.cards {
		for i, m := range c.FailureModes {
			if m == card.UnknownFailure || m == "" {
				continue
			}
			s.modes[m] += c.FailureModeCounts[i]
			fs["failure:"+m] = true
		}
	}
	s.feats = sortedKeys(fs)
	for _, f := range s.feats {
		for _, c := range s.cards {
			if supports(c, f) {
				s.support[f] = append(s.support[f], c.CardID)
			}
		}
	}
	s.links = map[string][]string{}
	for _, it := range s.items {
		s.links[it.ID] = b.linked(it, s.feats)
	}
	return s
}

// supports reports whether card c supports feature f (see Builtin).
func supports(c table.Card, f string) bool {
	if isFailure(f) {
		_, m := splitFeature(f)
		if card.ModeCount(c, m) > 0 {
			return true
		}
		_, fl := card.Freq(c, f)
		return fl > 0
	}
	return card.Lean(c, f) > 0
}

// linked returns the features of feats linked to item it.
func (b *Builtin) linked(it table.ScaffoldItem, feats []string) []string {
	var out []string
	itemWords := words.Set(it.Text)
	for _, f := range feats {
		fail := isFailure(f)
		if fail && it.Layer == scaffold.LayerTask || !fail && it.Layer == scaffold.LayerMistake {
			continue
		}
		if scaffold.Normalize(b.Text(f)) == scaffold.Normalize(it.Text) {
			out = append(out, f)
			continue
		}
		_, v := splitFeature(f)
		vw := words.Set(v)
		if len(vw) == 0 {
			continue
		}
		all := true
		for w := range vw {
			if !itemWords[w] {
				all = false
				break
			}
		}
		if all {
			out = append(out, f)
		}
	}
	return out
}

// current returns the scope cards currently supporting item id.
func (s *scopeState) current(id string) []string {
	var all []string
	for _, f := range s.links[id] {
		all = append(all, s.support[f]...)
	}
	return unique(all)
}

// diff is the pooled p_success(f) - p_failure(f); 0 unless both sides have
// episodes (a one-sided scope shows no contrast).
func (s *scopeState) diff(f string) float64 {
	if s.nS == 0 || s.nF == 0 {
		return 0
	}
	return s.ps[f] - s.pf[f]
}

// typesOf counts the distinct task types of card ids.
func (s *scopeState) typesOf(ids []string) int {
	t := map[string]bool{}
	for _, c := range s.cards {
		for _, id := range ids {
			if c.CardID == id {
				t[c.TaskType] = true
			}
		}
	}
	return len(t)
}

// Propose implements Refiner.
func (b *Builtin) Propose(ctx context.Context, in Input) (Result, error) {
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

type candidate struct {
	feature string
	layer   string
	score   float64
	text    string
	support []string
}

// topSupport keeps at most 8 supporting cards (sorted ids), enough to show
// the evidence without making rows long.
func topSupport(ids []string) []string {
	ids = unique(ids)
	if len(ids) > 8 {
		ids = ids[:8]
	}
	return ids
}

func (b *Builtin) expand(s *scopeState) ([]table.Proposal, string) {
	in := s.in
	n, tok := scaffold.ScopeTotals(in.Items, in.TaskType)
	room := in.Quota
	if in.MaxItems-n < room {
		room = in.MaxItems - n
	}
	if room <= 0 {
		return nil, "item cap reached"
	}
	covered := map[string]bool{}
	existing := map[string]bool{}
	for _, it := range in.Items {
		if scaffold.Scope(it) != in.TaskType && it.Layer != scaffold.LayerGeneral {
			continue
		}
		for _, f := range b.linked(it, s.feats) {
			covered[f] = true
		}
		if scaffold.Scope(it) == in.TaskType {
			existing[scaffold.Normalize(it.Text)] = true
		}
	}
	general := in.TaskType == ""
	var cands []candidate
	for _, f := range s.feats {
		if covered[f] {
			continue
		}
		sup := s.support[f]
		if len(sup) < in.MinSupport || general && (s.typesOf(sup) < 2 || !b.holdsWidely(s, f)) {
			continue
		}
		c := candidate{feature: f, support: topSupport(sup), text: b.Text(f)}
		if isFailure(f) {
			_, m := splitFeature(f)
			share := 0.0
			if s.nF > 0 {
				share = math.Max(float64(s.modes[m])/s.nF, s.pf[f])
			}
			if share < b.MinShare {
				continue
			}
			c.layer, c.score = scaffold.LayerMistake, share
		} else {
			d := s.diff(f)
			if d < b.MinLean {
				continue
			}
			c.layer, c.score = scaffold.LayerTask, d
		}
		if general {
			c.layer = scaffold.LayerGeneral
		}
		cands = append(cands, c)
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].score != cands[j].score {
			return cands[i].score > cands[j].score
		}
		return cands[i].feature < cands[j].feature
	})
	var props []table.Proposal
	for _, c := range cands {
		if len(props) >= room {
			break
		}
		k := in.Count(c.text)
		norm := scaffold.Normalize(c.text)
		if k > in.MaxItemTokens || tok+k > in.MaxTokens || existing[norm] {
			continue
		}
		existing[norm] = true
		tok += k
		props = append(props, table.Proposal{Op: "add", Layer: c.layer, Text: c.text, Support: c.support,
			Rationale: fmt.Sprintf("%s: score %.2f over %d cards", c.feature, c.score, len(c.support))})
	}
	if len(props) == 0 {
		return nil, "no uncovered feature separates success from failure with enough support"
	}
	return props, ""
}

// holdsWidely reports whether feature f holds (see Builtin) in at least
// GeneralShare of the task types whose cards show it, and in at least two.
func (b *Builtin) holdsWidely(s *scopeState, f string) bool {
	byType := map[string][]table.Card{}
	for _, c := range s.cards {
		byType[c.TaskType] = append(byType[c.TaskType], c)
	}
	shown, holds := 0, 0
	for _, t := range sortedKeys(byType) {
		ps, pf, nS, nF := pooled(byType[t])
		if ps[f] == 0 && pf[f] == 0 {
			if _, m := splitFeature(f); !isFailure(f) || !hasMode(byType[t], m) {
				continue
			}
		}
		shown++
		if isFailure(f) {
			_, m := splitFeature(f)
			var n int32
			for _, c := range byType[t] {
				n += card.ModeCount(c, m)
			}
			if nF > 0 && math.Max(float64(n)/nF, pf[f]) >= b.MinShare {
				holds++
			}
		} else if nS > 0 && nF > 0 && ps[f]-pf[f] >= b.MinLean {
			holds++
		}
	}
	return holds >= 2 && float64(holds) >= b.GeneralShare*float64(shown)
}

// hasMode reports whether a card has a failed episode with mode m.
func hasMode(cards []table.Card, m string) bool {
	for _, c := range cards {
		if card.ModeCount(c, m) > 0 {
			return true
		}
	}
	return false
}

// slotValue reports whether text is a slot template filled with some value:
// the feature prefix P (without ':') and the value as it appears in the
// text. Prefixes are tried in name order.
func (b *Builtin) slotValue(text string) (prefix, value string, ok bool) {
	tm := b.Templates
	norm := scaffold.Normalize(text)
	for _, k := range sortedKeys(tm) {
		if !strings.HasSuffix(k, ":") || k == ":" || !strings.Contains(tm[k], "{value}") || strings.Contains(tm[k], "{prefix}") {
			continue
		}
		i := strings.Index(tm[k], "{value}")
		head := scaffold.Normalize(tm[k][:i])
		tail := scaffold.Normalize(tm[k][i+len("{value}"):])
		if len(norm) <= len(head)+len(tail) || !strings.HasPrefix(norm, head) || !strings.HasSuffix(norm, tail) {
			continue
		}
		// Normalize trims a head's closing punctuation ("step:" of "Make
		// sure you reach this step: {value}."), which the filled text keeps
		// before its value: the value is what lies between, without it.
		v := strings.Trim(norm[len(head):len(norm)-len(tail)], ".!;:, ")
		if v == "" {
			continue
		}
		return strings.TrimSuffix(k, ":"), v, true
	}
	return "", "", false
}

// corrections proposes edits of items whose slot value the evidence
// contradicts (see Builtin, REVISE).
func (b *Builtin) corrections(s *scopeState, limit int) []table.Proposal {
	in := s.in
	texts := map[string]bool{}
	for _, it := range s.items {
		texts[scaffold.Normalize(it.Text)] = true
	}
	var props []table.Proposal
	for _, it := range s.items {
		if len(props) >= limit {
			break
		}
		if it.Layer == scaffold.LayerMistake {
			continue
		}
		p, v, ok := b.slotValue(it.Text)
		if !ok {
			continue
		}
		best, bestD := "", 0.0
		for _, f := range s.feats {
			fp, w := splitFeature(f)
			if fp != p || isFailure(f) {
				continue
			}
			if scaffold.Normalize(humanize(w)) == v {
				if s.diff(f) >= b.MinLean {
					best = "" // the item's own value separates: nothing to correct
					break
				}
				continue
			}
			if d := s.diff(f); d >= b.MinLean && len(s.support[f]) >= in.MinSupport && (best == "" || d > bestD) {
				best, bestD = f, d
			}
		}
		if best == "" {
			continue
		}
		text := b.Text(best)
		if texts[scaffold.Normalize(text)] || in.Count(text) > in.MaxItemTokens {
			continue
		}
		texts[scaffold.Normalize(text)] = true
		old := p + ":" + strings.ReplaceAll(v, " ", "_")
		props = append(props, table.Proposal{Op: "edit", Targets: []string{it.ID}, Layer: it.Layer, Text: text,
			Support:   topSupport(s.support[best]),
			Rationale: fmt.Sprintf("corrected: %s separates success from failure (score %.2f), %s does not (%.2f)", best, bestD, old, s.diff(old))})
	}
	return props
}

// merges finds near-duplicate pairs (same layer), best first; each item is
// in at most one pair. keepShorter picks the text to keep.
func (b *Builtin) merges(s *scopeState, keepShorter bool, limit int) []table.Proposal {
	return b.mergeItems(s, keepShorter, limit, nil)
}

// mergesExcept is REVISE's merges (the better-supported text kept) among
// items not in skip.
func (b *Builtin) mergesExcept(s *scopeState, skip map[string]bool, limit int) []table.Proposal {
	if limit <= 0 {
		return nil
	}
	return b.mergeItems(s, false, limit, skip)
}

func (b *Builtin) mergeItems(s *scopeState, keepShorter bool, limit int, skip map[string]bool) []table.Proposal {
	type pair struct {
		a, b table.ScaffoldItem
		j    float64
	}
	var pairs []pair
	for i, x := range s.items {
		for _, y := range s.items[i+1:] {
			if x.Layer != y.Layer || skip[x.ID] || skip[y.ID] {
				continue
			}
			if j := scaffold.Jaccard(x.Text, y.Text); j >= b.MergeJaccard {
				pairs = append(pairs, pair{x, y, j})
			}
		}
	}
	sort.SliceStable(pairs, func(i, j int) bool { return pairs[i].j > pairs[j].j })
	used := map[string]bool{}
	var props []table.Proposal
	for _, p := range pairs {
		if len(props) >= limit {
			break
		}
		if used[p.a.ID] || used[p.b.ID] {
			continue
		}
		used[p.a.ID], used[p.b.ID] = true, true
		keep := p.a
		if keepShorter {
			if p.b.Tokens < p.a.Tokens {
				keep = p.b
			}
		} else if ca, cb := len(s.current(p.a.ID)), len(s.current(p.b.ID)); cb > ca || cb == ca && p.b.Tokens < p.a.Tokens {
			keep = p.b
		}
		sup := append(append([]string{}, p.a.Support...), p.b.Support...)
		props = append(props, table.Proposal{Op: "merge", Targets: []string{p.a.ID, p.b.ID}, Layer: p.a.Layer,
			Text: keep.Text, Support: unique(sup),
			Rationale: fmt.Sprintf("near-duplicates (token Jaccard %.2f)", p.j)})
	}
	return props
}

func (b *Builtin) revise(s *scopeState) ([]table.Proposal, string) {
	in := s.in
	props := b.corrections(s, in.Quota)
	touched := map[string]bool{}
	texts := map[string]bool{}
	for _, it := range s.items {
		texts[scaffold.Normalize(it.Text)] = true
	}
	for _, p := range props {
		texts[scaffold.Normalize(p.Text)] = true
		for _, t := range p.Targets {
			touched[t] = true
		}
	}
	for _, p := range b.mergesExcept(s, touched, in.Quota-len(props)) {
		props = append(props, p)
		for _, t := range p.Targets {
			touched[t] = true
		}
	}
	// Re-scope stale mistakes to the most frequent uncovered failure modes.
	covered := map[string]bool{}
	for _, it := range s.items {
		for _, f := range s.links[it.ID] {
			covered[f] = true
		}
	}
	var uncovered []string
	for _, m := range sortedKeys(s.modes) {
		f := "failure:" + m
		if !covered[f] && len(s.support[f]) >= in.MinSupport {
			uncovered = append(uncovered, m)
		}
	}
	sort.SliceStable(uncovered, func(i, j int) bool { return s.modes[uncovered[i]] > s.modes[uncovered[j]] })
	for _, it := range s.items {
		if len(props) >= in.Quota || len(uncovered) == 0 {
			break
		}
		if touched[it.ID] || it.Layer == scaffold.LayerTask || len(s.current(it.ID)) > 0 {
			continue
		}
		if it.Layer == scaffold.LayerGeneral && s.typesOf(s.support["failure:"+uncovered[0]]) < 2 {
			continue
		}
		m := uncovered[0]
		text := b.Text("failure:" + m)
		if texts[scaffold.Normalize(text)] || in.Count(text) > in.MaxItemTokens {
			uncovered = uncovered[1:]
			continue
		}
		uncovered = uncovered[1:]
		touched[it.ID] = true
		texts[scaffold.Normalize(text)] = true
		props = append(props, table.Proposal{Op: "edit", Targets: []string{it.ID}, Layer: it.Layer, Text: text,
			Support:   topSupport(s.support["failure:"+m]),
			Rationale: fmt.Sprintf("re-scoped from a failure mode that no longer occurs to %s (%d episodes)", m, s.modes[m])})
	}
	// Update support to the current cards.
	for _, it := range s.items {
		if len(props) >= in.Quota {
			break
		}
		if touched[it.ID] {
			continue
		}
		cur := topSupport(s.current(it.ID))
		if len(cur) < in.MinSupport || strings.Join(cur, ",") == strings.Join(unique(it.Support), ",") {
			continue
		}
		props = append(props, table.Proposal{Op: "edit", Targets: []string{it.ID}, Layer: it.Layer, Text: it.Text,
			Support: cur, Rationale: fmt.Sprintf("support updated to %d current cards", len(cur))})
	}
	if len(props) == 0 {
		return nil, "no near-duplicate, stale mistake or outdated support to revise"
	}
	return props, ""
}

// weakest orders items least supported first (current support, recorded
// support, last update, id).
func (s *scopeState) weakest() []table.ScaffoldItem {
	items := append([]table.ScaffoldItem(nil), s.items...)
	cur := map[string]int{}
	for _, it := range items {
		cur[it.ID] = len(s.current(it.ID))
	}
	sort.SliceStable(items, func(i, j int) bool {
		a, b := items[i], items[j]
		if cur[a.ID] != cur[b.ID] {
			return cur[a.ID] < cur[b.ID]
		}
		if len(a.Support) != len(b.Support) {
			return len(a.Support) < len(b.Support)
		}
		if a.Updated != b.Updated {
			return a.Updated < b.Updated
		}
		return a.ID < b.ID
	})
	return items
}

// stillSeparates reports whether item id has a linked feature that still
// separates success from failure with enough support.
func (b *Builtin) stillSeparates(s *scopeState, id string) bool {
	for _, f := range s.links[id] {
		if len(s.support[f]) < s.in.MinSupport {
			continue
		}
		if isFailure(f) {
			_, m := splitFeature(f)
			if s.nF > 0 && math.Max(float64(s.modes[m])/s.nF, s.pf[f]) >= b.MinShare {
				return true
			}
			continue
		}
		if math.Abs(s.diff(f)) >= b.MinLean {
			return true
		}
	}
	return false
}

func (b *Builtin) compress(s *scopeState) ([]table.Proposal, string) {
	in := s.in
	props := b.merges(s, true, in.Quota)
	touched := map[string]bool{}
	for _, p := range props {
		for _, t := range p.Targets {
			touched[t] = true
		}
	}
	for _, it := range s.weakest() {
		if len(props) >= in.Quota {
			break
		}
		if touched[it.ID] || b.stillSeparates(s, it.ID) {
			continue
		}
		props = append(props, table.Proposal{Op: "delete", Targets: []string{it.ID}, Layer: it.Layer,
			Rationale: fmt.Sprintf("no longer separates success from failure (%d current cards)", len(s.current(it.ID)))})
	}
	if len(props) == 0 {
		return nil, "every item still separates success from failure"
	}
	return props, ""
}

func (b *Builtin) prune(s *scopeState) ([]table.Proposal, string) {
	in := s.in
	n, tok := scaffold.ScopeTotals(in.Items, in.TaskType)
	var props []table.Proposal
	for _, it := range s.weakest() {
		if len(props) > 0 && n < in.MaxItems && tok < in.MaxTokens {
			break
		}
		props = append(props, table.Proposal{Op: "delete", Targets: []string{it.ID}, Layer: it.Layer,
			Rationale: fmt.Sprintf("cap reached; least supported (%d current cards)", len(s.current(it.ID)))})
		n--
		tok -= int(it.Tokens)
	}
	if len(props) == 0 {
		return nil, "no item to prune"
	}
	return props, ""
}
