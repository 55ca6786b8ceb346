package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/pats-rl/pats/lib/output"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pats-rl/pats/lib/agent"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// Files of a Hugging Face checkpoint that say how it chats and samples.
const (
	GenerationConfigFile = "generation_config.json"
	TokenizerConfigFile  = "tokenizer_config.json"
	ChatTemplateFile     = "chat_template.jinja"
)

// GenerationConfig is what rollout reads of generation_config.json: the
// ids that end generation, and the sampling defaults (nil when absent).
type GenerationConfig struct {
	EOS               []int32
	Temperature       *float64
	TopP              *float64
	TopK              *int
	RepetitionPenalty *float64
	// DoSample false (do_sample: false) asks for greedy decoding.
	DoSample *bool
}

// neutral says, for each generation_config.json key that shapes the
// distribution a token is drawn from and that pats does not implement,
// whether its value leaves the distribution alone (null counts as
// neutral). A folder that sets one of them otherwise is refused rather
// than sampled from differently than its author meant.
var neutral = map[string]func(v any) bool{
	"min_p":                            isNullOr(0.0),
	"typical_p":                        isNullOr(1.0),
	"epsilon_cutoff":                   isNullOr(0.0),
	"eta_cutoff":                       isNullOr(0.0),
	"no_repeat_ngram_size":             isNullOr(0.0),
	"encoder_no_repeat_ngram_size":     isNullOr(0.0),
	"encoder_repetition_penalty":       isNullOr(1.0),
	"num_beams":                        isNullOr(1.0),
	"num_beam_groups":                  isNullOr(1.0),
	"diversity_penalty":                isNullOr(0.0),
	"penalty_alpha":                    isNullOr(0.0),
	"guidance_scale":                   isNullOr(1.0),
	"min_new_tokens":                   isNullOr(0.0),
	"min_length":                       isNullOr(0.0),
	"bad_words_ids":                    isEmpty,
	"suppress_tokens":                  isEmpty,
	"begin_suppress_tokens":            isEmpty,
	"sequence_bias":                    isEmpty,
	"forced_bos_token_id":              isEmpty,
	"forced_eos_token_id":              isEmpty,
	"exponential_decay_length_penalty": isEmpty,
	"force_words_ids":                  isEmpty,
	"constraints":                      isEmpty,
	"watermarking_config":              isEmpty,
}

func isNullOr(want float64) func(any) bool {
	return func(v any) bool {
		f, ok := v.(float64)
		return v == nil || ok && f == want
	}
}

func isEmpty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}

