package rl

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/pats-rl/pats/lib/agent"
	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/progress"
	"github.com/pats-rl/pats/lib/table"
)

// GRPOConfig holds the settings of a GRPO update.
type GRPOConfig struct {
	Credit     Credit
	Norm       AdvNorm
	Clip       float64 // PPO clip range eps: ratios are clipped to [1-eps, 1+eps]
	KL         float64 // coefficient of the k3 KL penalty to the reference model
	Agg        Agg
	Epochs     int     // passes over the trajectories (>= 1)
	Minibatch  int     // sequences per optimizer step; 0 = all in one step
	SelectCoef float64 // SkillGate: scale of the selection term (SelectGroup) or magnitude of its advantage (SelectNone)
	SelectNorm SelectNorm
	// SelectBaseline is how the selection advantage is formed (SkillGate).
	SelectBaseline SelectBaseline
	// DropFlat leaves the groups whose rewards are all equal out of the
	// update (their advantages file rows are all 0, channel 0).
	DropFlat bool
	// Step adds a step-level credit (GiGPO) to the episode advantage of
	// the outcome-channel tokens; Gamma discounts its returns and
	// StepWeight scales it.
	Step       StepCredit
	Gamma      float64
	StepWeight float64
	Optim      OptimConfig
	Seed       int64              // minibatch shuffling
	Progress   *progress.Settings // nil: no progress
}

// DefaultGRPO is the command's defaults. The learning rate is the
// pipelines' (GRPO_LR), tuned on the built-in models; a pretrained
// checkpoint of a billion parameters wants about 1e-6 (docs/real-models.md).
func DefaultGRPO() GRPOConfig {
	return GRPOConfig{Clip: 0.2, KL: 0.01, Epochs: 1, SelectCoef: 0.2, Gamma: 0.95, StepWeight: 1,
		Optim: OptimConfig{LR: 5e-4, MaxGradNorm: 1, MinLRRatio: 0.1}}
}

// OptimConfig is the learning-rate schedule and gradient clipping of a run.
type OptimConfig struct {
	LR          float64 // peak learning rate
	Warmup      float64 // share of the run's steps spent warming up linearly from 0
	Cosine      bool    // cosine decay to LR*MinLRRatio at the last step; else constant
	MinLRRatio  float64
	MaxGradNorm float64 // global gradient norm clip; 0 = none
}

func (o OptimConfig) schedule(total int) model.Schedule {
	return model.Schedule{Peak: o.LR, Warmup: int(math.Round(o.Warmup * float64(total))), Total: total,
		Cosine: o.Cosine, MinRatio: o.MinLRRatio}
}

// Prepared is one episode ready for the loss: its tokens, the loss mask
// (policy-written tokens), behaviour and reference log-probabilities, and
// the credit of every token.
type Prepared struct {
	Row       *table.Trajectory
	Mask      []bool
	Ref       []float32 // reference log-probabilities (nil without a KL term)
	Adv       []float32
	Channels  []int8
	Outcome   float64
	Selection float64
	// SelectScale multiplies the surrogate of the selection-channel tokens
	// (select_coef under SelectGroup, 1 under SelectNone); the KL term is
	// not scaled.
	SelectScale float64
	// Turns are the sequences of a windowed episode (rollout --history),
	// one per answer: the context it saw and its tokens, the loss on
	// those; nil without a window, where the episode is its own sequence.
	// NLoss and NSelect count the whole episode, so an episode weighs the
	// same with or without a window.
	Turns []Prepared
	// Prefix is the number of leading tokens all Turns share and none
	// scores (sharedPrefix: the episode's prompt), run once for all of
	// them (model.ForwardBackwardPrefix); 0 runs each sequence whole.
	Prefix     int
	NLoss      int  // policy-written tokens
	NSelect    int  // of them, tokens in the selection channel
	ZeroVarGrp bool // its group's rewards are all equal
}

