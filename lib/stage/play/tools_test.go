package play

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pats-rl/pats/lib/agent"
	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/policy/servedtest"
	"github.com/pats-rl/pats/lib/rl"
	"github.com/pats-rl/pats/lib/rollout"
	"github.com/pats-rl/pats/lib/table"
)

var update = flag.Bool("update", false, "rewrite testdata/tools-prompt.txt")

var (
	qwenOnce sync.Once
	qwenDir  string
	qwenErr  error
)

// qwen25Checkpoint writes, once per test binary, a Qwen2.5-shaped
// checkpoint with random weights (Qwen2.5's 151,936 ids, tied embeddings,
// rope theta 1e6; one layer of hidden size 32), the real Qwen tokenizer
// and Qwen2.5's chat template as shipped in its tokenizer_config.json.
func qwen25Checkpoint(t *testing.T) string {
	t.Helper()
	qwenOnce.Do(func() {
		cfg := model.Config{
			Architectures: []string{"Qwen2ForCausalLM"}, ModelType: "qwen2",
			HiddenSize: 32, NumHiddenLayers: 1, NumAttentionHeads: 4, NumKeyValueHeads: 2, IntermediateSize: 64,
			VocabSize: 151936, MaxPositionEmbeddings: 4096, RopeTheta: 1e6, RMSNormEps: 1e-6,
			TieWordEmbeddings: true, TorchDtype: "float32", HiddenAct: "silu", InitializerRange: 0.02, UseCache: true,
		}
		m, err := model.New(cfg, 7)
		if err != nil {
			qwenErr = err
			return
		}
		js, err := os.ReadFile(filepath.Join("..", "..", "tokenizer", "testdata", "qwen3", "tokenizer.json"))
		if err != nil {
			qwenErr = err
			return
		}
		tpl, err := os.ReadFile(filepath.Join("..", "..", "chattemplate", "testdata", "qwen2.5.jinja"))
		if err != nil {
			qwenErr = err
			return
		}
		dir, err := os.MkdirTemp("", "qwen25")
		if err != nil {
			qwenErr = err
			return
		}
		qwenDir = filepath.Join(dir, "ckpt")
		if qwenErr = m.Save(qwenDir, js); qwenErr != nil {
			return
		}
		tc, _ := json.Marshal(map[string]any{"chat_template": string(tpl), "eos_token": "<|im_end|>"})
		qwenErr = os.WriteFile(filepath.Join(qwenDir, "tokenizer_config.json"), tc, 0o644)
	})
	if qwenErr != nil {
		t.Fatal(qwenErr)
	}
	return qwenDir
}

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if qwenDir != "" {
		os.RemoveAll(filepath.Dir(qwenDir))
	}
	os.Exit(code)
}

// toolOptions are household episodes with a slate under the tools action
// format.
func toolOptions(policy string) Options {
	f := base()
	f.Policy, f.Skills, f.Group, f.Tasks = policy, true, 2, 2
	f.PromptFormat, f.ActionFormat = "chatml", "tools"
	f.MaxContext, f.MaxActionTokens, f.InvalidPenalty = 1700, 16, 0.25
	return f
}

func play(t *testing.T, f Options) (Episodes, []table.Trajectory) {
	t.Helper()
	ep, err := f.Resolve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := ep.Format.(*agent.ToolChat); !ok {
		t.Fatalf("format %T, want the tools format", ep.Format)
	}
	rows, err := rollout.Run(context.Background(), ep.Options)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 {
		t.Fatalf("%d rows, want 4", len(rows))
	}
	return ep, rows
}

// promptText is a row's text up to its first answer.
func promptText(r table.Trajectory, decode func([]int32) string) string {
	for i, role := range r.Roles {
		if table.PolicyWritten(role) {
			return decode(r.Tokens[:i])
		}
	}
	return decode(r.Tokens)
}

// TestToolRolloutCheckpoint: a rollout of a Qwen2.5-shaped checkpoint
// under --action-format tools: the prompt is the chat template's
// rendering of the tools (the golden text), and the random model's
// answers, which are no valid calls, are invalid answers, each
// penalised and answered with the tools format's reply.
func TestToolRolloutCheckpoint(t *testing.T) {
	dir := qwen25Checkpoint(t)
	ep, rows := play(t, toolOptions(dir))
	text := promptText(rows[0], ep.Tok.Decode)
	path := filepath.Join("testdata", "tools-prompt.txt")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), text); diff != "" {
		t.Errorf("prompt differs from %s (-want +got); run go test -update:\n%s", path, diff)
	}
	for _, s := range []string{"<tools>\n{\"type\": \"function\", \"function\": {\"name\": \"go_to\"", "{\"name\": \"read_skill\"", "Skills you may read:\n"} {
		if !strings.Contains(text, s) {
			t.Errorf("prompt lacks %q", s)
		}
	}
	for _, r := range rows {
		turns := len(r.Actions)
		if turns == 0 || int(r.Invalid) != turns || r.Reward != -0.25*float64(turns) {
			t.Errorf("%s: %d turns, %d invalid, reward %v; want every turn invalid at -0.25", r.TaskID, turns, r.Invalid, r.Reward)
		}
		for i, o := range r.Observations[1:] { // the first is the task's
			if o != agent.ToolInvalidAnswer || r.StepRewards[i] != -0.25 {
				t.Errorf("%s turn %d: observation %q, step reward %v", r.TaskID, i, o, r.StepRewards[i])
				break
			}
		}
	}
}

