package refiner

import (
	"strings"

	"github.com/pats-rl/pats/lib/scaffold"
	"github.com/pats-rl/pats/lib/table"
)

// DefaultTemplates turn features into item text. A key is a whole feature
// ("failure:loop") or a prefix ending in ':' ("source:"). In a text,
// {value} is the feature's value with '_' and '-' as spaces. A slot
// template's only content word is its {value}: the rule it states is the
// feature the run's own episodes showed, never a fact written here (no
// template names a place, a tool or an object). A feature without a
// template makes no item: there is no fallback, and milestones (a step
// the task text already names) and objects (what the task text names;
// across a type's tasks, a mix of tasks rather than a rule) make none. Failure features
// ("failure:<mode>") and failure modes become Mistake items; the
// whole-feature failure texts are advice on the failure, naming nothing
// of an environment.
var DefaultTemplates = map[string]string{
	"failure:loop":            "Do not repeat the same action again and again; try a new place.",
	"failure:max_steps":       "Do not waste steps on places you have already visited.",
	"failure:invalid_action":  "Only send actions from the admissible list.",
	"failure:invalid_actions": "Only send actions from the admissible list.",
	"failure:wrong_object":    "Check the object name against the task before taking it.",
	"source:":                 "Look in the {value} first.",
	"heat:":                   "Heat the object with the {value} before placing it.",
	"cool:":                   "Cool the object with the {value} before placing it.",
	"clean:":                  "Clean the object in the {value} before placing it.",
	"failure:":                "Avoid this failure: {value}.",
}

// DefaultChoices are the choice slots: feature prefixes of which an
// episode shows one value, written when the episode did the slot's step
// (took the target from a place: source; heated, cooled or cleaned it
// with something: heat, cool, clean). A failed episode that shows one got
// that far: it counts as partial evidence for the value (see RuleBased).
var DefaultChoices = []string{"clean", "cool", "heat", "source"}

// Text is the item text for feature f, or "" when no template covers it.
func (b *RuleBased) Text(f string) string {
	tm := b.Templates
	if tm == nil {
		tm = DefaultTemplates
	}
	prefix, value := splitFeature(f)
	t, ok := tm[f]
	if !ok {
		t = tm[prefix+":"]
	}
	if t == "" || value == "" && strings.Contains(t, "{value}") {
		return ""
	}
	t = strings.ReplaceAll(t, "{value}", humanize(value))
	return strings.Join(strings.Fields(t), " ")
}

func isFailure(f string) bool { _, ok := table.FailureOf(f); return ok }

// isChoice reports whether f's prefix is a choice slot.
func (b *RuleBased) isChoice(f string) bool {
	p, _ := splitFeature(f)
	for _, c := range b.Choices {
		if c == p {
			return true
		}
	}
	return false
}

// slotValue reports whether text is a slot template filled with some value:
// the feature prefix P (without ':') and the value as it appears in the
// text. Prefixes are tried in name order.
func (b *RuleBased) slotValue(text string) (prefix, value string, ok bool) {
	tm := b.Templates
	norm := scaffold.Normalize(text)
	for _, k := range sortedKeys(tm) {
		if !strings.HasSuffix(k, ":") || k == ":" || !strings.Contains(tm[k], "{value}") {
			continue
		}
		i := strings.Index(tm[k], "{value}")
		head := scaffold.Normalize(tm[k][:i])
		tail := scaffold.Normalize(tm[k][i+len("{value}"):])
		if len(norm) <= len(head)+len(tail) || !strings.HasPrefix(norm, head) || !strings.HasSuffix(norm, tail) {
			continue
		}
		// Normalize trims a head's closing punctuation ("failure:" of
		// "Avoid this failure: {value}."), which the filled text keeps
		// before its value: the value is what lies between, without it.
		v := strings.Trim(norm[len(head):len(norm)-len(tail)], ".!;:, ")
		if v == "" {
			continue
		}
		return strings.TrimSuffix(k, ":"), v, true
	}
	return "", "", false
}