// Credits computes the advantage and channel of every token of every
// trajectory (see GroupAdvantages, SelectionAdvantage,
// GroupSelectionAdvantages, StepAdvantages, TokenCreditSteps) and returns
// the episodes that enter the update, in order, with one advantages row
// per trajectory. The rows must have passed CheckTrajectories, and
// CheckSteps when cfg.Step is on. Under cfg.DropFlat the episodes of
// groups whose rewards are all equal are left out of the update, and
// their advantages rows are all 0 (channel 0).
func Credits(rows []table.Trajectory, cfg GRPOConfig) ([]Prepared, []table.TokenAdvantages) {
	rewards := make([]float64, len(rows))
	groups := make([]string, len(rows))
	reads := make([]int, len(rows))
	utility := make([]float64, len(rows))
	for i := range rows {
		rewards[i], groups[i] = rows[i].Reward, rows[i].GroupID
		reads[i], utility[i] = len(rows[i].Reads), ReadUtility(rows[i].ReadsRight, rows[i].ReadsMisleading)
	}
	outcome, zeroVar := GroupAdvantages(rewards, groups, cfg.Norm)
	zv := map[string]bool{}
	for _, g := range zeroVar {
		zv[g] = true
	}
	var groupSel []float64
	if cfg.Credit == SkillGate && cfg.SelectBaseline == SelectGroup {
		groupSel = GroupSelectionAdvantages(reads, utility, groups)
	}
	var stepAdv [][]float64
	if cfg.Step == StepGiGPO {
		keys := make([][]string, len(rows))
		srew := make([][]float64, len(rows))
		for i := range rows {
			keys[i], srew[i] = rows[i].StepKeys, rows[i].StepRewards
		}
		stepAdv, _ = StepAdvantages(keys, srew, groups, cfg.Gamma, cfg.Norm)
	}
	name := CreditName(cfg.Credit, cfg.Step)
	var prep []Prepared
	advRows := make([]table.TokenAdvantages, len(rows))
	for i := range rows {
		r := &rows[i]
		row := table.TokenAdvantages{TaskID: r.TaskID, GroupID: r.GroupID, Sample: r.Sample,
			Credit: name, Reward: r.Reward}
		if cfg.DropFlat && zv[r.GroupID] {
			row.Advantages, row.Channels = make([]float32, len(r.Roles)), make([]int8, len(r.Roles))
			if stepAdv != nil {
				row.StepAdvantages = make([]float64, len(stepAdv[i]))
			}
			row.ReadAdvantages = make([]float64, len(r.Reads))
			advRows[i] = row
			continue
		}
		sel, scale := 0.0, 1.0
		if cfg.Credit == SkillGate {
			if groupSel != nil {
				sel, scale = groupSel[i], cfg.SelectCoef
			} else {
				sel = SelectionAdvantage(r.ReadsRight, r.ReadsMisleading, cfg.SelectCoef)
			}
		}
		var step []float64
		if stepAdv != nil {
			step = make([]float64, len(stepAdv[i]))
			for t, a := range stepAdv[i] {
				step[t] = cfg.StepWeight * a
			}
			row.StepAdvantages = stepAdv[i]
		}
		// Only the names of the reads rollout recorded are credited as a
		// choice (agent.RecordedReadRoles).
		roles := agent.RecordedReadRoles(r.Roles, r.ReadTurns, len(r.Reads))
		adv, ch := TokenCreditSteps(roles, cfg.Credit, outcome[i], sel, len(r.Reads) > 0, step)
		mask := make([]bool, len(r.Tokens))
		n, nsel := 0, 0
		for t, role := range roles {
			if t > 0 && table.PolicyWritten(role) {
				mask[t] = true
				n++
				if ch[t] == ChannelSelection {
					nsel++
				}
			}
		}
		prep = append(prep, Prepared{Row: r, Mask: mask, Adv: adv, Channels: ch, Outcome: outcome[i], Selection: sel,
			SelectScale: scale, NLoss: n, NSelect: nsel, ZeroVarGrp: zv[r.GroupID]})
		if Windowed(r) {
			p := &prep[len(prep)-1]
			p.Turns = turnPrepared(p)
			p.Prefix = turnsPrefix(p.Turns)
		}
		row.Outcome, row.Selection, row.Advantages, row.Channels = outcome[i], sel, adv, ch
		row.ReadAdvantages = ReadAdvantages(r, adv, cfg.Credit, outcome[i], sel, step)
		advRows[i] = row
	}
	return prep, advRows
}

// ReadAdvantages gives one value per read action of r (per entry of its
// reads): the advantage the loss gave the tokens naming the skill, before
// the selection scale. Under SkillGate every read action of an episode
// shares its selection advantage sel; under broadcast a read's name tokens
// carry the outcome advantage plus its turn's step term (step, already
// weighted; nil without step credit), read from adv at the first
// skill-name token of its turn (read_turns; in files without read_turns,
// the k-th run of skill-name tokens when there is one per read).
func ReadAdvantages(r *table.Trajectory, adv []float32, c Credit, outcome, sel float64, step []float64) []float64 {
	out := make([]float64, len(r.Reads))
	if c == SkillGate {
		for k := range out {
			out[k] = sel
		}
		return out
	}
	roles := agent.RecordedReadRoles(r.Roles, r.ReadTurns, len(r.Reads))
	turn, _ := TurnOf(roles)
	first := map[int]int{} // turn -> first skill-name token
	var runs []int         // first token of each run of skill-name tokens
	for t, role := range roles {
		if role != table.RoleSkillName {
			continue
		}
		if _, ok := first[turn[t]]; !ok {
			first[turn[t]] = t
		}
		if t == 0 || roles[t-1] != table.RoleSkillName {
			runs = append(runs, t)
		}
	}
	for k := range out {
		out[k] = outcome
		switch {
		case len(r.ReadTurns) == len(r.Reads):
			if t, ok := first[int(r.ReadTurns[k])]; ok {
				out[k] = float64(adv[t])
			} else if step != nil && int(r.ReadTurns[k]) < len(step) {
				out[k] += step[r.ReadTurns[k]]
			}
		case len(runs) == len(r.Reads):
			out[k] = float64(adv[runs[k]])
		}
	}
	return out
}

