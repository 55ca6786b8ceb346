package pats

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pats-rl/pats/lib/table"
)

// writer is one command that writes, as the kill and signal tests run
// it: its arguments ($FIX names the shared fixtures, $SHARED the outputs
// of earlier writers) and the outputs it writes in its working folder.
type writer struct {
	name    string
	args    []string
	outputs []string
	timed   []string // outputs that record wall times (learn's metrics): whole when they read back, not the same bytes
}

// writers lists every command that writes outputs, in an order where each
// one's inputs exist ($SHARED/adv.parquet is learn grpo's; $FIX/run is the
// run folder fixtures.sh makes for report sweep, report plots and report
// tensorboard).
// TestWritersListed checks that every subcommand that takes an output is
// here.
var writers = []writer{
	{"rollout", []string{"rollout", "--env", "household", "--split", "train", "--tasks", "2", "--group", "2", "--policy", "oracle", "--seed", "3", "-o", "t.parquet"}, []string{"t.parquet"}, nil},
	{"rollout-checkpoint", []string{"rollout", "--env", "household", "--split", "train", "--tasks", "1", "--group", "2", "--policy", "$FIX/ckpt", "--max-context", "512", "-o", "t.parquet"}, []string{"t.parquet"}, nil},
	{"cards", []string{"cards", "$FIX/traj.parquet", "-o", "c.parquet", "--evidence", "e.parquet"}, []string{"c.parquet", "e.parquet"}, nil},
	{"control", []string{"control", "--cards", "$FIX/cards.parquet", "--scaffold", "$FIX/snap.parquet", "-o", "p.parquet", "--state-out", "s.parquet"}, []string{"p.parquet", "s.parquet"}, nil},
	{"validate-init", []string{"validate", "init", "-o", "snap.parquet"}, []string{"snap.parquet"}, nil},
	{"validate", []string{"validate", "--scaffold", "$FIX/snap.parquet", "--proposals", "$FIX/proposals.parquet", "--cards", "$FIX/cards.parquet", "-o", "snap1.parquet", "--decisions", "d.parquet"}, []string{"snap1.parquet", "d.parquet"}, nil},
	{"evaluate", []string{"evaluate", "$FIX/traj.parquet", "-o", "m.parquet"}, []string{"m.parquet"}, nil},
	{"evaluate-policy", []string{"evaluate", "--policy", "$FIX/ckpt", "--env", "household", "--split", "train", "--tasks", "1", "--max-context", "512", "-o", "m.parquet"}, []string{"m.parquet"}, nil},
	{"report-mix", []string{"report", "mix", "$FIX/traj.parquet", "-o", "t.parquet"}, []string{"t.parquet"}, nil},
	{"learn-sft", []string{"learn", "sft", "--init", "tiny", "--demos", "$FIX/traj.parquet", "-o", "ck", "--metrics", "m.parquet", "--epochs", "1"}, []string{"ck", "m.parquet"}, []string{"m.parquet"}},
	{"learn-grpo", []string{"learn", "grpo", "--kl", "0", "--init", "$FIX/ckpt", "$FIX/ptraj.parquet", "-o", "ck", "--metrics", "m.parquet", "--advantages", "adv.parquet"}, []string{"ck", "m.parquet", "adv.parquet"}, []string{"m.parquet"}},
	{"learn-grpo-lora", []string{"learn", "grpo", "--kl", "0", "--init", "$FIX/ckpt", "$FIX/ptraj.parquet", "-o", "lora", "--lora-rank", "4", "--recompute"}, []string{"lora"}, nil},
	{"learn-merge", []string{"learn", "merge", "--adapter", "$SHARED/lora", "-o", "merged"}, []string{"merged"}, nil},
	{"audit-credit", []string{"audit", "credit", "$FIX/ptraj.parquet", "--advantages", "$SHARED/adv.parquet", "-o", "a.parquet"}, []string{"a.parquet"}, nil},
	{"audit-reading", []string{"audit", "reading", "--policy", "$FIX/ckpt", "--env", "household", "--split", "train", "--tasks", "1", "--max-context", "512", "-o", "r.parquet"}, []string{"r.parquet"}, nil},
	{"audit-scaffold", []string{"audit", "scaffold", "--checkpoints", "$FIX/ckpt,$FIX/ckpt", "--traj", "$FIX/straj.parquet", "-o", "a.parquet", "--plot", "a.png"}, []string{"a.parquet", "a.png"}, nil},
	{"audit-lift", []string{"audit", "lift", "$FIX/traj.parquet", "--without", "$FIX/bare.parquet", "-o", "l.parquet"}, []string{"l.parquet"}, nil},
	{"audit-truth", []string{"audit", "truth", "--scaffold", "$FIX/snap.parquet", "--iteration", "0", "--env", "household-rl", "-o", "t.parquet", "--rules", "r.parquet"}, []string{"t.parquet", "r.parquet"}, nil},
	{"report-sweep", []string{"report", "sweep", "--root", "$FIX/run", "--variants", "pats", "--seeds", "1", "-o", "r.parquet", "--runs", "runs.parquet"}, []string{"r.parquet", "runs.parquet"}, nil},
	{"report-plots", []string{"report", "plots", "$FIX/run/pats-s1", "-o", "plots"}, []string{"plots"}, nil},
	{"report-tensorboard", []string{"report", "tensorboard", "$FIX/run/pats-s1", "-o", "tb"}, []string{"tb"}, nil},
	{"report-settings", []string{"report", "settings", "--from", "$FIX/run/vars", "--base", "$FIX/ckpt", "-o", "settings.json"}, []string{"settings.json"}, nil},
}

