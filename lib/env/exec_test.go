package env_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/pats-rl/pats/lib/env"
	"github.com/pats-rl/pats/lib/env/internal/counterenv"
)

// serverBin is the envserve helper, built once by TestMain.
var serverBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "envserve")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	serverBin = filepath.Join(dir, "env serve") // a blank, to exercise quoting
	build := exec.Command(goBin, "build", "-o", serverBin, "./internal/envserve")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building envserve:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func quoted(args ...string) string {
	q := []string{"'" + serverBin + "'"}
	return strings.Join(append(q, args...), " ")
}

func openExec(t *testing.T, args ...string) env.Env {
	t.Helper()
	e, err := env.OpenExec(quoted(args...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if c, ok := e.(io.Closer); ok {
			c.Close()
		}
	})
	return e
}

// record is everything observable about one episode.
type record struct {
	TaskID, TaskType, Goal, Obs string
	MaxSteps                    int
	Admissible                  [][]string
	Features                    [][]string
	Actions                     []string
	Steps                       []env.Step
}

func run(t *testing.T, e env.Env, id string, seed int64, agent env.Agent) record {
	t.Helper()
	ep, err := e.Reset(id, seed)
	if err != nil {
		t.Fatalf("reset %s/%d: %v", id, seed, err)
	}
	r := record{TaskID: ep.TaskID(), TaskType: ep.TaskType(), Goal: ep.Goal(), Obs: ep.Observation(), MaxSteps: ep.MaxSteps()}
	agent.Start(ep.Goal(), ep.Observation(), seed)
	last := ep.Observation()
	for i := 0; i < ep.MaxSteps()+2; i++ {
		adm := ep.Admissible()
		r.Admissible = append(r.Admissible, adm)
		r.Features = append(r.Features, ep.Features())
		a := agent.Act(last, adm)
		if i%5 == 4 {
			a = "jump" // an invalid action now and then
		}
		st := ep.Step(a)
		r.Actions = append(r.Actions, a)
		r.Steps = append(r.Steps, st)
		last = st.Observation
		if st.Done {
			break
		}
	}
	r.Features = append(r.Features, ep.Features())
	return r
}

func TestExecMatchesInProcess(t *testing.T) {
	local := counterenv.New()
	remote := openExec(t)
	if remote.Name() != local.Name() || !reflect.DeepEqual(remote.TaskTypes(), local.TaskTypes()) ||
		!reflect.DeepEqual(remote.Splits(), local.Splits()) || !reflect.DeepEqual(remote.Vocabulary(), local.Vocabulary()) {
		t.Fatalf("info differs: %q %v %v", remote.Name(), remote.TaskTypes(), remote.Splits())
	}
	if remote.Oracle() != nil {
		t.Error("exec env has an oracle")
	}
	for _, split := range local.Splits() {
		want, _ := local.Tasks(split)
		got, err := remote.Tasks(split)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("tasks %s: %v %v, want %v", split, got, err, want)
		}
		for _, id := range want {
			for seed := int64(0); seed < 3; seed++ {
				for name, mk := range map[string]func() env.Agent{"random": env.RandomAgent, "oracle": local.Oracle} {
					w := run(t, local, id, seed, mk())
					g := run(t, remote, id, seed, mk())
					if !reflect.DeepEqual(g, w) {
						t.Fatalf("%s %s seed %d (%s): exec run differs\n got %+v\nwant %+v", split, id, seed, name, g, w)
					}
					if name == "oracle" && !g.Steps[len(g.Steps)-1].Success && !strings.Contains(strings.Join(g.Actions, ","), "jump") {
						t.Errorf("%s: oracle failed", id)
					}
				}
			}
		}
	}
}

func TestExecConcurrentEpisodes(t *testing.T) {
	local := counterenv.New()
	remote := openExec(t)
	ids, _ := local.Tasks(env.SplitTrain)
	want := make([]record, len(ids)*4)
	for i := range want {
		want[i] = run(t, local, ids[i%len(ids)], int64(i), env.RandomAgent())
	}
	got := make([]record, len(want))
	var wg sync.WaitGroup
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = run(t, remote, ids[i%len(ids)], int64(i), env.RandomAgent())
		}()
	}
	wg.Wait()
	if !reflect.DeepEqual(got, want) {
		t.Error("concurrent exec episodes differ from sequential in-process ones")
	}
}

