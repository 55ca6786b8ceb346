package report

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"

	"github.com/pats-rl/pats/lib/scaffold"
	"github.com/pats-rl/pats/lib/table"
)

// FadeBlockSize is the number of iterations a block of the fade table
// pools.
const FadeBlockSize = 5

// SweepFade is one variant's fade figures (issue 59): whether the scaffold
// leaves, and what the policy does without it while it trains.
type SweepFade struct {
	Variant string
	Runs    int // runs of the variant with lift audits or controller states
	// By block of FadeBlockSize iterations (block b: iterations 5b..5b+4),
	// the mean over seeds of each run's block mean; NaN where no run has
	// the block. Tokens: scaffold tokens per training episode; With and
	// Bare: training success with the scaffold and in the bare replay (the
	// lift audits' two sides).
	Tokens, With, Bare []float64
	// Over the run, mean ± sd over seeds: scope-iterations the controller
	// gave COMPRESS and FORCED_PRUNE, and items deleted under each
	// (accepted decisions).
	Compress, CompressStd, Prune, PruneStd             float64
	CompressDel, CompressDelStd, PruneDel, PruneDelStd float64
	// Exposed: share of scaffolded training episodes (iterations >= 1) whose
	// scaffold holds an item audit truth judged false (their type's or a
	// general one), mean ± sd over the runs with truth audits; ExposedRuns
	// counts them.
	Exposed, ExposedStd float64
	ExposedRuns         int
}

// fadeRun reads one run folder's fade figures; ok is false when it has
// neither lift audits nor states.
type fadeRun struct {
	tokens, with, bare  [][]float64 // per block, the iterations' values
	compress, prune     int
	compDel, pruneDel   int
	exposed, scaffolded int
	haveTruth           bool
}

func loadFadeRun(dir string) (fadeRun, bool, error) {
	var f fadeRun
	ms, err := LoadMechanism(dir)
	if err != nil {
		return f, false, err
	}
	add := func(xs *[][]float64, k int, x float64) {
		for len(*xs) <= k/FadeBlockSize {
			*xs = append(*xs, nil)
		}
		(*xs)[k/FadeBlockSize] = append((*xs)[k/FadeBlockSize], x)
	}
	for _, m := range ms {
		if !m.HasLift {
			continue
		}
		add(&f.tokens, m.Iteration, m.All.ScaffoldTokens)
		add(&f.with, m.Iteration, m.All.SuccessWith)
		add(&f.bare, m.Iteration, m.All.SuccessWithout)
	}
	states, err := numbered(filepath.Join(dir, "state"), ".parquet")
	if err != nil {
		return f, false, err
	}
	for _, k := range states {
		rows, _, err := table.ReadFiles[table.ControllerState](filepath.Join(dir, "state", strconv.Itoa(k)+".parquet"))
		if err != nil {
			return f, false, err
		}
		for _, s := range rows {
			switch s.Primitive {
			case scaffold.Compress:
				f.compress++
			case scaffold.ForcedPrune:
				f.prune++
			}
		}
		dp := filepath.Join(dir, "decisions", strconv.Itoa(k)+".parquet")
		if !fileExists(dp) {
			continue
		}
		decs, _, err := table.ReadFiles[table.Decision](dp)
		if err != nil {
			return f, false, err
		}
		for _, d := range decs {
			if d.Accepted && d.Op == table.OpDelete {
				switch d.Primitive {
				case scaffold.Compress:
					f.compDel++
				case scaffold.ForcedPrune:
					f.pruneDel++
				}
			}
		}
	}
	if err := f.exposure(dir, ms); err != nil {
		return f, false, err
	}
	return f, len(ms) > 0 || len(states) > 0, nil
}

// exposure counts the scaffolded training episodes of iterations >= 1
// whose scaffold (snap/K as audit truth judged it) holds a false item of
// their type or of the general layer.
func (f *fadeRun) exposure(dir string, ms []MechanismIteration) error {
	for _, m := range ms {
		if !m.HasTruth || m.Iteration < 1 {
			continue
		}
		tp := filepath.Join(dir, "traj", strconv.Itoa(m.Iteration)+".parquet")
		if !fileExists(tp) {
			continue
		}
		items, _, err := table.ReadFiles[table.ItemTruth](filepath.Join(dir, "truth", strconv.Itoa(m.Iteration)+".parquet"))
		if err != nil {
			return err
		}
		falseIn := map[string]bool{} // task type, "" for general
		for _, it := range items {
			if it.Verdict == table.VerdictFalse {
				falseIn[it.TaskType] = true
			}
		}
		eps, _, err := table.ReadFiles[table.Trajectory](tp)
		if err != nil {
			return err
		}
		f.haveTruth = true
		for _, e := range eps {
			if e.NScaffoldTokens == 0 {
				continue
			}
			f.scaffolded++
			if falseIn[""] || falseIn[e.TaskType] {
				f.exposed++
			}
		}
	}
	return nil
}

