package audit

import (
	"fmt"
	"math"
	"sort"

	"github.com/pats-rl/pats/lib/agent"
	"github.com/pats-rl/pats/lib/rl"
	"github.com/pats-rl/pats/lib/table"
)

// readCredit is the credit one skill read got: the mean advantage on its
// skill-name tokens.
type readCredit struct {
	right  bool
	credit float64
}

// episodeCredit is what the credit audit needs of one episode.
type episodeCredit struct {
	steps, tokens float64
	share         float64 // |credit| on skill-name tokens / |credit| on all tokens; NaN when uncredited
	reads         []readCredit
	turns         int // turns with a step key
	anchored      int // of them, turns in a step group of two or more
	groupSizes    int // the sizes of their step groups, summed
}

func key(groupID string, sample int32) string { return fmt.Sprintf("%s\x00%d", groupID, sample) }

// joinCredit pairs every trajectory with its advantages row (by group_id
// and sample) and reduces it to an episodeCredit. trajPath and advPath name
// the files in errors.
func joinCredit(traj []table.Trajectory, adv []table.TokenAdvantages, trajPath, advPath string) ([]episodeCredit, error) {
	byKey := map[string]*table.TokenAdvantages{}
	for i := range adv {
		k := key(adv[i].GroupID, adv[i].Sample)
		if _, dup := byKey[k]; dup {
			return nil, &table.InputError{Path: advPath, Problem: fmt.Sprintf("episode %s sample %d appears twice", adv[i].GroupID, adv[i].Sample)}
		}
		byKey[k] = &adv[i]
	}
	keys := make([][]string, len(traj))
	groups := make([]string, len(traj))
	for i := range traj {
		keys[i], groups[i] = traj[i].StepKeys, traj[i].GroupID
	}
	sizes := rl.StepGroupSizes(keys, groups)
	out := make([]episodeCredit, 0, len(traj))
	for i := range traj {
		r := &traj[i]
		a, ok := byKey[key(r.GroupID, r.Sample)]
		if !ok {
			return nil, &table.InputError{Path: advPath, Problem: fmt.Sprintf("no advantages for episode %s sample %d of %s", r.GroupID, r.Sample, trajPath)}
		}
		if len(a.Advantages) != len(r.Tokens) || len(r.Roles) != len(r.Tokens) {
			return nil, &table.InputError{Path: advPath, Problem: fmt.Sprintf("episode %s sample %d: %d advantages for %d tokens (%d roles)", r.GroupID, r.Sample, len(a.Advantages), len(r.Tokens), len(r.Roles))}
		}
		if len(r.ReadsRight) != len(r.Reads) {
			return nil, &table.InputError{Path: trajPath, Problem: fmt.Sprintf("episode %s sample %d: %d reads but %d reads_right", r.GroupID, r.Sample, len(r.Reads), len(r.ReadsRight))}
		}
		e := reduce(r, a.Advantages, a.ReadAdvantages)
		e.turns = len(sizes[i])
		for _, n := range sizes[i] {
			e.groupSizes += n
			if n >= 2 {
				e.anchored++
			}
		}
		out = append(out, e)
	}
	return out, nil
}

// reduce computes an episode's share and read credits. The skill-name
// tokens are those of the reads rollout recorded (agent.RecordedReadRoles).
// Read j's credit is its value in the advantages file's read_advantages
// when there is one per read; else (files older than the column) the mean
// advantage on the j-th run of consecutive skill-name tokens when the runs
// and the reads pair up one to one; otherwise every read gets the mean
// over all skill-name tokens. A read with no skill-name tokens at all gets
// credit 0.
func reduce(r *table.Trajectory, adv []float32, readAdv []float64) episodeCredit {
	roles := agent.RecordedReadRoles(r.Roles, r.ReadTurns, len(r.Reads))
	e := episodeCredit{steps: float64(r.Steps), tokens: float64(len(r.Tokens)), share: math.NaN()}
	var name, all float64
	type run struct{ sum, n float64 }
	var runs []run
	prevName := false
	var tot run
	for t, role := range roles {
		a := float64(adv[t])
		all += math.Abs(a)
		isName := role == table.RoleSkillName
		if isName {
			name += math.Abs(a)
			if !prevName {
				runs = append(runs, run{})
			}
			runs[len(runs)-1].sum += a
			runs[len(runs)-1].n++
			tot.sum += a
			tot.n++
		}
		prevName = isName
	}
	if all > 0 {
		e.share = name / all
	}
	for j, right := range r.ReadsRight {
		c := 0.0
		switch {
		case len(readAdv) == len(r.Reads):
			c = readAdv[j]
		case len(runs) == len(r.Reads):
			c = runs[j].sum / runs[j].n
		case tot.n > 0:
			c = tot.sum / tot.n
		}
		// A right choice is a right skill read alone: a right read among
		// several is part of a wrong choice (to read several).
		e.reads = append(e.reads, readCredit{right: right && len(r.ReadsRight) == 1, credit: c})
	}
	return e
}

