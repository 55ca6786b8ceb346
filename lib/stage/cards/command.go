package cards

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/pats-rl/pats/lib/card"
	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/eval"
	"github.com/pats-rl/pats/lib/output"
	"github.com/pats-rl/pats/lib/stage"
	"github.com/pats-rl/pats/lib/table"
)

// Options are the cards command's options.
type Options struct {
	Inputs   []string // trajectory files, folders of shards, or "-"
	Output   string   // cards file ("-": an Arrow stream on stdout)
	Evidence string   // type evidence file; empty: not written
	Per      string   // group or trajectory
	Top      int      // contrast length
	// GroupBy (eval.GroupKeys) builds the cards and evidence of each env,
	// policy or run apart instead of refusing files that mix them; card
	// ids then end in "@" and the group's values.
	GroupBy []string
}

// Check is cards' checker, run first in Run: no file is read before it.
func (f Options) Check() error {
	switch {
	case f.Output == "":
		return command.Usagef("-o is required (a file, or - for an Arrow stream on stdout)")
	case len(f.Inputs) == 0:
		return command.Usagef("give one or more trajectory files (or - for stdin)")
	case f.Per != card.PerGroup && f.Per != card.PerTrajectory:
		return command.Usagef("--per %q: want group or trajectory", f.Per)
	case f.Top < 1:
		return command.Usagef("--top must be at least 1, got %d", f.Top)
	}
	return nil
}

// Run builds the cards (and the type evidence when Options.Evidence is
// set) of the trajectories and writes them atomically. The trajectories
// must come from one iteration. stdout is unused (outputs are files or an
// Arrow stream through Output "-"). The options are checked first
// (Check).
func Run(ctx context.Context, f Options, std stage.Streams) error {
	if err := f.Check(); err != nil {
		return err
	}
	if err := output.Check(f.Inputs, output.File("-o", f.Output), output.File("--evidence", f.Evidence)); err != nil {
		return err
	}
	trajs, metas, err := table.ReadFilesFrom[table.Trajectory](std.Stdin, f.Inputs...)
	if err != nil {
		return err
	}
	if len(trajs) == 0 {
		return &table.InputError{Path: metaPath(metas, f.Inputs), Problem: "no trajectories"}
	}
	if err := stage.CheckOneSource(f.Inputs, metas, trajs, f.GroupBy...); err != nil {
		return err
	}
	iter := trajs[0].Iteration
	for i, t := range trajs {
		if t.Iteration != iter {
			return &table.InputError{Path: metaPath(metas, f.Inputs), Problem: fmt.Sprintf("trajectory %d is of iteration %d, the first of iteration %d: cards are built per iteration", i, t.Iteration, iter)}
		}
	}
	var cards []table.Card
	var ev []table.TypeEvidence
	for _, g := range eval.Split(trajs, f.GroupBy) {
		cs, es, err := card.Build(g.Trajs, card.Options{Per: f.Per, TopContrast: f.Top})
		if err != nil {
			return &table.InputError{Path: metaPath(metas, f.Inputs), Problem: err.Error()}
		}
		label(cs, es, g, len(f.GroupBy) > 0)
		cards = append(cards, cs...)
		ev = append(ev, es...)
	}
	inputs, err := table.InputHashes(f.Inputs...)
	if err != nil {
		return err
	}
	meta := table.Meta{Command: table.CommandLine(), Inputs: inputs, Extra: map[string]string{
		card.MetaPer: f.Per, card.MetaTop: strconv.Itoa(f.Top), card.MetaIteration: strconv.Itoa(int(iter))}}
	u := output.Unit{Stdout: std.Stdout}
	defer u.Abort()
	if f.Evidence != "" {
		if err := table.Stage(&u, f.Evidence, ev, meta); err != nil {
			return err
		}
	}
	if err := table.Stage(&u, f.Output, cards, meta); err != nil {
		return err
	}
	return u.Commit()
}

// label sets the env, policy and run columns of a group's cards and
// evidence to the values all its episodes share (NULL where they differ:
// a pooled file), and with grouping appends the group's values to the
// card ids.
func label(cs []table.Card, es []table.TypeEvidence, g eval.Group, grouped bool) {
	var vals [3]string
	for i, k := range []string{eval.ByEnv, eval.ByPolicy, eval.ByRun} {
		vals[i] = eval.GroupValue(&g.Trajs[0], k)
		for j := range g.Trajs {
			if eval.GroupValue(&g.Trajs[j], k) != vals[i] {
				vals[i] = ""
				break
			}
		}
	}
	suffix := ""
	if grouped {
		suffix = "@" + strings.Join(g.Values, "/")
	}
	for i := range cs {
		cs[i].Env, cs[i].Policy, cs[i].Run = vals[0], vals[1], vals[2]
		cs[i].CardID += suffix
	}
	for i := range es {
		es[i].Env, es[i].Policy, es[i].Run = vals[0], vals[1], vals[2]
		for j := range es[i].CardIDs {
			es[i].CardIDs[j] += suffix
		}
	}
}

// metaPath names the input in an error: the one file read, else the
// inputs as given.
func metaPath(metas []table.Meta, inputs []string) string {
	if len(metas) == 1 {
		return metas[0].Path
	}
	return strings.Join(inputs, " ")
}
