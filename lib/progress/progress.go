// Package progress reports how far a long stage has got (learn, rollout,
// evaluate with a policy, audit) on stderr.
//
// On a terminal a Meter rewrites one line in place at every update. In a
// batch log (stderr a file or a pipe: Slurm, a notebook's subprocess) it
// prints a plain line every Interval and one at the end, for example
//
//	learn sft: step 120/400 (30%), 2.1 steps/s, 57 s elapsed, about 2 min 13 s left; loss 0.8123
//
// Mode chooses: auto (a terminal line on a terminal, plain lines
// otherwise), plain (plain lines always) or none (nothing).
package progress

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Mode is how progress is reported.
type Mode int

const (
	Auto  Mode = iota // rewritten line on a terminal, plain lines otherwise
	Plain             // plain lines at the interval and at the end
	None              // nothing
)

// DefaultInterval is the time between two plain lines.
const DefaultInterval = 30 * time.Second

// ParseMode reads auto, plain or none.
func ParseMode(s string) (Mode, error) {
	switch s {
	case "auto", "":
		return Auto, nil
	case "plain":
		return Plain, nil
	case "none":
		return None, nil
	}
	return Auto, fmt.Errorf("unknown progress mode %q: want auto, plain or none", s)
}

// Settings say where and how a command reports progress. A nil *Settings
// reports nothing.
type Settings struct {
	W        io.Writer // stderr
	Terminal bool      // W is a terminal
	Mode     Mode
	Interval time.Duration // between plain lines; <= 0 is every update
	// Now is the clock (tests); nil is time.Now.
	Now func() time.Time
}

// Start begins a meter for work of total units (0: unknown) named what
// (for example "learn grpo") counted in unit ("step", "episode"). It
// returns nil, a meter that reports nothing, when s is nil or its mode is
// None.
func (s *Settings) Start(what, unit string, total int) *Meter {
	if s == nil || s.W == nil || s.Mode == None {
		return nil
	}
	now := s.Now
	if now == nil {
		now = time.Now
	}
	m := &Meter{w: s.W, what: what, unit: unit, total: total, interval: s.Interval, now: now,
		plain: s.Mode == Plain || !s.Terminal}
	m.start = now()
	m.last = m.start
	return m
}

// Meter reports the progress of one piece of work. Its methods are safe
// for concurrent use, and do nothing on a nil Meter.
type Meter struct {
	mu       sync.Mutex
	w        io.Writer
	what     string
	unit     string
	total    int
	interval time.Duration
	plain    bool
	now      func() time.Time
	start    time.Time
	last     time.Time // of the last plain line (start before the first)
	done     int
	figures  string
	printed  bool // a terminal line is on screen
	finished bool
}

// Update records that done units are finished, with the figures a
// researcher watches ("loss 0.4 kl 0.001", "success 0.31"); it prints a
// line when one is due.
func (m *Meter) Update(done int, figures string) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.done, m.figures = done, figures
	t := m.now()
	if !m.plain {
		fmt.Fprintf(m.w, "\r%s\x1b[K", m.line(t))
		m.printed = true
		return
	}
	if t.Sub(m.last) >= m.interval {
		fmt.Fprintln(m.w, m.line(t))
		m.last = t
	}
}

// Note prints a line of its own (for example what a first step means).
func (m *Meter) Note(format string, args ...any) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.printed {
		fmt.Fprintln(m.w)
		m.printed = false
	}
	fmt.Fprintf(m.w, "%s: %s\n", m.what, fmt.Sprintf(format, args...))
}

// Finish prints the last line (plain) or ends the terminal line. A second
// call does nothing.
func (m *Meter) Finish() {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.finished {
		return
	}
	m.finished = true
	if !m.plain {
		if m.printed {
			fmt.Fprintln(m.w)
		}
		return
	}
	fmt.Fprintln(m.w, m.line(m.now())+" (done)")
}

// Abandon ends the meter of work that failed or was interrupted: it ends
// the terminal line and prints no last line, so that the command's one
// error line stands alone in a log. A later Finish does nothing.
func (m *Meter) Abandon() {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.finished {
		return
	}
	m.finished = true
	if !m.plain && m.printed {
		fmt.Fprintln(m.w)
	}
}

// line is what, how far, the rate, the time and the figures.
func (m *Meter) line(t time.Time) string {
	el := t.Sub(m.start)
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s %d", m.what, m.unit, m.done)
	if m.total > 0 {
		fmt.Fprintf(&b, "/%d (%d%%)", m.total, 100*m.done/m.total)
	}
	if s := el.Seconds(); s > 0 {
		fmt.Fprintf(&b, ", %.3g %ss/s", float64(m.done)/s, m.unit)
	}
	fmt.Fprintf(&b, ", %s elapsed", Duration(el))
	if m.total > 0 && m.done > 0 && m.done < m.total {
		left := time.Duration(float64(el) * float64(m.total-m.done) / float64(m.done))
		fmt.Fprintf(&b, ", about %s left", Duration(left))
	}
	if m.figures != "" {
		b.WriteString("; ")
		b.WriteString(m.figures)
	}
	return b.String()
}

// Duration writes d as "57 s", "2 min 13 s" or "1 h 04 min".
func Duration(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%d s", s)
	case s < 3600:
		return fmt.Sprintf("%d min %02d s", s/60, s%60)
	}
	return fmt.Sprintf("%d h %02d min", s/3600, s%3600/60)
}
