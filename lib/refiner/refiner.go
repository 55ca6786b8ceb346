package refiner

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/pats-rl/pats/lib/scaffold"
	"github.com/pats-rl/pats/lib/table"
)

// Input is what a refiner sees for one scope (a task type, or "" for the
// general layer) at one iteration. It is read-only: a refiner never writes
// the scaffold.
type Input struct {
	Iteration int32                // iteration k
	TaskType  string               // the scope; "" = general layer
	Primitive string               // the controller's primitive for it
	Evidence  table.TypeEvidence   // the scope's type evidence at k
	Cards     []table.Card         // the cards of iteration k and of earlier iterations (all types; refiners filter)
	Window    int                  // iterations of cards the evidence pools (k-Window+1 .. k); default DefaultWindow
	Items     []table.ScaffoldItem // the whole current snapshot
	Quota     int                  // proposals per scope per iteration (EXPAND: additions); default 3
	MaxItems  int                  // the scope's item cap; default 12
	MaxTokens int                  // the scope's token cap; default 400
	// CapsGiven takes MaxItems and MaxTokens as they are, 0 included (the
	// fade's caps); without it 0 means the default.
	CapsGiven     bool
	MaxItemTokens int              // tokens per item; default 40
	MinSupport    int              // cards an addition needs; default 2
	Count         func(string) int // token counter; default scaffold.WordCount
	// Absorption, when not nil, is the scope's absorption signal
	// (Absorption of the bare replay): COMPRESS then fades the scope's
	// items, absorbed and harmful ones first, whether or not their rules
	// still hold. nil keeps the rule-based COMPRESS (items whose rules no
	// longer hold).
	Absorption []table.ItemAbsorption
}

// Result is a refiner's answer. Reason says why there are no (or few)
// proposals when that is worth recording: an unusable model answer, no
// separating feature, a cap reached.
type Result struct {
	Proposals []table.Proposal
	Reason    string
	// Failed says the refiner could not be asked at all (an unreachable
	// or failing endpoint, after its retries), as opposed to an answer
	// that proposed nothing usable; Reason says why.
	Failed bool
}

// Refiner proposes scaffold edits under a primitive.
type Refiner interface {
	// Name is recorded in each proposal's refiner column.
	Name() string
	// Propose returns proposals for in. An error means a broken input or
	// setup (the pipeline should stop); an unusable answer from a model is a
	// Result with no proposals and a Reason, not an error.
	Propose(ctx context.Context, in Input) (Result, error)
}

// DefaultWindow is how many iterations of cards a refiner's evidence
// pools by default: iteration k and the two before it.
const DefaultWindow = 3

// withDefaults fills zero fields.
func (in Input) withDefaults() Input {
	if in.Quota <= 0 {
		in.Quota = scaffold.DefaultExpandQuota
	}
	if in.MaxItems <= 0 && !in.CapsGiven {
		in.MaxItems = scaffold.DefaultMaxItems
	}
	if in.MaxTokens <= 0 && !in.CapsGiven {
		in.MaxTokens = scaffold.DefaultMaxTokens
	}
	if in.MaxItemTokens <= 0 {
		in.MaxItemTokens = scaffold.DefaultMaxItemTokens
	}
	if in.Window <= 0 {
		in.Window = DefaultWindow
	}
	if in.MinSupport <= 0 {
		in.MinSupport = scaffold.DefaultMinSupport
	}
	in.Count = scaffold.Counter(in.Count)
	return in
}

// ScopeName is the scope's name in proposal ids: the task type, or
// "general".
func ScopeName(t string) string {
	if t == "" {
		return "general"
	}
	return t
}

// ProposalID is the id of the n-th proposal (from 1) of a scope at an
// iteration: "p-<k>-<scope>-<nn>". The validator applies proposals in id
// order, so a refiner's order within a scope is kept (up to 99 proposals).
func ProposalID(k int32, scope string, n int) string {
	return fmt.Sprintf("p-%d-%s-%02d", k, ScopeName(scope), n)
}

// ScopeCards returns the cards of scope t (all cards for t == ""), sorted by
// card id.
func ScopeCards(cards []table.Card, t string) []table.Card {
	var out []table.Card
	for _, c := range cards {
		if t == "" || c.TaskType == t {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].CardID < out[j].CardID })
	return out
}

// ScopeItems returns the items of scope t, in canonical order.
func ScopeItems(items []table.ScaffoldItem, t string) []table.ScaffoldItem {
	var out []table.ScaffoldItem
	for _, it := range items {
		if scaffold.Scope(it) == t {
			out = append(out, it)
		}
	}
	scaffold.Sort(out)
	return out
}

// splitFeature splits "prefix:value".
func splitFeature(f string) (prefix, value string) {
	if i := strings.Index(f, ":"); i >= 0 {
		return f[:i], f[i+1:]
	}
	return "", f
}

func humanize(v string) string {
	return strings.Join(strings.FieldsFunc(v, func(r rune) bool { return r == '_' || r == '-' }), " ")
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// unique returns the sorted distinct non-empty strings of xs (never nil).
func unique(xs []string) []string {
	m := map[string]bool{}
	out := []string{}
	for _, x := range xs {
		if x != "" && !m[x] {
			m[x] = true
			out = append(out, x)
		}
	}
	sort.Strings(out)
	return out
}
