package report

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

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
	// as iteration K ends): traj/K's, and those of the audits and
	// evaluations of iterations up to K that are not written yet.
	Iteration int
}

// tbFile is one event file to write.
type tbFile struct {
	name string
	data []byte
}

// stagedName is the name an event file is put in place under first: it
// holds no "tfevents", so that TensorBoard, which reads every file whose
// name does, never opens one half written (lib/output's temporaries
// carry the name they are written for).
func stagedName(file string) string {
	return "." + strings.TrimPrefix(file, "events.out.tfevents.") + ".staged"
}

// RunTensorboard writes a run's TensorBoard event files (one per input,
// report.TensorboardSources) into the output folder, each only when its
// bytes differ from the file there, and prints the paths written. The
// files are built in full before any is written: a bad input leaves the
// folder as it was.
func RunTensorboard(ctx context.Context, f TensorboardOptions, std stage.Streams) error {
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
	if k := f.Iteration; k >= 0 {
		var keep []report.TBSource
		found := false
		for _, s := range srcs {
			switch {
			case s.Part == report.TBTraj && s.Step == k:
				keep, found = append(keep, s), true
			case s.Part != report.TBTraj && s.Step <= k:
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
		if old, err := os.ReadFile(filepath.Join(dir, s.File())); err == nil && bytes.Equal(old, b) {
			continue
		}
		files = append(files, tbFile{name: s.File(), data: b})
	}
	var u output.Unit
	defer u.Abort()
	for _, fl := range files {
		data := fl.data
		if err := u.File(filepath.Join(dir, stagedName(fl.name)), func(w io.Writer) error {
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
		p := filepath.Join(dir, fl.name)
		if err := os.Rename(filepath.Join(dir, stagedName(fl.name)), p); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		fmt.Fprintln(std.Stdout, p)
	}
	return nil
}
