package report

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/output"
	"github.com/pats-rl/pats/lib/report"
	"github.com/pats-rl/pats/lib/stage"
	"github.com/pats-rl/pats/lib/table"
)

// MixOptions are report mix's options.
type MixOptions struct {
	Inputs []string // trajectory files ("-": stdin)
	Output string   // the mixed trajectories ("-": stdout)
	Apart  bool     // keep each file's groups apart (report.KeepApart)
}

// RunMix concatenates trajectory files so that episodes of one task form
// one group (report.MixGroups) and writes them to the output.
func RunMix(ctx context.Context, f MixOptions, std stage.Streams) error {
	if err := f.Check(); err != nil {
		return err
	}
	inputs, out := f.Inputs, f.Output
	if err := output.Check(inputs, output.File("-o", out)); err != nil {
		return err
	}
	if err := table.Distinct(std.Stdin, inputs...); err != nil {
		return err
	}
	var tabs [][]table.Trajectory
	var seed int64
	for _, p := range inputs {
		rows, metas, err := table.ReadFilesFrom[table.Trajectory](std.Stdin, p)
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
	u := output.Unit{Stdout: std.Stdout}
	defer u.Abort()
	if f.Apart {
		tabs = report.KeepApart(tabs...)
	}
	if err := table.Stage(&u, out, report.MixGroups(tabs...), table.Meta{Command: table.CommandLine(), Seed: seed, Inputs: in}); err != nil {
		return err
	}
	return u.Commit()
}

// IterationOptions are report iteration's options.
type IterationOptions struct {
	Run        string // the run's folder
	K          string // the iteration, as given
	Scaffold   string // the snapshot of iteration k; empty: not shown
	Iterations int    // the run's iterations; 0: not said
}

// RunIteration prints one line on iteration k (given as text) of a run
// of iters iterations (0: not said).
func RunIteration(ctx context.Context, f IterationOptions, std stage.Streams) error {
	if err := f.Check(); err != nil {
		return err
	}
	n, _ := f.iteration()
	s, err := report.Iteration(f.Run, n, f.Scaffold)
	if err != nil {
		return err
	}
	s.Iterations = f.Iterations
	_, err = fmt.Fprintln(std.Stdout, s)
	return err
}

// GroupsOptions are report groups' options.
type GroupsOptions struct {
	Inputs []string // trajectory files
}

// RunGroups prints the group-level summary of trajectory files.
func RunGroups(ctx context.Context, f GroupsOptions, std stage.Streams) error {
	if err := f.Check(); err != nil {
		return err
	}
	g, err := report.SummariseGroups(f.Inputs...)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(std.Stdout, g)
	return err
}

// SummaryOptions are report run's options.
type SummaryOptions struct {
	Run string // the run's folder
}

// RunSummary (report run) prints a run's evaluations by iteration as a
// Markdown table, then its training by iteration.
func RunSummary(ctx context.Context, f SummaryOptions, std stage.Streams) error {
	if err := f.Check(); err != nil {
		return err
	}
	run := f.Run
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
	var mech bytes.Buffer
	if err := report.WriteMechanismMarkdown(&mech, run); err != nil {
		return err
	}
	if mech.Len() > 0 {
		b.WriteString("\nThe mechanism by iteration (audits only, never read by the loop): lift/K, traj/K's groups played again by ckpt/K without the scaffold; truth/K, snap/K's items judged by the environment's own rules (precision: true of judgeable; recall: its rules stated):\n\n")
		b.Write(mech.Bytes())
	}
	_, err = std.Stdout.Write(b.Bytes())
	return err
}

// CompareOptions are report compare's options.
type CompareOptions struct {
	Entries []string // LABEL=RUN[@K][+scaffold]
	Splits  []string // splits to compare; none: valid_seen and valid_unseen
}

// RunCompare prints the comparison of the entries on the splits.
func RunCompare(ctx context.Context, f CompareOptions, std stage.Streams) error {
	if err := f.Check(); err != nil {
		return err
	}
	es, _ := f.entries() // Check parsed them
	splits := f.Splits
	if len(splits) == 0 {
		splits = []string{"valid_seen", "valid_unseen"}
	}
	var b bytes.Buffer
	if err := report.WriteCompareMarkdown(&b, es, splits); err != nil {
		return err
	}
	_, err := std.Stdout.Write(b.Bytes())
	return err
}

// SweepOptions are report sweep's options.
type SweepOptions struct {
	Root string // folder holding VARIANT-sSEED run folders
	// Variants are the table's rows: VARIANT (its runs under Root),
	// ROOT:VARIANT (under ROOT, another sweep's folder) or
	// LABEL=ROOT:VARIANT (the row named LABEL; needed where two rows would
	// have one name). A row is named by its label, which --variant-seeds
	// and --baseline take.
	Variants []string
	Seeds    []int64
	Output   string // aggregated rows; empty: not written
	Runs     string // per-run rows; empty: not written
	Credit   string // the runs' credit audits per variant and horizon bin; empty: not written
	Partial  bool   // leave out unfinished runs instead of failing
	// VariantSeeds gives some variants their own seeds (--variant-seeds
	// 'VARIANT:S,S,S VARIANT:S,S'); the others take Seeds.
	VariantSeeds map[string][]int64
	Baseline     string // paired differences from this variant (none when empty or absent)
}

// parseVariantSeeds reads --variant-seeds: "VARIANT:S,S VARIANT:S"; nil
// when s is empty.
func parseVariantSeeds(s string) (map[string][]int64, error) {
	var own map[string][]int64
	for _, e := range strings.Fields(s) {
		v, ss, ok := strings.Cut(e, ":")
		if !ok || v == "" {
			return nil, command.Usagef("--variant-seeds: %q is not VARIANT:S,S,...", e)
		}
		seeds, err := parseSeeds("--variant-seeds", ss, ",")
		if err != nil {
			return nil, err
		}
		if own == nil {
			own = map[string][]int64{}
		}
		own[v] = seeds
	}
	return own, nil
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

// sweepRow is one row of report sweep's table: the runs of Variant under
// Root, named Label.
type sweepRow struct{ Label, Root, Variant string }

// sweepRows reads report sweep's --variants: VARIANT, ROOT:VARIANT or
// LABEL=ROOT:VARIANT (the label before the first =, the variant after the
// last :), a plain VARIANT under root, each row named by its label (its
// variant without one). Two rows of one name, an empty part, or a
// --variant-seeds entry that names no row are usage errors (a --baseline
// that names no row gives no paired table, as before).
func sweepRows(f SweepOptions) ([]sweepRow, error) {
	var rows []sweepRow
	seen := map[string]bool{}
	for _, e := range f.Variants {
		r := sweepRow{Root: f.Root}
		rest := e
		if l, after, ok := strings.Cut(e, "="); ok {
			r.Label, rest = l, after
			if l == "" || !strings.Contains(rest, ":") {
				return nil, command.Usagef("--variants: %q is not VARIANT, ROOT:VARIANT or LABEL=ROOT:VARIANT", e)
			}
		}
		if i := strings.LastIndex(rest, ":"); i >= 0 {
			r.Root, rest = rest[:i], rest[i+1:]
			if r.Root == "" {
				return nil, command.Usagef("--variants: %q: the sweep folder before : is empty", e)
			}
		}
		if r.Variant = rest; r.Variant == "" {
			return nil, command.Usagef("--variants: %q: no variant", e)
		}
		if r.Label == "" {
			r.Label = r.Variant
		}
		if seen[r.Label] {
			return nil, command.Usagef("--variants: two rows named %q: name one with LABEL=ROOT:VARIANT", r.Label)
		}
		seen[r.Label] = true
		rows = append(rows, r)
	}
	for v := range f.VariantSeeds {
		if !seen[v] {
			return nil, command.Usagef("--variant-seeds: %s is not a row of --variants", v)
		}
	}
	return rows, nil
}

// RunSweep aggregates a sweep's runs, writes the rows asked for and
// prints the Markdown table. The runs may come from several sweep folders
// (sweepRows): each run's row then carries its row's label as its
// variant, so that the tables and the pairs go by row.
func RunSweep(ctx context.Context, f SweepOptions, std stage.Streams) error {
	if err := f.Check(); err != nil {
		return err
	}
	rows, err := sweepRows(f)
	if err != nil {
		return err
	}
	byLabel := map[string]sweepRow{}
	var variants []string
	for _, r := range rows {
		byLabel[r.Label] = r
		variants = append(variants, r.Label)
	}
	var runs []report.SweepRun
	var missing []string
	for _, ref := range sweepRefs(variants, f.Seeds, f.VariantSeeds) {
		row, s := byLabel[ref.Variant], ref.Seed
		if err := ctx.Err(); err != nil {
			return err
		}
		r, err := report.LoadSweepRun(report.RunDir(row.Root, row.Variant, s), row.Variant, s)
		if err != nil {
			if !f.Partial {
				return err
			}
			missing = append(missing, fmt.Sprintf("%s seed %d", row.Label, s))
			continue
		}
		r.Variant = row.Label
		runs = append(runs, r)
	}
	res := report.Aggregate(runs, variants)
	audits := make([][]table.CreditAudit, len(runs))
	for i, r := range runs {
		if audits[i], err = report.LoadCreditAudit(r.Run); err != nil {
			return err
		}
	}
	credit := report.AggregateCredit(runs, audits, variants)
	meta := table.Meta{Command: table.CommandLine()}
	u := output.Unit{Stdout: std.Stdout}
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
	if p := f.Credit; p != "" {
		if err := table.Stage(&u, p, credit, meta); err != nil {
			return err
		}
	}
	if err := u.Commit(); err != nil {
		return err
	}
	var b bytes.Buffer
	report.WriteSweepMarkdown(&b, res, nil)
	report.WriteReattachMarkdown(&b, res)
	report.WriteCreditMarkdown(&b, credit)
	mech, err := report.AggregateMechanism(runs, variants)
	if err != nil {
		return err
	}
	report.WriteSweepMechanismMarkdown(&b, mech)
	fade, err := report.AggregateFade(runs, variants)
	if err != nil {
		return err
	}
	report.WriteSweepFadeMarkdown(&b, fade)
	if f.Baseline != "" {
		report.WritePairedMarkdown(&b, report.PairedDiffs(runs, variants, f.Baseline))
		report.WritePairedReadsMarkdown(&b, report.PairedReadDiffs(runs, variants, f.Baseline))
	}
	if len(missing) > 0 {
		fmt.Fprintf(&b, "\nNot finished (left out): %s\n", strings.Join(missing, ", "))
	}
	_, err = std.Stdout.Write(b.Bytes())
	return err
}

// PlotsOptions are report plots' options.
type PlotsOptions struct {
	Run    string // a run's folder, or a sweep's (the folder holding VARIANT-sSEED run folders)
	Output string // the plots' folder; empty: RUN/plots
	// A sweep's runs, as report sweep takes them; without Variants, a
	// folder that is not a run folder is a sweep of the VARIANT-sSEED
	// folders it holds (warm-ups left out).
	Variants     []string
	Seeds        []int64
	VariantSeeds map[string][]int64 // a variant's own seeds, replacing Seeds
	Partial      bool               // a sweep: leave out unfinished runs instead of failing
}

// isRunFolder reports whether dir looks like a run folder of pats.mk.
func isRunFolder(dir string) bool {
	for _, n := range []string{"eval", "snap", "traj", report.SummaryFile} {
		if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
			return true
		}
	}
	return false
}

var sweepRunName = regexp.MustCompile(`^(.+)-s([0-9]+)$`)

// sweepFolders lists the VARIANT-sSEED run folders of a sweep folder
// (warm-up runs left out), by variant and seed.
func sweepFolders(root string) ([]report.SweepRunRef, error) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil, &table.InputError{Path: root, Problem: "not a run or sweep folder", Err: err}
	}
	var refs []report.SweepRunRef
	for _, e := range ents {
		m := sweepRunName.FindStringSubmatch(e.Name())
		if m == nil || strings.HasPrefix(e.Name(), "warmup-") {
			continue
		}
		if st, err := os.Stat(filepath.Join(root, e.Name())); err != nil || !st.IsDir() {
			continue // a folder or a link to one
		}
		seed, err := strconv.ParseInt(m[2], 10, 64)
		if err != nil {
			continue
		}
		refs = append(refs, report.SweepRunRef{Variant: m[1], Seed: seed})
	}
	if len(refs) == 0 {
		return nil, &table.InputError{Path: root, Problem: "not a run folder, and holds no VARIANT-sSEED run folders"}
	}
	sort.Slice(refs, func(i, j int) bool {
		if refs[i].Variant != refs[j].Variant {
			return refs[i].Variant < refs[j].Variant
		}
		return refs[i].Seed < refs[j].Seed
	})
	return refs, nil
}

