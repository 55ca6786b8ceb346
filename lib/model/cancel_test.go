package model

import (
	"context"
	"errors"
	"testing"
)

// TestSetContext: a cancelled context stops LogProbs, ForwardBackward and
// ForwardBackwardPrefix before their next sequence; with none (or a live
// one) they run.
func TestSetContext(t *testing.T) {
	m, err := New(Tiny(64), 1)
	if err != nil {
		t.Fatal(err)
	}
	seqs := [][]int32{{1, 2, 3, 4}, {1, 2, 5, 6}}
	masks := [][]bool{{false, false, true, true}, {false, false, true, true}}
	w := func(i int, lp, ent []float32) []float32 { return make([]float32, len(lp)) }
	run := map[string]func() error{
		"LogProbs":              func() error { _, _, err := m.LogProbs(seqs, masks); return err },
		"ForwardBackward":       func() error { _, _, err := m.ForwardBackward(seqs, masks, w); return err },
		"ForwardBackwardPrefix": func() error { _, _, err := m.ForwardBackwardPrefix(1, seqs, masks, w); return err },
	}
	ctx, cancel := context.WithCancel(context.Background())
	for name, f := range run {
		m.SetContext(ctx)
		if err := f(); err != nil {
			t.Errorf("%s with a live context: %v", name, err)
		}
	}
	cancel()
	for name, f := range run {
		m.SetContext(ctx)
		if err := f(); !errors.Is(err, context.Canceled) {
			t.Errorf("%s with a cancelled context: %v, want context.Canceled", name, err)
		}
		m.SetContext(nil)
		if err := f(); err != nil {
			t.Errorf("%s with no context: %v", name, err)
		}
	}
}
