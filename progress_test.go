package pats

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestProgressToPipe: a long stage (learn sft) whose stderr is a pipe, as
// under Slurm or in a notebook's subprocess, prints plain progress lines
// at the set interval and one at the end; --progress none prints nothing,
// and an interval longer than the run leaves the end line alone.
func TestProgressToPipe(t *testing.T) {
	built(t)
	work := t.TempDir()
	demos := filepath.Join(work, "demos.parquet")
	if out, err := exec.Command(filepath.Join(binDir, "rollout"), "--env", "household", "--split", "train", "--tasks", "48",
		"--group", "1", "--policy", "oracle", "--seed", "3", "--progress", "none", "-o", demos).CombinedOutput(); err != nil {
		t.Fatalf("rollout: %v\n%s", err, out)
	}
	const interval = 250 * time.Millisecond
	cases := []struct {
		name  string
		flags []string
		check func(t *testing.T, lines []line, wall time.Duration)
	}{
		{"plain at 250ms", []string{"--progress", "plain", "--progress-interval", "250ms"}, func(t *testing.T, lines []line, wall time.Duration) {
			if len(lines) < 3 {
				t.Fatalf("%d lines in %v, want at least 3 (the run is to take several intervals): %q", len(lines), wall, texts(lines))
			}
			last := lines[len(lines)-1]
			if !strings.HasSuffix(last.text, "(done)") {
				t.Errorf("last line %q does not say the work is done", last.text)
			}
			// Every line before the end says what, how far, the rate and
			// the loss. Their spacing is checked by count, not by arrival
			// times: a reader descheduled on a loaded machine receives
			// lines written an interval apart together.
			for i, l := range lines[:len(lines)-1] {
				if !strings.HasPrefix(l.text, "learn sft: step ") || !strings.Contains(l.text, "steps/s") || !strings.Contains(l.text, "loss ") {
					t.Errorf("line %d %q: want what, how far, the rate and the loss", i, l.text)
				}
			}
			if max := int(wall/interval) + 2; len(lines) > max {
				t.Errorf("%d lines in %v: more than one per interval (at most %d)", len(lines), wall, max)
			}
		}},
		{"auto to a pipe, interval longer than the run", []string{"--progress-interval", "1h"}, func(t *testing.T, lines []line, wall time.Duration) {
			if len(lines) != 1 || !strings.HasSuffix(lines[0].text, "(done)") {
				t.Errorf("want the end line alone, got %q", texts(lines))
			}
		}},
		{"none", []string{"--progress", "none", "--progress-interval", "1ms"}, func(t *testing.T, lines []line, wall time.Duration) {
			if len(lines) != 0 {
				t.Errorf("want nothing, got %q", texts(lines))
			}
		}},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"sft", "--init", "tiny", "--demos", demos, "-o", filepath.Join(work, "ckpt"+string(rune('a'+i))),
				"--epochs", "2", "--batch-tokens", "256"}, c.flags...)
			cmd := exec.Command(filepath.Join(binDir, "learn"), args...)
			cmd.Env = append(os.Environ(), "PATS_PROGRESS=", "PATS_PROGRESS_INTERVAL=")
			pipe, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var lines []line
			sc := bufio.NewScanner(pipe)
			for sc.Scan() {
				lines = append(lines, line{time.Since(start), sc.Text()})
			}
			if err := cmd.Wait(); err != nil {
				t.Fatalf("learn sft: %v\n%s", err, strings.Join(texts(lines), "\n"))
			}
			t.Logf("%d lines in %v:\n%s", len(lines), time.Since(start), strings.Join(texts(lines), "\n"))
			c.check(t, lines, time.Since(start))
		})
	}
}

type line struct {
	at   time.Duration
	text string
}

func texts(ls []line) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.text)
	}
	return out
}
