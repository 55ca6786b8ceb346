package refiner

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/pats-rl/pats/lib/card"
	"github.com/pats-rl/pats/lib/table"
)

// evidence is one scope's evidence smoothed over the window: the cards of
// the scope's task type (all types for the general layer) of iterations
// k-Window+1 .. k (Input.Window), each weighted Decay^(k - its iteration).
type evidence struct {
	k, from int32        // the iterations the cards cover
	cards   []table.Card // sorted by id
	weight  map[string]float64
	nS, nF  float64            // weighted successful / failed episodes
	rawS    int                // successful episodes
	rawF    int                // failed episodes
	s, f    map[string]float64 // weighted episodes showing a feature, per side
	rs, rf  map[string]int     // episodes showing a feature, per side
	modes   map[string]float64 // weighted failed episodes per failure mode
	rmodes  map[string]int
}

// count is the number of a card side's n episodes that show a feature
// of frequency p (frequencies are shares of whole episodes).
func count(p float64, n int32) int { return int(math.Round(p * float64(n))) }

// windowCards returns the cards of scope t (all types for t == "") of the
// iterations in (k-window, k], sorted by id.
func windowCards(cards []table.Card, t string, k int32, window int) []table.Card {
	var out []table.Card
	for _, c := range ScopeCards(cards, t) {
		if c.Iteration <= k && c.Iteration > k-int32(window) {
			out = append(out, c)
		}
	}
	return out
}

// gather smooths the cards (already chosen) of one scope at iteration k.
func (b *RuleBased) gather(cards []table.Card, k int32) *evidence {
	e := &evidence{k: k, from: k, cards: cards, weight: map[string]float64{},
		s: map[string]float64{}, f: map[string]float64{}, rs: map[string]int{}, rf: map[string]int{},
		modes: map[string]float64{}, rmodes: map[string]int{}}
	for _, c := range cards {
		if c.Iteration < e.from {
			e.from = c.Iteration
		}
		w := math.Pow(b.Decay, float64(k-c.Iteration))
		e.weight[c.CardID] = w
		nS, nF := c.NSuccess, c.NEpisodes-c.NSuccess
		e.nS += w * float64(nS)
		e.nF += w * float64(nF)
		e.rawS += int(nS)
		e.rawF += int(nF)
		for i, f := range c.SuccessFeatures {
			n := count(c.SuccessFreqs[i], nS)
			e.s[f] += w * float64(n)
			e.rs[f] += n
		}
		for i, f := range c.FailureFeatures {
			n := count(c.FailureFreqs[i], nF)
			e.f[f] += w * float64(n)
			e.rf[f] += n
		}
		for i, m := range c.FailureModes {
			if m == card.UnknownFailure || m == "" {
				continue
			}
			e.modes[m] += w * float64(c.FailureModeCounts[i])
			e.rmodes[m] += int(c.FailureModeCounts[i])
		}
	}
	return e
}

// ps and pf are the smoothed shares of successful and failed episodes
// showing f (0 for an empty side).
func (e *evidence) ps(f string) float64 {
	if e.nS == 0 {
		return 0
	}
	return e.s[f] / e.nS
}

func (e *evidence) pf(f string) float64 {
	if e.nF == 0 {
		return 0
	}
	return e.f[f] / e.nF
}

// diff is ps - pf; 0 unless both sides have episodes.
func (e *evidence) diff(f string) float64 {
	if e.nS == 0 || e.nF == 0 {
		return 0
	}
	return e.ps(f) - e.pf(f)
}

// modeShare is the smoothed share of failed episodes with failure mode m
// (or the feature failure:m).
func (e *evidence) modeShare(m string) float64 {
	if e.nF == 0 {
		return 0
	}
	return math.Max(e.modes[m], e.f[table.FailureFeature(m)]) / e.nF
}

// features returns every feature the evidence shows (failure modes as
// "failure:<mode>"), sorted.
func (e *evidence) features() []string {
	fs := map[string]bool{}
	for f := range e.s {
		fs[f] = true
	}
	for f := range e.f {
		fs[f] = true
	}
	for m := range e.modes {
		fs[table.FailureFeature(m)] = true
	}
	return sortedKeys(fs)
}

