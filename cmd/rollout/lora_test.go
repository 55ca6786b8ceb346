package main

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/policy/servedtest"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// TestAdapterPolicy: rollout --policy takes a LoRA adapter folder (issue
// 60): the base is resolved from it once, the episodes are played by base
// + adapter (their behaviour log-probabilities are those of base +
// adapter, not of the base) and policy_hash is the adapter folder's hash,
// not the base's.
func TestAdapterPolicy(t *testing.T) {
	tok, err := tokenizer.ShippedWordLevel()
	if err != nil {
		t.Fatal(err)
	}
	js, _ := tok.JSON()
	base := checkpoint(t, js, tok.VocabSize(), false)
	m, adapter := saveAdapter(t, base, js, 0.5)
	ad := m.Adapter()
	out := filepath.Join(t.TempDir(), "t.parquet")
	if code, stderr := run(t, "--policy", adapter, "--env", "household", "--tasks", "1", "--group", "2",
		"--max-action-tokens", "4", "--max-context", "300", "--temperature", "1", "-o", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows, _, err := table.ReadFiles[table.Trajectory](out)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := model.WeightsHash(adapter)
	bm, _ := model.Load(base)
	for _, r := range rows {
		if r.PolicyHash != want || r.PolicyHash == ad.BaseHash {
			t.Errorf("policy_hash %q, want the adapter's %q", r.PolicyHash, want)
		}
		lp, _, _ := m.LogProbs([][]int32{r.Tokens}, nil)
		lb, _, _ := bm.LogProbs([][]int32{r.Tokens}, nil)
		var dAdapter, dBase float64
		n := 0
		for i, role := range r.Roles { // the first action (before any history window)
			if !table.PolicyWritten(role) {
				if n > 0 {
					break
				}
				continue
			}
			n++
			dAdapter = math.Max(dAdapter, math.Abs(float64(r.Logprobs[i]-lp[0][i])))
			dBase = math.Max(dBase, math.Abs(float64(r.Logprobs[i]-lb[0][i])))
		}
		if n == 0 || dAdapter > 1e-4 || dBase < 1e-3 {
			t.Errorf("%d policy tokens: behaviour log-probs %g from base + adapter, %g from the base", n, dAdapter, dBase)
		}
	}
}

// saveAdapter writes an adapter of the checkpoint base whose B matrices
// hold b, and returns base + adapter and the adapter's folder.
func saveAdapter(t *testing.T, base string, js []byte, b float32) (*model.Model, string) {
	t.Helper()
	m, err := model.Load(base)
	if err != nil {
		t.Fatal(err)
	}
	ad, err := m.AddAdapter(model.LoRAConfig{Rank: 2, Alpha: 4}, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ad.Params() {
		if strings.HasSuffix(p.Name, "lora_B.weight") {
			for i := range p.W {
				p.W[i] = b
			}
		}
	}
	ad.Base = base
	if ad.BaseHash, err = model.WeightsHash(base); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "adapter")
	if err := m.Save(dir, js); err != nil {
		t.Fatal(err)
	}
	return m, dir
}

// TestServedAdapterLoop: the served loop under LoRA (issue 60 part 4).
// A stand-in engine started once on the base serves three iterations:
// each rollout loads that iteration's adapter under a new name
// (--load-adapter, --model policy-k) and drops the previous one
// (--unload-adapter), with no restart; every request names the new
// adapter, the answers are base + that adapter's (the behaviour
// log-probabilities equal its own, not the base's nor the previous
// adapter's), and the rows record the adapter's hash. vLLM's and SGLang's
// routes both; a rerun of an iteration reloads its adapter.
func TestServedAdapterLoop(t *testing.T) {
	tok, err := tokenizer.ShippedWordLevel()
	if err != nil {
		t.Fatal(err)
	}
	js, _ := tok.JSON()
	base := checkpoint(t, js, tok.VocabSize(), false)
	for _, c := range []struct{ kind, path string }{{"vllm", "/v1"}, {"sglang", ""}} {
		t.Run(c.kind, func(t *testing.T) {
			s := standIn(t, base)
			s.ModelName = "policy"
			var prev *model.Model
			for k := 1; k <= 3; k++ {
				m, adapter := saveAdapter(t, base, js, 0.2*float32(k))
				name := fmt.Sprintf("policy-%d", k)
				out := filepath.Join(t.TempDir(), "t.parquet")
				args := []string{"--policy", s.URL + c.path, "--tokenizer", adapter, "--model", name, "--load-adapter",
					"--tasks", "1", "--group", "2", "--max-context", "300", "--max-action-tokens", "4", "--temperature", "1", "-o", out}
				if k > 1 {
					args = append(args, "--unload-adapter", fmt.Sprintf("policy-%d", k-1))
				}
				logged := len(s.Log())
				if code, stderr := run(t, args...); code != 0 {
					t.Fatalf("iteration %d: exit %d: %s", k, code, stderr)
				}
				abs, _ := filepath.Abs(adapter)
				want := []servedtest.AdapterEvent{{Kind: c.kind, Name: name, Path: abs}}
				if k > 1 {
					want = append(want, servedtest.AdapterEvent{Kind: c.kind, Unload: true, Name: fmt.Sprintf("policy-%d", k-1)})
				}
				ev := s.AdapterEvents()
				if got := ev[len(ev)-len(want):]; !slices.Equal(got, want) || len(ev) != 2*k-1 {
					t.Errorf("iteration %d: adapter requests %+v, want ... %+v", k, ev, want)
				}
				if held := s.Adapters(); !slices.Equal(held, []string{name}) {
					t.Errorf("iteration %d: the engine holds %v", k, held)
				}
				for _, l := range s.Log()[logged:] {
					if l.Model != name {
						t.Errorf("iteration %d: a request named %q", k, l.Model)
					}
				}
				rows, metas, err := table.ReadFiles[table.Trajectory](out)
				if err != nil {
					t.Fatal(err)
				}
				h, _ := model.WeightsHash(adapter)
				if metas[0].Extra["policy_adapter"] != name {
					t.Errorf("iteration %d: metadata policy_adapter %q", k, metas[0].Extra["policy_adapter"])
				}
				for _, r := range rows {
					if r.PolicyHash != h {
						t.Errorf("iteration %d: policy_hash %q, want the adapter's", k, r.PolicyHash)
					}
					dOwn, dPrev := firstActionDiff(t, m, r), 1.0
					if prev != nil {
						dPrev = firstActionDiff(t, prev, r)
					}
					if dOwn > 1e-4 || dPrev < 1e-3 {
						t.Errorf("iteration %d: behaviour log-probs %g from base + its adapter, %g from the previous", k, dOwn, dPrev)
					}
				}
				prev = m
			}
			// A rerun of the last iteration: its adapter is reloaded.
			n := len(s.AdapterEvents())
			_, adapter := saveAdapter(t, base, js, 0.6)
			if code, stderr := run(t, "--policy", s.URL+c.path, "--tokenizer", adapter, "--model", "policy-3", "--load-adapter",
				"--unload-adapter", "policy-2", "--tasks", "1", "--group", "1", "--max-context", "300", "--max-action-tokens", "4",
				"-o", filepath.Join(t.TempDir(), "t.parquet")); code != 0 {
				t.Fatalf("rerun: exit %d: %s", code, stderr)
			}
			if ev := s.AdapterEvents()[n:]; len(ev) != 2 || !ev[0].Unload || ev[0].Name != "policy-3" || ev[1].Unload {
				t.Errorf("rerun: adapter requests %+v, want an unload and a load of policy-3", ev)
			}
		})
	}
}

// firstActionDiff is the largest difference between r's behaviour
// log-probabilities of its first action and m's.
func firstActionDiff(t *testing.T, m *model.Model, r table.Trajectory) float64 {
	t.Helper()
	lp, _, err := m.LogProbs([][]int32{r.Tokens}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var d float64
	n := 0
	for i, role := range r.Roles {
		if !table.PolicyWritten(role) {
			if n > 0 {
				break
			}
			continue
		}
		n++
		d = math.Max(d, math.Abs(float64(r.Logprobs[i]-lp[0][i])))
	}
	if n == 0 {
		t.Fatal("no action")
	}
	return d
}
