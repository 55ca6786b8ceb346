package report

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
)

// EarlyIterations is the number of first iterations (0 to EarlyIterations-1)
// whose all-failure share the sweep's mechanism table reports: the
// iterations where a scaffold is meant to rescue failing groups before the
// policy has learned the task.
const EarlyIterations = 5

// SweepMechanism summarises the mechanism audits of one variant's runs over
// seeds (WriteSweepMechanismMarkdown): each figure is the mean and the
// sample standard deviation over the seeds that have it. Lift figures are
// means over a run's scaffolded iterations (1 and on: iteration 0 plays B_0,
// which is empty for pats); precision and recall are those of the run's last
// judged snapshot. The all-failure share is the share of a run's GRPO groups
// in iterations 0 to EarlyIterations-1 where every episode failed, under
// the training scaffold when the run has one; it is the one figure that a
// run without a scaffold has too.
type SweepMechanism struct {
	Variant                 string
	Seeds                   int     // runs of the variant
	Audited                 int     // of them, runs with lift audits
	LiftEarly, LiftEarlyStd float64 // mean lift over iterations 1-5
	LiftAll, LiftAllStd     float64 // mean lift over every audited scaffolded iteration
	Positive, PositiveStd   float64 // share of those iterations with lift > 0
	Judged                  int     // runs with truth audits
	Precision, PrecisionStd float64 // last snapshot's precision (over runs with a judgeable item)
	PrecisionRuns           int
	Recall, RecallStd       float64 // last snapshot's recall of the environment's rules
	Place, PlaceStd         float64 // last snapshot's place rules stated
	PlaceOf                 int     // the environment's place rules
	AllFail, AllFailStd     float64 // all-failure share, iterations 0 to EarlyIterations-1
	AllFailRuns             int     // runs with those iterations' trajectories
}

// AggregateMechanism reads the mechanism audits and the early trajectories
// of the runs and summarises them per variant, in the order of variants; a
// variant without runs is left out.
func AggregateMechanism(runs []SweepRun, variants []string) ([]SweepMechanism, error) {
	var out []SweepMechanism
	for _, v := range variants {
		m := SweepMechanism{Variant: v}
		var early, all, pos, prec, rec, place, fail []float64
		for _, r := range runs {
			if r.Variant != v {
				continue
			}
			m.Seeds++
			its, err := LoadMechanism(r.Run)
			if err != nil {
				return nil, err
			}
			var e, a []float64
			var p int
			var last *MechanismIteration
			for i := range its {
				it := &its[i]
				if it.HasLift && it.Iteration >= 1 {
					a = append(a, it.All.Lift)
					if it.All.Lift > 0 {
						p++
					}
					if it.Iteration <= EarlyIterations {
						e = append(e, it.All.Lift)
					}
				}
				if it.HasTruth {
					last = it
				}
			}
			if len(a) > 0 {
				m.Audited++
				all = append(all, mean(a))
				pos = append(pos, float64(p)/float64(len(a)))
				if len(e) > 0 {
					early = append(early, mean(e))
				}
			}
			if last != nil {
				m.Judged++
				if last.Judgeable > 0 {
					prec = append(prec, last.Precision())
				}
				if last.Rules > 0 {
					rec = append(rec, last.Recall())
				}
				if last.Place > 0 {
					place = append(place, float64(last.PlaceSaid))
					m.PlaceOf = last.Place
				}
			}
			share, ok, err := earlyAllFail(r.Run)
			if err != nil {
				return nil, err
			}
			if ok {
				fail = append(fail, share)
			}
		}
		if m.Seeds == 0 {
			continue
		}
		m.LiftEarly, m.LiftEarlyStd = MeanStd(early)
		m.LiftAll, m.LiftAllStd = MeanStd(all)
		m.Positive, m.PositiveStd = MeanStd(pos)
		m.Precision, m.PrecisionStd = MeanStd(prec)
		m.PrecisionRuns = len(prec)
		m.Recall, m.RecallStd = MeanStd(rec)
		m.Place, m.PlaceStd = MeanStd(place)
		m.AllFail, m.AllFailStd = MeanStd(fail)
		m.AllFailRuns = len(fail)
		out = append(out, m)
	}
	return out, nil
}