func TestExecErrors(t *testing.T) {
	remote := openExec(t)
	if _, err := remote.Tasks("test"); err == nil || !strings.Contains(err.Error(), `unknown split "test"`) {
		t.Errorf("unknown split: %v", err)
	}
	if _, err := remote.Reset("sideways-3", 1); err == nil || !strings.Contains(err.Error(), `unknown task "sideways-3"`) {
		t.Errorf("unknown task: %v", err)
	}
	// A child error is not fatal: the env still works.
	ep, err := remote.Reset("up-3", 1)
	if err != nil {
		t.Fatal(err)
	}
	// Closing an unfinished episode, then stepping it, answers locally.
	if err := ep.(io.Closer).Close(); err != nil {
		t.Fatal(err)
	}
	if st := ep.Step("inc"); !st.Done || st.Valid || st.Observation != env.EpisodeOver {
		t.Errorf("step after close: %+v", st)
	}
}

func TestExecChildCrash(t *testing.T) {
	remote := openExec(t, "-fail", "crash-on-step")
	ep, err := remote.Reset("up-3", 1)
	if err != nil {
		t.Fatal(err)
	}
	st := ep.Step("inc")
	if !st.Done || st.Valid || !strings.HasPrefix(st.Observation, "environment error:") {
		t.Errorf("step on crashed child: %+v", st)
	}
	err = ep.(interface{ Err() error }).Err()
	for _, want := range []string{"child closed its output before answering step", "exit status 3", "simulator segfault"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("crash error %v lacks %q", err, want)
		}
	}
	if f := ep.Features(); len(f) == 0 || f[len(f)-1] != "failure:env_error" {
		t.Errorf("features after crash: %v", f)
	}
	// The env stays broken with the same error.
	if _, err2 := remote.Reset("up-3", 1); err2 == nil || err2.Error() != err.Error() {
		t.Errorf("reset after crash: %v", err2)
	}
}

func TestExecMalformedLine(t *testing.T) {
	remote := openExec(t, "-fail", "garbage-on-reset")
	_, err := remote.Reset("up-3", 1)
	for _, want := range []string{"malformed answer to reset", "Traceback", "child killed"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("garbage error %v lacks %q", err, want)
		}
	}
}

func TestOpenExecFailures(t *testing.T) {
	for _, c := range []struct {
		command string
		want    []string
	}{
		{quoted("-fail", "exit-at-start"), []string{"before answering info", "exit status 3", "cannot load the game files"}},
		{"", []string{"empty command"}},
		{"'unclosed", []string{"unclosed single quote"}},
		{filepath.Join(t.TempDir(), "no-such-program"), []string{"cannot start"}},
		{"true", []string{"info", "status 0"}}, // broken pipe or closed output, by timing
	} {
		e, err := env.OpenExec(c.command)
		if err == nil {
			e.(io.Closer).Close()
			t.Errorf("OpenExec(%q): no error", c.command)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("OpenExec(%q): %v lacks %q", c.command, err, w)
			}
		}
	}
}

func TestOpenThroughRegistry(t *testing.T) {
	e, err := env.Open("exec:" + quoted())
	if err != nil {
		t.Fatal(err)
	}
	defer e.(io.Closer).Close()
	if e.Name() != "counter" {
		t.Errorf("name %q", e.Name())
	}
}

func TestServe(t *testing.T) {
	in := strings.Join([]string{
		`not json`,
		`{"op":"fly"}`,
		`{}`,
		``,
		`{"op":"info"}`,
		`{"op":"reset","id":"up-3","seed":2,"episode":7}`,
		`{"op":"reset","id":"up-3","seed":2,"episode":7}`,
		`{"op":"step","episode":8,"action":"inc"}`,
		`{"op":"step","episode":7,"action":"inc"}`,
		`{"op":"close","episode":7}`,
		`{"op":"step","episode":7,"action":"inc"}`,
	}, "\n")
	var out bytes.Buffer
	if err := env.Serve(counterenv.New(), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	wantErr := []string{"request line 1 is not a JSON request", `unknown op "fly"`, `has no "op"`, "",
		"", "episode 7 is already open", "episode 8 is not open", "", "", "episode 7 is not open"}
	if len(lines) != len(wantErr) {
		t.Fatalf("%d response lines, want %d:\n%s", len(lines), len(wantErr), out.String())
	}
	for i, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %d not JSON: %q", i, l)
		}
		e, _ := m["error"].(string)
		if (wantErr[i] == "") != (e == "") || !strings.Contains(e, wantErr[i]) {
			t.Errorf("line %d: %q, want error %q", i, l, wantErr[i])
		}
	}
	var info env.InfoResponse
	json.Unmarshal([]byte(lines[3]), &info)
	if info.Protocol != env.ProtocolVersion || info.Name != "counter" || len(info.Vocabulary) == 0 {
		t.Errorf("info %+v", info)
	}
	var rr env.ResetResponse
	json.Unmarshal([]byte(lines[4]), &rr)
	ep, _ := counterenv.New().Reset("up-3", 2)
	if rr.Goal != ep.Goal() || rr.Observation != ep.Observation() || rr.MaxSteps != ep.MaxSteps() || rr.TaskType != "up" {
		t.Errorf("reset %+v", rr)
	}
	var sr env.StepResponse
	json.Unmarshal([]byte(lines[7]), &sr)
	want := ep.Step("inc")
	if sr.Observation != want.Observation || sr.Valid != want.Valid || sr.Score != want.Score || !reflect.DeepEqual(sr.Features, ep.Features()) {
		t.Errorf("step %+v, want %+v", sr, want)
	}
}

