package control

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pats-rl/pats/lib/card"
	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/control"
	"github.com/pats-rl/pats/lib/output"
	"github.com/pats-rl/pats/lib/refiner"
	"github.com/pats-rl/pats/lib/remote"
	"github.com/pats-rl/pats/lib/scaffold"
	"github.com/pats-rl/pats/lib/stage"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// Options are the control command's options: the controller step
// (lib/control) and the refiner (lib/refiner) it runs after it.
type Options struct {
	Cards    string   // cards of iteration k
	History  []string // cards of earlier iterations (the refiner's evidence window)
	Window   int      // iterations the refiner's evidence pools; 0 = refiner.DefaultWindow
	Scaffold string   // snapshot k
	State    string   // controller state of an earlier iteration; empty at the start
	// Bare: the cards of the bare replay of iteration k's groups (the same
	// tasks played by the same checkpoint without a scaffold); empty: none.
	// With it the controller reads the absorption signal and COMPRESS
	// fades (docs/pats-loop.md).
	Bare          string
	AbsorptionOut string     // with Bare: the items' absorption at k (item_absorption rows)
	AbsorbMargin  float64    // control.Options.AbsorbMargin
	Output        string     // proposals
	StateOut      string     // controller state after k
	Loop          stage.Loop // the loop options (the controller's and the limits)

	Refiner  string        // "builtin" or "openai"
	Endpoint string        // openai: base URL
	Model    string        // openai: model name
	Timeout  time.Duration // openai: per attempt
	Retries  int           // openai: extra attempts
	Seed     int64         // openai: sent as the request seed

	Tok      tokenizer.Tokenizer // counts tokens; nil: scaffold.WordCount
	Progress io.Writer           // one line per scope when non-nil
	// ContinueOnFailure goes on without a scope's proposals when the
	// refiner cannot be asked (Result.Failed), saying so on the stage's
	// stderr (os.Stderr when Streams.Stderr is nil); without it that is an
	// error (exit 1) and nothing is written.
	ContinueOnFailure bool
}

// Controller returns the controller's options the loop options give.
func Controller(l stage.Loop) control.Options {
	return control.Options{RhoR: l.RhoR, RhoC: l.RhoC, EMA: l.EMA, Enabled: l.Primitives, Frozen: l.Frozen, General: l.General,
		AbsorbMargin: control.DefaultAbsorbMargin, Limits: l.Limits}
}

// CheckEndpoint checks an OpenAI-compatible endpoint: an http or https URL
// with a host and a port a server can listen on. Its message never repeats credentials written in the URL.
func CheckEndpoint(endpoint string) error {
	u, err := url.Parse(endpoint)
	shown := table.Scrub(endpoint)
	if err != nil {
		return fmt.Errorf("--endpoint %q is not a URL", shown)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("--endpoint %q: want an http:// or https:// URL", shown)
	}
	if u.Host == "" || strings.ContainsAny(endpoint, " \t\n") {
		return fmt.Errorf("--endpoint %q: want a URL with a host and no spaces", shown)
	}
	if err := remote.CheckPort(u); err != nil {
		return fmt.Errorf("--endpoint %q: %v", shown, err)
	}
	return nil
}

// NewRefiner returns the refiner the flags name; unknown names and a
// missing endpoint or model for openai are usage errors.
func (f Options) NewRefiner() (refiner.Refiner, error) {
	switch f.Refiner {
	case "", "builtin":
		if f.Endpoint != "" || f.Model != "" {
			return nil, command.Usagef("--endpoint and --model go with --refiner openai")
		}
		return refiner.NewRuleBased(), nil
	case "openai":
		if f.Endpoint == "" || f.Model == "" {
			return nil, command.Usagef("--refiner openai needs --endpoint and --model")
		}
		if err := CheckEndpoint(f.Endpoint); err != nil {
			return nil, command.Usagef("%v", err)
		}
		if f.Timeout <= 0 {
			return nil, command.Usagef("--timeout must be positive, got %s", f.Timeout)
		}
		if f.Retries < 0 {
			return nil, command.Usagef("--retries must not be negative, got %d", f.Retries)
		}
		o := refiner.NewOpenAI(f.Endpoint, f.Model)
		o.Timeout, o.Retries, o.Seed = f.Timeout, f.Retries, f.Seed
		return o, nil
	}
	return nil, command.Usagef("unknown --refiner %q: want builtin or openai", f.Refiner)
}

