//go:build unix

package env_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pats-rl/pats/lib/env"
	"github.com/pats-rl/pats/lib/env/internal/counterenv"
)

// TestExecPoolSpreadsEpisodes: a pool of three children plays three
// episodes in flight on three children, the fourth on the one that had
// the fewest open, and frees a child's slot when its episode ends; every
// episode shows what one child alone shows.
func TestExecPoolSpreadsEpisodes(t *testing.T) {
	pool, err := env.OpenWith("exec:"+quoted(), env.OpenOptions{Exec: env.ExecOptions{Workers: 3}})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.(io.Closer).Close()
	var eps []env.Episode
	for i := range 3 {
		ep, err := pool.Reset("up-3", int64(i))
		if err != nil {
			t.Fatal(err)
		}
		eps = append(eps, ep)
	}
	if got := env.PoolOpen(pool); !reflect.DeepEqual(got, []int{1, 1, 1}) {
		t.Fatalf("open per child after 3 resets: %v, want [1 1 1]", got)
	}
	eps[1].(interface{ Close() error }).Close()
	if got := env.PoolOpen(pool); !reflect.DeepEqual(got, []int{1, 0, 1}) {
		t.Fatalf("open per child after closing the second: %v, want [1 0 1]", got)
	}
	if _, err := pool.Reset("up-5", 9); err != nil {
		t.Fatal(err)
	}
	if got := env.PoolOpen(pool); !reflect.DeepEqual(got, []int{1, 1, 1}) {
		t.Fatalf("the fourth episode went elsewhere: %v, want [1 1 1]", got)
	}
	// Played to the end, an episode frees its child.
	for !eps[0].Step("inc").Done {
	}
	if got := env.PoolOpen(pool); !reflect.DeepEqual(got, []int{0, 1, 1}) {
		t.Fatalf("after the first episode ended: %v, want [0 1 1]", got)
	}
	// Episodes in parallel goroutines: the same records as in process.
	local := counterenv.New()
	ids, _ := local.Tasks(env.SplitTrain)
	var wg sync.WaitGroup
	errs := make(chan string, len(ids)*4)
	for _, id := range ids {
		for seed := range int64(4) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				g, w := run(t, pool, id, seed, env.RandomAgent()), run(t, local, id, seed, env.RandomAgent())
				if !reflect.DeepEqual(g, w) {
					errs <- id
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for id := range errs {
		t.Errorf("%s: the pool's episode differs from the one in process", id)
	}
}

// TestExecPoolChildrenAlike: children of one pool that describe different
// environments are refused, one line, and none is left running.
func TestExecPoolChildrenAlike(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "env.sh")
	script := "#!/bin/sh\nwhile IFS= read -r line; do\n  echo '{\"protocol\":1,\"name\":\"n'$PATS_EXEC_SESSION'\",\"task_types\":[\"t\"],\"splits\":[\"train\"]}'\ndone\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := env.OpenWith("exec:"+p, env.OpenOptions{Exec: env.ExecOptions{Workers: 2}})
	var broken *env.BrokenError
	if !errors.As(err, &broken) || !strings.Contains(err.Error(), "describes another environment") {
		t.Fatalf("children that differ: %v", err)
	}
}

// hangOnStep answers info, tasks and reset, and never a step.
const hangOnStep = `#!/bin/sh
while IFS= read -r line; do
  case "$line" in
    *'"op":"info"'*) echo '{"protocol":1,"name":"slow","task_types":["t"],"splits":["train"],"vocabulary":["go"]}' ;;
    *'"op":"tasks"'*) echo '{"tasks":["a"]}' ;;
    *'"op":"reset"'*) echo '{"task_id":"a","task_type":"t","goal":"g","observation":"o","admissible":["go"],"max_steps":2,"features":[]}' ;;
    *'"op":"step"'*) exec sleep 600 ;;
    *) echo '{"ok":true}' ;;
  esac
done
`

func hangingEpisode(t *testing.T, opts env.ExecOptions) env.Episode {
	t.Helper()
	p := filepath.Join(t.TempDir(), "env.sh")
	if err := os.WriteFile(p, []byte(hangOnStep), 0o755); err != nil {
		t.Fatal(err)
	}
	e, err := env.OpenExecWith(p, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.(io.Closer).Close() })
	ep, err := e.Reset("a", 1)
	if err != nil {
		t.Fatal(err)
	}
	return ep
}

// TestExecStepTimeoutIs: a step past the step timeout ends the episode
// with an error that errors.Is finds os.ErrDeadlineExceeded in, and that
// is a BrokenError.
func TestExecStepTimeoutIs(t *testing.T) {
	ep := hangingEpisode(t, env.ExecOptions{StepTimeout: 300 * time.Millisecond})
	if st := ep.Step("go"); !st.Done || st.Valid {
		t.Fatalf("the step past the timeout: %+v", st)
	}
	err := ep.(interface{ Err() error }).Err()
	var broken *env.BrokenError
	if !errors.Is(err, os.ErrDeadlineExceeded) || !errors.As(err, &broken) || !strings.Contains(err.Error(), "step timeout") {
		t.Fatalf("err %v: want a BrokenError wrapping os.ErrDeadlineExceeded", err)
	}
	if errors.Is(err, context.Canceled) {
		t.Fatalf("err %v says cancelled", err)
	}
}

// TestExecContextEndsWait: cancelling ExecOptions.Context ends a step
// that waits on a child with no step timeout at once, with an error that
// errors.Is finds context.Canceled in.
func TestExecContextEndsWait(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ep := hangingEpisode(t, env.ExecOptions{Context: ctx})
	time.AfterFunc(200*time.Millisecond, cancel)
	done := make(chan env.Step)
	go func() { done <- ep.Step("go") }()
	select {
	case st := <-done:
		err := ep.(interface{ Err() error }).Err()
		if !st.Done || !errors.Is(err, context.Canceled) {
			t.Fatalf("step %+v, err %v: want an ended episode wrapping context.Canceled", st, err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the step still waits 10s after its context was cancelled")
	}
}
