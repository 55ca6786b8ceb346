package report

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/pats-rl/pats/lib/table"
)

// MechanismIteration is what the mechanism audits of a run folder say
// about iteration k (pipelines/pats.mk, MECHANISM=1): the scaffold's lift
// (lift/K.parquet) and the truth of snapshot snap/K's items
// (truth/K.parquet, truth/K-rules.parquet). A part whose file is missing
// is left empty (HasLift, HasTruth false).
type MechanismIteration struct {
	Iteration int
	HasLift   bool
	All       table.ScaffoldLift            // the overall lift row
	ByType    map[string]table.ScaffoldLift // the type rows
	HasTruth  bool
	Items     int // the snapshot's items
	Judgeable int // of them, judgeable
	True      int // of them, true
	Rules     int // the environment's rules
	Stated    int // of them, stated by a true item
	Place     int // the environment's place rules
	PlaceSaid int // of them, stated
}

// Precision is True / Judgeable (-1 with nothing judgeable).
func (m MechanismIteration) Precision() float64 {
	if m.Judgeable == 0 {
		return -1
	}
	return float64(m.True) / float64(m.Judgeable)
}

// Recall is Stated / Rules (-1 without rules).
func (m MechanismIteration) Recall() float64 {
	if m.Rules == 0 {
		return -1
	}
	return float64(m.Stated) / float64(m.Rules)
}

// LoadMechanism reads the mechanism audits of a run folder, by iteration;
// nil when it has none.
func LoadMechanism(dir string) ([]MechanismIteration, error) {
	lifts, err := numbered(filepath.Join(dir, "lift"), ".parquet")
	if err != nil {
		return nil, err
	}
	truths, err := numbered(filepath.Join(dir, "truth"), ".parquet")
	if err != nil {
		return nil, err
	}
	byK := map[int]*MechanismIteration{}
	get := func(k int) *MechanismIteration {
		if byK[k] == nil {
			byK[k] = &MechanismIteration{Iteration: k, ByType: map[string]table.ScaffoldLift{}}
		}
		return byK[k]
	}
	for _, k := range lifts {
		rows, _, err := table.ReadFiles[table.ScaffoldLift](filepath.Join(dir, "lift", strconv.Itoa(k)+".parquet"))
		if err != nil {
			return nil, err
		}
		m := get(k)
		for _, r := range rows {
			if r.Scope == table.ScopeAll {
				m.All, m.HasLift = r, true
			} else {
				m.ByType[r.TaskType] = r
			}
		}
	}
	for _, k := range truths {
		items, _, err := table.ReadFiles[table.ItemTruth](filepath.Join(dir, "truth", strconv.Itoa(k)+".parquet"))
		if err != nil {
			return nil, err
		}
		m := get(k)
		m.HasTruth = true
		for _, it := range items {
			m.Items++
			if it.Verdict != table.VerdictNotJudgeable {
				m.Judgeable++
			}
			if it.Verdict == table.VerdictTrue {
				m.True++
			}
		}
		rp := filepath.Join(dir, "truth", strconv.Itoa(k)+"-rules.parquet")
		if !fileExists(rp) {
			continue
		}
		rules, _, err := table.ReadFiles[table.RuleRecall](rp)
		if err != nil {
			return nil, err
		}
		for _, r := range rules {
			m.Rules++
			if r.Kind == "place" {
				m.Place++
			}
			if r.Stated {
				m.Stated++
				if r.Kind == "place" {
					m.PlaceSaid++
				}
			}
		}
	}
	var out []MechanismIteration
	for _, m := range byK {
		out = append(out, *m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Iteration < out[j].Iteration })
	return out, nil
}

// WriteMechanismMarkdown writes the mechanism audits of a run folder: per
// iteration the scaffold's lift overall with its interval, training
// success with and without the scaffold and the all-failure shares of
// both, then the snapshot's precision and recall; then the lift per task
// type. Nothing is written for a folder without them.
func WriteMechanismMarkdown(w io.Writer, dir string) error {
	ms, err := LoadMechanism(dir)
	if err != nil || len(ms) == 0 {
		return err
	}
	fmt.Fprintln(w, "| iteration | scaffold tokens | success with | success without | lift | 95% interval | all-fail with | all-fail without | items | judgeable | precision | rules stated | place rules stated | recall |")
	fmt.Fprintln(w, "| ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	dash := "—"
	ratio := func(x float64) string {
		if x < 0 {
			return dash
		}
		return fmt.Sprintf("%.3f", x)
	}
	types := map[string]bool{}
	for _, m := range ms {
		fmt.Fprintf(w, "| %d |", m.Iteration)
		if m.HasLift {
			a := m.All
			fmt.Fprintf(w, " %.1f | %.3f | %.3f | %+.3f | [%+.3f, %+.3f] | %.3f | %.3f |", a.ScaffoldTokens, a.SuccessWith, a.SuccessWithout, a.Lift, a.LiftLo, a.LiftHi, a.AllFailWith, a.AllFailWithout)
		} else {
			fmt.Fprint(w, strings.Repeat(" "+dash+" |", 7))
		}
		if m.HasTruth {
			fmt.Fprintf(w, " %d | %d | %s | %d/%d | %d/%d | %s |\n", m.Items, m.Judgeable, ratio(m.Precision()), m.Stated, m.Rules, m.PlaceSaid, m.Place, ratio(m.Recall()))
		} else {
			fmt.Fprintln(w, strings.Repeat(" "+dash+" |", 6))
		}
		for t := range m.ByType {
			types[t] = true
		}
	}
	if len(types) == 0 {
		return nil
	}
	names := make([]string, 0, len(types))
	for t := range types {
		names = append(names, t)
	}
	sort.Strings(names)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Lift by task type (success with minus without the scaffold, the type's groups of traj/K; — where the iteration drew none):")
	fmt.Fprintln(w)
	fmt.Fprintf(w, "| iteration | %s |\n", strings.Join(names, " | "))
	fmt.Fprintf(w, "| ---: |%s\n", strings.Repeat(" ---: |", len(names)))
	for _, m := range ms {
		if !m.HasLift {
			continue
		}
		fmt.Fprintf(w, "| %d |", m.Iteration)
		for _, t := range names {
			if r, ok := m.ByType[t]; ok {
				fmt.Fprintf(w, " %+.3f (%d) |", r.Lift, r.Tasks)
			} else {
				fmt.Fprint(w, " "+dash+" |")
			}
		}
		fmt.Fprintln(w)
	}
	return nil
}
