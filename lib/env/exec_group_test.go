//go:build linux

package env_test

import (
	"bytes"
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

// groupEnv is an exec: environment that starts a process of its own which
// ignores SIGTERM and holds none of the child's pipes (so nothing waits
// for it), and records its id, before answering info.
const groupEnv = `#!/bin/bash
(trap '' TERM; exec sleep 600) </dev/null >/dev/null 2>&1 &
echo $! > "$(dirname "$0")/grandchild.pid"
while IFS= read -r line; do
  case "$line" in
    *'"op":"info"'*) echo '{"protocol":1,"name":"group","task_types":["t"],"splits":["train"],"vocabulary":["go"]}' ;;
    *) echo '{"ok":true}' ;;
  esac
done
`

// ended reports whether process pid is gone or a zombie (its parent is
// gone and nobody need reap it).
func ended(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return true
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	return len(f) > 0 && f[0] == "Z"
}

// TestExecGroupEndsWithChild: a process the exec: child started, one that
// ignores SIGTERM, ends when the Env is closed after a normal run (and when
// the child exits on its own): the child's process group is killed on
// every exit path, not only on interruption.
func TestExecGroupEndsWithChild(t *testing.T) {
	for _, how := range []string{"close", "child exits"} {
		t.Run(how, func(t *testing.T) {
			dir := t.TempDir()
			script := filepath.Join(dir, "env.sh")
			body := groupEnv
			if how == "child exits" {
				body = strings.Replace(body, `*) echo '{"ok":true}' ;;`, `*) exit 0 ;;`, 1)
			}
			if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
				t.Fatal(err)
			}
			e, err := env.OpenExec(script)
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(dir, "grandchild.pid"))
			if err != nil {
				t.Fatal(err)
			}
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			defer syscall.Kill(pid, syscall.SIGKILL)
			if how == "child exits" {
				// The child exits instead of answering: the call must
				// see its end, which a process still holding its output
				// pipe would hide.
				done := make(chan struct{})
				go func() { e.Tasks("train"); close(done) }()
				select {
				case <-done:
				case <-time.After(10 * time.Second):
					syscall.Kill(pid, syscall.SIGKILL)
					<-done
					t.Errorf("the call did not end with the child: its own process %d kept the pipe open", pid)
				}
			}
			e.(io.Closer).Close()
			deadline := time.Now().Add(5 * time.Second)
			for !ended(pid) && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if !ended(pid) {
				t.Errorf("the child's own process %d outlived the Env", pid)
			}
		})
	}
}
