package report

import (
	"fmt"
	"github.com/pats-rl/pats/lib/table"
	"io"
	"math"
	"math/rand/v2"
	"sort"
)

// Paired is one variant's difference from a baseline variant over the seeds
// both have (every variant of a sweep shares seeds and evaluation tasks, so
// seed s of the variant and seed s of the baseline form a pair): the mean
// of the per-seed differences in success (variant minus baseline, shares
// in [0,1]) on each split, with a 95% interval from a paired percentile
// bootstrap over seeds (PairedResamples resamples of the pairs with
// replacement, PCG seeded with PairedSeed, so the interval is the same on
// every machine).
type Paired struct {
	Variant    string
	Baseline   string
	Pairs      int
	SeenDiff   float64
	SeenLo     float64
	SeenHi     float64
	UnseenDiff float64
	UnseenLo   float64
	UnseenHi   float64
	TokensDiff float64 // tokens per episode at deployment, variant minus baseline, mean over pairs
	TokensLo   float64
	TokensHi   float64
}

// The bootstrap's size and seed.
const (
	PairedResamples = 10000
	PairedSeed      = 20261203
)

// PairedDiffs pairs every variant but the baseline with the baseline by
// seed, in the order of variants; a variant without a common seed is left
// out.
func PairedDiffs(runs []SweepRun, variants []string, baseline string) []Paired {
	base := map[int64]SweepRun{}
	for _, r := range runs {
		if r.Variant == baseline {
			base[r.Seed] = r
		}
	}
	var out []Paired
	for _, v := range variants {
		if v == baseline {
			continue
		}
		var ds [3][]float64
		for _, r := range runs {
			b, ok := base[r.Seed]
			if r.Variant != v || !ok {
				continue
			}
			ds[0] = append(ds[0], r.SeenSuccess-b.SeenSuccess)
			ds[1] = append(ds[1], r.UnseenSucc-b.UnseenSucc)
			ds[2] = append(ds[2], r.Tokens-b.Tokens)
		}
		if len(ds[0]) == 0 {
			continue
		}
		p := Paired{Variant: v, Baseline: baseline, Pairs: len(ds[0])}
		p.SeenDiff, p.SeenLo, p.SeenHi = bootstrapMean(ds[0])
		p.UnseenDiff, p.UnseenLo, p.UnseenHi = bootstrapMean(ds[1])
		p.TokensDiff, p.TokensLo, p.TokensHi = bootstrapMean(ds[2])
		out = append(out, p)
	}
	return out
}

// bootstrapMean returns the mean of xs and the 2.5th and 97.5th
// percentiles of the means of PairedResamples resamples of xs with
// replacement (the same resampled indices for every call of equal length,
// so the splits of one variant are resampled alike).
func bootstrapMean(xs []float64) (mean, lo, hi float64) {
	n := len(xs)
	for _, x := range xs {
		mean += x
	}
	mean /= float64(n)
	r := rand.New(rand.NewPCG(PairedSeed, uint64(n)))
	ms := make([]float64, PairedResamples)
	for b := range ms {
		s := 0.0
		for i := 0; i < n; i++ {
			s += xs[r.IntN(n)]
		}
		ms[b] = s / float64(n)
	}
	sort.Float64s(ms)
	q := func(p float64) float64 { return ms[int(math.Floor(p*float64(len(ms)-1)))] }
	return mean, q(0.025), q(0.975)
}

// WritePairedMarkdown writes the paired differences in percentage points
// (tokens per episode as they are).
func WritePairedMarkdown(w io.Writer, ps []Paired) {
	if len(ps) == 0 {
		return
	}
	fmt.Fprintf(w, "\nPaired differences from %s (variant minus %s, same seed; mean over pairs [95%% interval, percentile bootstrap over seeds, %d resamples]):\n\n", table.Printable(ps[0].Baseline), table.Printable(ps[0].Baseline), PairedResamples)
	fmt.Fprintln(w, "| variant | pairs | valid_seen success, points | valid_unseen success, points | tokens/episode |")
	fmt.Fprintln(w, "| --- | ---: | ---: | ---: | ---: |")
	for _, p := range ps {
		fmt.Fprintf(w, "| %s | %d | %+.1f [%+.1f, %+.1f] | %+.1f [%+.1f, %+.1f] | %+.0f [%+.0f, %+.0f] |\n", table.MarkdownCell(p.Variant), p.Pairs,
			100*p.SeenDiff, 100*p.SeenLo, 100*p.SeenHi, 100*p.UnseenDiff, 100*p.UnseenLo, 100*p.UnseenHi,
			p.TokensDiff, p.TokensLo, p.TokensHi)
	}
}

// WriteReattachMarkdown writes, for the variants whose runs were also
// evaluated with their last scaffold re-attached, that evaluation beside
// the deployment one (no scaffold), with tokens per episode of each.
func WriteReattachMarkdown(w io.Writer, res []SweepResult) {
	any := false
	for _, r := range res {
		any = any || (r.ReattachSeeds > 0 && !r.Scaffold)
	}
	if !any {
		return
	}
	fmt.Fprintln(w, "\nThe last scaffold re-attached at evaluation (the same checkpoints), beside deployment with none: success in percent and tokens per episode, mean ± sd over the seeds with both.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| variant | seeds | valid_seen, none | valid_seen, re-attached | valid_unseen, none | valid_unseen, re-attached | tokens/episode, none | tokens/episode, re-attached |")
	fmt.Fprintln(w, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, r := range res {
		if r.ReattachSeeds == 0 || r.Scaffold {
			continue
		}
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %s | %s |\n", table.MarkdownCell(r.Variant), r.ReattachSeeds,
			pm(100*r.SeenMean, 100*r.SeenStd, 1), pmOrDash(r.ReattachSeenMean, r.ReattachSeenStd, 100, 1),
			pm(100*r.UnseenMean, 100*r.UnseenStd, 1), pmOrDash(r.ReattachUnseenMean, r.ReattachUnseenStd, 100, 1),
			pm(r.TokensMean, r.TokensStd, 0), pmOrDash(r.ReattachTokensMean, r.ReattachTokensStd, 1, 0))
	}
}

