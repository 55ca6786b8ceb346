package envtest

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/env"
	"github.com/pats-rl/pats/lib/env/internal/counterenv"
)

func TestSample(t *testing.T) {
	ids := make([]string, 10)
	for i := range ids {
		ids[i] = fmt.Sprint(i)
	}
	cases := []struct {
		n, period int
		want      string
	}{
		{20, 1, "0 1 2 3 4 5 6 7 8 9"},
		{10, 3, "0 1 2 3 4 5 6 7 8 9"},
		{3, 1, "0 3 6"},
		{4, 1, "0 2 4 6"},
		{3, 3, "0 4 8"},
		{4, 3, "0 3 6 6"}, // stride 2 below the period 3: picks 2 and 3 coincide
		{5, 2, "0 3 4 7 8"},
		{9, 3, "0 2 4 3 5 7 6 8"}, // i=8: 8+2 = 10 is past the end
	}
	for _, c := range cases {
		if got := strings.Join(Sample(ids, c.n, c.period), " "); got != c.want {
			t.Errorf("Sample(10 ids, %d, %d) = %q, want %q", c.n, c.period, got, c.want)
		}
	}
}

func TestPlayRecordsTheEpisode(t *testing.T) {
	e := counterenv.New()
	ep, _ := e.Reset("up-5", 2)
	start := ep.Observation()
	o := Play(t, e, "up-5", e.Oracle(), 2, 50)
	if !o.Last.Done || !o.Last.Success || o.Steps != len(o.Actions) || o.Steps == 0 {
		t.Fatalf("oracle episode: %+v", o)
	}
	for _, a := range o.Actions {
		if a != "inc" {
			t.Fatalf("oracle on an up task took %q", a)
		}
	}
	if o.Texts[0] != ep.Goal() || o.Texts[1] != start {
		t.Fatalf("texts start %q, want goal and first observation", o.Texts[:2])
	}
	// goal, observation, then 3 admissible + action + observation a step.
	if len(o.Texts) != 2+5*o.Steps || o.Texts[len(o.Texts)-1] != o.Last.Observation {
		t.Fatalf("texts %q", o.Texts)
	}
	if !reflect.DeepEqual(o.Features, []string{"action:inc"}) {
		t.Fatalf("features %v", o.Features)
	}
}

// recorder stands in for a testing.T whose Fatal ends the goroutine.
type recorder struct {
	testing.TB
	failed string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatal(args ...any) {
	r.failed = fmt.Sprint(args...)
	runtime.Goexit()
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func run(f func(tb testing.TB)) string {
	r := &recorder{}
	done := make(chan bool)
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r.failed
}

// stubborn never ends an episode.
type stubborn struct{}

func (stubborn) Start(string, string, int64) {}
func (stubborn) Act(string, []string) string { return "look" }

// vocab is the counter environment with another vocabulary.
type vocab struct {
	env.Env
	words []string
}

func (v vocab) Vocabulary() []string { return v.words }

func TestFailures(t *testing.T) {
	e := counterenv.New()
	if msg := run(func(tb testing.TB) { Play(tb, e, "up-3", stubborn{}, 0, 5) }); !strings.Contains(msg, "did not end within 5 steps") {
		t.Errorf("endless episode: failure %q", msg)
	}
	if msg := run(func(tb testing.TB) { Play(tb, e, "sideways-3", e.Oracle(), 0, 5) }); msg == "" {
		t.Error("unknown task id did not fail")
	}
	if msg := run(func(tb testing.TB) { CheckVocabulary(tb, vocab{e, []string{"look"}}, 2, 1, 50) }); !strings.Contains(msg, "not in the vocabulary") {
		t.Errorf("narrow vocabulary: failure %q", msg)
	}
}

func TestCheckVocabularyPasses(t *testing.T) {
	e := counterenv.New()
	// The counter's own list stops at 9, but a start can be 10.
	words := e.Vocabulary()
	for i := 10; i <= 20; i++ {
		words = append(words, fmt.Sprint(i))
	}
	var n int
	if msg := run(func(tb testing.TB) { n = CheckVocabulary(tb, vocab{e, words}, 2, 1, 50) }); msg != "" {
		t.Fatalf("counter environment: %s", msg)
	}
	if n != len(words) {
		t.Errorf("size %d, want %d", n, len(words))
	}
}