// writerRun is one run of a writer in dir.
func writerRun(t *testing.T, w writer, dir, shared string) *exec.Cmd {
	t.Helper()
	args := make([]string, len(w.args))
	for i, a := range w.args {
		args[i] = strings.NewReplacer("$FIX", fixDir, "$SHARED", shared).Replace(a)
	}
	c := exec.Command(filepath.Join(binDir, args[0]), args[1:]...)
	c.Dir = dir
	return c
}

var (
	refOnce   sync.Once
	refDirs   map[string]string
	refTook   map[string]time.Duration
	refShared string
	refErr    error
)

// reference runs each writer once to its end in a folder of its own (under
// the build folder, which TestMain removes), once for the kill and the
// signal tests, and returns the folders (each holding the writer's
// complete outputs), how long each run took and the folder of outputs
// later writers read.
func reference(t *testing.T) (dirs map[string]string, took map[string]time.Duration, shared string) {
	t.Helper()
	refOnce.Do(func() {
		root, err := os.MkdirTemp(filepath.Dir(binDir), "reference-")
		if err != nil {
			refErr = err
			return
		}
		refDirs, refTook, refShared = map[string]string{}, map[string]time.Duration{}, filepath.Join(root, "shared")
		os.Mkdir(refShared, 0o700)
		for _, w := range writers {
			dir := filepath.Join(root, w.name)
			os.Mkdir(dir, 0o700)
			c := writerRun(t, w, dir, refShared)
			var stderr bytes.Buffer
			c.Stderr = &stderr
			start := time.Now()
			if err := c.Run(); err != nil {
				refErr = fmt.Errorf("%s: %v\n%s", w.name, err, stderr.String())
				return
			}
			refTook[w.name] = time.Since(start)
			refDirs[w.name] = dir
			if w.name == "learn-grpo" {
				b, err := os.ReadFile(filepath.Join(dir, "adv.parquet"))
				if err != nil {
					refErr = err
					return
				}
				os.WriteFile(filepath.Join(refShared, "adv.parquet"), b, 0o644)
			}
			if w.name == "learn-grpo-lora" { // learn merge's adapter
				if err := os.CopyFS(filepath.Join(refShared, "lora"), os.DirFS(filepath.Join(dir, "lora"))); err != nil {
					refErr = err
					return
				}
			}
		}
	})
	if refErr != nil {
		t.Fatal(refErr)
	}
	return refDirs, refTook, refShared
}

// seedFor is the deterministic seed of a writer's instants.
func seedFor(test, name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(test + "/" + name))
	return h.Sum64()
}

// visible is the snapshot of dir without hidden temporaries, and the
// names of the hidden entries.
func visible(t *testing.T, dir string) (map[string]string, []string) {
	t.Helper()
	snap := snapshot(t, dir)
	delete(snap, ".") // the folder itself: only what is in it counts
	// A hidden entry at any depth (a temporary beside its output, or in
	// an output folder such as report plots') is listed; entries under a
	// hidden folder belong to it.
	var hidden []string
	for k := range snap {
		parts := strings.Split(k, string(filepath.Separator))
		for i, p := range parts {
			if strings.HasPrefix(p, ".") {
				delete(snap, k)
				if i == len(parts)-1 {
					hidden = append(hidden, k)
				}
				break
			}
		}
	}
	sort.Strings(hidden)
	return snap, hidden
}

