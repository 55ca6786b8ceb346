package audit

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/progress"
	"github.com/pats-rl/pats/lib/rl"
	"github.com/pats-rl/pats/lib/table"
)

// ErrNoScaffold says that no trajectory carries scaffold tokens.
var ErrNoScaffold = errors.New("no episode has scaffold tokens")

// WithoutScaffold returns the tokens and roles with every scaffold token
// (role scaffold) removed.
func WithoutScaffold(tokens []int32, roles []int8) ([]int32, []int8) {
	var t []int32
	var r []int8
	for i, role := range roles {
		if role != table.RoleScaffold {
			t = append(t, tokens[i])
			r = append(r, role)
		}
	}
	return t, r
}

// NLL is the mean negative log-likelihood (nats per token) m gives the
// policy-written tokens of seqs with the given roles, pooled over all
// tokens, and the number of tokens.
func NLL(m *model.Model, seqs [][]int32, roles [][]int8) (float64, int64, error) {
	masks := make([][]bool, len(seqs))
	for i, rs := range roles {
		masks[i] = make([]bool, len(rs))
		for t, r := range rs {
			masks[i][t] = t > 0 && table.PolicyWritten(r)
		}
	}
	lp, _, err := m.LogProbs(seqs, masks)
	if err != nil {
		return 0, 0, err
	}
	var s float64
	var n int64
	for i := range lp {
		for t, on := range masks[i] {
			if on {
				s -= float64(lp[i][t])
				n++
			}
		}
	}
	if n == 0 {
		return math.NaN(), 0, nil
	}
	return s / float64(n), n, nil
}

// Scaffold measures, for each checkpoint, the mean NLL of the
// policy-written tokens of the episodes that carry scaffold tokens, with
// the scaffold in the context and with it removed; the gap is
// without - with, and its relative change is taken against the first
// checkpoint's gap. load opens a checkpoint by name; one model is held at
// a time. An episode rolled out with a history window counts as one
// sequence per answer, the context it saw (rl.TurnSequences).
func Scaffold(ckpts []string, load func(name string) (*model.Model, error), traj []table.Trajectory) ([]table.ScaffoldAudit, error) {
	return ScaffoldProgress(context.Background(), ckpts, load, traj, nil)
}

// ScaffoldProgress is Scaffold reporting each checkpoint done, with its
// gap, to meter (nil: nothing). It stops with ctx's error once ctx is
// cancelled: between two sequences of a checkpoint's scoring (each model
// load gives scores under ctx) and before each checkpoint.
func ScaffoldProgress(ctx context.Context, ckpts []string, load func(name string) (*model.Model, error), traj []table.Trajectory, meter *progress.Meter) ([]table.ScaffoldAudit, error) {
	var with, without [][]int32
	var rWith, rWithout [][]int8
	var rows []table.Trajectory
	episodes := 0
	for i := range traj {
		for _, role := range traj[i].Roles {
			if role == table.RoleScaffold {
				episodes++
				break
			}
		}
		if rl.Windowed(&traj[i]) {
			// A history window: each answer under the context it saw.
			rows = append(rows, rl.TurnSequences(&traj[i])...)
		} else {
			rows = append(rows, traj[i])
		}
	}
	for i := range rows {
		r := &rows[i]
		has := false
		for _, role := range r.Roles {
			has = has || role == table.RoleScaffold
		}
		if !has {
			continue
		}
		t, rs := WithoutScaffold(r.Tokens, r.Roles)
		with, rWith = append(with, r.Tokens), append(rWith, r.Roles)
		without, rWithout = append(without, t), append(rWithout, rs)
	}
	if len(with) == 0 {
		return nil, ErrNoScaffold
	}
	var out []table.ScaffoldAudit
	for k, name := range ckpts {
		if err := ctx.Err(); err != nil {
			meter.Abandon()
			return nil, err
		}
		m, err := load(name)
		if err != nil {
			meter.Abandon()
			return nil, err
		}
		m.SetContext(ctx)
		a, n, err := NLL(m, with, rWith)
		if err != nil {
			meter.Abandon()
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		b, _, err := NLL(m, without, rWithout)
		if err != nil {
			meter.Abandon()
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		row := table.ScaffoldAudit{Checkpoint: name, Index: int32(k), Episodes: int32(episodes), Tokens: n,
			NLLWith: table.NullNaN(a), NLLWithout: table.NullNaN(b), Gap: table.NullNaN(b - a)}
		first := row.Gap
		if k > 0 {
			first = out[0].Gap
		}
		if row.Gap != nil && first != nil && *first != 0 {
			row.GapRelative = table.NullNaN((*row.Gap - *first) / math.Abs(*first))
		}
		out = append(out, row)
		meter.Update(k+1, fmt.Sprintf("%s gap %s nats/token", name, gapText(row.Gap)))
	}
	meter.Finish()
	return out, nil
}

// gapText formats a gap for progress lines: "-" for NULL (no scored
// tokens).
func gapText(g *float64) string {
	if g == nil {
		return "-"
	}
	return fmt.Sprintf("%.4f", *g)
}
