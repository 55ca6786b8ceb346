package learn

import (
	"errors"
	"io"
	"os"
	"path/filepath"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/output"
	"github.com/pats-rl/pats/lib/rl"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// Init is a starting point for training: a model, its tokenizer (and the
// tokenizer.json bytes a checkpoint written from it carries) and, when the
// checkpoint had one, the optimizer state.
type Init struct {
	Model   *model.Model
	Tok     tokenizer.Tokenizer
	TokJSON []byte
	Opt     *model.AdamW // nil when there is none
	Hash    string       // content hash of the weights (provenance); "" for a fresh model
	// Files are the checkpoint's other tokenizer and generation files
	// (output.CarriedFiles), written unchanged into every checkpoint made from it.
	Files map[string][]byte
}

// Use says what a checkpoint is opened for: Flag, the option that named
// it, for messages; Train, whether it is trained (its memory checked for
// training, its optimizer state read) rather than only run (the KL term's
// reference scores, learn merge folds an adapter).
type Use struct {
	Flag  string
	Train bool
}

// The uses of learn's checkpoints.
var (
	AsInit    = Use{Flag: "--init", Train: true}
	AsRef     = Use{Flag: "--ref"}
	AsAdapter = Use{Flag: "--adapter"}
)

// LoadInit opens "tiny" or "small" (a fresh model of that size over the
// built-in tokenizer, initialised from seed) or a checkpoint folder with its
// tokenizer.json and, for a checkpoint to train (use.Train), its optimizer
// state.
func LoadInit(init string, seed int64, use Use) (*Init, error) {
	return loadInit(init, seed, use, LoRAOptions{})
}

// loadInit is LoadInit for training under lo (issue 60): an --init
// that gets a fresh adapter has its memory checked for LoRA and its
// optimizer state (for the base's weights) left unread.
func loadInit(init string, seed int64, use Use, lo LoRAOptions) (*Init, error) {
	switch init {
	case "":
		return nil, command.Usagef("%s is required: tiny, small or a checkpoint folder", use.Flag)
	case "tiny", "small":
		tok, err := tokenizer.ShippedWordLevel()
		if err != nil {
			return nil, err
		}
		cfg := model.Tiny(tok.VocabSize())
		if init == "small" {
			cfg = model.Small(tok.VocabSize())
		}
		m, err := model.New(cfg, uint64(seed))
		if err != nil {
			return nil, err
		}
		js, err := tok.JSON()
		if err != nil {
			return nil, err
		}
		return &Init{Model: m, Tok: tok, TokJSON: js}, nil
	}
	output.Recover(init) // a replacement killed between its renames
	if st, err := os.Stat(init); err != nil || !st.IsDir() {
		return nil, command.Usagef("%s %s: not tiny, small or a checkpoint folder", use.Flag, init)
	}
	f, err := model.OpenFolder(init)
	if err != nil {
		return nil, command.Usagef("%s %s: %v", use.Flag, init, table.OneLine(err.Error()))
	}
	factor, what := loraMemoryFactor(lo)
	if f.Model.Adapter() != nil {
		factor, what = loraMemoryFactor(LoRAOptions{Rank: 1})
	}
	if err := f.Model.Cfg.CheckMemory(factor, what); err != nil && use.Train {
		return nil, command.Usagef("%s %s: %v", use.Flag, init, table.OneLine(err.Error()))
	}
	// A checkpoint that is only run (the KL term's reference, an adapter
	// to fold) has its optimizer state (8 bytes a parameter) left unread.
	var opt *model.AdamW
	if use.Train && (lo.Rank == 0 || f.Model.Adapter() != nil) {
		if opt, err = model.LoadAdamW(init, f.Model); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, command.Usagef("%s %s: optimizer state: %v", use.Flag, init, table.OneLine(err.Error()))
		}
	}
	in := &Init{Model: f.Model, Tok: f.Tok, TokJSON: f.TokJSON, Opt: opt, Files: map[string][]byte{}}
	for _, name := range output.CarriedFiles {
		b, err := output.ReadFile(filepath.Join(init, name), output.MaxTextBytes)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, command.Usagef("%s %s: %v", use.Flag, init, table.OneLine(err.Error()))
		}
		in.Files[name] = b
	}
	in.Hash, _ = model.WeightsHash(init)
	return in, nil
}

// readTrajectories reads each path, checks its token columns against the
// model and tokenizer, and returns the rows with the path each came from.
func readTrajectories(stdin io.Reader, paths []string, in *Init) ([]table.Trajectory, []string, map[string]string, error) {
	var rows []table.Trajectory
	var from []string
	hashes := map[string]string{}
	if err := table.Distinct(stdin, paths...); err != nil {
		return nil, nil, nil, err
	}
	for _, p := range paths {
		r, _, err := table.ReadFilesFrom[table.Trajectory](stdin, p)
		if err != nil {
			return nil, nil, nil, err
		}
		if len(r) == 0 {
			return nil, nil, nil, &table.InputError{Path: p, Problem: "no trajectories"}
		}
		if err := rl.CheckTokens(p, r, in.Tok.Hash(), in.Model.Cfg.VocabSize, in.Model.Cfg.MaxPositionEmbeddings); err != nil {
			return nil, nil, nil, err
		}
		if h, err := table.HashFile(p); err == nil {
			hashes[p] = h
		}
		rows = append(rows, r...)
		for range r {
			from = append(from, p)
		}
	}
	return rows, from, hashes, nil
}

func adamCfg(wd float64) model.AdamWConfig {
	c := model.DefaultAdamW()
	c.WeightDecay = wd
	return c
}
