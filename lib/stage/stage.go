package stage

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// Streams are a stage's standard streams. Every stage has the one shape
//
//	func Run(ctx context.Context, opts Options, io stage.Streams) error
//
// (a command of several subcommands has one such function per subcommand,
// RunSFT, RunGRPO, ...): the options are typed values, an input or output
// named "-" is read from Stdin or written to Stdout, and the error is what
// the exit point (lib/command) maps to an exit code. A test drives a stage
// with buffers instead of files.
type Streams struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
}

// Std returns the process's standard streams.
func Std() Streams {
	return Streams{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
}

// CLI returns the streams of a command run by lib/command: the process's
// stdin and the application's writers (stdout, and the stderr the exit
// point was given).
func CLI(c *cli.Context) Streams {
	s := Std()
	if c.App.Writer != nil {
		s.Stdout = c.App.Writer
	}
	if c.App.ErrWriter != nil {
		s.Stderr = c.App.ErrWriter
	}
	return s
}

// Action is a command's action: read its options (a stage's From, which
// checks them), then run the stage with the command's streams (CLI).
func Action[O any](from func(*cli.Context) (O, error), run func(context.Context, O, Streams) error) cli.ActionFunc {
	return func(c *cli.Context) error {
		o, err := from(c)
		if err != nil {
			return err
		}
		return run(c.Context, o, CLI(c))
	}
}

// Tokenizer opens the tokenizer that control and validate count tokens
// with (their --tokenizer option, tokenizer.Open): the built-in one when
// path is empty. A path that holds no usable tokenizer is a usage error.
func Tokenizer(path string) (tokenizer.Tokenizer, error) {
	t, err := tokenizer.Open(path)
	if err != nil {
		return nil, command.Usagef("--tokenizer: %v", err)
	}
	return t, nil
}

// ReadCards reads the cards of one iteration from path ("-": stdin) with
// their metadata and returns that iteration; cards of several iterations,
// or none, are an input error naming path.
func ReadCards(stdin io.Reader, path string) ([]table.Card, []table.Meta, int32, error) {
	cards, meta, err := table.ReadFilesFrom[table.Card](stdin, path)
	if err != nil {
		return nil, nil, 0, err
	}
	k, err := cardsIteration(cards, path)
	if err != nil {
		return nil, nil, 0, err
	}
	return cards, meta, k, nil
}

// ReadHistory reads the cards of iterations before k from paths (control
// and validate's --history: the evidence window of the rule-based
// refiner). A file that holds cards of iteration k or later, a card id
// also among cards (iteration k's), or a path that is also cardsPath is an
// input error naming the file. No paths: no cards.
func ReadHistory(stdin io.Reader, paths []string, cardsPath string, cards []table.Card, k int32) ([]table.Card, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	ids := map[string]bool{}
	for _, c := range cards {
		ids[c.CardID] = true
	}
	var out []table.Card
	for _, p := range paths {
		if p == cardsPath {
			return nil, command.Usagef("--history %s is the --cards file: give earlier iterations' cards", p)
		}
		hs, _, err := table.ReadFilesFrom[table.Card](stdin, p)
		if err != nil {
			return nil, err
		}
		for _, c := range hs {
			if c.Iteration >= k {
				return nil, &table.InputError{Path: p, Problem: fmt.Sprintf("holds cards of iteration %d, not of one before the cards' iteration %d", c.Iteration, k)}
			}
			if ids[c.CardID] {
				return nil, &table.InputError{Path: p, Problem: fmt.Sprintf("card %s given twice", c.CardID)}
			}
			ids[c.CardID] = true
		}
		out = append(out, hs...)
	}
	return out, nil
}

// cardsIteration returns the one iteration of cards; cards of several
// iterations, or none, are an input error naming path.
func cardsIteration(cards []table.Card, path string) (int32, error) {
	if len(cards) == 0 {
		return 0, &table.InputError{Path: path, Problem: "no cards"}
	}
	k := cards[0].Iteration
	for _, c := range cards {
		if c.Iteration != k {
			return 0, &table.InputError{Path: path, Problem: fmt.Sprintf("cards of iterations %d and %d: give one iteration's cards", k, c.Iteration)}
		}
	}
	return k, nil
}

// CheckOneSource refuses trajectories, read from inputs (metas: one per
// file read), whose files mix environments, policies or runs: their
// summary would blend them into one table under the first file's header.
// One file passes whatever it holds: a pool made on purpose (report mix,
// as the loop's bootstrap evidence is) is one file. The error is one line
// naming the inputs and the first two values that differ. A key in by
// (eval.ByEnv, eval.ByPolicy, eval.ByRun: --group-by) may differ: the
// caller summarises each value apart.
func CheckOneSource(inputs []string, metas []table.Meta, rows []table.Trajectory, by ...string) error {
	if len(rows) == 0 || len(metas) <= 1 {
		return nil
	}
	first := rows[0]
	for i := range rows {
		r := &rows[i]
		for _, c := range []struct{ what, key, a, b string }{
			{"environment", "env", first.Env, r.Env}, {"policy", "policy", first.Policy, r.Policy}, {"run", "run", first.Run, r.Run},
		} {
			if c.a != c.b && !slices.Contains(by, c.key) {
				return &table.InputError{Path: strings.Join(inputs, ", "), Problem: fmt.Sprintf(
					"files with episodes of more than one %s (%q and %q): summarise each %s apart, ask for one summary per %s with --group-by %s, or pool them on purpose into one file with report mix", c.what, c.a, c.b, c.what, c.key, c.key)}
			}
		}
	}
	return nil
}