// stepStats is what one GRPO minibatch contributes to the metrics.
type stepStats struct {
	loss, pg, kl, ent, ratio float64
	clipped, tokens          int
	nameW, allW              float64
	advSum, advSq            float64
	advN                     int
}

// grpoWeights returns, for one sequence, dLoss/dlogp per token (the
// weights ForwardBackward backpropagates) given the current log-probs lp,
// the aggregation weights w of its tokens (see ChannelWeights), and
// accumulates the statistics. It is the whole GRPO loss of a token:
//
//	w * (Surrogate(lp, behaviour, adv) + kl * K3(lp, ref))
//
// with w.Select for selection-channel tokens and w.Outcome for the others.
func grpoWeights(p *Prepared, lp, ent []float32, cw Weights, cfg GRPOConfig, st *stepStats) []float32 {
	r := p.Row
	out := make([]float32, len(lp))
	for t, on := range p.Mask {
		if !on {
			continue
		}
		w := cw.Outcome
		if p.Channels[t] == ChannelSelection {
			w = cw.Select
		}
		a := float64(p.Adv[t])
		l, d, clipped := Surrogate(float64(lp[t]), float64(r.Logprobs[t]), a, cfg.Clip)
		if p.Channels[t] == ChannelSelection {
			l, d = p.SelectScale*l, p.SelectScale*d
		}
		var kl, dk float64
		if cfg.KL != 0 {
			kl, dk = K3(float64(lp[t]), float64(p.Ref[t]))
		}
		st.loss += w * (l + cfg.KL*kl)
		st.pg += w * l
		st.kl += w * kl
		st.ent += float64(ent[t])
		st.ratio += math.Exp(float64(lp[t]) - float64(r.Logprobs[t]))
		st.tokens++
		if clipped {
			st.clipped++
		}
		if p.Channels[t] != ChannelNone {
			st.advSum += a
			st.advSq += a * a
			st.advN++
			aw := math.Abs(w * a)
			st.allW += aw
			if r.Roles[t] == table.RoleSkillName {
				st.nameW += aw
			}
		}
		out[t] = float32(w * (d + cfg.KL*dk))
	}
	return out
}

// NonFiniteError reports a step whose loss or gradient is not finite; no
// checkpoint may be written after it.
type NonFiniteError struct {
	Step int
	What string
}

func (e *NonFiniteError) Error() string {
	return fmt.Sprintf("step %d: %s is not finite; no checkpoint written", e.Step, e.What)
}

