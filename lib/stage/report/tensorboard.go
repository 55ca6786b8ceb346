package report

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/pats-rl/pats/lib/output"
	"github.com/pats-rl/pats/lib/report"
	"github.com/pats-rl/pats/lib/stage"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tensorboard"
)

// TensorboardOptions are report tensorboard's options.
type TensorboardOptions struct {
	Run    string // the run's folder
	Output string // the folder of event files; empty: RUN/tb
	// Iteration < 0: every event file of the run. K >= 0 (the pipeline,
	// as iteration K ends): traj/K's, and every other file of iterations
	// up to K that is not written yet (the audits and evaluations that
	// exist by then; earlier iterations' when their line was never made).
	Iteration int
}

// tbFile is one event file to write.
type tbFile struct {
	name string
	data []byte
}

// RunTensorboard writes a run's TensorBoard event files (one per input,
// report.TensorboardSources) into the output folder, each only when its
// bytes differ from the file there, and prints the paths written. The
// files are built in full before any is written and put in place as one
// unit (lib/output): a bad input leaves the folder as it was. A file
// being written has a hidden temporary beside it whose name holds
// "tfevents" too; TensorBoard may read one that it finds, which shows
// the same values again, and the temporaries a killed writer left are
// removed by the next call.
func RunTensorboard(ctx context.Context, f TensorboardOptions, std stage.Streams) error {
	if err := f.Check(); err != nil {
		return err
	}
	if !isRunFolder(f.Run) {
		return &table.InputError{Path: f.Run, Problem: "not a run folder (no eval/, snap/, traj/ or " + report.SummaryFile + ")"}
	}
	dir := f.Output
	if dir == "" {
		dir = filepath.Join(f.Run, report.TBFolder)
	}
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return &table.InputError{Path: dir, Problem: "the output for event files is not a folder"}
	}
	srcs, err := report.TensorboardSources(f.Run)
	if err != nil {
		return err
	}
	// what killed writers left, of every file (a skipped one too)
	for _, s := range srcs {
		output.RemoveStale(filepath.Join(dir, s.File()))
	}
	if k := f.Iteration; k >= 0 {
		var keep []report.TBSource
		found := false
		for _, s := range srcs {
			switch {
			case s.Part == report.TBTraj && s.Step == k:
				keep, found = append(keep, s), true
			case s.Step <= k:
				if _, err := os.Stat(filepath.Join(dir, s.File())); err != nil {
					keep = append(keep, s)
				}
			}
		}
		if !found {
			return &table.InputError{Path: filepath.Join(f.Run, report.TBTraj, strconv.Itoa(k)+".parquet"), Problem: "no such file: iteration " + strconv.Itoa(k) + " has no rollouts"}
		}
		srcs = keep
	}
	var files []tbFile
	for _, s := range srcs {
		if err := ctx.Err(); err != nil {
			return err
		}
		p := filepath.Join(dir, s.File())
		wall, events, err := report.TensorboardEvents(f.Run, s)
		if err != nil {
			return err
		}
		if len(events) == 0 {
			continue
		}
		b, err := tensorboard.Encode(wall, events)
		if err != nil {
			return &table.InputError{Path: filepath.Join(f.Run, s.Path), Problem: err.Error()}
		}
		if old, err := os.ReadFile(p); err == nil && bytes.Equal(old, b) {
			continue
		}
		files = append(files, tbFile{name: p, data: b})
	}
	var u output.Unit
	defer u.Abort()
	for _, fl := range files {
		data := fl.data
		if err := u.File(fl.name, func(w io.Writer) error {
			_, err := w.Write(data)
			return err
		}); err != nil {
			return err
		}
	}
	if err := u.Commit(); err != nil {
		return err
	}
	for _, fl := range files {
		fmt.Fprintln(std.Stdout, fl.name)
	}
	return nil
}