// TestToolRolloutCalls: the oracle under the tools format writes its
// actions as calls (read_skill first), which parse back into its actions:
// every episode succeeds with no invalid answer, and SkillGate's
// selection channel reaches exactly the tokens of the skill's name in the
// read_skill call.
func TestToolRolloutCalls(t *testing.T) {
	f := toolOptions("oracle")
	f.Tokenizer, f.MaxContext = qwen25Checkpoint(t), DefaultMaxContext
	ep, rows := play(t, f)
	for _, r := range rows {
		if !r.Success || r.Invalid != 0 || len(r.Reads) != 1 || !r.ReadsRight[0] {
			t.Fatalf("%s: success %v, invalid %d, reads %v", r.TaskID, r.Success, r.Invalid, r.Reads)
		}
		if r.Actions[0] != agent.ReadVerb+" "+r.Reads[0] || strings.Contains(strings.Join(r.Actions, "|"), "tool_call") {
			t.Errorf("%s: actions %q", r.TaskID, r.Actions)
		}
		text := ep.Tok.Decode(r.Tokens)
		if !strings.Contains(text, "<tool_call>\n{\"name\": \"read_skill\", \"arguments\": {\"name\": \""+r.Reads[0]+"\"}}\n</tool_call><|im_end|>") {
			t.Errorf("%s: no read_skill call in the context", r.TaskID)
		}
		roles := agent.RecordedReadRoles(r.Roles, r.ReadTurns, len(r.Reads))
		adv, ch := rl.TokenCredit(roles, rl.SkillGate, 0.5, 2, true)
		var sel, out []int32
		for i := range roles {
			switch ch[i] {
			case rl.ChannelSelection:
				sel = append(sel, r.Tokens[i])
				if adv[i] != 2 {
					t.Errorf("%s: selection token %d has advantage %v", r.TaskID, i, adv[i])
				}
			case rl.ChannelOutcome:
				out = append(out, r.Tokens[i])
			}
		}
		if got := ep.Tok.Decode(sel); got != r.Reads[0] {
			t.Errorf("%s: the selection channel reaches %q, want the name %q", r.TaskID, got, r.Reads[0])
		}
		if !strings.Contains(ep.Tok.Decode(out), "{\"name\": \"read_skill\", \"arguments\": {\"name\": \"") {
			t.Errorf("%s: the call's other tokens are not execution tokens", r.TaskID)
		}
	}
}