// values returns the values of choice slot p the evidence shows, sorted,
// with their slot weight: successful episodes plus Partial times failed
// ones showing p:v.
func (b *RuleBased) values(e *evidence, p string) map[string]float64 {
	out := map[string]float64{}
	for _, f := range e.features() {
		if fp, v := splitFeature(f); fp == p && v != "" {
			out[v] = e.s[f] + b.Partial*e.f[f]
		}
	}
	return out
}

// slot returns the value choice slot p holds in the evidence and its share
// of the slot's weight, or ok false (see RuleBased: choice rule).
func (b *RuleBased) slot(e *evidence, p string) (value string, share float64, ok bool) {
	vals := b.values(e, p)
	total := 0.0
	for _, v := range sortedKeys(vals) {
		total += vals[v]
		if value == "" || vals[v] > vals[value] {
			value = v
		}
	}
	if value == "" || total == 0 {
		return "", 0, false
	}
	share = vals[value] / total
	best := e.s[p+":"+value]
	for v := range vals {
		if e.s[p+":"+v] > best {
			return value, share, false // successes favour another value
		}
	}
	return value, share, share >= b.SlotShare
}

// holds reports whether the rule of feature f holds in the evidence, with
// its score (see RuleBased): the choice rule for a choice slot, the
// failure rule for a failure feature, the shared-contrast rule otherwise.
func (b *RuleBased) holds(e *evidence, f string) (float64, bool) {
	p, v := splitFeature(f)
	switch {
	case isFailure(f):
		sh := e.modeShare(v)
		return sh, sh >= b.MinShare
	case b.isChoice(f):
		w, sh, ok := b.slot(e, p)
		return sh, ok && w == v && b.slotLeans(e, p)
	default:
		d := e.diff(f)
		return d, d >= b.MinLean && e.ps(f) >= b.SuccessShare
	}
}

// slotLeans reports whether the evidence says slot p's step belongs to the
// task, whatever value it takes: most successful episodes do it (at least
// SuccessShare of them, as the shared-contrast rule asks of its features)
// and it is more common among them than among the failed ones. With no
// success yet, the failures that got far are all the evidence there is,
// and then at least MinShare of the failed episodes must do the step. A
// step that successes and failures do alike is not what makes a success:
// a scaffold's own rule ("Clean the object ...") makes every episode do
// it, and without this check its episodes would confirm it in every type;
// nor is a step a few episodes do on the way (a clean task's successes
// that also heated something: "heat:stoveburner in 2/6 successes"), whose
// winning value has the whole slot's share when the world has one tool
// for it.
func (b *RuleBased) slotLeans(e *evidence, p string) bool {
	var s, f float64
	for _, x := range e.features() {
		if xp, v := splitFeature(x); xp == p && v != "" {
			s += e.s[x]
			f += e.f[x]
		}
	}
	if e.nS == 0 {
		return e.nF > 0 && f/e.nF >= b.MinShare
	}
	if s/e.nS < b.SuccessShare {
		return false
	}
	return e.nF == 0 || s/e.nS > f/e.nF
}

// shows reports whether the evidence bears on f: it shows f, or for a
// choice slot any value of it.
func (b *RuleBased) shows(e *evidence, f string) bool {
	if b.isChoice(f) {
		p, _ := splitFeature(f)
		return len(b.values(e, p)) > 0
	}
	if isFailure(f) {
		_, m := splitFeature(f)
		return e.rmodes[m] > 0 || e.rf[f] > 0
	}
	return e.rs[f] > 0 || e.rf[f] > 0
}

// supports reports whether card c supports feature f (see RuleBased).
func (b *RuleBased) supports(c table.Card, f string) bool {
	if isFailure(f) {
		_, m := splitFeature(f)
		if card.ModeCount(c, m) > 0 {
			return true
		}
		_, fl := card.Freq(c, f)
		return fl > 0
	}
	if b.isChoice(f) {
		p, _ := splitFeature(f)
		ce := b.gather([]table.Card{c}, c.Iteration)
		vals := b.values(ce, p)
		_, v := splitFeature(f)
		if vals[v] == 0 {
			return false
		}
		for _, x := range vals {
			if x > vals[v] {
				return false
			}
		}
		return true
	}
	return card.Lean(c, f) > 0
}