// sweepRefs lists the runs of variants for seeds, a variant's own seeds
// (own) replacing them, variant by variant.
func sweepRefs(variants []string, seeds []int64, own map[string][]int64) []report.SweepRunRef {
	var refs []report.SweepRunRef
	for _, v := range variants {
		vs := seeds
		if o, ok := own[v]; ok {
			vs = o
		}
		for _, s := range vs {
			refs = append(refs, report.SweepRunRef{Variant: v, Seed: s})
		}
	}
	return refs
}

// RunPlots writes the PNG plots of a run, or of a sweep, into the output
// folder and prints their paths, then a line "note: ..." for each plot
// not drawn; with --partial, a sweep's unfinished runs are drawn as far
// as they go and named on stderr, and the plots' titles say partial.
func RunPlots(ctx context.Context, f PlotsOptions, std stage.Streams) error {
	if err := f.Check(); err != nil {
		return err
	}
	dir := f.Output
	if dir == "" {
		dir = filepath.Join(f.Run, "plots")
	}
	if err := checkPlotsDir(f.Run, dir); err != nil {
		return err
	}
	if len(f.Variants) == 0 && isRunFolder(f.Run) {
		if f.Partial || len(f.Seeds) > 0 || len(f.VariantSeeds) > 0 {
			return command.Usagef("--seeds, --variant-seeds and --partial are for a sweep (with --variants)")
		}
		r, err := report.Load(f.Run)
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		// The folder is made with the plots (lib/output), and removed again
		// when they are not all written.
		paths, err := report.Plots(r, dir)
		if err != nil {
			return err
		}
		return printLines(std.Stdout, paths)
	}
	var refs []report.SweepRunRef
	var err error
	if len(f.Variants) > 0 {
		refs = sweepRefs(f.Variants, f.Seeds, f.VariantSeeds)
	} else {
		refs, err = sweepFolders(f.Run)
	}
	if err != nil {
		return err
	}
	load := report.LoadSweepPlots
	if f.Partial {
		load = report.LoadSweepPlotsPartial
	}
	d, err := load(f.Run, refs)
	if err != nil {
		return err
	}
	if len(d.Unfinished) > 0 && std.Stderr != nil {
		fmt.Fprintf(std.Stderr, "report plots: partial: unfinished runs drawn as far as they go: %s\n", strings.Join(d.Unfinished, ", "))
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	paths, notes, err := report.SweepPlots(d, dir)
	if err != nil {
		return err
	}
	for _, n := range notes {
		paths = append(paths, "note: "+n)
	}
	return printLines(std.Stdout, paths)
}

// printLines writes lines to stdout, one each, and fails when stdout
// cannot take them.
func printLines(stdout io.Writer, lines []string) error {
	var b bytes.Buffer
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	if _, err := stdout.Write(b.Bytes()); err != nil {
		return fmt.Errorf("stdout: %w", err)
	}
	return nil
}

// WriteSettings writes a run's settings.json (out) from the NAME=VALUE
// lines of from, with the base checkpoint's weights hash when base is
// given and the toolkit's version and commit.
func WriteSettings(from, base, out string) error {
	if err := output.Check([]string{from, base}, output.File("-o", out)); err != nil {
		return err
	}
	f, err := output.OpenFile(from, output.MaxTextBytes)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return &table.InputError{Path: from, Problem: "cannot read: " + err.Error(), Err: err}
	}
	defer f.Close()
	vars, err := report.ParseVars(f)
	if err != nil {
		return &table.InputError{Path: from, Problem: err.Error()}
	}
	var hash string
	if base != "" {
		for _, name := range []string{"model.safetensors", "model.safetensors.index.json"} {
			if h, err := table.HashFile(filepath.Join(base, name)); err == nil {
				hash = h
				break
			}
		}
		if hash == "" {
			return &table.InputError{Path: base, Problem: "no checkpoint weights (model.safetensors) to hash"}
		}
	}
	v, c := table.Toolkit()
	if s := table.CurrentStamp(); s != nil {
		v, c = s.Version, s.Commit
	}
	b := report.NewSettings(vars, base, hash, v, c).JSON()
	return output.Write(out, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// ShowSettings prints a run's settings.json as Markdown.
func ShowSettings(run string, stdout io.Writer) error {
	s, err := report.LoadSettings(run)
	if err != nil {
		return &table.InputError{Path: run, Problem: "no readable " + report.SettingsFile + ": " + err.Error()}
	}
	// written whole, so that a failed write (a full disk) fails the command
	var b bytes.Buffer
	if err := s.Markdown(&b); err != nil {
		return err
	}
	if _, err := stdout.Write(b.Bytes()); err != nil {
		return fmt.Errorf("stdout: %w", err)
	}
	return nil
}
