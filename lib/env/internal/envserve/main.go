// Command envserve serves the counter test environment over the exec
// protocol on stdin/stdout (env.Serve). The tests of package env build it
// and open it with env.OpenExec. The -fail flag makes it misbehave on
// purpose:
//
//	-fail exit-at-start   write to stderr and exit 3 before reading anything
//	-fail crash-on-step   write to stderr and exit 3 at the first step request
//	-fail garbage-on-reset answer the first reset request with a non-JSON line
//
// The -keys flag makes the environment send its own anchor-state keys
// ("key:" and the observation); -tools makes it declare its actions as
// tools (CounterTools).
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/pats-rl/pats/lib/env"
	"github.com/pats-rl/pats/lib/env/internal/counterenv"
)

func main() {
	fail := flag.String("fail", "", "misbehave: exit-at-start, crash-on-step or garbage-on-reset")
	keys := flag.Bool("keys", false, "send anchor-state keys with reset and step")
	tools := flag.Bool("tools", false, "declare the actions as tools in the info answer")
	flag.Parse()
	var in io.Reader = os.Stdin
	out := io.Writer(os.Stdout)
	switch *fail {
	case "":
	case "exit-at-start":
		fmt.Fprintln(os.Stderr, "envserve: cannot load the game files")
		os.Exit(3)
	case "crash-on-step", "garbage-on-reset":
		in = &saboteur{r: bufio.NewReader(os.Stdin), mode: *fail}
	default:
		fmt.Fprintf(os.Stderr, "envserve: unknown -fail %q\n", *fail)
		os.Exit(2)
	}
	var e env.Env = counterenv.New()
	if *keys {
		e = keyedEnv{e}
	}
	if *tools {
		e = counterenv.WithTools{Env: e}
	}
	if err := env.Serve(e, in, out); err != nil {
		fmt.Fprintln(os.Stderr, "envserve:", err)
		os.Exit(1)
	}
}

// saboteur passes request lines through to Serve until the one it is told
// to break on.
type saboteur struct {
	r    *bufio.Reader
	mode string
	buf  []byte
}

func (s *saboteur) Read(p []byte) (int, error) {
	if len(s.buf) == 0 {
		line, err := s.r.ReadBytes('\n')
		if len(line) == 0 {
			return 0, err
		}
		switch {
		case s.mode == "crash-on-step" && bytes.Contains(line, []byte(`"op":"step"`)):
			fmt.Fprintln(os.Stderr, "envserve: simulator segfault")
			os.Exit(3)
		case s.mode == "garbage-on-reset" && bytes.Contains(line, []byte(`"op":"reset"`)):
			fmt.Fprintln(os.Stdout, "Traceback (most recent call last):")
			s.mode = ""
			return s.Read(p)
		}
		s.buf = line
	}
	n := copy(p, s.buf)
	s.buf = s.buf[n:]
	return n, nil
}

// keyedEnv names its own anchor-state keys: "key:" and the observation.
type keyedEnv struct{ env.Env }

func (k keyedEnv) Reset(id string, seed int64) (env.Episode, error) {
	ep, err := k.Env.Reset(id, seed)
	if err != nil {
		return nil, err
	}
	return keyedEpisode{ep}, nil
}

type keyedEpisode struct{ env.Episode }

func (k keyedEpisode) InitialKey() string { return "key:" + k.Observation() }

func (k keyedEpisode) Step(action string) env.Step {
	st := k.Episode.Step(action)
	st.Key = "key:" + st.Observation
	return st
}
