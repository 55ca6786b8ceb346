//go:build linux

package env_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pats-rl/pats/lib/env"
)

// escapeEnv answers info and tasks; before answering reset it starts what
// START says (written over it by each case) and records the ids of what
// it started in started.pid; at reset it does what RESET says.
const escapeEnv = `#!/bin/bash
cd "$(dirname "$0")"
while IFS= read -r line; do
  case "$line" in
    *'"op":"info"'*) echo '{"protocol":1,"name":"escape","task_types":["t"],"splits":["train"],"vocabulary":["go"]}' ;;
    *'"op":"tasks"'*) echo '{"tasks":["a"]}' ;;
    *'"op":"reset"'*) START
      while [ ! -s started.pid ]; do sleep 0.05; done
      RESET ;;
    *) echo '{"ok":true}' ;;
  esac
done
`

const resetAnswer = `echo '{"task_id":"a","task_type":"t","goal":"g","observation":"o","admissible":[],"max_steps":3,"features":[]}'`

// startedPids reads the ids the script recorded.
func startedPids(t *testing.T, dir string) []int {
	t.Helper()
	var pids []int
	for range 100 {
		b, _ := os.ReadFile(filepath.Join(dir, "started.pid"))
		for _, f := range strings.Fields(string(b)) {
			if p, err := strconv.Atoi(f); err == nil {
				pids = append(pids, p)
			}
		}
		if len(pids) > 0 {
			return pids
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the script recorded no process")
	return nil
}

func waitEnded(pids []int) []int {
	deadline := time.Now().Add(5 * time.Second)
	for {
		var alive []int
		for _, p := range pids {
			if !ended(p) {
				alive = append(alive, p)
			}
		}
		if len(alive) == 0 || time.Now().After(deadline) {
			return alive
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestExecWaitsAreBounded covers every wait on an exec: child: the answer
// (with and without --step-timeout), the child's exit status, the copy of
// its stderr and Close, when what the child started moved to a session or
// a process group of its own and holds the child's stdout and stderr open
// after the child exited. Each call ends within a bound, and what the
// child started ends with it (docs/env-protocol.md), unless it cleared its
// environment, which is the one way it can escape: then only the waits
// are bounded.
func TestExecWaitsAreBounded(t *testing.T) {
	holdPipes := `sleep 600 & echo $! >> started.pid`
	cases := []struct {
		name        string
		start       string
		reset       string
		stepTimeout time.Duration
		escapes     bool // the started process clears its environment
		wantErr     string
	}{
		{"setsid holds the pipes, child exits, step timeout", `setsid bash -c '` + holdPipes + `; wait' &`, "exit 0", 2 * time.Second, false, "reset"},
		{"setsid holds the pipes, child exits, no step timeout", `setsid bash -c '` + holdPipes + `; wait' &`, "exit 0", 0, false, "reset"},
		{"own process group holds the pipes, child exits", `set -m; (` + holdPipes + `; wait) & set +m`, "exit 0", 0, false, "reset"},
		{"setsid holds the pipes, child hangs, step timeout", `setsid bash -c '` + holdPipes + `; wait' &`, "sleep 600", 2 * time.Second, false, "within the step timeout"},
		{"cleared environment holds the pipes, child exits", `env -i setsid sh -c 'echo $$ >> started.pid; exec sleep 600' &`, "exit 0", 0, true, "reset"},
		{"cleared environment holds stderr only, child exits", `env -i setsid sh -c 'echo $$ >> started.pid; exec sleep 600' >/dev/null &`, "exit 0", 0, true, "reset"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			script := filepath.Join(dir, "env.sh")
			body := strings.Replace(strings.Replace(escapeEnv, "START", c.start, 1), "RESET", c.reset, 1)
			if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
				t.Fatal(err)
			}
			e, err := env.OpenExecWith(script, env.ExecOptions{StepTimeout: c.stepTimeout})
			if err != nil {
				t.Fatal(err)
			}
			var pids []int
			defer func() {
				for _, p := range pids {
					syscall.Kill(p, syscall.SIGKILL)
				}
			}()
			done := make(chan error, 1)
			go func() {
				_, err := e.Reset("a", 1)
				done <- err
			}()
			select {
			case err = <-done:
			case <-time.After(40 * time.Second):
				pids = startedPids(t, dir)
				for _, p := range pids {
					syscall.Kill(p, syscall.SIGKILL)
				}
				t.Fatalf("Reset still waits after 40 s")
			}
			pids = startedPids(t, dir)
			var broken *env.BrokenError
			if err == nil || !errors.As(err, &broken) || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("Reset = %v, want a broken environment's error saying %q", err, c.wantErr)
			}
			closed := make(chan error, 1)
			go func() { closed <- e.(io.Closer).Close() }()
			select {
			case <-closed:
			case <-time.After(40 * time.Second):
				t.Fatalf("Close still waits after 40 s")
			}
			alive := waitEnded(pids)
			if !c.escapes && len(alive) > 0 {
				t.Errorf("what the child started outlived it: %v", alive)
			}
		})
	}
}

// TestExecEscapedProcessesEndAfterNormalRun: after a run that ends well
// (Close), what the child started with setsid or in a process group of
// its own, holding none of its pipes, ends too.
func TestExecEscapedProcessesEndAfterNormalRun(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "env.sh")
	start := `setsid sleep 600 </dev/null >/dev/null 2>&1 & echo $! >> started.pid
      set -m; (trap '' TERM; exec sleep 600) </dev/null >/dev/null 2>&1 & echo $! >> started.pid; set +m`
	body := strings.Replace(strings.Replace(escapeEnv, "START", start, 1), "RESET", resetAnswer, 1)
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	e, err := env.OpenExec(script)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Reset("a", 1); err != nil {
		t.Fatal(err)
	}
	pids := startedPids(t, dir)
	defer func() {
		for _, p := range pids {
			syscall.Kill(p, syscall.SIGKILL)
		}
	}()
	if len(pids) != 2 {
		t.Fatalf("want 2 started processes, have %v", pids)
	}
	if err := e.(io.Closer).Close(); err != nil {
		t.Fatal(err)
	}
	if alive := waitEnded(pids); len(alive) > 0 {
		t.Errorf("processes the child started in a session or group of their own outlived a normal run: %v", alive)
	}
}

// TestExecAnswerBounds: a child's state keys and error lines are bounded
// as its observations are: a 1 MiB key is recorded as its StateKey (equal
// keys stay equal), a 1 MiB error line from reset is cut in the message.
func TestExecAnswerBounds(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "env.sh")
	long := strings.Repeat("k", 1<<20)
	body := `#!/bin/bash
n=0
while IFS= read -r line; do
  case "$line" in
    *'"op":"info"'*) echo '{"protocol":1,"name":"bounds","task_types":["t"],"splits":["train"],"vocabulary":["go"]}' ;;
    *'"op":"reset"'*) n=$((n+1))
      if [ $n = 1 ]; then printf '{"error":"%s"}\n' "$(head -c 1048576 /dev/zero | tr '\0' e)"
      else echo '{"task_id":"a","task_type":"t","goal":"g","observation":"o","admissible":[],"max_steps":3,"features":[],"key":"` + long + `"}'; fi ;;
    *'"op":"step"'*) echo '{"observation":"o","reward":0,"done":false,"success":false,"score":0,"valid":true,"admissible":[],"features":[],"key":"` + long + `"}' ;;
    *) echo '{"ok":true}' ;;
  esac
done
`
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	e, err := env.OpenExec(script)
	if err != nil {
		t.Fatal(err)
	}
	defer e.(io.Closer).Close()
	_, err = e.Reset("a", 1)
	if err == nil || len(err.Error()) > env.MaxErrorBytes+1024 || !strings.Contains(err.Error(), "more bytes") {
		t.Fatalf("an error line of 1 MiB gave an error of %d bytes: %.200v", len(errString(err)), err)
	}
	ep, err := e.Reset("a", 2)
	if err != nil {
		t.Fatal(err)
	}
	want := env.StateKey(long)
	if got := ep.(env.KeyedEpisode).InitialKey(); got != want {
		t.Errorf("reset key of 1 MiB recorded as %d bytes %.40q, want its StateKey %q", len(got), got, want)
	}
	if got := ep.Step("go").Key; got != want {
		t.Errorf("step key of 1 MiB recorded as %d bytes %.40q, want its StateKey %q", len(got), got, want)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
