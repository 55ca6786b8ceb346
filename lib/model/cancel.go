package model

import "context"

// SetContext makes the host's sequence loops of LogProbs, ForwardBackward
// and ForwardBackwardPrefix stop between two sequences, returning ctx's
// error, once ctx is cancelled (an interrupted command then stops within
// one sequence, not one batch). nil (the default) is never cancelled.
// Set it before a computation, not during one.
func (m *Model) SetContext(ctx context.Context) { m.ctx = ctx }

// cancelled is the context's error, if it is cancelled.
func (m *Model) cancelled() error {
	if m.ctx == nil {
		return nil
	}
	return m.ctx.Err()
}
