package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/table"
)

// TestFullStdoutCommitsNothing: the Markdown table goes to stdout before
// the metrics file is put in place, so a stdout that cannot be written
// (/dev/full) fails the command and leaves no metrics file.
func TestFullStdoutCommitsNothing(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Fatal("/dev/full is needed")
	}
	defer full.Close()
	dir := t.TempDir()
	in := filepath.Join(dir, "traj.parquet")
	rows := []table.Trajectory{{TaskID: "t", TaskType: "a", Success: true, Tokens: []int32{1, 2}, Roles: []int8{0, 6}, Logprobs: []float32{0, -1}}}
	if err := table.WriteFile(in, rows, table.Meta{Kind: "trajectory"}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "m.parquet")
	saved := os.Stdout
	os.Stdout = full
	code, stderr := run(t, in, "-o", out)
	os.Stdout = saved
	if code == command.ExitOK || !strings.Contains(stderr, "stdout") {
		t.Errorf("evaluate > /dev/full: exit %d (%q), want a failure naming stdout", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("evaluate > /dev/full committed %s", out)
	}
}

// TestFIFOInputRefused: a FIFO named as the trajectories is refused
// before it is opened (exit 2, one line), not waited on.
func TestFIFOInputRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "f.parquet")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var code int
	var stderr string
	go func() { code, stderr = run(t, fifo, "-o", filepath.Join(dir, "m.parquet")); close(done) }()
	select {
	case <-done:
	case <-timeAfter():
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		<-done
		t.Fatal("evaluate waited on the FIFO")
	}
	if code != command.ExitUsage || !strings.Contains(stderr, "not a regular file but a FIFO") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Errorf("evaluate FIFO: exit %d %q, want 2 and one line", code, stderr)
	}
}

func timeAfter() <-chan time.Time { return time.After(20 * time.Second) }
