package report

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/output"
	"github.com/pats-rl/pats/lib/report"
	"github.com/pats-rl/pats/lib/table"
)

// Mix concatenates trajectory files so that episodes of one task form
// one group (report.MixGroups) and writes them to output.
func Mix(inputs []string, out string) error {
	if err := output.Check(inputs, output.File("-o", out)); err != nil {
		return err
	}
	var tabs [][]table.Trajectory
	var seed int64
	for _, p := range inputs {
		rows, metas, err := table.ReadFiles[table.Trajectory](p)
		if err != nil {
			return err
		}
		if len(metas) > 0 && seed == 0 {
			seed = metas[0].Seed
		}
		tabs = append(tabs, rows)
	}
	in, err := table.InputHashes(inputs...)
	if err != nil {
		return err
	}
	return table.WriteFile(out, report.MixGroups(tabs...), table.Meta{Command: table.CommandLine(), Seed: seed, Inputs: in})
}

// IterationLine prints one line on iteration k (given as text) of a run
// of iters iterations (0: not said).
func IterationLine(run, k, scaffold string, iters int, stdout io.Writer) error {
	n, err := strconv.Atoi(k)
	if err != nil || n < 0 {
		return command.Usagef("iteration %q is not a count", k)
	}
	s, err := report.Iteration(run, n, scaffold)
	if err != nil {
		return err
	}
	s.Iterations = iters
	_, err = fmt.Fprintln(stdout, s)
	return err
}

// Groups prints the group-level summary of trajectory files.
func Groups(paths []string, stdout io.Writer) error {
	g, err := report.SummariseGroups(paths...)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(stdout, g)
	return err
}

// Run prints a run's evaluations by iteration as a Markdown table.
func Run(run string, stdout io.Writer) error {
	r, err := report.Load(run)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	report.WriteRunMarkdown(&b, r)
	var tr bytes.Buffer
	if err := report.WriteTrainingMarkdown(&tr, run); err != nil {
		return err
	}
	if tr.Len() > 0 {
		b.WriteString("\nTraining by iteration (traj/K: GRPO groups with equal rewards give no gradient; the controller's primitive per scope):\n\n")
		b.Write(tr.Bytes())
	}
	_, err = stdout.Write(b.Bytes())
	return err
}

// Compare prints the comparison of the entries (LABEL=RUN[@K][+scaffold])
// on the splits (space separated).
func Compare(entries []string, splits string, stdout io.Writer) error {
	var es []report.Entry
	for _, a := range entries {
		e, err := report.ParseEntry(a)
		if err != nil {
			return command.Usagef("%v", err)
		}
		es = append(es, e)
	}
	var b bytes.Buffer
	if err := report.WriteCompareMarkdown(&b, es, strings.Fields(splits)); err != nil {
		return err
	}
	_, err := stdout.Write(b.Bytes())
	return err
}

// SweepFlags are report sweep's options.
type SweepFlags struct {
	Root     string // folder holding VARIANT-sSEED run folders
	Variants string // space separated
	Seeds    string // space separated
	Output   string // aggregated rows; empty: not written
	Runs     string // per-run rows; empty: not written
	Partial  bool   // leave out unfinished runs instead of failing
	// VariantSeeds gives some variants their own seeds:
	// "VARIANT:S,S,S VARIANT:S,S" (space separated entries); the others
	// take Seeds.
	VariantSeeds string
	Baseline     string // paired differences from this variant (none when empty or absent)
}

// parseSeeds reads seeds separated by sep.
func parseSeeds(flag, s string, sep string) ([]int64, error) {
	var seeds []int64
	for _, x := range strings.Split(s, sep) {
		if x = strings.TrimSpace(x); x == "" {
			continue
		}
		n, err := strconv.ParseInt(x, 10, 64)
		if err != nil {
			return nil, command.Usagef("%s: %q is not a number", flag, x)
		}
		seeds = append(seeds, n)
	}
	return seeds, nil
}

// Sweep aggregates a sweep's runs, writes the rows asked for and
// prints the Markdown table.
func Sweep(f SweepFlags, stdout io.Writer) error {
	variants := strings.Fields(f.Variants)
	seeds, err := parseSeeds("--seeds", f.Seeds, " ")
	if err != nil {
		return err
	}
	own := map[string][]int64{}
	for _, e := range strings.Fields(f.VariantSeeds) {
		v, ss, ok := strings.Cut(e, ":")
		if !ok || v == "" {
			return command.Usagef("--variant-seeds: %q is not VARIANT:S,S,...", e)
		}
		if own[v], err = parseSeeds("--variant-seeds", ss, ","); err != nil {
			return err
		}
	}
	var runs []report.SweepRun
	var missing []string
	for _, v := range variants {
		vs := seeds
		if o, ok := own[v]; ok {
			vs = o
		}
		for _, s := range vs {
			r, err := report.LoadSweepRun(report.RunDir(f.Root, v, s), v, s)
			if err != nil {
				if !f.Partial {
					return err
				}
				missing = append(missing, fmt.Sprintf("%s seed %d", v, s))
				continue
			}
			runs = append(runs, r)
		}
	}
	res := report.Aggregate(runs, variants)
	meta := table.Meta{Command: table.CommandLine()}
	var u output.Unit
	defer u.Abort()
	if p := f.Runs; p != "" {
		if err := table.Stage(&u, p, runs, meta); err != nil {
			return err
		}
	}
	if p := f.Output; p != "" {
		if err := table.Stage(&u, p, res, meta); err != nil {
			return err
		}
	}
	if err := u.Commit(); err != nil {
		return err
	}
	var b bytes.Buffer
	report.WriteSweepMarkdown(&b, res, nil)
	report.WriteReattachMarkdown(&b, res)
	if f.Baseline != "" {
		report.WritePairedMarkdown(&b, report.PairedDiffs(runs, variants, f.Baseline))
	}
	if len(missing) > 0 {
		fmt.Fprintf(&b, "\nNot finished (left out): %s\n", strings.Join(missing, ", "))
	}
	_, err = stdout.Write(b.Bytes())
	return err
}

// Plots writes a run's PNG plots into dir (default RUN/plots) and
// prints their paths.
func Plots(run, dir string, stdout io.Writer) error {
	r, err := report.Load(run)
	if err != nil {
		return err
	}
	if dir == "" {
		dir = r.Dir + "/plots"
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	paths, err := report.Plots(r, dir)
	for _, p := range paths {
		fmt.Fprintln(stdout, p)
	}
	return err
}