// Check is control's checker, run first in Run: no file is read and no
// refiner made before it. It checks the required files, the pairings,
// --window and the controller's settings (control.Options.Validate).
func (f Options) Check() error {
	switch {
	case f.Cards == "":
		return command.Usagef("--cards is required")
	case f.Scaffold == "":
		return command.Usagef("--scaffold is required (snapshot k)")
	case f.Output == "":
		return command.Usagef("-o is required (the proposals)")
	case f.StateOut == "":
		return command.Usagef("--state-out is required (the controller state after this iteration)")
	case f.State != "" && f.State == f.StateOut:
		return command.Usagef("--state-out %s would overwrite the input state: write each iteration's state to a new file", f.StateOut)
	case f.Window < 0:
		return command.Usagef("--window must not be negative, got %d", f.Window)
	case (f.Bare == "") != (f.AbsorptionOut == ""):
		return command.Usagef("--bare and --absorption-out go together (the absorption signal and its record)")
	}
	if err := f.controller().Validate(); err != nil {
		return command.Usagef("%v", err)
	}
	return nil
}

// controller is the controller's settings: the loop's, with
// --absorb-margin.
func (f Options) controller() control.Options {
	co := Controller(f.Loop)
	co.AbsorbMargin = f.AbsorbMargin
	return co
}