// typeHolds counts the task types of the evidence's cards whose own
// (smoothed) evidence bears on f, and those where f's rule holds with a
// successful episode showing f (failure modes: with a failed one).
func (b *RuleBased) typeHolds(e *evidence, f string) (shown, holds int) {
	byType := map[string][]table.Card{}
	for _, c := range e.cards {
		byType[c.TaskType] = append(byType[c.TaskType], c)
	}
	for _, t := range sortedKeys(byType) {
		te := b.gather(byType[t], e.k)
		if !b.shows(te, f) {
			continue
		}
		shown++
		if _, ok := b.holds(te, f); ok && (isFailure(f) || te.rs[f] > 0) {
			holds++
		}
	}
	return shown, holds
}

// holdsWidely reports whether f's rule holds in at least two task types
// and in more than GeneralShare of the task types of the evidence (not
// only of those that show f: a rule a General item states is read in
// every type's episodes, so a tool that two types' successes use is a
// rule of those types, not of all).
func (b *RuleBased) holdsWidely(e *evidence, f string) bool {
	_, holds := b.typeHolds(e, f)
	types := map[string]bool{}
	for _, c := range e.cards {
		types[c.TaskType] = true
	}
	return holds >= 2 && float64(holds) > b.GeneralShare*float64(len(types))
}

// statistic states the evidence of f's rule: the counts behind it, the
// iterations and cards they come from, and the smoothed figure the rule
// tests.
func (b *RuleBased) statistic(e *evidence, f string) string {
	iters := fmt.Sprintf("iteration %d", e.k)
	if e.from < e.k {
		iters = fmt.Sprintf("iterations %d-%d", e.from, e.k)
	}
	var s string
	p, v := splitFeature(f)
	switch {
	case isFailure(f):
		n := e.rmodes[v]
		if e.rf[f] > n {
			n = e.rf[f]
		}
		s = fmt.Sprintf("%s in %d/%d failures over %s, %d cards (smoothed share %.2f)", f, n, e.rawF, iters, len(e.cards), e.modeShare(v))
	case b.isChoice(f):
		_, sh, _ := b.slot(e, p)
		s = fmt.Sprintf("%s in %d/%d successes and %d/%d failures over %s, %d cards (smoothed share %.2f of the %s values, failures weighted %.2f)",
			f, e.rs[f], e.rawS, e.rf[f], e.rawF, iters, len(e.cards), sh, p, b.Partial)
	default:
		s = fmt.Sprintf("%s in %d/%d successes and %d/%d failures over %s, %d cards (smoothed %.2f against %.2f)",
			f, e.rs[f], e.rawS, e.rf[f], e.rawF, iters, len(e.cards), e.ps(f), e.pf(f))
	}
	return s
}

// Statistics states, for the scope of in, the evidence of every feature
// whose rule holds there with enough supporting cards (with the rule-based
// refiner's defaults; for the general layer only those holding in most
// types), best first, each with the cards that support it: the lines the
// OpenAI refiner's prompt carries.
func Statistics(in Input) []string {
	b := NewRuleBased()
	in = in.withDefaults()
	s := b.state(in)
	type line struct {
		f     string
		score float64
	}
	var ls []line
	for _, f := range s.feats {
		if sc, ok := b.ruleHolds(s, f); ok {
			ls = append(ls, line{f, sc})
		}
	}
	sort.SliceStable(ls, func(i, j int) bool {
		if ls[i].score != ls[j].score {
			return ls[i].score > ls[j].score
		}
		return ls[i].f < ls[j].f
	})
	out := make([]string, 0, len(ls))
	for _, l := range ls {
		out = append(out, fmt.Sprintf("%s; supporting cards %s", b.statistic(s.ev, l.f), strings.Join(topSupport(s.support[l.f]), ", ")))
	}
	return out
}