// TrainGRPO runs the GRPO update of m on the prepared episodes with
// optimizer opt and returns one metrics row per optimizer step. ref
// log-probabilities must be filled when cfg.KL != 0 (see RefLogProbs).
func TrainGRPO(ctx context.Context, m *model.Model, opt *model.AdamW, prep []Prepared, cfg GRPOConfig) ([]table.TrainMetrics, error) {
	// A cancelled ctx stops a step between two sequences, not only between
	// two steps.
	m.SetContext(ctx)
	defer m.SetContext(nil)
	if cfg.Epochs < 1 {
		return nil, fmt.Errorf("epochs must be at least 1")
	}
	if len(prep) == 0 {
		return nil, fmt.Errorf("no trajectories")
	}
	if err := checkRef(prep, cfg.KL); err != nil {
		return nil, err
	}
	mb := cfg.Minibatch
	if mb <= 0 || mb > len(prep) {
		mb = len(prep)
	}
	perEpoch := (len(prep) + mb - 1) / mb
	total := perEpoch * cfg.Epochs
	sched := cfg.Optim.schedule(total)
	meter := cfg.Progress.Start("learn grpo", "step", total)
	rng := rand.New(rand.NewPCG(uint64(cfg.Seed), 0x6770))
	var metrics []table.TrainMetrics
	step := 0
	for epoch := 0; epoch < cfg.Epochs; epoch++ {
		order := rng.Perm(len(prep))
		for b := 0; b < len(order); b += mb {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			step++
			start := time.Now()
			idx := order[b:min(b+mb, len(order))]
			seqs := make([][]int32, len(idx))
			masks := make([][]bool, len(idx))
			batch := make([]*Prepared, len(idx))
			groups := map[string]bool{}
			zv := map[string]bool{}
			for j, i := range idx {
				batch[j] = &prep[i]
				groups[prep[i].Row.GroupID] = true
				if prep[i].ZeroVarGrp {
					zv[prep[i].Row.GroupID] = true
				}
			}
			aw := ChannelWeights(batch, cfg.Agg, cfg.SelectNorm)
			parts, owner := sequences(batch)
			if len(parts) != len(batch) {
				seqs, masks = make([][]int32, len(parts)), make([][]bool, len(parts))
			}
			for j, p := range parts {
				seqs[j], masks[j] = p.Row.Tokens, p.Mask
			}
			var st stepStats
			m.ZeroGrad()
			err := forwardBackwardParts(ctx, m, batch, seqs, masks, owner, func(j int, lp, ent []float32) []float32 {
				return grpoWeights(parts[j], lp, ent, aw[owner[j]], cfg, &st)
			})
			if err != nil {
				return nil, fmt.Errorf("step %d: %w", step, err)
			}
			if math.IsNaN(st.loss) || math.IsInf(st.loss, 0) {
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
			row := table.TrainMetrics{Phase: "grpo", Step: int32(step), GlobalStep: int32(opt.StepN), Epoch: int32(epoch),
				Loss: st.loss, PolicyLoss: ptr(st.pg), KL: ptr(st.kl), GradNorm: gn, LR: lr,
				ZeroVarGroups: ptr(int32(len(zv))), Groups: ptr(int32(len(groups))), Sequences: int32(len(idx)),
				Tokens: int32(st.tokens), Seconds: time.Since(start).Seconds()}
			// A mean over nothing is NULL, not 0.
			if st.tokens > 0 {
				row.ClipFrac = ptr(float64(st.clipped) / float64(st.tokens))
				row.Entropy = ptr(st.ent / float64(st.tokens))
				row.RatioMean = ptr(st.ratio / float64(st.tokens))
			}
			if st.advN > 0 {
				mean := st.advSum / float64(st.advN)
				row.AdvMean, row.AdvStd = ptr(mean), ptr(math.Sqrt(math.Max(0, st.advSq/float64(st.advN)-mean*mean)))
			}
			if st.allW > 0 {
				row.SkillNameShare = ptr(st.nameW / st.allW)
			}
			metrics = append(metrics, row)
			if step == 1 {
				meter.Note("%s", FirstStepNote)
			}
			meter.Update(step, fmt.Sprintf("loss %.4f kl %.5f clip %.3f grad %.3g", row.Loss, *row.KL, orZero(row.ClipFrac), gn))
		}
	}
	meter.Finish()
	return metrics, nil
}

// FirstStepNote says what the first PPO step of an update measures: its
// policy is the one that rolled out, so the ratio is 1, nothing is clipped,
// and the loss is the mean advantage (about 0 once advantages are centred
// in their groups); against a reference that is the same checkpoint (the
// first iteration) the KL is 0 too. Its figures are 0 by construction, not
// a sign that nothing trained.
const FirstStepNote = "step 1 is the first PPO step: ratio 1 (the policy that rolled out), so clip 0 and loss about 0 (centred advantages), and kl 0 when the reference is the checkpoint trained; not a sign that nothing trained"

// checkRef refuses a KL term (coefficient kl, not 0) over sequences
// without their reference log-probabilities (RefLogProbs not run, or run
// on other sequences), which the loss would index.
func checkRef(prep []Prepared, kl float64) error {
	if kl == 0 {
		return nil
	}
	all := make([]*Prepared, len(prep))
	for i := range prep {
		all[i] = &prep[i]
	}
	parts, _ := sequences(all)
	for i, p := range parts {
		if len(p.Ref) != len(p.Row.Tokens) {
			return fmt.Errorf("sequence %d: %d reference log-probabilities for %d tokens: a KL term (coefficient %g) needs the reference's (RefLogProbs)",
				i, len(p.Ref), len(p.Row.Tokens), kl)
		}
	}
	return nil
}

// RefLogProbs fills the reference log-probabilities of the prepared
// episodes from ref, one sequence at a time; a cancelled ctx stops it
// between two sequences.
func RefLogProbs(ctx context.Context, ref *model.Model, prep []Prepared) error {
	all := make([]*Prepared, len(prep))
	for i := range prep {
		all[i] = &prep[i]
	}
	parts, _ := sequences(all)
	seqs := make([][]int32, len(parts))
	masks := make([][]bool, len(parts))
	for i, p := range parts {
		seqs[i], masks[i] = p.Row.Tokens, p.Mask
	}
	for i, p := range parts {
		if err := ctx.Err(); err != nil {
			return err
		}
		lp, _, err := ref.LogProbs(seqs[i:i+1], masks[i:i+1])
		if err != nil {
			return fmt.Errorf("reference model: %w", err)
		}
		p.Ref = lp[0]
	}
	return nil
}