// AggregateFade reads the runs' audits, states and decisions and summarises
// them per variant, in the order of variants; a variant none of whose runs
// has any is left out.
func AggregateFade(runs []SweepRun, variants []string) ([]SweepFade, error) {
	var out []SweepFade
	for _, v := range variants {
		row := SweepFade{Variant: v}
		var tok, with, bare [][]float64
		var comp, prune, compDel, pruneDel, exposed []float64
		for _, r := range runs {
			if r.Variant != v {
				continue
			}
			f, ok, err := loadFadeRun(r.Run)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			row.Runs++
			blockMeans(&tok, f.tokens)
			blockMeans(&with, f.with)
			blockMeans(&bare, f.bare)
			comp = append(comp, float64(f.compress))
			prune = append(prune, float64(f.prune))
			compDel = append(compDel, float64(f.compDel))
			pruneDel = append(pruneDel, float64(f.pruneDel))
			if f.haveTruth && f.scaffolded > 0 {
				exposed = append(exposed, float64(f.exposed)/float64(f.scaffolded))
			}
		}
		if row.Runs == 0 {
			continue
		}
		row.Tokens, row.With, row.Bare = means(tok), means(with), means(bare)
		row.Compress, row.CompressStd = MeanStd(comp)
		row.Prune, row.PruneStd = MeanStd(prune)
		row.CompressDel, row.CompressDelStd = MeanStd(compDel)
		row.PruneDel, row.PruneDelStd = MeanStd(pruneDel)
		row.ExposedRuns = len(exposed)
		if len(exposed) > 0 {
			row.Exposed, row.ExposedStd = MeanStd(exposed)
		}
		out = append(out, row)
	}
	return out, nil
}

// blockMeans appends one run's block means to acc (acc[b]: the runs' means
// of block b).
func blockMeans(acc *[][]float64, blocks [][]float64) {
	for b, xs := range blocks {
		if len(xs) == 0 {
			continue
		}
		for len(*acc) <= b {
			*acc = append(*acc, nil)
		}
		(*acc)[b] = append((*acc)[b], mean(xs))
	}
}

func means(acc [][]float64) []float64 {
	out := make([]float64, len(acc))
	for b, xs := range acc {
		out[b], _ = MeanStd(xs)
	}
	return out
}

// WriteSweepFadeMarkdown writes the fade table (nothing without rows).
func WriteSweepFadeMarkdown(w io.Writer, rows []SweepFade) {
	if len(rows) == 0 {
		return
	}
	blocks := 0
	for _, r := range rows {
		blocks = max(blocks, len(r.Tokens))
	}
	fmt.Fprintln(w, "\nThe fade (issue 59), by block of five iterations, the mean over seeds of each run's block mean: scaffold tokens per training episode, and training success with the scaffold / in the bare replay (lift/K's two sides); over each run, mean ± sd over seeds: scope-iterations given COMPRESS and FORCED_PRUNE, items they deleted, and the share of scaffolded training episodes whose scaffold holds an item audit truth judged false.")
	fmt.Fprintln(w)
	head, rule := "| variant | runs |", "| --- | ---: |"
	for b := 0; b < blocks; b++ {
		head += fmt.Sprintf(" tokens %d-%d | with / bare %d-%d |", b*FadeBlockSize, b*FadeBlockSize+FadeBlockSize-1, b*FadeBlockSize, b*FadeBlockSize+FadeBlockSize-1)
		rule += " ---: | ---: |"
	}
	fmt.Fprintln(w, head+" COMPRESS | FORCED_PRUNE | deleted by COMPRESS | deleted by FORCED_PRUNE | exposed to a false item |")
	fmt.Fprintln(w, rule+" ---: | ---: | ---: | ---: | ---: |")
	for _, r := range rows {
		line := fmt.Sprintf("| %s | %d |", table.MarkdownCell(r.Variant), r.Runs)
		for b := 0; b < blocks; b++ {
			if b >= len(r.Tokens) {
				line += " — | — |"
				continue
			}
			line += fmt.Sprintf(" %.1f | %.3f / %.3f |", r.Tokens[b], r.With[b], r.Bare[b])
		}
		exp := "—"
		if r.ExposedRuns > 0 {
			exp = fmt.Sprintf("%.3f ± %.3f", r.Exposed, r.ExposedStd)
		}
		fmt.Fprintf(w, "%s %.1f ± %.1f | %.1f ± %.1f | %.1f ± %.1f | %.1f ± %.1f | %s |\n", line, r.Compress, r.CompressStd,
			r.Prune, r.PruneStd, r.CompressDel, r.CompressDelStd, r.PruneDel, r.PruneDelStd, exp)
	}
}
