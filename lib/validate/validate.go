package validate

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pats-rl/pats/lib/scaffold"
	"github.com/pats-rl/pats/lib/table"
)

// Reason codes (see the package doc).
const (
	OK             = "ok"
	BadID          = "bad_id"
	BadPrimitive   = "primitive"
	BadOp          = "bad_op"
	Direction      = "direction"
	BadLayer       = "layer"
	BadTargets     = "targets"
	NoTarget       = "no_target"
	TargetScope    = "target_scope"
	EmptyText      = "empty_text"
	ControlChar    = "control_char"
	TooLong        = "too_long"
	Duplicate      = "duplicate"
	SupportUnknown = "support_unknown"
	SupportType    = "support_type"
	SupportCount   = "support_count"
	Quota          = "quota"
	GrowsItems     = "grows_items"
	GrowsTokens    = "grows_tokens"
	CapItems       = "cap_items"
	CapTokens      = "cap_tokens"
	NoChange       = "no_change"
)

// Options configure Apply.
type Options struct {
	Iteration int32            // stamped on created and updated items
	Count     func(string) int // token counter; default scaffold.WordCount
	// The caps, the EXPAND quota and the per-addition rules
	// (scaffold.DefaultLimits by default).
	scaffold.Limits
}

// DefaultOptions returns the defaults (scaffold.DefaultLimits).
func DefaultOptions() Options {
	return Options{Limits: scaffold.DefaultLimits()}
}

// Allowed reports whether op is allowed under primitive.
func Allowed(primitive, op string) bool {
	switch primitive {
	case scaffold.Expand:
		return op == table.OpAdd
	case scaffold.Revise:
		return op == table.OpEdit || op == table.OpMerge
	case scaffold.Compress:
		return op == table.OpEdit || op == table.OpMerge || op == table.OpDelete
	case scaffold.ForcedPrune:
		return op == table.OpDelete
	}
	return false
}

type reject struct{ code, msg string }

func rej(code, format string, a ...any) *reject {
	return &reject{code, fmt.Sprintf(format, a...)}
}

// Apply checks props against snapshot and cards and returns the next
// snapshot (canonical order, see scaffold.Sort) and one decision per
// proposal, in application order. The inputs are not modified.
func Apply(snapshot []table.ScaffoldItem, props []table.Proposal, cards []table.Card, opts Options) ([]table.ScaffoldItem, []table.Decision) {
	opts.Count = scaffold.Counter(opts.Count)
	cur := scaffold.Clone(snapshot)
	cardType := map[string]string{}
	for _, c := range cards {
		cardType[c.CardID] = c.TaskType
	}
	order := make([]table.Proposal, len(props))
	copy(order, props)
	sort.SliceStable(order, func(i, j int) bool { return order[i].ProposalID < order[j].ProposalID })
	seenID := map[string]bool{}
	adds := map[string]int{}
	decisions := make([]table.Decision, 0, len(order))
	for _, p := range order {
		d := table.Decision{ProposalID: p.ProposalID, Iteration: p.Iteration, TaskType: p.TaskType, Primitive: p.Primitive, Op: p.Op}
		next, itemID, r := check(cur, p, cardType, seenID, adds, opts)
		if p.ProposalID != "" {
			seenID[p.ProposalID] = true
		}
		if r != nil {
			d.Reason, d.Message = r.code, r.msg
		} else {
			d.Accepted, d.Reason, d.Message, d.ItemID = true, OK, "applied", itemID
			cur = next
			if p.Op == table.OpAdd {
				adds[p.TaskType]++
			}
		}
		decisions = append(decisions, d)
	}
	scaffold.Sort(cur)
	return cur, decisions
}

func sortedUnique(xs []string) []string {
	m := map[string]bool{}
	var out []string
	for _, x := range xs {
		if x != "" && !m[x] {
			m[x] = true
			out = append(out, x)
		}
	}
	sort.Strings(out)
	if out == nil {
		out = []string{}
	}
	return out
}

// check validates p against cur and returns the snapshot with p applied.
// The checks run in this order and the first that fails gives the reason:
// the proposal's own fields (id, primitive, op, direction, layer), its
// targets, its text, its support, then the change itself (an edit that
// changes nothing) and the scope's totals after it (direction and caps).
func check(cur []table.ScaffoldItem, p table.Proposal, cardType map[string]string, seenID map[string]bool, adds map[string]int, o Options) ([]table.ScaffoldItem, string, *reject) {
	if r := checkHeader(p, seenID); r != nil {
		return nil, "", r
	}
	if r := checkLayer(p); r != nil {
		return nil, "", r
	}
	targets, isTarget, r := checkTargets(cur, p)
	if r != nil {
		return nil, "", r
	}
	text := strings.TrimSpace(p.Text)
	if r := checkText(cur, p, text, isTarget, o); r != nil {
		return nil, "", r
	}
	if r := checkSupport(p, cardType, adds, o); r != nil {
		return nil, "", r
	}
	next, itemID, r := apply(cur, p, text, targets, isTarget, o)
	if r != nil {
		return nil, "", r
	}
	if r := checkTotals(cur, next, p, o); r != nil {
		return nil, "", r
	}
	return next, itemID, nil
}

