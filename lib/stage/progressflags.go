package stage

import (
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/output"
	"github.com/pats-rl/pats/lib/progress"
)

// ProgressFlags are the --progress and --progress-interval flags of the
// long stages (learn, rollout, evaluate, audit). $PATS_PROGRESS and
// $PATS_PROGRESS_INTERVAL set them for every stage of a pipeline.
func ProgressFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "progress", Value: "auto", EnvVars: []string{"PATS_PROGRESS"},
			Usage: "progress on stderr: auto (a line rewritten in place on a terminal, plain lines in a log or pipe), plain, or none"},
		&cli.DurationFlag{Name: "progress-interval", Value: progress.DefaultInterval, EnvVars: []string{"PATS_PROGRESS_INTERVAL"},
			Usage: "time between two plain progress lines (one more comes at the end)"},
	}
}

// ProgressSettings reads the progress flags: where the stage reports its
// progress (stderr), or nil with --progress none. A bad mode is a usage
// error.
func ProgressSettings(c *cli.Context) (*progress.Settings, error) {
	mode, err := progress.ParseMode(c.String("progress"))
	if err != nil {
		return nil, command.Usagef("--progress: %v", err)
	}
	if mode == progress.None {
		return nil, nil
	}
	w := c.App.ErrWriter
	if w == nil {
		w = os.Stderr
	}
	term := false
	if f, ok := w.(*os.File); ok {
		term = output.IsTerminal(f)
	}
	return &progress.Settings{W: w, Terminal: term, Mode: mode, Interval: c.Duration("progress-interval")}, nil
}

// Progress returns stderr when it is a terminal, else nil: long work
// reports progress to a person and stays quiet in pipes and CI.
func Progress() io.Writer {
	fi, err := os.Stderr.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	return os.Stderr
}
