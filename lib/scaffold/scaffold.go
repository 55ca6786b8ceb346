package scaffold

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/words"
)

// Layers of a scaffold.
const (
	LayerGeneral = "general"
	LayerTask    = "task"
	LayerMistake = "mistake"
)

// Layers lists the layers in rendering order.
var Layers = []string{LayerGeneral, LayerTask, LayerMistake}

// ValidLayer reports whether l is a layer name.
func ValidLayer(l string) bool {
	return l == LayerGeneral || l == LayerTask || l == LayerMistake
}

func layerRank(l string) int {
	for i, x := range Layers {
		if x == l {
			return i
		}
	}
	return len(Layers)
}

// WordCount counts whitespace-separated words: the default token count when
// no tokenizer is given.
func WordCount(s string) int { return len(strings.Fields(s)) }

// Counter returns count, or WordCount when count is nil.
func Counter(count func(string) int) func(string) int {
	if count == nil {
		return WordCount
	}
	return count
}

// HasControl reports whether s contains a control character (newlines and
// tabs included: an item is one line).
func HasControl(s string) bool {
	for _, r := range s {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return true
		}
	}
	return false
}

// Normalize is the form two texts are compared in for duplicates: lower
// case, words separated by one space, trailing punctuation removed.
func Normalize(s string) string {
	f := strings.Fields(strings.ToLower(s))
	out := strings.Join(f, " ")
	return strings.TrimRight(out, ".!;:, ")
}

// Jaccard is the token Jaccard similarity of two texts' word sets (1 for two
// empty texts).
func Jaccard(a, b string) float64 {
	wa, wb := words.Set(a), words.Set(b)
	if len(wa) == 0 && len(wb) == 0 {
		return 1
	}
	inter := 0
	for t := range wa {
		if wb[t] {
			inter++
		}
	}
	return float64(inter) / float64(len(wa)+len(wb)-inter)
}

// Scope is the key items are grouped by for caps and the controller: the
// task type for task and mistake items, "" for general items.
func Scope(it table.ScaffoldItem) string {
	if it.Layer == LayerGeneral {
		return ""
	}
	return it.TaskType
}

// ScopeTotals returns the number of items and tokens in scope t (a task
// type's task and mistake items, or the general items for t == "").
func ScopeTotals(items []table.ScaffoldItem, t string) (n, tokens int) {
	for _, it := range items {
		if Scope(it) == t {
			n++
			tokens += int(it.Tokens)
		}
	}
	return n, tokens
}

// TaskTypes lists the non-empty task types that items mention, sorted.
func TaskTypes(items []table.ScaffoldItem) []string {
	seen := map[string]bool{}
	var out []string
	for _, it := range items {
		if it.TaskType != "" && !seen[it.TaskType] {
			seen[it.TaskType] = true
			out = append(out, it.TaskType)
		}
	}
	sort.Strings(out)
	return out
}

// Sort puts items in canonical order: by layer (general, task, mistake),
// then task type, then id.
func Sort(items []table.ScaffoldItem) {
	sort.SliceStable(items, func(i, j int) bool {
		a, b := items[i], items[j]
		if ra, rb := layerRank(a.Layer), layerRank(b.Layer); ra != rb {
			return ra < rb
		}
		if a.TaskType != b.TaskType {
			return a.TaskType < b.TaskType
		}
		return a.ID < b.ID
	})
}

// Clone returns a deep copy of items.
func Clone(items []table.ScaffoldItem) []table.ScaffoldItem {
	out := make([]table.ScaffoldItem, len(items))
	for i, it := range items {
		out[i] = it
		if it.Support != nil {
			out[i].Support = append(make([]string, 0, len(it.Support)), it.Support...)
		}
	}
	return out
}

// Retokenize sets every item's Tokens to count(Text) (WordCount when count
// is nil), e.g. when a snapshot is used with another tokenizer.
func Retokenize(items []table.ScaffoldItem, count func(string) int) {
	count = Counter(count)
	for i := range items {
		items[i].Tokens = int32(count(items[i].Text))
	}
}

