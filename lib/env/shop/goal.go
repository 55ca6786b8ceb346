package shop

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/pats-rl/pats/lib/env/internal/textindex"
	"github.com/pats-rl/pats/lib/words"
)

// Goal is one shopping instruction.
type Goal struct {
	ID         string // "shop/train/00042"
	Split      string
	Category   string   // the task type
	Type       string   // the product type asked for
	Attributes []string // required attributes; Attributes[0] is the defining one
	Options    []Option // one required value per option dimension
	PriceLimit int      // dollars; the price must be strictly lower
	Text       string   // the instruction
	Source     string   // id of the product the goal was drawn from (always a perfect match)
}

// DefiningCombination is "<product type>|<first attribute>": the pair a
// valid_unseen goal has and no train goal has.
func (g *Goal) DefiningCombination() string { return g.Type + "|" + g.Attributes[0] }

var openings = []string{"i need", "i am looking for", "find me", "i want to buy"}

// render writes the instruction text, e.g. "i am looking for a water
// resistant and breathable jacket, in black, size large, and price lower
// than 50.00 dollars".
func (g *Goal) render(opening int) string {
	c := categoryByName(g.Category)
	noun := strings.Join(g.Attributes, " and ") + " " + g.Type
	art := "a"
	if strings.ContainsRune("aeiou", rune(noun[0])) {
		art = "an"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s", openings[opening%len(openings)], art, noun)
	for _, o := range g.Options {
		for _, d := range c.dims {
			if d.name == o.Dim {
				b.WriteString(", " + fmt.Sprintf(d.phrase, o.Value))
			}
		}
	}
	fmt.Fprintf(&b, ", and price lower than %d.00 dollars", g.PriceLimit)
	return b.String()
}

// Score is WebShop's reward for buying p with the selected options
// (dimension -> value):
//
//	typeFactor(goal, p) * (matched attributes + matched options + [price < limit])
//	                     / (len(attributes) + len(options) + 1)
//
// The type factor is 1 for the goal's product type, 0.5 for another type
// of the same category, 0.1 for a product of another category whose title
// shares a word with the goal's type name (e.g. a coffee table for coffee),
// and 0 otherwise.
func Score(g *Goal, p *Product, selected map[string]string) float64 {
	matched := 0
	for _, a := range g.Attributes {
		if p.hasAttr(a) {
			matched++
		}
	}
	for _, o := range g.Options {
		if selected[o.Dim] == o.Value && p.offers(o.Dim, o.Value) {
			matched++
		}
	}
	if p.PriceCents < g.PriceLimit*100 {
		matched++
	}
	return typeFactor(g, p) * float64(matched) / float64(len(g.Attributes)+len(g.Options)+1)
}

func typeFactor(g *Goal, p *Product) float64 {
	switch {
	case p.Type == g.Type:
		return 1
	case p.Category == g.Category:
		return 0.5
	}
	title := textindex.PhraseText(p.Title)
	for _, w := range words.Alnum(g.Type) {
		if textindex.HasPhrase(title, w) {
			return 0.1
		}
	}
	return 0
}

// parsedGoal is what the oracle reads off an instruction.
type parsedGoal struct {
	typ     string
	attrs   []string
	options map[string]string // dimension -> value
	limit   int               // dollars
}

var limitRe = regexp.MustCompile(`lower than (\d+)\.00 dollars`)

// parseGoal reads an instruction using only its text and the domain's
// fixed word lists (types, attributes, option phrasings).
func parseGoal(text string) (parsedGoal, bool) {
	var pg parsedGoal
	padded := textindex.PhraseText(text)
	for _, t := range allTypes { // longest first
		if textindex.HasPhrase(padded, t) {
			pg.typ = t
			break
		}
	}
	c := categoryOfType(pg.typ)
	m := limitRe.FindStringSubmatch(text)
	if c == nil || m == nil {
		return pg, false
	}
	pg.limit, _ = strconv.Atoi(m[1])
	for _, a := range c.attrs {
		if textindex.HasPhrase(padded, a) {
			pg.attrs = append(pg.attrs, a)
		}
	}
	pg.options = map[string]string{}
	for _, d := range c.dims {
		best := ""
		for _, v := range d.values {
			if textindex.HasPhrase(padded, fmt.Sprintf(d.phrase, v)) && len(v) > len(best) {
				best = v
			}
		}
		if best != "" {
			pg.options[d.name] = best
		}
	}
	return pg, true
}
