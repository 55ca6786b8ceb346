package vocabulary_test

import (
	"context"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/env"
	"github.com/pats-rl/pats/lib/env/shipped"
	"github.com/pats-rl/pats/lib/refiner"
	"github.com/pats-rl/pats/lib/rollout"
	"github.com/pats-rl/pats/lib/scaffold"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// TestRefinerTextsInVocabulary: every item text the rule-based refiner can
// write from the features and failure modes that the built-in environments'
// episodes show (oracle and random), and the scaffold's headings, encode
// without the unknown token.
func TestRefinerTextsInVocabulary(t *testing.T) {
	tok, err := tokenizer.ShippedWordLevel()
	if err != nil {
		t.Fatal(err)
	}
	unk, _ := tok.TokenID(tokenizer.Unk)
	check := func(what, text string) {
		for _, id := range tok.Encode(text) {
			if id == unk {
				t.Errorf("%s: %q has a word outside the built-in vocabulary", what, text)
				return
			}
		}
	}
	z, _, _ := scaffold.Render(nil, "", 0, nil)
	check("empty render", z)
	for _, h := range []string{scaffold.HeadingGeneral, scaffold.HeadingTask, scaffold.HeadingMistake} {
		check("heading", "- "+h)
	}
	ref := refiner.NewRuleBased()
	for _, name := range shipped.Names {
		e, err := env.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		feats := map[string]bool{}
		for _, pol := range []rollout.Policy{
			rollout.TextPolicy{PolicyName: "oracle", New: e.Oracle},
			rollout.TextPolicy{PolicyName: "random", New: env.RandomAgent},
		} {
			rows, err := rollout.Run(context.Background(), rollout.Options{Env: e, Split: "train", Tasks: 24, Group: 2,
				Seed: 7, Policy: pol, Tok: tok, MaxContext: 4096})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rows {
				for _, f := range r.Features {
					feats[f] = true
				}
				if r.FailureMode != "" {
					feats["failure:"+r.FailureMode] = true
				}
			}
		}
		if len(feats) < 5 {
			t.Fatalf("%s: only %d features seen", name, len(feats))
		}
		for f := range feats {
			check(name+" feature "+f, ref.Text(f))
			if !strings.HasPrefix(f, "failure:") {
				check(name+" feature "+f, ref.Text("failure:"+f[strings.Index(f, ":")+1:]))
			}
		}
	}
}
