package scaffold

import (
	"fmt"
	"math"
)

// Fade takes the scaffold away before training ends: the caps of the
// snapshot an iteration writes shrink over a declared part of the run, down
// to 0, so that the last iterations train bare, as the policy is deployed.
//
// Snapshot j of a run of N iterations (the one iteration j-1's scaffold
// branch writes, which iteration j's rollout reads) keeps its caps whole
// while j/N <= Start, none of them (every item pruned) once j/N >= End, and
// in between the share (End - j/N) / (End - Start) of each cap, rounded
// down. The zero value (End 0) never fades.
type Fade struct {
	Start      float64 // share of the run after which the caps begin to fall
	End        float64 // share of the run from which the scaffold is empty; 0: no fade
	Iterations int     // the run's iterations N
}

// On reports whether the fade is set.
func (f Fade) On() bool { return f.End > 0 }

// Validate reports a fade no run could follow.
func (f Fade) Validate() error {
	if !f.On() {
		if f.Start != 0 || f.End != 0 {
			return fmt.Errorf("fade end must be in (0, 1] when a fade is set (got start %g, end %g)", f.Start, f.End)
		}
		return nil
	}
	switch {
	case !(f.Start >= 0 && f.Start < f.End && f.End <= 1):
		return fmt.Errorf("fade shares must satisfy 0 <= start < end <= 1 (got %g, %g)", f.Start, f.End)
	case f.Iterations < 1:
		return fmt.Errorf("a fade needs the run's iterations (got %d)", f.Iterations)
	}
	return nil
}

// Scale is the share of the caps snapshot j keeps: 1 before the fade, 0
// from its end, linear in between (1 without a fade).
func (f Fade) Scale(j int) float64 {
	if !f.On() {
		return 1
	}
	x := float64(j) / float64(f.Iterations)
	switch {
	case x <= f.Start:
		return 1
	case x >= f.End:
		return 0
	}
	return (f.End - x) / (f.End - f.Start)
}

// Bare reports whether snapshot j is empty by the fade's schedule (its caps
// are 0), so that iteration j plays and trains bare.
func (f Fade) Bare(j int) bool { return f.On() && f.Scale(j) == 0 }

// At returns the limits that iteration k's edits keep: the caps of
// snapshot k+1 under the fade (Scale(k+1) of each, rounded down; 0 once
// the fade has ended). Without a fade it returns l unchanged. The result
// may have caps of 0, which Validate refuses: call Validate on l first.
func (l Limits) At(k int32) Limits {
	if !l.Fade.On() {
		return l
	}
	s := l.Fade.Scale(int(k) + 1)
	if s >= 1 {
		return l
	}
	scale := func(c int) int { return int(math.Floor(float64(c) * s)) }
	l.MaxItems, l.MaxTokens = scale(l.MaxItems), scale(l.MaxTokens)
	l.MaxGeneralItems, l.MaxGeneralTokens = scale(l.MaxGeneralItems), scale(l.MaxGeneralTokens)
	return l
}
