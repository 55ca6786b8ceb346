package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/policy/servedtest"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// standIn starts a stand-in inference server driven by the checkpoint in
// dir.
func standIn(t *testing.T, dir string) *servedtest.Server {
	t.Helper()
	f, err := model.OpenFolder(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := servedtest.New(f.Model)
	t.Cleanup(s.Close)
	return s
}

// TestServedPolicy: rollout --policy URL plays every episode through the
// server (builtin and chatml formats, vLLM and SGLang shapes), records the
// server, model and checkpoint hash, and never writes the API key; a
// server that goes away mid-batch is exit 1, one line naming the server,
// and no output file.
func TestServedPolicy(t *testing.T) {
	wl, err := tokenizer.ShippedWordLevel()
	if err != nil {
		t.Fatal(err)
	}
	wlJSON, err := wl.JSON()
	if err != nil {
		t.Fatal(err)
	}
	word := checkpoint(t, wlJSON, wl.VocabSize(), false)
	chat := checkpoint(t, smallBPE(t, "<|im_start|>", "<|im_end|>"), 300, true)
	hash, err := model.WeightsHash(word)
	if err != nil {
		t.Fatal(err)
	}
	const key = "sk-secret-4242"
	for _, c := range []struct{ name, dir, path, kind, context string }{
		{"vllm builtin", word, "/v1", "", "300"},
		{"sglang builtin", word, "", "", "300"},
		{"vllm chatml", chat, "/v1", "vllm", "1000"},
		{"sglang chatml", chat, "", "sglang", "1000"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := standIn(t, c.dir)
			s.ModelName = "tiny"
			out := filepath.Join(t.TempDir(), "t.parquet")
			args := []string{"--policy", s.URL + c.path, "--tokenizer", c.dir, "--model", "tiny", "--api-key", key,
				"--concurrency", "4", "--tasks", "2", "--group", "2", "--max-context", c.context, "--max-action-tokens", "8", "-o", out}
			if c.kind != "" {
				args = append(args, "--server-kind", c.kind)
			}
			code, stderr := run(t, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			rows, metas, err := table.ReadFiles[table.Trajectory](out)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != 4 || len(s.Log()) == 0 {
				t.Fatalf("%d rows, %d answers logged", len(rows), len(s.Log()))
			}
			invalid := 0
			for _, r := range rows {
				invalid += int(r.Invalid)
			}
			if c.dir == chat && invalid == 0 {
				// An untrained model writes no well-formed <action>: each
				// such answer is an invalid action, as for a local policy.
				t.Fatal("no invalid answers recorded under chatml")
			}
			for _, r := range rows {
				if r.Policy != s.URL+c.path+"#tiny" || r.Temperature == nil {
					t.Fatalf("policy %q temperature %v", r.Policy, r.Temperature)
				}
				if c.dir == word && r.PolicyHash != hash {
					t.Fatalf("policy hash %q, want the checkpoint's %q", r.PolicyHash, hash)
				}
			}
			m := metas[0]
			if m.Extra["policy_server"] != s.URL+c.path || m.Extra["policy_model"] != "tiny" || m.Extra["policy_tokenizer"] != c.dir {
				t.Fatalf("metadata %v", m.Extra)
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(b), key) || strings.Contains(stderr, key) {
				t.Fatal("the API key was written")
			}
			for _, l := range s.Log() {
				if l.Auth != "Bearer "+key {
					t.Fatalf("server got Authorization %q", l.Auth)
				}
			}
		})
	}
	t.Run("gone", func(t *testing.T) {
		s := standIn(t, word)
		s.DownAfter = 6
		out := filepath.Join(t.TempDir(), "t.parquet")
		start := time.Now()
		code, stderr := run(t, "--policy", s.URL+"/v1", "--tokenizer", word, "--model", "tiny", "--server-retries", "1",
			"--tasks", "4", "--group", "2", "--max-context", "300", "-o", out)
		if code != command.ExitFailure || !strings.Contains(stderr, "policy server "+s.URL+"/v1") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Fatalf("exit %d, stderr %q: want exit 1, one line naming the server", code, stderr)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatal("output written")
		}
		t.Logf("failed after %s", time.Since(start))
	})
	t.Run("usage", func(t *testing.T) {
		dir := t.TempDir()
		for name, args := range map[string][]string{
			"no tokenizer":       {"--policy", "http://127.0.0.1:9/v1", "--model", "m"},
			"not a checkpoint":   {"--policy", "http://127.0.0.1:9/v1", "--model", "m", "--tokenizer", dir},
			"vllm without model": {"--policy", "http://127.0.0.1:9/v1", "--tokenizer", word},
			"bad kind":           {"--policy", "http://127.0.0.1:9/v1", "--model", "m", "--tokenizer", word, "--server-kind", "tgi"},
			"model without url":  {"--policy", "oracle", "--model", "m"},
			"zero concurrency":   {"--policy", "http://127.0.0.1:9/v1", "--model", "m", "--tokenizer", word, "--concurrency", "0"},
			"credentials shown":  {"--policy", "http://user:hunter2@127.0.0.1:9/v1?x=1", "--model", "m", "--tokenizer", word},
		} {
			out := filepath.Join(dir, "out.parquet")
			code, stderr := run(t, append(args, "--tasks", "1", "-o", out)...)
			if code != command.ExitUsage || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || strings.Contains(stderr, "hunter2") {
				t.Errorf("%s: exit %d, stderr %q: want exit 2, one line, no password", name, code, stderr)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s: output written", name)
			}
		}
	})
}