func sign(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

// Bins splits horizons into at most n bins of about equal counts, shortest
// first, never splitting equal horizons; with n or fewer distinct values
// each value is a bin. Each run of equal horizons goes to the quantile bin
// of its middle position, so a large run (episodes cut at the step limit)
// gets a bin of its own instead of swallowing its neighbours; bins left
// empty are dropped and the rest numbered from 0. It returns the bin of
// each horizon.
func Bins(h []float64, n int) []int {
	idx := make([]int, len(h))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return h[idx[a]] < h[idx[b]] })
	bin := make([]int, len(h))
	if n < 1 {
		return bin
	}
	var starts []int // first sorted position of each run of equal horizons
	for k, i := range idx {
		if k == 0 || h[i] != h[idx[k-1]] {
			starts = append(starts, k)
		}
	}
	runBin := make([]int, len(starts))
	for j, st := range starts {
		end := len(h)
		if j+1 < len(starts) {
			end = starts[j+1]
		}
		if len(starts) <= n {
			runBin[j] = j
			continue
		}
		mid := float64(st+end) / 2
		runBin[j] = min(n-1, int(float64(n)*mid/float64(len(h))))
	}
	// Renumber the bins in use from 0, keeping their order.
	next, seen := 0, map[int]int{}
	for j := range runBin {
		b, ok := seen[runBin[j]]
		if !ok {
			b = next
			seen[runBin[j]] = b
			next++
		}
		runBin[j] = b
	}
	j := 0
	for k, i := range idx {
		if j+1 < len(starts) && k == starts[j+1] {
			j++
		}
		bin[i] = runBin[j]
	}
	return bin
}

