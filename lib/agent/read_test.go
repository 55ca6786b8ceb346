package agent

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// readSpellings are hostile spellings of read actions: what ParseRead makes
// of each (is it a read, and the name as written).
var readSpellings = []struct {
	action string
	read   bool
	name   string
}{
	{"read_skill heat-then-place", true, "heat-then-place"},
	{"read_skill. ladle 1", false, ""},                        // punctuation after the verb: no read
	{"read_skill.ladle", false, ""},                           // the same without a space
	{"read_skill -x", false, ""},                              // a name must start with a word character
	{"read_skill sinkbasin 2 fill", true, "sinkbasin 2 fill"}, // extra words stay in the name
	{"READ_SKILL Heat-Then-Place", true, "Heat-Then-Place"},   // the verb in any case; the name as written
	{"Read_Skill heat", true, "heat"},
	{"  read_skill \t heat-then-place \n", true, "heat-then-place"}, // white space around
	{"read_skill heat   then  place", true, "heat   then  place"},   // a name with spaces, inner spaces kept
	{"read_skill", true, ""},                                        // an empty name
	{"read_skill   ", true, ""},                                     // an empty name with trailing space
	{"read_skills heat", false, ""},                                 // another word
	{"read_skill_x heat", false, ""},                                // '_' is a word character: another word
	{"go read_skill heat", false, ""},                               // the verb counts only first
	{"go to fridge 1", false, ""},
	{"", false, ""},
	{"read_skill heat.", true, "heat."}, // trailing punctuation is part of the name
	{"read_skill 2", true, "2"},
}

func TestParseRead(t *testing.T) {
	for _, c := range readSpellings {
		name, ok := ParseRead(c.action)
		if ok != c.read || name != c.name {
			t.Errorf("ParseRead(%q) = %q, %v; want %q, %v", c.action, name, ok, c.name, c.read)
		}
	}
}

// TestReadRolesAgree: in both formats, the tokens a spelling's answer gets
// role skill_name are exactly those over the name ParseRead finds in the
// text the tokens spell (the answer a checkpoint's driver returns), and
// only when ParseRead finds a read.
func TestReadRolesAgree(t *testing.T) {
	word, err := tokenizer.ShippedWordLevel()
	if err != nil {
		t.Fatal(err)
	}
	chat, err := NewChatML(qwen(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	formats := []struct {
		name string
		tok  tokenizer.Tokenizer
		f    Format
	}{{"builtin", word, WordLevelFormat{}}, {"chatml", qwen(t), chat}}
	for _, fm := range formats {
		for _, c := range readSpellings {
			ids := fm.f.Answer(fm.tok, c.action)
			roles := fm.f.AnswerRoles(fm.tok, ids)
			// What a checkpoint's driver returns: the tokens before the end.
			text := fm.tok.Decode(ids[:len(ids)-1])
			action, ok := fm.f.Parse(text)
			if !ok {
				if c.action == "" || strings.TrimSpace(c.action) == "" {
					continue
				}
				t.Fatalf("%s %q: no action in %q", fm.name, c.action, text)
			}
			name, read := ParseRead(action)
			if read != c.read {
				t.Errorf("%s %q: decoded %q read %v, want %v", fm.name, c.action, action, read, c.read)
			}
			var named []int32
			for i, r := range roles {
				if r == table.RoleSkillName {
					named = append(named, ids[i])
				}
			}
			got := strings.TrimSpace(fm.tok.Decode(named))
			// A BPE token may run past the name (".</" ends "heat.</action>"):
			// under chatml the tokens cover the name, under builtin they spell it.
			want := strings.ToLower(name)
			covers := strings.EqualFold(got, want)
			if fm.name == "chatml" {
				covers = strings.Contains(strings.ToLower(got), want) && (want == "") == (got == "")
			}
			if !covers {
				t.Errorf("%s %q: skill_name tokens spell %q, want %q (roles %v)", fm.name, c.action, got, want, roles)
			}
			if !read && len(named) > 0 {
				t.Errorf("%s %q: %d skill_name tokens in an answer that is no read", fm.name, c.action, len(named))
			}
		}
	}
}

func TestActionRoles(t *testing.T) {
	tok, err := tokenizer.ShippedWordLevel()
	if err != nil {
		t.Fatal(err)
	}
	A, N := table.RoleAction, table.RoleSkillName
	cases := []struct {
		action string
		want   []int8
	}{
		{"go to fridge 1", []int8{A, A, A, A, A}},
		{"read_skill heat-then-place", []int8{A, N, N, N, N, N, A}},
		{"read_skill", []int8{A, A}},
		{"read_skill. ladle 1", []int8{A, A, A, A, A}},
		{"read_skill sinkbasin 2 fill", []int8{A, N, N, N, A}},
		{"go read_skill heat", []int8{A, A, A, A}},
	}
	for _, c := range cases {
		ids := EncodeAction(tok, c.action)
		if diff := cmp.Diff(c.want, ActionRoles(tok, ids)); diff != "" {
			t.Errorf("%q roles (-want +got):\n%s", c.action, diff)
		}
	}
}

// TestTextAnswerRoles: a text agent's answer (AddAnswer) under the built-in
// format gets its skill-name roles from the action as written: the tokens
// of the name ParseRead finds, none when it finds no read, also for a name
// outside the vocabulary and for spellings the tokenizer would respace.
func TestTextAnswerRoles(t *testing.T) {
	tok, err := tokenizer.ShippedWordLevel()
	if err != nil {
		t.Fatal(err)
	}
	extra := []string{"read_skill no-such-skill-zzqx", "read_skill(x)", "read_skill !x"}
	actions := extra
	for _, c := range readSpellings {
		actions = append(actions, c.action)
	}
	for _, a := range actions {
		c := NewContext(tok)
		at := c.Len()
		text := AddAnswer(c, a)
		name, read := ParseRead(text)
		n := 0
		for _, r := range c.Roles[at:] {
			if r == table.RoleSkillName {
				n++
			}
		}
		want := 0
		if read {
			want = len(tok.Encode(name))
		}
		if n != want {
			t.Errorf("%q: %d skill_name tokens, want %d (read %v, name %q)", a, n, want, read, name)
		}
	}
}
