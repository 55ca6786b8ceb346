package rl

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/progress"
	"github.com/pats-rl/pats/lib/table"
)

// SFTConfig holds the settings of supervised fine-tuning.
type SFTConfig struct {
	Epochs      int // passes over the demonstrations
	BatchTokens int // a minibatch holds whole sequences up to this many tokens in all
	Optim       OptimConfig
	Seed        int64              // shuffling
	Progress    *progress.Settings // nil: no progress
}

// DefaultSFT is the command's defaults.
func DefaultSFT() SFTConfig {
	return SFTConfig{Epochs: 3, BatchTokens: 8192,
		Optim: OptimConfig{LR: 1e-3, Warmup: 0.1, Cosine: true, MinLRRatio: 0.1, MaxGradNorm: 1}}
}

// Batches splits sequences of the given lengths into minibatches for each
// epoch: a seeded shuffle of the sequences, then greedy packing in that
// order, a new minibatch starting when the next sequence would take the
// current one past batchTokens (a longer sequence is a minibatch alone).
// The result is indexed [epoch][minibatch][k] = sequence index.
func Batches(lengths []int, batchTokens, epochs int, seed int64) [][][]int {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x5f7))
	out := make([][][]int, epochs)
	for e := range out {
		order := rng.Perm(len(lengths))
		var cur []int
		n := 0
		for _, i := range order {
			if len(cur) > 0 && n+lengths[i] > batchTokens {
				out[e] = append(out[e], cur)
				cur, n = nil, 0
			}
			cur = append(cur, i)
			n += lengths[i]
		}
		if len(cur) > 0 {
			out[e] = append(out[e], cur)
		}
	}
	return out
}

// SFTMask marks the tokens SFT learns to write: the policy-written ones
// (roles action and skill name) after the first position.
func SFTMask(roles []int8) ([]bool, int) {
	mask := make([]bool, len(roles))
	n := 0
	for t, r := range roles {
		if t > 0 && table.PolicyWritten(r) {
			mask[t] = true
			n++
		}
	}
	return mask, n
}

// TrainSFT minimises the mean negative log-likelihood of the policy-written
// tokens of rows (every other token is context), one optimizer step per
// minibatch, and returns one metrics row per step. The rows must have
// passed CheckTokens.
func TrainSFT(ctx context.Context, m *model.Model, opt *model.AdamW, rows []table.Trajectory, cfg SFTConfig) ([]table.TrainMetrics, error) {
	// A cancelled ctx stops a step between two sequences, not only between
	// two steps.
	m.SetContext(ctx)
	defer m.SetContext(nil)
	if cfg.Epochs < 1 {
		return nil, fmt.Errorf("epochs must be at least 1")
	}
	if cfg.BatchTokens < 1 {
		return nil, fmt.Errorf("batch tokens must be at least 1")
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("no demonstrations")
	}
	units := sftUnits(rows)
	lengths := make([]int, len(units))
	for i := range units {
		lengths[i] = units[i].cost
	}
	plan := Batches(lengths, cfg.BatchTokens, cfg.Epochs, cfg.Seed)
	total := 0
	for _, e := range plan {
		total += len(e)
	}
	sched := cfg.Optim.schedule(total)
	meter := cfg.Progress.Start("learn sft", "step", total)
	var metrics []table.TrainMetrics
	step := 0
	for epoch, batches := range plan {
		for _, idx := range batches {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			step++
			start := time.Now()
			n, nseq := 0, 0
			for _, i := range idx {
				n += units[i].count
				nseq += len(units[i].seqs)
			}
			w := -1 / float64(n)
			var loss, ent float64
			m.ZeroGrad()
			for _, i := range idx {
				u := &units[i]
				nll := func(j int, lp, en []float32) []float32 {
					out := make([]float32, len(lp))
					for t, on := range u.masks[j] {
						if on {
							loss += w * float64(lp[t])
							ent += float64(en[t])
							out[t] = float32(w)
						}
					}
					return out
				}
				var err error
				if u.prefix > 0 {
					_, _, err = m.ForwardBackwardPrefix(u.prefix, u.seqs, u.masks, nll)
				} else {
					_, _, err = m.ForwardBackward(u.seqs, u.masks, nll)
				}
				if err != nil {
					return nil, fmt.Errorf("step %d: %w", step, err)
				}
			}
			if math.IsNaN(loss) || math.IsInf(loss, 0) {
				return nil, &NonFiniteError{step, "the loss"}
			}
			gn := m.ClipGradNorm(cfg.Optim.MaxGradNorm)
			if math.IsNaN(gn) || math.IsInf(gn, 0) {
				return nil, &NonFiniteError{step, "the gradient"}
			}
			lr := sched.LR(step)
			if err := opt.Step(lr); err != nil {
				return nil, err
			}
			row := table.TrainMetrics{Phase: "sft", Step: int32(step), GlobalStep: int32(opt.StepN),
				Epoch: int32(epoch), Loss: loss, GradNorm: gn, LR: lr,
				Sequences: int32(nseq), Tokens: int32(n), Seconds: time.Since(start).Seconds()}
			if n > 0 {
				row.Entropy = ptr(ent / float64(n))
			}
			metrics = append(metrics, row)
			meter.Update(step, fmt.Sprintf("epoch %d loss %.4f", epoch, loss))
		}
	}
	meter.Finish()
	return metrics, nil
}

// sftUnit is one entry of an SFT minibatch: a demonstration trained as one
// sequence, or the turn sequences of a windowed one (rollout --history,
// TurnSequences: the context each answer saw, then the answer), which
// share the episode's prompt and train with it run once
// (Model.ForwardBackwardPrefix).
type sftUnit struct {
	seqs   [][]int32
	masks  [][]bool
	prefix int // leading tokens every sequence shares and none scores; 0: each sequence whole
	cost   int // tokens the model runs: the prefix once, then each sequence's rest
	count  int // tokens scored
}

// sftUnits makes one unit per demonstration, in order: a row without a
// window is one sequence; a windowed row is its turn sequences with their
// shared prefix (the prompt, less any tail of it a sequence scores).
func sftUnits(rows []table.Trajectory) []sftUnit {
	units := make([]sftUnit, len(rows))
	for i := range rows {
		seqs := []table.Trajectory{rows[i]}
		if Windowed(&rows[i]) {
			seqs = TurnSequences(&rows[i])
		}
		u := &units[i]
		for k := range seqs {
			mask, c := SFTMask(seqs[k].Roles)
			u.seqs, u.masks = append(u.seqs, seqs[k].Tokens), append(u.masks, mask)
			u.count += c
		}
		if len(u.seqs) > 1 {
			u.prefix = sharedPrefix(u.seqs, u.masks)
		}
		u.cost = u.prefix
		for _, q := range u.seqs {
			u.cost += len(q) - u.prefix
		}
	}
	return units
}

// sharedPrefix is the number of leading tokens all seqs have in common,
// cut so that no sequence scores a position inside it (position t is
// predicted from t-1, so t <= prefix is refused) and every sequence has a
// token after it.
func sharedPrefix(seqs [][]int32, masks [][]bool) int {
	p := len(seqs[0])
	for k, q := range seqs {
		p = min(p, len(q)-1)
		for t := 0; t < p; t++ {
			if q[t] != seqs[0][t] {
				p = t
				break
			}
		}
		for t := 0; t <= p && t < len(masks[k]); t++ {
			if masks[k][t] {
				p = t - 1
				break
			}
		}
	}
	return max(p, 0)
}
