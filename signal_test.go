package pats

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hangEnv is an exec: environment that answers info and tasks and then
// hangs on reset in a grandchild process (sleep); it records its own
// process id and the sleep's.
const hangEnv = `#!/bin/bash
echo $$ > child.pid
while IFS= read -r line; do
  case "$line" in
    *'"op":"info"'*) echo '{"protocol":1,"name":"hang","task_types":["t"],"splits":["train"],"vocabulary":["go"]}' ;;
    *'"op":"tasks"'*) echo '{"tasks":["a"]}' ;;
    *'"op":"reset"'*) sleep 600 & echo $! > sleep.pid; wait ;;
    *) echo '{"ok":true}' ;;
  esac
done
`

// gone reports whether process pid has ended (a zombie counts as ended:
// its parent, the killed command, is gone and nobody may reap it).
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return true
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	return len(f) > 0 && f[0] == "Z"
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				return pid
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s never appeared", path)
	return 0
}

// endsWithin5s waits for cmd, which was sent sig; when it still runs 5 s
// later it kills it and fails the test.
func endsWithin5s(t *testing.T, cmd *exec.Cmd, sig syscall.Signal) {
	t.Helper()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		cmd.Process.Kill()
		<-exited
		t.Fatalf("%s still ran 5 s after %s", filepath.Base(cmd.Path), sig)
	}
}

// TestSignalEndsRollout runs rollout against an exec: child that hangs and
// signals it: SIGTERM and SIGINT must end it within 5 s (a correctness
// bound with a wide margin, not a speed claim) with exit 143 or 130 and
// one line on stderr, leave no output and no temporary, and leave no
// process of the child's group behind; SIGKILL must take the child along
// (the parent-death signal).
func TestSignalEndsRollout(t *testing.T) {
	built(t)
	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGTERM, 143}, {syscall.SIGINT, 130}, {syscall.SIGKILL, -1}} {
		t.Run(c.sig.String(), func(t *testing.T) {
			work := t.TempDir()
			if err := os.WriteFile(filepath.Join(work, "hang.sh"), []byte(hangEnv), 0o755); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(filepath.Join(binDir, "rollout"), "--env", "exec:./hang.sh", "--split", "train",
				"--policy", "random", "-o", "t.parquet")
			cmd.Dir = work
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			child := readPid(t, filepath.Join(work, "child.pid"))
			sleeper := readPid(t, filepath.Join(work, "sleep.pid"))
			defer syscall.Kill(sleeper, syscall.SIGKILL)
			sent := time.Now()
			if err := cmd.Process.Signal(c.sig); err != nil {
				t.Fatal(err)
			}
			endsWithin5s(t, cmd, c.sig)
			t.Logf("%s: ended after %v, exit %d, stderr %q", c.sig, time.Since(sent).Round(time.Millisecond), cmd.ProcessState.ExitCode(), stderr.String())
			if got := cmd.ProcessState.ExitCode(); got != c.code {
				t.Errorf("exit %d, want %d", got, c.code)
			}
			if c.sig != syscall.SIGKILL {
				lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
				if len(lines) != 1 || !strings.Contains(lines[0], "interrupted by "+map[syscall.Signal]string{syscall.SIGTERM: "SIGTERM", syscall.SIGINT: "SIGINT"}[c.sig]) {
					t.Errorf("stderr %q, want one line saying it was interrupted", stderr.String())
				}
			}
			// The child and its own child get their signal together but end
			// in their own time (under load, after the command has exited):
			// both have the same 5 s.
			deadline := time.Now().Add(5 * time.Second)
			for (!gone(child) || (c.sig != syscall.SIGKILL && !gone(sleeper))) && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if !gone(child) {
				t.Errorf("the exec: child %d still runs", child)
			}
			if c.sig != syscall.SIGKILL && !gone(sleeper) {
				t.Errorf("the child's own child %d still runs", sleeper)
			}
			ents, _ := os.ReadDir(work)
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
			}
			if strings.Join(names, " ") != "child.pid hang.sh sleep.pid" {
				t.Errorf("left in the working folder: %v", names)
			}
		})
	}
}

// TestSignalEndsBlockedRead signals cards while it is blocked reading its
// input from a pipe that nobody writes (a FIFO named as a file is refused
// before the open since issue 61, so stdin stands in): no context reaches
// that wait, so the command exits after its grace period, within the 5 s
// bound, with exit 143.
func TestSignalEndsBlockedRead(t *testing.T) {
	built(t)
	work := t.TempDir()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	cmd := exec.Command(filepath.Join(binDir, "cards"), "-", "-o", "c.parquet")
	cmd.Dir = work
	cmd.Stdin = r
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.Close()
	time.Sleep(300 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGTERM)
	endsWithin5s(t, cmd, syscall.SIGTERM)
	if got := cmd.ProcessState.ExitCode(); got != 143 {
		t.Errorf("exit %d, want 143; stderr %q", got, stderr.String())
	}
	if lines := strings.Split(strings.TrimSpace(stderr.String()), "\n"); len(lines) != 1 {
		t.Errorf("stderr %q, want one line", stderr.String())
	}
	if ents, _ := os.ReadDir(work); len(ents) != 0 {
		t.Errorf("left in the working folder: %d entries", len(ents))
	}
}

// TestSignalEndsServedRollout signals rollout while it waits on a policy
// server that took its request and never answers (the request's timeout
// an hour): the run's context reaches the request, so SIGINT ends the
// command at once (exit 130) rather than after lib/command's grace
// period, whose note ("blocked where the signal does not reach") must not
// appear; the 5 s bound is only the test's safety net.
func TestSignalEndsServedRollout(t *testing.T) {
	built(t)
	arrived := make(chan struct{}, 16)
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		select {
		case <-r.Context().Done():
		case <-done:
		}
	}))
	defer srv.Close()
	defer close(done)
	work := t.TempDir()
	cmd := exec.Command(filepath.Join(binDir, "rollout"), "--env", "household", "--split", "train", "--tasks", "1",
		"--policy", srv.URL, "--server-kind", "sglang", "--tokenizer", filepath.Join(fixDir, "ckpt"),
		"--server-timeout", "1h", "--server-retries", "0", "-o", "t.parquet")
	cmd.Dir = work
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-arrived:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("no request reached the server; stderr %q", stderr.String())
	}
	sent := time.Now()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	endsWithin5s(t, cmd, syscall.SIGINT)
	t.Logf("ended %v after SIGINT; stderr %q", time.Since(sent).Round(time.Millisecond), stderr.String())
	if got := cmd.ProcessState.ExitCode(); got != 130 {
		t.Errorf("exit %d, want 130", got)
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], "interrupted by SIGINT") || strings.Contains(lines[0], "does not reach") {
		t.Errorf("stderr %q, want one line saying it was interrupted, without the grace period's note", stderr.String())
	}
	if ents, _ := os.ReadDir(work); len(ents) != 0 {
		t.Errorf("left in the working folder: %d entries", len(ents))
	}
}