// Hash is the content hash of a snapshot: sha256 over the items in canonical
// order (every column, length-prefixed), as "sha256:<hex>". The order items
// are given in does not matter; any change of a column changes it.
func Hash(items []table.ScaffoldItem) string {
	c := Clone(items)
	Sort(c)
	h := sha256.New()
	var buf [8]byte
	str := func(s string) {
		binary.LittleEndian.PutUint64(buf[:], uint64(len(s)))
		h.Write(buf[:])
		h.Write([]byte(s))
	}
	num := func(v int32) {
		binary.LittleEndian.PutUint64(buf[:], uint64(int64(v)))
		h.Write(buf[:])
	}
	num(int32(len(c)))
	for _, it := range c {
		str(it.ID)
		str(it.Layer)
		str(it.TaskType)
		str(it.Text)
		num(it.Created)
		num(it.Updated)
		num(int32(len(it.Support)))
		for _, s := range it.Support {
			str(s)
		}
		num(it.Tokens)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// idPrefix is the id prefix of a layer and task type.
func idPrefix(layer, taskType string) string {
	switch layer {
	case LayerGeneral:
		return "g-"
	case LayerTask:
		return "t-" + taskType + "-"
	default:
		return "m-" + taskType + "-"
	}
}

// NewID is the content-derived id of an item created by the loop:
// "g-<hex8>", "t-<type>-<hex8>" or "m-<type>-<hex8>" from sha256 of layer,
// task type and normalized text. If that id is taken in items, a counter
// suffix ("-2", "-3", ...) makes it unique.
func NewID(layer, taskType, text string, items []table.ScaffoldItem) string {
	sum := sha256.Sum256([]byte(layer + "\x00" + taskType + "\x00" + Normalize(text)))
	base := idPrefix(layer, taskType) + hex.EncodeToString(sum[:4])
	taken := map[string]bool{}
	for _, it := range items {
		taken[it.ID] = true
	}
	id := base
	for n := 2; taken[id]; n++ {
		id = fmt.Sprintf("%s-%d", base, n)
	}
	return id
}

// CheckItem reports the first invariant item it breaks, or nil.
func CheckItem(it table.ScaffoldItem) error {
	switch {
	case it.ID == "":
		return fmt.Errorf("item has an empty id")
	case HasControl(it.ID):
		return fmt.Errorf("item %q: id has a control character", it.ID)
	case !ValidLayer(it.Layer):
		return fmt.Errorf("item %s: unknown layer %q (want general, task or mistake)", it.ID, it.Layer)
	case it.Layer == LayerGeneral && it.TaskType != "":
		return fmt.Errorf("item %s: a general item has task type %q (want none)", it.ID, it.TaskType)
	case it.Layer != LayerGeneral && it.TaskType == "":
		return fmt.Errorf("item %s: a %s item needs a task type", it.ID, it.Layer)
	case strings.TrimSpace(it.Text) == "":
		return fmt.Errorf("item %s: empty text", it.ID)
	case HasControl(it.Text):
		return fmt.Errorf("item %s: text has a control character", it.ID)
	}
	return nil
}

// Check verifies the snapshot invariants (see the package doc) and, when
// count is non-nil, that every Tokens equals count(Text).
func Check(items []table.ScaffoldItem, count func(string) int) error {
	seen := map[string]bool{}
	for _, it := range items {
		if err := CheckItem(it); err != nil {
			return err
		}
		if seen[it.ID] {
			return fmt.Errorf("duplicate item id %s", it.ID)
		}
		seen[it.ID] = true
		if count != nil && int(it.Tokens) != count(it.Text) {
			return fmt.Errorf("item %s: tokens %d, but the text has %d", it.ID, it.Tokens, count(it.Text))
		}
	}
	return nil
}
