package validate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/pats-rl/pats/lib/output"
	"github.com/pats-rl/pats/lib/scaffold"
	"github.com/pats-rl/pats/lib/stage"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
	"github.com/pats-rl/pats/lib/validate"
)

// Options are the validate command's options.
type Options struct {
	Scaffold  string              // snapshot k
	Proposals string              // proposals of iteration k
	Cards     string              // cards of iteration k
	History   []string            // cards of earlier iterations an addition may cite
	Output    string              // snapshot k+1
	Decisions string              // one decision per proposal
	Limits    scaffold.Limits     // caps, quota and per-addition rules
	Tok       tokenizer.Tokenizer // counts tokens; nil: scaffold.WordCount
	Progress  io.Writer           // one summary line when non-nil
}

// counter returns the token count function and the tokenizer's hash.
func counter(tok tokenizer.Tokenizer) (func(string) int, string) {
	if tok == nil {
		return scaffold.WordCount, "words"
	}
	return func(s string) int { return len(tok.Encode(s)) }, tok.Hash()
}

// Run runs the validator: the options checked first (Check), it reads snapshot k, the proposals and the
// cards of iteration k (with those of earlier iterations, History, which
// additions may cite as support), applies Apply, and writes the decisions and then
// snapshot k+1 (version k+1, parent = hash of k), each atomically. The
// snapshot is written last: it is the commit. With no accepted proposal
// snapshot k+1 has k's items and the next version. stdout is unused.
func Run(ctx context.Context, f Options, std stage.Streams) error {
	if err := f.Check(); err != nil {
		return err
	}
	if err := output.Check(append([]string{f.Scaffold, f.Proposals, f.Cards}, f.History...), output.File("-o", f.Output), output.File("--decisions", f.Decisions)); err != nil {
		return err
	}
	snap, err := scaffold.ReadSnapshot(f.Scaffold)
	if err != nil {
		return err
	}
	props, pmeta, err := table.ReadFilesFrom[table.Proposal](std.Stdin, f.Proposals)
	if err != nil {
		return err
	}
	cards, _, k, err := stage.ReadCards(std.Stdin, f.Cards)
	if err != nil {
		return err
	}
	history, err := stage.ReadHistory(std.Stdin, f.History, f.Cards, cards, k)
	if err != nil {
		return err
	}
	for _, p := range props {
		if p.Iteration != k {
			return &table.InputError{Path: f.Proposals, Problem: fmt.Sprintf("proposal %s is of iteration %d, the cards of iteration %d", p.ProposalID, p.Iteration, k)}
		}
	}
	for _, m := range pmeta {
		if h, ok := m.Extra[scaffold.MetaScaffold]; ok && h != scaffold.Hash(snap.Items) {
			return &table.InputError{Path: f.Proposals, Problem: fmt.Sprintf("the proposals were made for snapshot %s, not %s (version %d)", h, f.Scaffold, snap.Version)}
		}
	}
	count, tokHash := counter(f.Tok)
	items := scaffold.Clone(snap.Items)
	scaffold.Retokenize(items, count)
	opts := validate.Options{Iteration: k, Count: count, Limits: f.Limits.At(k)}
	next, decisions := validate.Apply(items, props, append(history, cards...), opts)
	acc := 0
	for _, d := range decisions {
		if d.Accepted {
			acc++
		}
	}
	inputs, err := table.InputHashes(append([]string{f.Scaffold, f.Proposals, f.Cards}, f.History...)...)
	if err != nil {
		return err
	}
	extra := map[string]string{
		scaffold.MetaIteration:       strconv.Itoa(int(k)),
		scaffold.MetaScaffold:        scaffold.Hash(snap.Items),
		scaffold.MetaScaffoldVersion: strconv.Itoa(snap.Version),
		validate.MetaAccepted:        strconv.Itoa(acc),
		validate.MetaRejected:        strconv.Itoa(len(decisions) - acc),
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	dmeta := table.Meta{Command: table.CommandLine(), Inputs: inputs, Extra: extra}
	u := output.Unit{Stdout: std.Stdout}
	defer u.Abort()
	if err := table.Stage(&u, f.Decisions, decisions, dmeta); err != nil {
		return err
	}
	smeta := table.Meta{Command: table.CommandLine(), Inputs: inputs, Extra: map[string]string{scaffold.MetaIteration: strconv.Itoa(int(k))}}
	out := scaffold.Snapshot{Items: next, Version: snap.Version + 1, Parent: scaffold.Hash(snap.Items), Tokenizer: tokHash}
	if err := scaffold.StageSnapshot(&u, f.Output, out, smeta); err != nil {
		return err
	}
	if err := u.Commit(); err != nil {
		return err
	}
	if f.Progress != nil {
		fmt.Fprintf(f.Progress, "validate: snapshot %d -> %d: %d accepted, %d rejected, %d items\n",
			snap.Version, snap.Version+1, acc, len(decisions)-acc, len(next))
	}
	return nil
}

// InitOptions are the options of `validate init`.
type InitOptions struct {
	From   string // items.yaml; empty: an empty snapshot
	Output string
	Tok    tokenizer.Tokenizer // counts tokens; nil: scaffold.WordCount
}

// RunInit writes snapshot version 0: empty, or seeded from an items file
// (scaffold.ParseItems); the options are checked first (Check).
func RunInit(ctx context.Context, f InitOptions, std stage.Streams) error {
	if err := f.Check(); err != nil {
		return err
	}
	if err := output.Check([]string{f.From}, output.File("-o", f.Output)); err != nil {
		return err
	}
	count, tokHash := counter(f.Tok)
	items := []table.ScaffoldItem{}
	meta := table.Meta{Command: table.CommandLine()}
	if f.From != "" {
		r, err := openInput(f.From, std.Stdin)
		if err != nil {
			return err
		}
		parsed, err := scaffold.ParseItems(r, f.From, count)
		r.Close()
		if err != nil {
			return &table.InputError{Path: f.From, Problem: trimPrefix(err.Error(), f.From+":")}
		}
		items = parsed
		if meta.Inputs, err = table.InputHashes(f.From); err != nil {
			return err
		}
	}
	return scaffold.WriteSnapshot(f.Output, scaffold.Snapshot{Items: items, Version: 0, Tokenizer: tokHash}, meta)
}

// DiffOptions are the options of `validate diff`.
type DiffOptions struct {
	Old, New  string // snapshots k and k+1 (any two snapshots)
	Proposals string // optional, with Decisions: merges are read from them
	Decisions string
}

// RunDiff prints what changed from one snapshot to another: added (+),
// changed (~), merged (>) and removed (-) items (scaffold.DiffItems). With
// the proposals and decisions of the step, merges are the accepted merge
// proposals; otherwise they are inferred. The options are checked first
// (Check).
func RunDiff(ctx context.Context, f DiffOptions, std stage.Streams) error {
	if err := f.Check(); err != nil {
		return err
	}
	a, err := scaffold.ReadSnapshot(f.Old)
	if err != nil {
		return err
	}
	b, err := scaffold.ReadSnapshot(f.New)
	if err != nil {
		return err
	}
	var merges map[string]string
	if f.Proposals != "" {
		props, _, err := table.ReadFilesFrom[table.Proposal](std.Stdin, f.Proposals)
		if err != nil {
			return err
		}
		dec, _, err := table.ReadFilesFrom[table.Decision](std.Stdin, f.Decisions)
		if err != nil {
			return err
		}
		merges = scaffold.MergesFrom(props, dec)
	}
	d := scaffold.DiffItems(a.Items, b.Items, merges)
	rel := ""
	if b.Parent != "" && b.Parent == scaffold.Hash(a.Items) {
		rel = ", its parent"
	}
	if _, err := fmt.Fprintf(std.Stdout, "snapshot %d (%d items) -> %d (%d items%s)\n%s", a.Version, len(a.Items), b.Version, len(b.Items), rel, d); err != nil {
		return err
	}
	return nil
}

// ShowOptions are the options of `validate show`.
type ShowOptions struct {
	Snapshot string
	Budget   int      // tokens; 0: no limit
	Types    []string // task types; empty: every type the snapshot mentions
	Tok      tokenizer.Tokenizer
}

// RunShow prints the rendered scaffold z of each task type (scaffold.Show),
// as rollout puts it into the context with the same budget and tokenizer;
// the options are checked first (Check).
func RunShow(ctx context.Context, f ShowOptions, std stage.Streams) error {
	if err := f.Check(); err != nil {
		return err
	}
	s, err := scaffold.ReadSnapshot(f.Snapshot)
	if err != nil {
		return err
	}
	count, _ := counter(f.Tok)
	_, err = fmt.Fprintf(std.Stdout, "snapshot %d: %d items, %s\n%s", s.Version, len(s.Items), scaffold.Hash(s.Items),
		scaffold.Show(s.Items, f.Types, f.Budget, count))
	return err
}

// openInput opens a text input ("-": stdin); a missing file is an input
// error.
func openInput(path string, stdin io.Reader) (io.ReadCloser, error) {
	if path == "-" {
		return io.NopCloser(stdin), nil
	}
	f, err := output.OpenFile(path, output.MaxItemsBytes)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, &table.InputError{Path: path, Problem: "cannot read: " + err.Error(), Err: err}
	}
	return f, nil
}

// trimPrefix removes a file name prefix from a parser's error ("NAME:3:
// msg" becomes "line 3: msg"), since the input error names the file.
func trimPrefix(s, prefix string) string {
	rest, ok := strings.CutPrefix(s, prefix)
	if !ok {
		return s
	}
	if rest != "" && rest[0] >= '0' && rest[0] <= '9' {
		return "line " + rest
	}
	return strings.TrimSpace(rest)
}