// PairedStat is one paired difference: the mean over N pairs with its 95%
// percentile-bootstrap interval; N is 0 where no pair has the measure.
type PairedStat struct {
	N            int
	Diff, Lo, Hi float64
}

// PairedReads is one variant's difference from the baseline in the skill
// reads of the same evaluations, seed for seed (index 0 valid_seen, 1
// valid_unseen): reads per episode (every pair), misleading exposure per
// episode (the pairs whose evaluations both have it) and the right reads'
// share of all reads (the pairs that both read), shares in [0,1].
type PairedReads struct {
	Variant  string
	Baseline string
	Pairs    int
	Reads    [2]PairedStat
	Exposure [2]PairedStat
	Right    [2]PairedStat
}

// PairedReadDiffs pairs every variant but the baseline with the baseline by
// seed, as PairedDiffs, in the skill reads at evaluation; a variant
// without a common seed, or whose pairs never read (neither it nor the
// baseline), is left out.
func PairedReadDiffs(runs []SweepRun, variants []string, baseline string) []PairedReads {
	base := map[int64]SweepRun{}
	for _, r := range runs {
		if r.Variant == baseline {
			base[r.Seed] = r
		}
	}
	diff := func(a, b *float64, xs *[]float64) {
		if a != nil && b != nil {
			*xs = append(*xs, *a-*b)
		}
	}
	var out []PairedReads
	for _, v := range variants {
		if v == baseline {
			continue
		}
		var reads, expo, right [2][]float64
		pairs, read := 0, false
		for _, r := range runs {
			b, ok := base[r.Seed]
			if r.Variant != v || !ok {
				continue
			}
			pairs++
			read = read || r.SeenReads > 0 || r.UnseenReads > 0 || b.SeenReads > 0 || b.UnseenReads > 0
			reads[0] = append(reads[0], r.SeenReads-b.SeenReads)
			reads[1] = append(reads[1], r.UnseenReads-b.UnseenReads)
			diff(r.SeenExposure, b.SeenExposure, &expo[0])
			diff(r.UnseenExposure, b.UnseenExposure, &expo[1])
			diff(readShare(r.SeenReads, r.SeenRightReads), readShare(b.SeenReads, b.SeenRightReads), &right[0])
			diff(readShare(r.UnseenReads, r.UnseenRightReads), readShare(b.UnseenReads, b.UnseenRightReads), &right[1])
		}
		if pairs == 0 || !read {
			continue
		}
		p := PairedReads{Variant: v, Baseline: baseline, Pairs: pairs}
		for i := range 2 {
			p.Reads[i], p.Exposure[i], p.Right[i] = pairedStat(reads[i]), pairedStat(expo[i]), pairedStat(right[i])
		}
		out = append(out, p)
	}
	return out
}

// pairedStat is bootstrapMean of xs as a PairedStat (N 0 for none).
func pairedStat(xs []float64) PairedStat {
	if len(xs) == 0 {
		return PairedStat{}
	}
	s := PairedStat{N: len(xs)}
	s.Diff, s.Lo, s.Hi = bootstrapMean(xs)
	return s
}

// WritePairedReadsMarkdown writes the paired differences in skill reads at
// evaluation: reads per episode as they are, the misleading exposure in
// percentage points of episodes and the right reads in points of reads;
// — where no pair has the measure, the pairs counted where fewer than all
// have it.
func WritePairedReadsMarkdown(w io.Writer, ps []PairedReads) {
	if len(ps) == 0 {
		return
	}
	fmt.Fprintf(w, "\nPaired differences from %s in skill reads at evaluation (the same evaluations; variant minus %s, same seed; mean over pairs [95%% interval, percentile bootstrap over seeds, %d resamples]): reads per episode, misleading exposure in points of episodes, right reads in points of all reads.\n\n", ps[0].Baseline, ps[0].Baseline, PairedResamples)
	fmt.Fprintln(w, "| variant | pairs | reads/episode, valid_seen | reads/episode, valid_unseen | misleading exposure, valid_seen | misleading exposure, valid_unseen | right reads, valid_seen | right reads, valid_unseen |")
	fmt.Fprintln(w, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, p := range ps {
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %s | %s |\n", p.Variant, p.Pairs,
			p.Reads[0].format(1, 2, p.Pairs), p.Reads[1].format(1, 2, p.Pairs),
			p.Exposure[0].format(100, 1, p.Pairs), p.Exposure[1].format(100, 1, p.Pairs),
			p.Right[0].format(100, 1, p.Pairs), p.Right[1].format(100, 1, p.Pairs))
	}
}

// format writes the difference scaled by scale with prec decimals, — for
// none, the pairs counted where fewer than all of pairs have it.
func (s PairedStat) format(scale float64, prec, pairs int) string {
	if s.N == 0 {
		return "—"
	}
	out := fmt.Sprintf("%+.*f [%+.*f, %+.*f]", prec, scale*s.Diff, prec, scale*s.Lo, prec, scale*s.Hi)
	if s.N < pairs {
		out += fmt.Sprintf(" (%d pairs)", s.N)
	}
	return out
}