// Spearman is the rank correlation of x and y (average ranks for ties):
// NaN with fewer than two points or when either is constant.
func Spearman(x, y []float64) float64 {
	if len(x) != len(y) || len(x) < 2 {
		return math.NaN()
	}
	rx, ry := ranks(x), ranks(y)
	var mx, my float64
	for i := range rx {
		mx += rx[i]
		my += ry[i]
	}
	mx /= float64(len(rx))
	my /= float64(len(ry))
	var sxy, sxx, syy float64
	for i := range rx {
		dx, dy := rx[i]-mx, ry[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if sxx == 0 || syy == 0 {
		return math.NaN()
	}
	return sxy / math.Sqrt(sxx*syy)
}

func ranks(v []float64) []float64 {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return v[idx[a]] < v[idx[b]] })
	r := make([]float64, len(v))
	for k := 0; k < len(idx); {
		j := k
		for j+1 < len(idx) && v[idx[j+1]] == v[idx[k]] {
			j++
		}
		avg := float64(k+j)/2 + 1
		for m := k; m <= j; m++ {
			r[idx[m]] = avg
		}
		k = j + 1
	}
	return r
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// Credit computes the credit audit of trajectories and the advantages
// learn grpo gave them (joined on group_id and sample; paths name the
// files in errors): for each horizon measure (steps, tokens) one row per
// horizon bin (see Bins), with the Spearman correlations over all episodes
// (share) or reads (the read measures) repeated on each row, and GiGPO's
// anchor coverage of the bin's turns: the share whose step key another
// turn of the same group (any episode, this one included) shares
// (rl.StepGroupSizes), and the mean size of the step group of the bin's
// turns (1 for a turn alone in its state), both NaN when the bin's episodes
// record no step keys.
func Credit(traj []table.Trajectory, adv []table.TokenAdvantages, trajPath, advPath string, bins int) ([]table.CreditAudit, error) {
	if bins < 1 {
		return nil, fmt.Errorf("bins must be at least 1")
	}
	eps, err := joinCredit(traj, adv, trajPath, advPath)
	if err != nil {
		return nil, err
	}
	return creditRows(eps, bins), nil
}

func creditRows(eps []episodeCredit, bins int) []table.CreditAudit {
	var out []table.CreditAudit
	for _, hz := range []string{"steps", "tokens"} {
		h := make([]float64, len(eps))
		for i, e := range eps {
			h[i] = e.steps
			if hz == "tokens" {
				h[i] = e.tokens
			}
		}
		bin := Bins(h, bins)
		nb := 0
		for _, b := range bin {
			nb = max(nb, b+1)
		}
		// Per-episode and per-read series for the correlations.
		var shH, shV, rnH, rnV, rsH, rsV, wsH, wsV []float64
		rows := make([]table.CreditAudit, nb)
		shares := make([][]float64, nb)
		rightNeg := make([][]float64, nb)
		rightSign := make([][]float64, nb)
		wrongSign := make([][]float64, nb)
		turns := make([]int, nb)
		anchored := make([]int, nb)
		groupSizes := make([]int, nb)
		for b := range rows {
			rows[b] = table.CreditAudit{Horizon: hz, Bin: int32(b), Lo: math.Inf(1), Hi: math.Inf(-1)}
		}
		for i, e := range eps {
			b := bin[i]
			rw := &rows[b]
			rw.Episodes++
			rw.Lo, rw.Hi = math.Min(rw.Lo, h[i]), math.Max(rw.Hi, h[i])
			turns[b] += e.turns
			anchored[b] += e.anchored
			groupSizes[b] += e.groupSizes
			if !math.IsNaN(e.share) {
				shares[b] = append(shares[b], e.share)
				shH, shV = append(shH, h[i]), append(shV, e.share)
			}
			for _, rd := range e.reads {
				s := sign(rd.credit)
				if rd.right {
					rw.RightReads++
					neg := 0.0
					if rd.credit < 0 {
						neg = 1
					}
					rightNeg[b] = append(rightNeg[b], neg)
					rightSign[b] = append(rightSign[b], s)
					rnH, rnV = append(rnH, h[i]), append(rnV, neg)
					rsH, rsV = append(rsH, h[i]), append(rsV, s)
				} else {
					rw.WrongReads++
					wrongSign[b] = append(wrongSign[b], s)
					wsH, wsV = append(wsH, h[i]), append(wsV, s)
				}
			}
		}
		rhoShare, rhoNeg, rhoRight, rhoWrong := Spearman(shH, shV), Spearman(rnH, rnV), Spearman(rsH, rsV), Spearman(wsH, wsV)
		for b := range rows {
			rw := &rows[b]
			// A mean or a correlation over nothing (NaN) is NULL.
			rw.SkillNameShare = table.NullNaN(mean(shares[b]))
			rw.RightNegFrac = table.NullNaN(mean(rightNeg[b]))
			rw.RightSign = table.NullNaN(mean(rightSign[b]))
			rw.WrongSign = table.NullNaN(mean(wrongSign[b]))
			rw.Turns = int32(turns[b])
			if turns[b] > 0 {
				rw.AnchorCoverage = table.NullNaN(float64(anchored[b]) / float64(turns[b]))
				rw.StepGroupSize = table.NullNaN(float64(groupSizes[b]) / float64(turns[b]))
			}
			rw.RhoSkillNameShare, rw.RhoRightNeg = table.NullNaN(rhoShare), table.NullNaN(rhoNeg)
			rw.RhoRightSign, rw.RhoWrongSign = table.NullNaN(rhoRight), table.NullNaN(rhoWrong)
		}
		out = append(out, rows...)
	}
	return out
}
