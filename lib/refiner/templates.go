package refiner

import (
	"strings"

	"github.com/pats-rl/pats/lib/scaffold"
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

// Text is the item text for feature f.
func (b *RuleBased) Text(f string) string {
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

// slotValue reports whether text is a slot template filled with some value:
// the feature prefix P (without ':') and the value as it appears in the
// text. Prefixes are tried in name order.
func (b *RuleBased) slotValue(text string) (prefix, value string, ok bool) {
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