// earlyAllFail is the share of the GRPO groups of traj/0 to
// traj/EarlyIterations-1 where every episode failed; false when the run
// lacks any of those files.
func earlyAllFail(dir string) (float64, bool, error) {
	var paths []string
	for k := 0; k < EarlyIterations; k++ {
		p := filepath.Join(dir, "traj", strconv.Itoa(k)+".parquet")
		if !fileExists(p) {
			return 0, false, nil
		}
		paths = append(paths, p)
	}
	var groups, allFail int
	for _, p := range paths { // group ids repeat across iterations: count per file
		g, err := SummariseGroups(p)
		if err != nil {
			return 0, false, err
		}
		groups += g.Groups
		allFail += g.AllFail
	}
	if groups == 0 {
		return 0, false, nil
	}
	return float64(allFail) / float64(groups), true, nil
}

func mean(xs []float64) float64 {
	m, _ := MeanStd(xs)
	return m
}

// WriteSweepMechanismMarkdown writes the mechanism table of a sweep: per
// variant, the scaffold's lift (mean over iterations 1-5 and over all
// scaffolded iterations, and the share of iterations where it is
// positive), the precision and recall of the last snapshot, and the
// all-failure share of the first iterations' groups; each mean ± sd over
// the seeds that have it, — where none has. Nothing is written when no run
// has mechanism audits.
func WriteSweepMechanismMarkdown(w io.Writer, rows []SweepMechanism) {
	audited := false
	for _, r := range rows {
		audited = audited || r.Audited > 0 || r.Judged > 0
	}
	if !audited {
		return
	}
	fmt.Fprintf(w, "\nThe mechanism over seeds (the runs' lift/K and truth/K audits, never read by the loop): the scaffold's lift in training success (with it minus without it, same checkpoint and tasks), as the mean over iterations 1-%d and over every scaffolded iteration, and the share of iterations where it is above 0; the last snapshot's precision (true of judgeable items) and recall (the environment's rules stated); the share of GRPO groups in iterations 0-%d where every episode failed (under the training scaffold where there is one). Mean ± sd over the seeds with the audit.\n\n",
		EarlyIterations, EarlyIterations-1)
	fmt.Fprintln(w, "| variant | seeds | audited | lift, iterations 1-5 | lift, all iterations | iterations with lift > 0 | precision, last snapshot | recall, last snapshot | place rules stated | all-failure share, iterations 0-4 |")
	fmt.Fprintln(w, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, r := range rows {
		lift, all := signedOrDash(r.LiftEarly, r.LiftEarlyStd), signedOrDash(r.LiftAll, r.LiftAllStd)
		pos, prec, rec := pmNaN(r.Positive, r.PositiveStd, 2), pmNaN(r.Precision, r.PrecisionStd, 2), pmNaN(r.Recall, r.RecallStd, 2)
		place := pmNaN(r.Place, r.PlaceStd, 1)
		if r.PlaceOf > 0 {
			place += fmt.Sprintf(" of %d", r.PlaceOf)
		}
		fail := pmNaN(r.AllFail, r.AllFailStd, 3)
		fmt.Fprintf(w, "| %s | %d | %d | %s | %s | %s | %s | %s | %s | %s |\n", r.Variant, r.Seeds, r.Audited, lift, all, pos, prec, rec, place, fail)
	}
}

// pmNaN is pm, or — for a mean over no seeds (NaN).
func pmNaN(m, s float64, prec int) string {
	if math.IsNaN(m) {
		return "—"
	}
	return pm(m, s, prec)
}

// signedOrDash is a signed mean ± sd to 3 places, or — for NaN.
func signedOrDash(m, s float64) string {
	if math.IsNaN(m) {
		return "—"
	}
	return fmt.Sprintf("%+.3f ± %.3f", m, s)
}