// TestToolRolloutServed: a server policy (the stand-in, started from the
// Qwen2.5-shaped checkpoint) plays under the same tools format: each
// prompt the server receives holds the template's tools block, the
// recorded answers are the ids the server answered, and its invalid
// answers are penalised as a local checkpoint's are.
func TestToolRolloutServed(t *testing.T) {
	dir := qwen25Checkpoint(t)
	m, err := model.OpenFolder(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := servedtest.New(m.Model)
	defer s.Close()
	f := toolOptions(s.URL + "/v1")
	f.Tokenizer, f.Server = dir, ServerOptions{Model: "tiny", Concurrency: 2, Retries: 1}
	ep, rows := play(t, f)
	log := s.Log()
	if len(log) == 0 {
		t.Fatal("the server answered nothing")
	}
	answered := map[string]bool{}
	for _, l := range log {
		if !strings.Contains(ep.Tok.Decode(l.Prompt), "# Tools\n\nYou may call one or more functions") {
			t.Fatal("a prompt the server received has no tools block")
		}
		answered[ep.Tok.Decode(l.IDs)] = true
	}
	for _, r := range rows {
		if r.Invalid == 0 || r.Reward != -0.25*float64(r.Invalid) {
			t.Errorf("%s: %d invalid, reward %v", r.TaskID, r.Invalid, r.Reward)
		}
		for i := 0; i < len(r.Tokens); {
			if !table.PolicyWritten(r.Roles[i]) {
				i++
				continue
			}
			j := i
			for j < len(r.Tokens) && table.PolicyWritten(r.Roles[j]) {
				j++
			}
			if !answered[ep.Tok.Decode(r.Tokens[i:j])] {
				t.Errorf("%s: an answer the server did not give: %q", r.TaskID, ep.Tok.Decode(r.Tokens[i:j]))
			}
			i = j
		}
	}
}

// TestToolFormatRefuses: what the tools format cannot be is a usage
// error that says why.
func TestToolFormatRefuses(t *testing.T) {
	dir := qwen25Checkpoint(t)
	bare := t.TempDir() // the tokenizer alone
	if err := os.Symlink(filepath.Join(dir, model.TokenizerFile), filepath.Join(bare, model.TokenizerFile)); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		set  func(*Options)
		want string
	}{
		{"unknown", func(f *Options) { f.ActionFormat = "json" }, `"json": want tags or tools`},
		{"builtin prompt", func(f *Options) { f.PromptFormat = "builtin"; f.Tokenizer = "" }, "needs the chatml prompt format"},
		{"no chat template", func(f *Options) { f.Tokenizer = bare }, "no chat template"},
	}
	for _, c := range cases {
		f := toolOptions("oracle")
		f.Tokenizer = dir
		c.set(&f)
		_, err := f.Resolve(context.Background())
		if err == nil || !strings.Contains(err.Error(), c.want) || command.Code(err) != command.ExitUsage {
			t.Errorf("%s: %v, want a usage error with %q", c.name, err, c.want)
		}
	}
}

// TestWithContextActionFormat: agent.json's action_format fills in
// --action-format where the user gave none, a flag overrides it (and the
// override is recorded), and a bad value is refused naming the file.
func TestWithContextActionFormat(t *testing.T) {
	ckpt := func(agent string) string {
		dir := t.TempDir()
		for name, body := range map[string]string{"config.json": "{}", "agent.json": agent} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	tools := ckpt(`{"prompt_format": "chatml", "action_format": "tools"}`)
	f, meta, err := Options{Policy: tools}.WithContext()
	if err != nil || f.ActionFormat != "tools" || meta["agent_context"] != "prompt_format=chatml action_format=tools" {
		t.Errorf("taken: %q, %v, %v", f.ActionFormat, meta, err)
	}
	f, meta, err = Options{Policy: tools, PolicyOptions: PolicyOptions{ActionFormat: "tags"}}.WithContext()
	if err != nil || f.ActionFormat != "tags" || meta["agent_context_overrides"] != "--action-format tags (agent.json: tools)" {
		t.Errorf("overridden: %q, %v, %v", f.ActionFormat, meta, err)
	}
	for agent, want := range map[string]string{
		`{"action_format": "json"}`:                              `action_format "json": want tags or tools`,
		`{"prompt_format": "builtin", "action_format": "tools"}`: "action_format tools needs the chatml prompt format",
	} {
		dir := ckpt(agent)
		_, _, err := Options{Policy: dir}.WithContext()
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), filepath.Join(dir, "agent.json")) {
			t.Errorf("%s: %v, want an error naming the file with %q", agent, err, want)
		}
	}
}

// TestToolRolloutExec: an exec: child's own tools (its info answer's)
// are the tools of the prompt, and the random agent's actions, written as
// calls of them, reach the child as its actions.
func TestToolRolloutExec(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "envserve")
	build := exec.Command("go", "build", "-o", bin, "../../env/internal/envserve")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building envserve: %v\n%s", err, out)
	}
	f := toolOptions("random")
	f.Env, f.Skills, f.Tokenizer, f.MaxContext = "exec:"+bin+" -tools", false, qwen25Checkpoint(t), DefaultMaxContext
	ep, rows := play(t, f)
	text := promptText(rows[0], ep.Tok.Decode)
	for _, s := range []string{`{"name": "inc", "description": "Add one."`, `{"name": "step", "description": "Move by some.", "parameters": {"type": "object", "properties": {"by": {"type": "integer"}}, "required": ["by"]}}`} {
		if !strings.Contains(text, s) {
			t.Errorf("prompt lacks %q:\n%s", s, text)
		}
	}
	if strings.Contains(text, "read_skill") {
		t.Error("read_skill offered without a slate")
	}
	for _, r := range rows {
		if r.Invalid != 0 || len(r.Actions) == 0 {
			t.Errorf("%s: %d invalid of %d", r.TaskID, r.Invalid, len(r.Actions))
		}
		for _, a := range r.Actions {
			if a != "inc" && a != "dec" && a != "look" {
				t.Errorf("%s: action %q", r.TaskID, a)
			}
		}
	}
}