// copyDir copies the regular files and folders of src into dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if fi.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestKillEveryWriter kills every command that writes (SIGKILL) at
// instants drawn from a fixed seed over its reference run time, over a
// previous complete output or none. Afterwards each output is the
// previous one or absent (as it was) or the complete new one, never half
// written: the outputs are deterministic, so "complete" is "the same bytes
// as the reference run". Hidden temporaries may stay behind a kill; the
// next run of the same command removes them all.
func TestKillEveryWriter(t *testing.T) {
	built(t)
	refs, took, shared := reference(t)
	for _, w := range writers {
		t.Run(w.name, func(t *testing.T) {
			want, _ := visible(t, refs[w.name])
			rng := rand.New(rand.NewPCG(seedFor("kill", w.name), 1))
			dir := t.TempDir()
			for trial := 0; trial < 4; trial++ {
				over := trial%2 == 1 // over a previous output
				for _, o := range w.outputs {
					os.RemoveAll(filepath.Join(dir, o))
				}
				if over {
					copyDir(t, refs[w.name], dir)
				}
				at := time.Duration(rng.Float64() * 1.2 * float64(took[w.name]))
				c := writerRun(t, w, dir, shared)
				if err := c.Start(); err != nil {
					t.Fatal(err)
				}
				time.Sleep(at)
				c.Process.Signal(syscall.SIGKILL)
				c.Wait()
				got, hidden := visible(t, dir)
				// Before the kill the folder held the previous outputs or
				// none; either way a whole output is the reference's.
				for k, v := range got {
					if isTimed(w, k) {
						checkWhole(t, filepath.Join(dir, k))
						continue
					}
					if want[k] != v {
						t.Errorf("trial %d (kill at %v, over a previous output %v): %s is %q, want the complete output or none", trial, at, over, k, v)
					}
				}
				if over && len(got) != len(want) {
					t.Errorf("trial %d (kill at %v): an output is missing: %v", trial, at, keys(got))
				}
				t.Logf("trial %d: killed at %v (run %v), over a previous output %v: outputs %d, temporaries %v", trial, at, took[w.name], over, len(got), hidden)
			}
			// The next run completes and removes every temporary the kills
			// left.
			c := writerRun(t, w, dir, shared)
			var stderr bytes.Buffer
			c.Stderr = &stderr
			if err := c.Run(); err != nil {
				t.Fatalf("the run after the kills: %v\n%s", err, stderr.String())
			}
			got, hidden := visible(t, dir)
			if diff := cmp.Diff(untimed(w, want), untimed(w, got)); diff != "" {
				t.Errorf("outputs after a complete run (-reference +got):\n%s", diff)
			}
			if len(hidden) != 0 {
				t.Errorf("temporaries left after a complete run: %v", hidden)
			}
		})
	}
}