// ReadGenerationConfig reads dir/generation_config.json; a folder without
// one gives the zero value. eos_token_id may be one id or a list.
func ReadGenerationConfig(dir string) (GenerationConfig, error) {
	var g GenerationConfig
	path := filepath.Join(dir, GenerationConfigFile)
	b, err := output.ReadFile(path, output.MaxTextBytes)
	if errors.Is(err, os.ErrNotExist) {
		return g, nil
	}
	if err != nil {
		return g, err
	}
	var raw struct {
		EOS               json.RawMessage `json:"eos_token_id"`
		Temperature       *float64        `json:"temperature"`
		TopP              *float64        `json:"top_p"`
		TopK              *int            `json:"top_k"`
		RepetitionPenalty *float64        `json:"repetition_penalty"`
		DoSample          *bool           `json:"do_sample"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return g, fmt.Errorf("%s: %v", path, err)
	}
	var all map[string]any
	if err := json.Unmarshal(b, &all); err != nil {
		return g, fmt.Errorf("%s: %v", path, err)
	}
	keys := make([]string, 0, len(all))
	for k := range all {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if ok, known := neutral[k]; known && !ok(all[k]) {
			return g, fmt.Errorf("%s: %s %s is not supported (pats samples with temperature, top_p, top_k and repetition_penalty only); remove it or set it to its neutral value", path, k, compact(all[k]))
		}
	}
	g.Temperature, g.TopP, g.TopK, g.RepetitionPenalty, g.DoSample = raw.Temperature, raw.TopP, raw.TopK, raw.RepetitionPenalty, raw.DoSample
	if len(raw.EOS) > 0 && string(raw.EOS) != "null" {
		var one int32
		if err := json.Unmarshal(raw.EOS, &one); err == nil {
			g.EOS = []int32{one}
		} else if err := json.Unmarshal(raw.EOS, &g.EOS); err != nil {
			return g, fmt.Errorf("%s: eos_token_id is neither an id nor a list of ids", path)
		}
	}
	if g.Temperature != nil && !(*g.Temperature >= 0) {
		return g, fmt.Errorf("%s: temperature %v is negative", path, *g.Temperature)
	}
	if g.TopP != nil && !(*g.TopP > 0 && *g.TopP <= 1) {
		return g, fmt.Errorf("%s: top_p %v is not in (0, 1]", path, *g.TopP)
	}
	if g.TopK != nil && *g.TopK < 0 {
		return g, fmt.Errorf("%s: top_k %d is negative", path, *g.TopK)
	}
	if g.RepetitionPenalty != nil && !(*g.RepetitionPenalty > 0) {
		return g, fmt.Errorf("%s: repetition_penalty %v is not positive", path, *g.RepetitionPenalty)
	}
	return g, nil
}

func compact(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// HasChatML reports whether the checkpoint in dir chats in ChatML: its
// tokenizer_config.json's chat_template (a string, or a list of named
// templates) or its chat_template.jinja contains <|im_start|>.
func HasChatML(dir string) (bool, error) {
	if b, err := output.ReadFile(filepath.Join(dir, ChatTemplateFile), output.MaxTextBytes); err == nil {
		if strings.Contains(string(b), "<|im_start|>") {
			return true, nil
		}
	}
	path := filepath.Join(dir, TokenizerConfigFile)
	b, err := output.ReadFile(path, output.MaxTextBytes)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	var cfg struct {
		ChatTemplate json.RawMessage `json:"chat_template"`
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		return false, fmt.Errorf("%s: %v", path, err)
	}
	var one string
	if json.Unmarshal(cfg.ChatTemplate, &one) == nil {
		return strings.Contains(one, "<|im_start|>"), nil
	}
	var named []struct {
		Template string `json:"template"`
	}
	if json.Unmarshal(cfg.ChatTemplate, &named) == nil {
		for _, t := range named {
			if strings.Contains(t.Template, "<|im_start|>") {
				return true, nil
			}
		}
	}
	return false, nil
}

// DefaultFormat is the prompt format of the checkpoint in dir: chatml when
// it chats in ChatML (HasChatML), else builtin; "" (no checkpoint) is
// builtin.
func DefaultFormat(dir string) (string, error) {
	if dir == "" {
		return "builtin", nil
	}
	chat, err := HasChatML(dir)
	if err != nil || !chat {
		return "builtin", err
	}
	return "chatml", nil
}

// ChooseFormat returns the prompt format name (builtin or chatml) under
// tok. chatml needs a byte-level BPE tokenizer with <|im_start|> and the
// end-of-turn token <|im_end|>, and its answers end at <|im_end|> and at
// the ids of eos (generation_config.json); builtin needs the built-in
// special tokens.
func ChooseFormat(name string, tok tokenizer.Tokenizer, eos []int32) (agent.Format, error) {
	switch name {
	case "chatml":
		if _, ok := tok.(*tokenizer.BPE); !ok {
			return nil, fmt.Errorf("a word-level tokenizer (the built-in models') has no chat format; chatml needs a Qwen-family checkpoint's tokenizer.json")
		}
		return agent.NewChatML(tok, eos)
	case "builtin":
		for _, s := range tokenizer.Specials {
			if _, ok := tok.TokenID(s); !ok {
				return nil, fmt.Errorf("tokenizer has no %s token: the builtin format needs the built-in special tokens (a chat checkpoint takes the chatml format)", s)
			}
		}
		return agent.WordLevelFormat{}, nil
	}
	return nil, fmt.Errorf("unknown prompt format %q (want builtin or chatml)", name)
}
