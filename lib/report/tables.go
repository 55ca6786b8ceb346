package report

import (
	"fmt"
	"github.com/pats-rl/pats/lib/table"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// WriteRunMarkdown writes a run's evaluations, one row per evaluated
// iteration: success on each split with no scaffold (deployment) and with
// the scaffold, and tokens per episode of each (both splits pooled).
func WriteRunMarkdown(w io.Writer, r *Run) {
	splits := r.splits()
	fmt.Fprintf(w, "| iteration |")
	for _, s := range splits {
		fmt.Fprintf(w, " %s, no scaffold | %s, scaffold |", s, s)
	}
	fmt.Fprintln(w, " tokens/episode, no scaffold | tokens/episode, scaffold |")
	fmt.Fprint(w, "| ---: |")
	for range splits {
		fmt.Fprint(w, " ---: | ---: |")
	}
	fmt.Fprintln(w, " ---: | ---: |")
	for _, k := range r.evalIterations() {
		fmt.Fprintf(w, "| %d |", k)
		for _, s := range splits {
			for _, sc := range []bool{false, true} {
				if e, ok := r.Find(k, sc, s); ok {
					fmt.Fprintf(w, " %.3f |", e.Metrics.Success)
				} else {
					fmt.Fprint(w, " — |")
				}
			}
		}
		for _, sc := range []bool{false, true} {
			if t, ok := r.tokens(k, sc); ok {
				fmt.Fprintf(w, " %.0f |", t)
			} else {
				fmt.Fprint(w, " — |")
			}
		}
		fmt.Fprintln(w)
	}
}

func (r *Run) splits() []string {
	seen := map[string]bool{}
	var out []string
	for _, e := range r.Evals {
		if !seen[e.Split] {
			seen[e.Split] = true
			out = append(out, e.Split)
		}
	}
	sort.Strings(out)
	return out
}

func (r *Run) evalIterations() []int {
	var ks []int
	for _, e := range r.Evals {
		if len(ks) == 0 || ks[len(ks)-1] != e.Iteration {
			ks = append(ks, e.Iteration)
		}
	}
	return ks
}

// tokens pools tokens per episode over the splits evaluated at k.
func (r *Run) tokens(k int, scaffold bool) (float64, bool) {
	var sum, n float64
	for _, e := range r.Evals {
		if e.Iteration == k && e.Scaffold == scaffold {
			sum += e.Metrics.Tokens * float64(e.Metrics.Episodes)
			n += float64(e.Metrics.Episodes)
		}
	}
	return sum / n, n > 0
}

// Entry is one row of a comparison: a run folder, the iteration evaluated
// (-1: the last evaluated) and whether the scaffold was in the context.
type Entry struct {
	Label     string
	Dir       string
	Iteration int
	Scaffold  bool
}

// ParseEntry reads LABEL=DIR[@K][+scaffold].
func ParseEntry(s string) (Entry, error) {
	e := Entry{Iteration: -1}
	label, rest, ok := strings.Cut(s, "=")
	if !ok || label == "" || rest == "" {
		return e, fmt.Errorf("entry %q: want LABEL=DIR[@K][+scaffold]", s)
	}
	e.Label = label
	if strings.HasSuffix(rest, "+scaffold") {
		e.Scaffold, rest = true, strings.TrimSuffix(rest, "+scaffold")
	}
	if dir, k, ok := strings.Cut(rest, "@"); ok {
		n, err := strconv.Atoi(k)
		if err != nil || n < 0 {
			return e, fmt.Errorf("entry %q: iteration %q is not a count", s, k)
		}
		rest, e.Iteration = dir, n
	}
	e.Dir = rest
	return e, nil
}

// WriteCompareMarkdown writes one row per entry: success on each split,
// mean score and tokens per episode (both splits pooled).
func WriteCompareMarkdown(w io.Writer, entries []Entry, splits []string) error {
	fmt.Fprint(w, "| policy | context | checkpoint |")
	for _, s := range splits {
		fmt.Fprintf(w, " %s success |", s)
	}
	fmt.Fprintln(w, " score | tokens/episode |")
	fmt.Fprint(w, "| --- | --- | --- |")
	for range splits {
		fmt.Fprint(w, " ---: |")
	}
	fmt.Fprintln(w, " ---: | ---: |")
	for _, e := range entries {
		r, err := Load(e.Dir)
		if err != nil {
			return err
		}
		k := e.Iteration
		if k < 0 {
			k = r.LastEval()
		}
		ctx := "no scaffold"
		if e.Scaffold {
			ctx = "scaffold"
		}
		fmt.Fprintf(w, "| %s | %s | %s/ckpt/%d |", table.MarkdownCell(e.Label), ctx, table.MarkdownCell(e.Dir), k)
		var score, tok, n float64
		for _, s := range splits {
			ev, ok := r.Find(k, e.Scaffold, s)
			if !ok {
				return fmt.Errorf("%s: no evaluation of ckpt/%d on %s (scaffold %v)", e.Dir, k, s, e.Scaffold)
			}
			m := ev.Metrics
			fmt.Fprintf(w, " %.3f (%d) |", m.Success, m.Episodes)
			score += m.Score * float64(m.Episodes)
			tok += m.Tokens * float64(m.Episodes)
			n += float64(m.Episodes)
		}
		fmt.Fprintf(w, " %.3f | %.0f |\n", score/n, tok/n)
	}
	return nil
}

// WriteTrainingMarkdown writes one row per rolled-out iteration of a run
// folder (traj/K): training success, the share of GRPO groups with equal
// rewards (no gradient under a group-relative advantage) and of groups
// where every episode failed, and the controller's primitives at K (how
// many scopes chose each; "—" without a scaffold branch). Nothing is
// written for a folder without rollouts.
func WriteTrainingMarkdown(w io.Writer, dir string) error {
	ks, err := numbered(filepath.Join(dir, "traj"), ".parquet")
	if err != nil || len(ks) == 0 {
		return err
	}
	fmt.Fprintln(w, "| iteration | training success | groups | zero-variance share | all-failure share | EXPAND | REVISE | COMPRESS | FORCED_PRUNE | NONE |")
	fmt.Fprintln(w, "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, k := range ks {
		s, err := Iteration(dir, k, "")
		if err != nil {
			return err
		}
		allFail := 0.0
		if s.Groups > 0 {
			allFail = float64(s.AllFail) / float64(s.Groups)
		}
		fmt.Fprintf(w, "| %d | %.3f | %d | %.3f | %.3f |", k, s.Success, s.Groups, s.ZeroVarShare(), allFail)
		for _, p := range primitiveOrder {
			if s.Primitives == nil {
				fmt.Fprint(w, " — |")
			} else {
				fmt.Fprintf(w, " %d |", s.Primitives[p])
			}
		}
		fmt.Fprintln(w)
	}
	return nil
}
