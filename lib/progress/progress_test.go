package progress

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// clock is a fake clock advanced by the test.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// TestPlainInterval: to a pipe, plain lines come once per interval and at
// the end, whatever the update rate; none prints nothing.
func TestPlainInterval(t *testing.T) {
	cases := []struct {
		name     string
		mode     Mode
		terminal bool
		interval time.Duration
		want     []string
	}{
		{"auto to a pipe: every 30 s and at the end", Auto, false, 30 * time.Second, []string{
			"learn grpo: step 30/100 (30%), 1 steps/s, 30 s elapsed, about 1 min 10 s left; loss 30",
			"learn grpo: step 60/100 (60%), 1 steps/s, 1 min 00 s elapsed, about 40 s left; loss 60",
			"learn grpo: step 90/100 (90%), 1 steps/s, 1 min 30 s elapsed, about 10 s left; loss 90",
			"learn grpo: step 100/100 (100%), 1 steps/s, 1 min 40 s elapsed; loss 100 (done)",
		}},
		{"plain every 45 s", Plain, true, 45 * time.Second, []string{
			"learn grpo: step 45/100 (45%), 1 steps/s, 45 s elapsed, about 55 s left; loss 45",
			"learn grpo: step 90/100 (90%), 1 steps/s, 1 min 30 s elapsed, about 10 s left; loss 90",
			"learn grpo: step 100/100 (100%), 1 steps/s, 1 min 40 s elapsed; loss 100 (done)",
		}},
		{"none", None, false, 30 * time.Second, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			clk := &clock{time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)}
			s := &Settings{W: &buf, Terminal: c.terminal, Mode: c.mode, Interval: c.interval, Now: clk.now}
			m := s.Start("learn grpo", "step", 100)
			for i := 1; i <= 100; i++ {
				clk.t = clk.t.Add(time.Second)
				m.Update(i, "loss "+itoa(i))
			}
			m.Finish()
			m.Finish()
			var got []string
			if buf.Len() > 0 {
				got = strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTerminal: on a terminal (auto) one line is rewritten in place.
func TestTerminal(t *testing.T) {
	var buf bytes.Buffer
	clk := &clock{time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)}
	m := (&Settings{W: &buf, Terminal: true, Interval: time.Hour, Now: clk.now}).Start("rollout", "episode", 0)
	for i := 1; i <= 3; i++ {
		clk.t = clk.t.Add(time.Second)
		m.Update(i, "")
	}
	m.Finish()
	if n := strings.Count(buf.String(), "\r"); n != 3 {
		t.Errorf("%d rewrites, want 3: %q", n, buf.String())
	}
	if n := strings.Count(buf.String(), "\n"); n != 1 {
		t.Errorf("%d line ends, want 1: %q", n, buf.String())
	}
}

func TestNilMeter(t *testing.T) {
	var s *Settings
	m := s.Start("x", "step", 1)
	m.Update(1, "")
	m.Note("n")
	m.Finish()
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]Mode{"auto": Auto, "plain": Plain, "none": None} {
		if got, err := ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseMode("loud"); err == nil {
		t.Error("ParseMode(loud): no error")
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestAbandon: work that failed prints no last line to a pipe (its one
// error line stands alone) and ends the rewritten line on a terminal.
func TestAbandon(t *testing.T) {
	for _, terminal := range []bool{false, true} {
		var buf bytes.Buffer
		clk := &clock{time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)}
		m := (&Settings{W: &buf, Terminal: terminal, Interval: time.Hour, Now: clk.now}).Start("rollout", "episode", 4)
		clk.t = clk.t.Add(time.Second)
		m.Update(1, "")
		m.Abandon()
		m.Finish()
		want := ""
		if terminal {
			want = "\rrollout: episode 1/4 (25%), 1 episodes/s, 1 s elapsed, about 3 s left\x1b[K\n"
		}
		if buf.String() != want {
			t.Errorf("terminal %v: %q, want %q", terminal, buf.String(), want)
		}
	}
}