func keys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// TestSigtermEveryWriter sends SIGTERM to every command that writes, at
// instant 0 (at once after the start, before any output exists) and at
// instants drawn from a fixed seed over its reference run time. Each run
// must exit 143 with nothing written and one line on stderr saying so,
// having ended on its own (not after the grace period: the cancellation
// reached it within the promised 3 s); a process the signal reaches
// before the runtime has installed its handler is ended by the signal
// itself, which a shell reports as 143 too. Only a signal after the
// commit may find the outputs in place: then the exit is 0 and they are
// complete.
func TestSigtermEveryWriter(t *testing.T) {
	built(t)
	refs, took, shared := reference(t)
	for _, w := range writers {
		t.Run(w.name, func(t *testing.T) {
			want, _ := visible(t, refs[w.name])
			rng := rand.New(rand.NewPCG(seedFor("sigterm", w.name), 1))
			committed := 0
			for trial := 0; trial < 3; trial++ {
				dir := t.TempDir()
				at := time.Duration(0)
				if trial > 0 {
					at = time.Duration(rng.Float64() * 0.8 * float64(took[w.name]))
				}
				c := writerRun(t, w, dir, shared)
				var stderr bytes.Buffer
				c.Stderr = &stderr
				if err := c.Start(); err != nil {
					t.Fatal(err)
				}
				time.Sleep(at)
				sent := time.Now()
				c.Process.Signal(syscall.SIGTERM)
				c.Wait()
				ended := time.Since(sent)
				st := c.ProcessState.Sys().(syscall.WaitStatus)
				got, hidden := visible(t, dir)
				// The last line; the long stages' progress lines come before.
				line := strings.TrimSpace(stderr.String())
				if i := strings.LastIndexByte(line, '\n'); i >= 0 {
					line = line[i+1:]
				}
				t.Logf("trial %d: SIGTERM at %v (run %v): exit %d, ended %v later, stderr %q", trial, at, took[w.name], c.ProcessState.ExitCode(), ended.Round(time.Millisecond), line)
				switch {
				case st.Signaled() && st.Signal() == syscall.SIGTERM:
					// Before the handler: the default action.
				case st.ExitStatus() == 143:
					if !strings.Contains(line, "interrupted by SIGTERM; nothing written") || strings.Count(stderr.String(), "interrupted") != 1 {
						t.Errorf("trial %d: stderr %q, want it to end with one line saying nothing was written", trial, stderr.String())
					}
					if strings.Contains(line, "blocked") {
						t.Errorf("trial %d: the command did not stop on its own within the grace period: %q", trial, line)
					}
				case st.ExitStatus() == 0 && trial > 0:
					committed++
					for _, o := range w.timed {
						checkWhole(t, filepath.Join(dir, o))
					}
					if diff := cmp.Diff(untimed(w, want), untimed(w, got)); diff != "" {
						t.Errorf("trial %d: exit 0 after the signal with outputs that are not complete (-reference +got):\n%s", trial, diff)
					}
					continue
				default:
					t.Errorf("trial %d: exit %d (%v), want 143; stderr %q", trial, st.ExitStatus(), st, line)
				}
				if len(got) != 0 || len(hidden) != 0 {
					t.Errorf("trial %d: written after SIGTERM: %v, temporaries %v", trial, keys(got), hidden)
				}
			}
			if committed == 3 {
				t.Errorf("every signal came after the commit")
			}
		})
	}
}

func isTimed(w writer, path string) bool {
	for _, o := range w.timed {
		if path == o {
			return true
		}
	}
	return false
}

// untimed is an outputs snapshot with the timed outputs' content left
// out (their presence kept).
func untimed(w writer, m map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		if isTimed(w, k) {
			v = "timed"
		}
		out[k] = v
	}
	return out
}

// checkWhole reads a timed output (learn's metrics) back: it must be a
// whole file of its kind.
func checkWhole(t *testing.T, path string) {
	t.Helper()
	if _, _, err := table.ReadFiles[table.TrainMetrics](path); err != nil {
		t.Errorf("%s is not a whole metrics file: %v", path, err)
	}
}

// TestWritersListed reads every binary's help, and its subcommands': each
// command that takes --output must be among the writers the kill and
// signal tests run (named BINARY, or BINARY-SUBCOMMAND).
func TestWritersListed(t *testing.T) {
	built(t)
	listed := map[string]bool{}
	for _, w := range writers {
		listed[w.name] = true
	}
	help := func(args ...string) string {
		out, _ := exec.Command(filepath.Join(binDir, args[0]), append(args[1:], "--help")...).CombinedOutput()
		return string(out)
	}
	ents, err := os.ReadDir(binDir)
	if err != nil {
		t.Fatal(err)
	}
	var writing []string
	for _, e := range ents {
		bin := e.Name()
		if bin == "mkbad" {
			continue
		}
		h := help(bin)
		if strings.Contains(h, "--output") {
			writing = append(writing, bin)
		}
		_, cmds, ok := strings.Cut(h, "COMMANDS:\n")
		if !ok {
			continue
		}
		cmds, _, _ = strings.Cut(cmds, "\n\n")
		for _, line := range strings.Split(cmds, "\n") {
			f := strings.Fields(strings.ReplaceAll(line, ",", " "))
			if len(f) == 0 || f[0] == "help" {
				continue
			}
			if strings.Contains(help(bin, f[0]), "--output") {
				writing = append(writing, bin+"-"+f[0])
			}
		}
	}
	if len(writing) < len(writers)-3 { // rollout-checkpoint, evaluate-policy and learn-grpo-lora are second runs
		t.Fatalf("found only %v: the help format changed?", writing)
	}
	for _, w := range writing {
		if !listed[w] {
			t.Errorf("%s takes --output but is not among the writers of TestKillEveryWriter and TestSigtermEveryWriter", w)
		}
	}
	t.Logf("writers: %v", writing)
}