func TestRequestWire(t *testing.T) {
	for _, c := range []struct {
		req  env.Request
		want string
	}{
		{env.Request{Op: env.OpInfo}, `{"op":"info"}`},
		{env.Request{Op: env.OpTasks, Split: "train"}, `{"op":"tasks","split":"train"}`},
		{env.Request{Op: env.OpReset, ID: "up-3", Episode: 1}, `{"op":"reset","id":"up-3","seed":0,"episode":1}`},
		{env.Request{Op: env.OpStep, Episode: 1, Action: ""}, `{"op":"step","episode":1,"action":""}`},
		{env.Request{Op: env.OpClose, Episode: 2}, `{"op":"close","episode":2}`},
	} {
		b, err := json.Marshal(c.req)
		if err != nil || string(b) != c.want {
			t.Errorf("%+v: %s %v, want %s", c.req, b, err, c.want)
		}
		var back env.Request
		if err := json.Unmarshal(b, &back); err != nil || back != c.req {
			t.Errorf("round trip of %s: %+v %v", b, back, err)
		}
	}
}

func TestRandomAgent(t *testing.T) {
	adm := []string{"a", "b", "c", "d", "e"}
	seq := func(seed int64) []string {
		ag := env.RandomAgent()
		ag.Start("goal", "obs", seed)
		var out []string
		for range 40 {
			out = append(out, ag.Act("obs", adm))
		}
		return out
	}
	a, b, c := seq(1), seq(1), seq(2)
	if !reflect.DeepEqual(a, b) {
		t.Error("same seed, different actions")
	}
	if reflect.DeepEqual(a, c) {
		t.Error("different seeds, same actions")
	}
	counts := map[string]int{}
	for _, x := range a {
		counts[x]++
	}
	if len(counts) != len(adm) {
		t.Errorf("40 draws over 5 actions used only %v", counts)
	}
	// Start restarts the stream.
	ag := env.RandomAgent()
	ag.Start("", "", 1)
	ag.Act("", adm)
	ag.Start("", "", 1)
	if got := ag.Act("", adm); got != a[0] {
		t.Errorf("after restart got %q, want %q", got, a[0])
	}
	if got := ag.Act("", nil); got != "" {
		t.Errorf("no admissible actions: %q", got)
	}
}

// TestProtocolDocExample replays the example exchange of
// docs/env-protocol.md against Serve: the document shows real output.
func TestProtocolDocExample(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "env-protocol.md"))
	if err != nil {
		t.Fatal(err)
	}
	var reqs, want []string
	for _, l := range strings.Split(string(doc), "\n") {
		if r, ok := strings.CutPrefix(l, "> "); ok {
			reqs = append(reqs, r)
		} else if r, ok := strings.CutPrefix(l, "< "); ok {
			want = append(want, r)
		}
	}
	if len(reqs) < 5 || len(reqs) != len(want) {
		t.Fatalf("example has %d requests and %d responses", len(reqs), len(want))
	}
	var out bytes.Buffer
	if err := env.Serve(counterenv.New(), strings.NewReader(strings.Join(reqs, "\n")), &out); err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if !reflect.DeepEqual(got, want) {
		t.Errorf("doc example out of date:\n got %q\nwant %q", got, want)
	}
}

// TestExecStateKeys: a child may send its own anchor-state keys with reset
// and step, and the client passes them on (env.InitialKey, env.NextKey);
// without them the keys are the hashes of the observations.
func TestExecStateKeys(t *testing.T) {
	for _, keyed := range []bool{false, true} {
		var e env.Env
		if keyed {
			e = openExec(t, "-keys")
		} else {
			e = openExec(t)
		}
		ep, err := e.Reset("up-3", 1)
		if err != nil {
			t.Fatal(err)
		}
		st := ep.Step("inc")
		first, next := env.InitialKey(ep), env.NextKey(st)
		want0, want1 := env.StateKey(ep.Observation()), env.StateKey(st.Observation)
		if keyed {
			want0, want1 = "key:"+ep.Observation(), "key:"+st.Observation
		}
		if first != want0 || next != want1 {
			t.Errorf("keyed %v: keys %q %q, want %q %q", keyed, first, next, want0, want1)
		}
	}
	if env.StateKey("The number is 0.") == env.StateKey("The number is 1.") || len(env.StateKey("x")) != 16 {
		t.Error("StateKey: equal keys for different observations, or not 16 hex digits")
	}
}