// checkHeader checks the proposal's id (present, without control
// characters, not repeated), its primitive and op, and that the primitive
// allows the op.
func checkHeader(p table.Proposal, seenID map[string]bool) *reject {
	if p.ProposalID == "" || scaffold.HasControl(p.ProposalID) {
		return rej(BadID, "proposal_id is empty or has a control character")
	}
	if seenID[p.ProposalID] {
		return rej(BadID, "proposal_id %s repeated", p.ProposalID)
	}
	switch p.Primitive {
	case scaffold.Expand, scaffold.Revise, scaffold.Compress, scaffold.ForcedPrune:
	default:
		return rej(BadPrimitive, "primitive %q is not EXPAND, REVISE, COMPRESS or FORCED_PRUNE", p.Primitive)
	}
	switch p.Op {
	case table.OpAdd, table.OpEdit, table.OpMerge, table.OpDelete:
	default:
		return rej(BadOp, "op %q is not add, edit, merge or delete", p.Op)
	}
	if !Allowed(p.Primitive, p.Op) {
		return rej(Direction, "%s does not allow %s", p.Primitive, p.Op)
	}
	return nil
}

// checkLayer checks the layer of an addition, and of any proposal but a
// deletion that names one: a known layer that fits the task type (general
// items have none, the others one).
func checkLayer(p table.Proposal) *reject {
	scope := p.TaskType
	layer := p.Layer
	if p.Op == table.OpAdd || layer != "" {
		if p.Op != table.OpDelete {
			if !scaffold.ValidLayer(layer) {
				return rej(BadLayer, "layer %q is not general, task or mistake", layer)
			}
			if (layer == scaffold.LayerGeneral) != (scope == "") {
				return rej(BadLayer, "layer %s does not fit task type %q (general items have none)", layer, scope)
			}
		}
	}
	return nil
}

// checkTargets checks the number of targets the op takes, and that each
// target is named once, is in the snapshot and belongs to the proposal's
// task type. It returns the targets' items, in the proposal's order, and
// their ids as a set.
func checkTargets(cur []table.ScaffoldItem, p table.Proposal) ([]table.ScaffoldItem, map[string]bool, *reject) {
	scope := p.TaskType
	want := map[string]func(int) bool{
		table.OpAdd: func(n int) bool { return n == 0 }, table.OpEdit: func(n int) bool { return n == 1 },
		table.OpDelete: func(n int) bool { return n == 1 }, table.OpMerge: func(n int) bool { return n >= 2 },
	}
	if !want[p.Op](len(p.Targets)) {
		return nil, nil, rej(BadTargets, "%s with %d targets (add: none, edit/delete: one, merge: two or more)", p.Op, len(p.Targets))
	}
	idx := map[string]int{}
	for i, it := range cur {
		idx[it.ID] = i
	}
	tseen := map[string]bool{}
	var targets []table.ScaffoldItem
	for _, t := range p.Targets {
		if tseen[t] {
			return nil, nil, rej(BadTargets, "target %s repeated", t)
		}
		tseen[t] = true
		i, ok := idx[t]
		if !ok {
			return nil, nil, rej(NoTarget, "target %s is not in the snapshot", t)
		}
		if scaffold.Scope(cur[i]) != scope {
			return nil, nil, rej(TargetScope, "target %s belongs to %q, not %q", t, scaffold.Scope(cur[i]), scope)
		}
		targets = append(targets, cur[i])
	}
	return targets, tseen, nil
}

// checkText checks the text of any proposal but a deletion: not empty, no
// control character, within the item token limit, and not the text of
// another item the scope sees (its own items and the general ones; the
// targets, which the proposal replaces, aside).
func checkText(cur []table.ScaffoldItem, p table.Proposal, text string, isTarget map[string]bool, o Options) *reject {
	if p.Op == table.OpDelete {
		return nil
	}
	scope := p.TaskType
	if text == "" {
		return rej(EmptyText, "%s without text", p.Op)
	}
	if scaffold.HasControl(text) {
		return rej(ControlChar, "text has a control character")
	}
	if n := o.Count(text); n > o.MaxItemTokens {
		return rej(TooLong, "text has %d tokens, the limit is %d", n, o.MaxItemTokens)
	}
	norm := scaffold.Normalize(text)
	for _, it := range cur {
		if isTarget[it.ID] || scaffold.Scope(it) != scope && scaffold.Scope(it) != "" {
			continue
		}
		if scaffold.Normalize(it.Text) == norm {
			return rej(Duplicate, "same text as item %s", it.ID)
		}
	}
	return nil
}

