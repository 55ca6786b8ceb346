package vocabulary

import (
	"sort"
	"strconv"
	"strings"

	"github.com/pats-rl/pats/lib/agent"
	"github.com/pats-rl/pats/lib/env"
	"github.com/pats-rl/pats/lib/env/shipped"
	"github.com/pats-rl/pats/lib/refiner"
	"github.com/pats-rl/pats/lib/scaffold"
	"github.com/pats-rl/pats/lib/skill"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// extraText holds words that no environment emits but the context does:
// the agent's prompt, the scaffold's headings and bullets, and every text the
// rule-based refiner's templates can write (placeholders removed; the values
// put in them are feature values, which the environments emit).
var extraText = append([]string{agent.SystemText, agent.ReadVerb, "Nothing happens.",
	scaffold.HeadingGeneral, scaffold.HeadingTask, scaffold.HeadingMistake, "- ", featureText, retiredText}, templateTexts()...)

// retiredText holds the words of texts the rule-based refiner's templates
// wrote before its rules were tied to the run's own evidence (milestone,
// fallback and action items, tool names in action items): snapshots of earlier
// runs hold them, and the tokenizer keeps its ids.
const retiredText = "Make sure you reach this step: Aim for " +
	"Take the target object before going to the destination. Search with the key words of the instruction. " +
	"Answer only when the retrieved text supports the answer. Open closed receptacles to look inside them. " +
	"Do not waste steps; go to the most likely places first. Find the first; the task is about it. " +
	"Use the action when the task calls for it."

// featureText holds the words of the built-in environments' evidence
// features (prefixes and fixed values, as their docs list them) and of the
// rollout's failure modes: the rule-based refiner writes them into items
// ("Make sure you reach this step: took target."). Object and receptacle
// kinds are already among the environments' words.
const featureText = "action object recep lamp visited milestone found target took transformed " +
	"failure invalid action loop max steps wrong object receptacle missing transform context limit unfinished " +
	"query type no attribute option category found product selected options missing attribute over price " +
	"hops entity relation bridge answer answered no answer search budget wrong answer click result next page prev back to buy"

// templateTexts returns the rule-based refiner's template texts without their
// {value} and {prefix} placeholders, in a fixed order.
func templateTexts() []string {
	keys := make([]string, 0, len(refiner.DefaultTemplates))
	for k := range refiner.DefaultTemplates {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		t := refiner.DefaultTemplates[k]
		t = strings.ReplaceAll(t, "{value}", " ")
		t = strings.ReplaceAll(t, "{prefix}", " ")
		out = append(out, t)
	}
	return out
}

// Vocabulary is every word of the built-in tokenizer, sorted and unique.
func Vocabulary() ([]string, error) {
	seen := map[string]bool{}
	add := func(ws []string) {
		for _, w := range ws {
			seen[w] = true
		}
	}
	for _, name := range shipped.Names {
		e, err := env.Open(name)
		if err != nil {
			return nil, err
		}
		add(e.Vocabulary())
		lib, err := skill.ShippedLibrary(name)
		if err != nil {
			return nil, err
		}
		add(lib.Vocabulary())
	}
	for _, t := range extraText {
		add(tokenizer.Words(t))
	}
	for i := 0; i <= 100; i++ {
		add(tokenizer.Words(strconv.Itoa(i)))
	}
	out := make([]string, 0, len(seen))
	for w := range seen {
		out = append(out, w)
	}
	sort.Strings(out)
	return out, nil
}
