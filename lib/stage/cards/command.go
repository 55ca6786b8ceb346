package cards

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/pats-rl/pats/lib/card"
	"github.com/pats-rl/pats/lib/command"
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
}

// Run builds the cards (and the type evidence when Options.Evidence is
// set) of the trajectories and writes them atomically. The trajectories
// must come from one iteration. stdout is unused (outputs are files or an
// Arrow stream through Output "-").
func Run(ctx context.Context, f Options, std stage.Streams) error {
	if f.Output == "" {
		return command.Usagef("-o is required (a file, or - for an Arrow stream on stdout)")
	}
	if len(f.Inputs) == 0 {
		return command.Usagef("give one or more trajectory files (or - for stdin)")
	}
	if f.Per != card.PerGroup && f.Per != card.PerTrajectory {
		return command.Usagef("--per %q: want group or trajectory", f.Per)
	}
	if f.Top < 1 {
		return command.Usagef("--top must be at least 1, got %d", f.Top)
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
	if err := stage.CheckOneSource(f.Inputs, metas, trajs); err != nil {
		return err
	}
	iter := trajs[0].Iteration
	for i, t := range trajs {
		if t.Iteration != iter {
			return &table.InputError{Path: metaPath(metas, f.Inputs), Problem: fmt.Sprintf("trajectory %d is of iteration %d, the first of iteration %d: cards are built per iteration", i, t.Iteration, iter)}
		}
	}
	cards, ev, err := card.Build(trajs, card.Options{Per: f.Per, TopContrast: f.Top})
	if err != nil {
		return &table.InputError{Path: metaPath(metas, f.Inputs), Problem: err.Error()}
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

// metaPath names the input in an error: the one file read, else the
// inputs as given.
func metaPath(metas []table.Meta, inputs []string) string {
	if len(metas) == 1 {
		return metas[0].Path
	}
	return strings.Join(inputs, " ")
}
