package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/table"
)

// The exec: environment the tests serve (lib/env's envserve helper: the
// counter environment), built once into a folder TestMain removes.
var (
	envserveOnce sync.Once
	envserveDir  string
	envserveBin  string
	envserveErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if envserveDir != "" {
		os.RemoveAll(envserveDir)
	}
	os.Exit(code)
}

// envserve is the path of the envserve helper, built on first use.
func envserve(t testing.TB) string {
	t.Helper()
	envserveOnce.Do(func() {
		if envserveDir, envserveErr = os.MkdirTemp("", "envserve"); envserveErr != nil {
			return
		}
		envserveBin = filepath.Join(envserveDir, "envserve")
		goBin, err := exec.LookPath("go")
		if err != nil {
			goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
		}
		out, err := exec.Command(goBin, "build", "-o", envserveBin, "github.com/pats-rl/pats/lib/env/internal/envserve").CombinedOutput()
		if err != nil {
			envserveErr = fmt.Errorf("building envserve: %v: %s", err, out)
		}
	})
	if envserveErr != nil {
		t.Fatal(envserveErr)
	}
	return envserveBin
}

// startEnvServer starts the example environment server
// (examples/envserver) over envserve with the extra flags given and
// returns its URL; it is killed when the test ends. python3 is required:
// CI installs it (.ci/run).
func startEnvServer(t testing.TB, flags ...string) string {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Fatal("python3 not found: the environment server tests run examples/envserver/envserver.py with it (CI installs it: .ci/run)")
	}
	args := append([]string{filepath.Join("..", "..", "examples", "envserver", "envserver.py"), "--port", "0"}, flags...)
	cmd := exec.Command(py, append(args, "--", envserve(t))...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(stdout).ReadString('\n')
		line <- s
	}()
	select {
	case s := <-line:
		u, ok := strings.CutPrefix(strings.TrimSpace(s), "listening on ")
		if !ok {
			t.Fatalf("the environment server said %q; stderr: %s", s, stderr.String())
		}
		return u
	case <-time.After(60 * time.Second):
		t.Fatalf("the environment server did not start within 60s; stderr: %s", stderr.String())
	}
	return ""
}

// rolloutBytes runs rollout with args and returns the file it writes.
func rolloutBytes(t *testing.T, args ...string) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "t.parquet")
	code, stderr := run(t, append(args, "-o", out)...)
	if code != 0 {
		t.Fatalf("rollout %v: exit %d: %s", args, code, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestEnvServerSameBytes: the same seeds give the same file whether one
// or sixteen requests are in flight at the environment server, and one or
// four exec: children serve the episodes; the server's trajectories are
// those of the exec: environment it serves.
func TestEnvServerSameBytes(t *testing.T) {
	url := startEnvServer(t, "--children", "3")
	common := []string{"--split", "train", "--group", "6", "--policy", "random", "--seed", "3"}
	one := rolloutBytes(t, append([]string{"--env", url, "--env-concurrency", "1"}, common...)...)
	many := rolloutBytes(t, append([]string{"--env", url, "--env-concurrency", "16"}, common...)...)
	if !bytes.Equal(one, many) {
		t.Fatal("--env-concurrency 1 and 16 wrote different files")
	}
	execEnv := "exec:" + envserve(t)
	child := rolloutBytes(t, append([]string{"--env", execEnv}, common...)...)
	children := rolloutBytes(t, append([]string{"--env", execEnv, "--env-workers", "4"}, common...)...)
	if !bytes.Equal(child, children) {
		t.Fatal("--env-workers 1 and 4 wrote different files")
	}
	dir := t.TempDir()
	rows := func(b []byte) []table.Trajectory {
		p := filepath.Join(dir, "r.parquet")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		r, _, err := table.ReadFiles[table.Trajectory](p)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	served, direct := rows(many), rows(children)
	if len(served) != 30 || !reflect.DeepEqual(served, direct) {
		t.Fatalf("%d rows through the server, %d direct; equal: %v", len(served), len(direct), reflect.DeepEqual(served, direct))
	}
}

// TestEnvServerFails: a server that stops answering mid-run, or goes
// away, fails the run: exit 1, one line naming the server, no output.
func TestEnvServerFails(t *testing.T) {
	for name, c := range map[string]struct{ fail, says string }{
		"hangs": {"hang-after:3", "no answer within 300ms"},
		"drops": {"drop-after:3", "the server stayed down"},
	} {
		t.Run(name, func(t *testing.T) {
			url := startEnvServer(t, "--fail", c.fail)
			out := filepath.Join(t.TempDir(), "t.parquet")
			code, stderr := run(t, "--env", url, "--split", "train", "--group", "2", "--policy", "random",
				"--env-timeout", "300ms", "--env-retries", "1", "-o", out)
			if code != command.ExitFailure || !strings.Contains(stderr, c.says) || !strings.Contains(stderr, url) {
				t.Errorf("exit %d (%q): want 1, naming %s and saying %q", code, stderr, url, c.says)
			}
			if strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
				t.Errorf("stderr %q is not one line", stderr)
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("output written")
			}
		})
	}
}

// TestEnvServerUsage: the server and children options go with their kind
// of environment and in range (exit 2, one line, no output).
func TestEnvServerUsage(t *testing.T) {
	for name, args := range map[string][]string{
		"workers with a built-in env":     {"--env-workers", "2"},
		"concurrency with a built-in env": {"--env-concurrency", "4"},
		"zero concurrency":                {"--env", "http://127.0.0.1:9", "--env-concurrency", "0"},
		"zero timeout":                    {"--env", "http://127.0.0.1:9", "--env-timeout", "0s"},
		"negative retries":                {"--env", "http://127.0.0.1:9", "--env-retries", "-1"},
		"zero workers":                    {"--env", "exec:true", "--env-workers", "0"},
		"bad server URL":                  {"--env", "http://127.0.0.1:99999"},
	} {
		out := filepath.Join(t.TempDir(), "t.parquet")
		code, stderr := run(t, append(args, "--policy", "random", "-o", out)...)
		if code != command.ExitUsage || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%s: exit %d (%q), want 2 and one line", name, code, stderr)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: output written", name)
		}
	}
}
