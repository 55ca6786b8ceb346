package scaffold

import (
	"testing"
)

func TestFadeScale(t *testing.T) {
	f := Fade{Start: 0.5, End: 0.8, Iterations: 20}
	cases := []struct {
		j    int
		want float64
		bare bool
	}{
		{0, 1, false}, {10, 1, false}, {11, 5.0 / 6, false}, {13, 0.5, false},
		{15, 1.0 / 6, false}, {16, 0, true}, {19, 0, true}, {20, 0, true},
	}
	for _, c := range cases {
		got := f.Scale(c.j)
		if d := got - c.want; d > 1e-12 || d < -1e-12 {
			t.Errorf("Scale(%d) = %g, want %g", c.j, got, c.want)
		}
		if f.Bare(c.j) != c.bare {
			t.Errorf("Bare(%d) = %v, want %v", c.j, f.Bare(c.j), c.bare)
		}
	}
	if (Fade{}).Scale(19) != 1 || (Fade{}).Bare(20) {
		t.Error("the zero fade must keep the caps whole")
	}
}

func TestLimitsAt(t *testing.T) {
	l := DefaultLimits()
	if got := l.At(5); got != l {
		t.Errorf("without a fade At changed the limits: %+v", got)
	}
	l.Fade = Fade{Start: 0.5, End: 0.8, Iterations: 20}
	if got := l.At(9); got != l { // snapshot 10: before the fade
		t.Errorf("At(9) = %+v, want the whole caps", got)
	}
	half := l.At(12) // snapshot 13: half of each cap
	if half.MaxItems != 6 || half.MaxTokens != 200 || half.MaxGeneralItems != 4 || half.MaxGeneralTokens != 100 {
		t.Errorf("At(12) caps = %d %d %d %d, want 6 200 4 100", half.MaxItems, half.MaxTokens, half.MaxGeneralItems, half.MaxGeneralTokens)
	}
	if half.ExpandQuota != l.ExpandQuota || half.MinSupport != l.MinSupport || half.MaxItemTokens != l.MaxItemTokens {
		t.Error("At must change the caps only")
	}
	zero := l.At(15) // snapshot 16: empty
	if zero.MaxItems != 0 || zero.MaxTokens != 0 || zero.MaxGeneralItems != 0 || zero.MaxGeneralTokens != 0 {
		t.Errorf("At(15) = %+v, want every cap 0", zero)
	}
}

func TestFadeValidate(t *testing.T) {
	bad := []Fade{{Start: 0.8, End: 0.5, Iterations: 20}, {Start: 0.5, End: 1.2, Iterations: 20},
		{Start: -0.1, End: 0.5, Iterations: 20}, {Start: 0.5, End: 0.8}, {Start: 0.3}}
	for _, f := range bad {
		l := DefaultLimits()
		l.Fade = f
		if l.Validate() == nil {
			t.Errorf("fade %+v accepted", f)
		}
	}
	l := DefaultLimits()
	l.Fade = Fade{Start: 0, End: 1, Iterations: 3}
	if err := l.Validate(); err != nil {
		t.Errorf("fade %+v refused: %v", l.Fade, err)
	}
}
