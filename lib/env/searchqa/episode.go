package searchqa

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/pats-rl/pats/lib/env"
	"github.com/pats-rl/pats/lib/env/internal/textindex"
)

const (
	// MaxSearches is the search budget (Search-R1's 4 turns).
	MaxSearches = 4
	// MaxSteps is the step budget: 4 searches and an answer.
	MaxSteps = MaxSearches + 1
	// maxAnswerCandidates caps the answer[...] suggestions of Admissible.
	maxAnswerCandidates = 8
	// maxSearchCandidates caps the entity-name search suggestions.
	maxSearchCandidates = 3
)

type episode struct {
	env      *Env
	q        *Question
	steps    int
	searches int
	done     bool
	obs      string
	feats    map[string]bool
	queries  map[string]bool
	last     []int // passages of the last search
	seenEnts []int // entities named by retrieved passages, most recent search first
}

func (e *episode) TaskID() string      { return e.q.ID }
func (e *episode) TaskType() string    { return e.q.Type }
func (e *episode) Goal() string        { return e.q.Text }
func (e *episode) Observation() string { return e.obs }
func (e *episode) MaxSteps() int       { return MaxSteps }
func (e *episode) feature(f string)    { e.feats[f] = true }

func (e *episode) Features() []string {
	out := make([]string, 0, len(e.feats))
	for f := range e.feats {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// Admissible suggests a finite set of actions: a search for the question's
// words and for up to three entities named by the last passages (while
// searches remain), and answers naming up to eight entities seen in
// retrieved passages (most recent first). Any search[...] or answer[...]
// text is accepted by Step.
func (e *episode) Admissible() []string {
	if e.done {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	addA := func(a string) {
		if !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	w := e.env.w
	if e.searches < MaxSearches {
		addA("search[" + strings.TrimSuffix(e.q.Text, "?") + "]")
		n := 0
		for _, p := range e.last {
			for _, id := range w.passages[p].entities {
				if n < maxSearchCandidates && !seen["search["+w.ents[id].name+"]"] {
					addA("search[" + w.ents[id].name + "]")
					n++
				}
			}
		}
	}
	for i, id := range e.seenEnts {
		if i == maxAnswerCandidates {
			break
		}
		addA("answer[" + w.ents[id].name + "]")
	}
	return out
}

var actionRe = regexp.MustCompile(`(?s)^\s*(search|answer)\s*\[(.*)\]\s*$`)

// parseAction splits "search[q]" / "answer[t]" into verb and argument
// (spaces collapsed, case kept for the argument). ok is false otherwise.
func parseAction(a string) (verb, arg string, ok bool) {
	m := actionRe.FindStringSubmatch(a)
	if m == nil {
		if m = actionRe.FindStringSubmatch(strings.ToLower(a)); m == nil {
			return "", "", false
		}
	}
	verb = strings.ToLower(m[1])
	arg = strings.Join(strings.Fields(m[2]), " ")
	if arg == "" {
		return "", "", false
	}
	return verb, arg, true
}

const invalidText = "invalid action. use search[query] or answer[text]."

// Step applies one action. search[q] returns the top 3 passages while
// searches remain; a fifth search ends the episode with score 0
// (failure:search_budget). answer[t] ends the episode: reward and score 1 on
// an exact match after Normalize, else 0. Anything else is invalid and uses a
// step. After MaxSteps steps without an answer the episode ends with 0.
func (e *episode) Step(action string) env.Step {
	if e.done {
		return env.Step{Observation: e.obs, Done: true}
	}
	e.steps++
	st := e.apply(action)
	if !st.Valid {
		e.feature("failure:invalid_action")
	}
	if !st.Done && e.steps >= MaxSteps {
		st.Done = true
		e.feature("failure:max_steps")
		e.feature("failure:no_answer")
	}
	if st.Done {
		e.done = true
	}
	st.Key = e.key(st.Observation)
	return st
}

// InitialKey implements env.KeyedEpisode (see key).
func (e *episode) InitialKey() string { return e.key(e.obs) }

// key is the anchor-state key of the state as the agent knows it after
// seeing obs: how many searches it made, the passages its last search
// returned and what the observation shows (an invalid action's reply is
// the same text whatever was found before).
func (e *episode) key(obs string) string {
	return env.StateKey(fmt.Sprintf("searches: %d\nlast passages: %v\nobservation: %s", e.searches, e.last, obs))
}

func (e *episode) apply(action string) env.Step {
	verb, arg, ok := parseAction(action)
	if !ok {
		return env.Step{Observation: invalidText}
	}
	if verb == "answer" {
		return e.answer(arg)
	}
	if e.searches >= MaxSearches {
		e.feature("failure:search_budget")
		e.feature("failure:no_answer")
		e.obs = "search budget used up. no answer given."
		return env.Step{Observation: e.obs, Done: true}
	}
	e.searches++
	e.feature("action:search")
	key := Normalize(arg)
	if e.queries[key] {
		e.feature("failure:loop")
	}
	e.queries[key] = true
	e.queryFeatures(arg)
	e.last = e.env.idx.Search(arg, TopK)
	e.obs = e.renderPassages(e.last)
	e.notePassages()
	return env.Step{Observation: e.obs, Valid: true}
}

func (e *episode) renderPassages(ps []int) string {
	if len(ps) == 0 {
		return "no passages found."
	}
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "[%d] %s", i+1, e.env.w.passages[p].text)
	}
	return b.String()
}

// notePassages records milestones and the entities the passages name.
func (e *episode) notePassages() {
	w := e.env.w
	q := e.q
	for _, p := range e.last {
		for h, r := range q.rels {
			if w.fact[r][q.path[h]] == p {
				if h == len(q.rels)-1 {
					e.feature("milestone:found_answer")
				} else {
					e.feature("milestone:found_bridge")
				}
			}
		}
	}
	var fresh []int
	for _, p := range e.last {
		fresh = append(fresh, w.passages[p].entities...)
	}
	e.seenEnts = dedupe(append(fresh, e.seenEnts...))
}

func (e *episode) queryFeatures(query string) {
	padded := textindex.PhraseText(query)
	for _, id := range e.q.path[:len(e.q.path)-1] {
		if textindex.HasPhrase(padded, e.env.w.ents[id].name) {
			e.feature("query:entity")
			break
		}
	}
	for _, r := range e.q.rels {
		if textindex.HasPhrase(padded, relations[r].keyword) {
			e.feature("query:relation")
			break
		}
	}
}

func (e *episode) answer(text string) env.Step {
	e.feature("action:answer")
	q := e.q
	if ExactMatch(text, q.Answer) {
		e.obs = "your answer is correct."
		return env.Step{Observation: e.obs, Reward: 1, Done: true, Success: true, Score: 1, Valid: true}
	}
	e.feature("failure:wrong_answer")
	for _, name := range q.Path[:len(q.Path)-1] {
		if ExactMatch(text, name) {
			e.feature("failure:answered_bridge")
		}
	}
	e.obs = "your answer is wrong."
	return env.Step{Observation: e.obs, Done: true, Valid: true}
}