// checkSupport checks an addition's supporting cards: each among the cards
// and of the proposal's task type (any type for a general item), enough of
// them, and the EXPAND quota of the task type not used up.
func checkSupport(p table.Proposal, cardType map[string]string, adds map[string]int, o Options) *reject {
	if p.Op != table.OpAdd {
		return nil
	}
	scope := p.TaskType
	sup := sortedUnique(p.Support)
	for _, c := range sup {
		t, ok := cardType[c]
		if !ok {
			return rej(SupportUnknown, "supporting card %s is not among the cards", c)
		}
		if scope != "" && t != scope {
			return rej(SupportType, "supporting card %s is of type %q, not %q", c, t, scope)
		}
	}
	if len(sup) < o.MinSupport {
		return rej(SupportCount, "%d distinct supporting cards, need %d", len(sup), o.MinSupport)
	}
	if p.Primitive == scaffold.Expand && adds[scope] >= o.ExpandQuota {
		return rej(Quota, "EXPAND quota of %d additions for %q used up", o.ExpandQuota, scope)
	}
	return nil
}

// apply returns the snapshot with p applied and the id of the item it
// created or changed (the first target of a merge); an edit that changes
// nothing is rejected.
func apply(cur []table.ScaffoldItem, p table.Proposal, text string, targets []table.ScaffoldItem, isTarget map[string]bool, o Options) ([]table.ScaffoldItem, string, *reject) {
	scope := p.TaskType
	layer := p.Layer
	next := make([]table.ScaffoldItem, 0, len(cur)+1)
	var itemID string
	switch p.Op {
	case table.OpAdd:
		next = append(next, scaffold.Clone(cur)...)
		itemID = scaffold.NewID(layer, scope, text, cur)
		typ := scope
		next = append(next, table.ScaffoldItem{ID: itemID, Layer: layer, TaskType: typ, Text: text,
			Created: o.Iteration, Updated: o.Iteration, Support: sortedUnique(p.Support), Tokens: int32(o.Count(text))})
	case table.OpDelete:
		itemID = targets[0].ID
		for _, it := range scaffold.Clone(cur) {
			if it.ID != itemID {
				next = append(next, it)
			}
		}
	case table.OpEdit:
		old := targets[0]
		itemID = old.ID
		ed := old
		ed.Text = text
		if layer != "" {
			ed.Layer = layer
		}
		ed.Support = old.Support
		if len(p.Support) > 0 {
			ed.Support = sortedUnique(p.Support)
		}
		if ed.Text == old.Text && ed.Layer == old.Layer && strings.Join(ed.Support, "\x00") == strings.Join(old.Support, "\x00") {
			return nil, "", rej(NoChange, "edit of %s changes nothing", old.ID)
		}
		ed.Updated = o.Iteration
		ed.Tokens = int32(o.Count(text))
		ed.Support = append([]string{}, ed.Support...)
		for _, it := range scaffold.Clone(cur) {
			if it.ID == itemID {
				it = ed
			}
			next = append(next, it)
		}
	case table.OpMerge:
		first := targets[0]
		itemID = first.ID
		m := first
		m.Text = text
		if layer != "" {
			m.Layer = layer
		}
		sup := append([]string{}, p.Support...)
		for _, t := range targets {
			sup = append(sup, t.Support...)
			if t.Created < m.Created {
				m.Created = t.Created
			}
		}
		m.Support = sortedUnique(sup)
		m.Updated = o.Iteration
		m.Tokens = int32(o.Count(text))
		for _, it := range scaffold.Clone(cur) {
			if it.ID == itemID {
				next = append(next, m)
			} else if !isTarget[it.ID] {
				next = append(next, it)
			}
		}
	}
	return next, itemID, nil
}

// checkTotals checks the scope's totals after the change against the
// primitive's direction (REVISE and COMPRESS never grow the item count,
// COMPRESS never the token count) and the caps (a change that grows a total
// must stay within its cap).
func checkTotals(cur, next []table.ScaffoldItem, p table.Proposal, o Options) *reject {
	scope := p.TaskType
	n0, t0 := scaffold.ScopeTotals(cur, scope)
	n1, t1 := scaffold.ScopeTotals(next, scope)
	if (p.Primitive == scaffold.Revise || p.Primitive == scaffold.Compress) && n1 > n0 {
		return rej(GrowsItems, "%s would grow %q from %d to %d items", p.Primitive, scope, n0, n1)
	}
	if p.Primitive == scaffold.Compress && t1 > t0 {
		return rej(GrowsTokens, "COMPRESS would grow %q from %d to %d tokens", scope, t0, t1)
	}
	mi, mt := o.Caps(scope)
	if n1 > mi && n1 > n0 {
		return rej(CapItems, "%q would have %d items, the cap is %d", scope, n1, mi)
	}
	if t1 > mt && t1 > t0 {
		return rej(CapTokens, "%q would have %d tokens, the cap is %d", scope, t1, mt)
	}
	return nil
}