// Run runs one controller step and the refiner: it reads the cards of
// iteration k (the type evidence is aggregated from them with the contrast
// length the cards were built with) and those of earlier iterations
// (History, which only the refiner sees: its evidence window), snapshot k and the earlier controller
// state, picks a primitive per scope (control.Step), asks the refiner for
// proposals for every scope whose primitive is not NONE, and writes the
// proposals and the new controller state, each atomically. A refiner's
// Reason for a scope without proposals (e.g. an unusable model answer) is
// recorded in both files' metadata as "reason.<scope>"; it never fails the
// command. stdout is unused. The options are checked first (Check).
func Run(ctx context.Context, f Options, std stage.Streams) error {
	if err := f.Check(); err != nil {
		return err
	}
	outs := []output.Target{output.File("-o", f.Output), output.File("--state-out", f.StateOut)}
	if f.AbsorptionOut != "" {
		outs = append(outs, output.File("--absorption-out", f.AbsorptionOut))
	}
	if err := output.Check(append([]string{f.Cards, f.Scaffold, f.State, f.Bare}, f.History...), outs...); err != nil {
		return err
	}
	co := f.controller() // Check validated it
	ref, err := f.NewRefiner()
	if err != nil {
		return err
	}
	cards, cmeta, k, err := stage.ReadCards(std.Stdin, f.Cards)
	if err != nil {
		return err
	}
	history, err := stage.ReadHistory(std.Stdin, f.History, f.Cards, cards, k)
	if err != nil {
		return err
	}
	snap, err := scaffold.ReadSnapshot(f.Scaffold)
	if err != nil {
		return err
	}
	var prev []table.ControllerState
	inputs := append([]string{f.Cards, f.Scaffold}, f.History...)
	if f.State != "" {
		if prev, _, err = table.ReadFilesFrom[table.ControllerState](std.Stdin, f.State); err != nil {
			return err
		}
		for _, s := range prev {
			if s.Iteration >= k {
				return &table.InputError{Path: f.State, Problem: fmt.Sprintf("holds the state of iteration %d, not of one before the cards' iteration %d (pass the previous iteration's state; did rollout get --iteration?)", s.Iteration, k)}
			}
		}
		inputs = append(inputs, f.State)
	}
	top := card.TopOf(cmeta[0], 8)
	ev := card.Aggregate(cards, top)
	var bare []table.Card
	var bareEv []table.TypeEvidence
	if f.Bare != "" {
		var bk int32
		if bare, _, bk, err = stage.ReadCards(std.Stdin, f.Bare); err != nil {
			return err
		}
		if bk != k {
			return &table.InputError{Path: f.Bare, Problem: fmt.Sprintf("holds the cards of iteration %d, not of the bare replay of iteration %d", bk, k)}
		}
		bareEv = card.Aggregate(bare, top)
		inputs = append(inputs, f.Bare)
	}
	count := scaffold.WordCount
	if f.Tok != nil {
		count = func(s string) int { return len(f.Tok.Encode(s)) }
	}
	items := scaffold.Clone(snap.Items)
	scaffold.Retokenize(items, count)
	states, err := control.StepBare(prev, ev, bareEv, items, nil, k, co)
	if err != nil {
		src := f.State
		if src == "" {
			src = f.Cards
		}
		return &table.InputError{Path: src, Problem: err.Error()}
	}
	// The refiner sees iteration k's cards and the earlier ones; the
	// controller and the scope's type evidence only k's.
	evidence := append(append([]table.Card{}, history...), cards...)
	var props []table.Proposal
	absorption := []table.ItemAbsorption{}
	reasons := map[string]string{}
	limits := co.Limits.At(k)
	for _, st := range states {
		e, _ := card.EvidenceFor(ev, st.TaskType, k)
		mi, mt := limits.Caps(st.TaskType)
		in := refiner.Input{Iteration: k, TaskType: st.TaskType, Primitive: st.Primitive,
			Evidence: e, Cards: evidence, Items: items, Quota: co.ExpandQuota, MaxItems: mi, MaxTokens: mt, CapsGiven: true,
			MaxItemTokens: co.MaxItemTokens, MinSupport: co.MinSupport, Count: count, Window: f.Window}
		if f.Bare != "" {
			in.Absorption = refiner.Absorption(in, bare, st.NWorse >= control.HarmfulAfter)
			absorption = append(absorption, in.Absorption...)
		}
		if st.Primitive == scaffold.None {
			continue
		}
		res, err := ref.Propose(ctx, in)
		if err != nil {
			return fmt.Errorf("refiner %s, scope %s: %w", ref.Name(), refiner.ScopeName(st.TaskType), err)
		}
		if res.Failed {
			where := ref.Name()
			if f.Endpoint != "" {
				where += " at " + table.Scrub(f.Endpoint)
			}
			if !f.ContinueOnFailure {
				return fmt.Errorf("refiner %s failed for scope %s: %s; nothing written (--on-refiner-failure continue goes on without its proposals)",
					where, refiner.ScopeName(st.TaskType), table.Scrub(res.Reason))
			}
			w := std.Stderr
			if w == nil {
				w = os.Stderr
			}
			fmt.Fprintf(w, "control: iteration %d: refiner %s failed for scope %s (%s): this iteration has no proposals for it\n",
				k, where, refiner.ScopeName(st.TaskType), table.Scrub(res.Reason))
		}
		if res.Reason != "" {
			reasons[refiner.ScopeName(st.TaskType)] = table.Scrub(res.Reason)
		}
		props = append(props, res.Proposals...)
		if f.Progress != nil {
			fmt.Fprintf(f.Progress, "control: %s %s (s=%s): %d proposals %s\n", refiner.ScopeName(st.TaskType), st.Primitive, control.Rate(st.SmoothedSuccess), len(res.Proposals), table.Scrub(res.Reason))
		}
	}
	sort.SliceStable(props, func(i, j int) bool { return props[i].ProposalID < props[j].ProposalID })
	if props == nil {
		props = []table.Proposal{}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	hashes, err := table.InputHashes(inputs...)
	if err != nil {
		return err
	}
	extra := map[string]string{
		scaffold.MetaIteration:       strconv.Itoa(int(k)),
		scaffold.MetaScaffold:        scaffold.Hash(snap.Items),
		scaffold.MetaScaffoldVersion: strconv.Itoa(snap.Version),
		refiner.MetaRefiner:          ref.Name(),
	}
	for s, r := range reasons {
		extra[refiner.MetaReasonPrefix+s] = r
	}
	meta := table.Meta{Command: table.CommandLine(), Seed: f.Seed, Inputs: hashes, Extra: extra}
	u := output.Unit{Stdout: std.Stdout}
	defer u.Abort()
	if err := table.Stage(&u, f.Output, props, meta); err != nil {
		return err
	}
	if err := table.Stage(&u, f.StateOut, states, meta); err != nil {
		return err
	}
	if f.AbsorptionOut != "" {
		if err := table.Stage(&u, f.AbsorptionOut, absorption, meta); err != nil {
			return err
		}
	}
	return u.Commit()
}
