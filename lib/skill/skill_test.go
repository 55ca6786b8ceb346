package skill

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/words"
)

// Task types of the built-in environments.
var envTaskTypes = map[string][]string{
	"household": {"pick_and_place_simple", "look_at_obj_in_light", "pick_clean_then_place_in_recep",
		"pick_heat_then_place_in_recep", "pick_cool_then_place_in_recep", "pick_two_obj_and_place"},
	"household-rl": {"pick_and_place_simple", "look_at_obj_in_light", "pick_clean_then_place_in_recep",
		"pick_heat_then_place_in_recep", "pick_cool_then_place_in_recep", "pick_two_obj_and_place"},
	"shop":     {"beauty", "electronics", "fashion", "food", "furniture"},
	"searchqa": {"single_hop", "two_hop", "three_hop"},
}

func TestShippedLibraries(t *testing.T) {
	if got, want := ShippedEnvs(), []string{"household", "household-rl", "searchqa", "shop"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("ShippedEnvs = %v, want %v", got, want)
	}
	for env, types := range envTaskTypes {
		l, err := ShippedLibrary(env)
		if err != nil {
			t.Fatalf("ShippedLibrary(%q): %v", env, err)
		}
		if l.Len() < 20 {
			t.Errorf("%s: %d skills, want at least 20", env, l.Len())
		}
		for _, tt := range types {
			if len(l.Right(tt)) == 0 {
				t.Errorf("%s: no right skill for %s", env, tt)
			}
			if len(l.Misleading(tt)) == 0 {
				t.Errorf("%s: no misleading skill for %s", env, tt)
			}
			if _, err := l.Slate(tt, DefaultSlateSize, 1); err != nil {
				t.Errorf("%s: slate of %d for %s: %v", env, DefaultSlateSize, tt, err)
			}
		}
		// Every task type named in metadata is one of the environment's.
		for _, tt := range l.TaskTypes() {
			if !slices.Contains(types, tt) {
				t.Errorf("%s: metadata names unknown task type %q", env, tt)
			}
		}
		unrelated := 0
		for _, s := range l.Skills() {
			if !s.Related() {
				unrelated++
			}
			if n := len(strings.Fields(s.Body)); n > 60 {
				t.Errorf("%s/%s: body has %d words, want at most 60", env, s.Name, n)
			}
			// Plain lowercase words so the word-level tokenizer knows them;
			// descriptions stay valid plain YAML scalars.
			if s.Body != strings.ToLower(s.Body) {
				t.Errorf("%s/%s: body is not lower case", env, s.Name)
			}
			if strings.Contains(s.Description, ": ") || strings.Contains(s.Description, " #") {
				t.Errorf("%s/%s: description is not a plain YAML scalar", env, s.Name)
			}
			if !strings.HasPrefix(s.Path, "library/"+env+"/"+s.Name+"/") {
				t.Errorf("%s/%s: path %q", env, s.Name, s.Path)
			}
		}
		if unrelated < 3 {
			t.Errorf("%s: %d unrelated skills, want at least 3", env, unrelated)
		}
	}
	if _, err := ShippedLibrary("nowhere"); err == nil || !strings.Contains(err.Error(), "nowhere") {
		t.Errorf("ShippedLibrary(nowhere) error = %v", err)
	}
}

// TestSharedLibraries: a world without a library of its own gets the one
// of the world whose tasks it shares, skill for skill.
func TestSharedLibraries(t *testing.T) {
	for world, want := range map[string]string{
		"household-drawn":        "household",
		"household-drawn-large":  "household",
		"household-drawn-places": "household",
		"household-rl-large":     "household-rl",
	} {
		got, err := ShippedLibrary(world)
		if err != nil {
			t.Fatalf("ShippedLibrary(%q): %v", world, err)
		}
		own, err := ShippedLibrary(want)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Skills()) != len(own.Skills()) {
			t.Fatalf("%s: %d skills, %s has %d", world, len(got.Skills()), want, len(own.Skills()))
		}
		for i, s := range got.Skills() {
			if o := own.Skills()[i]; s.Name != o.Name || s.Body != o.Body {
				t.Fatalf("%s: skill %d is %s, %s's is %s", world, i, s.Name, want, o.Name)
			}
		}
	}
}

func TestVocabulary(t *testing.T) {
	l, err := ShippedLibrary("household")
	if err != nil {
		t.Fatal(err)
	}
	voc := l.Vocabulary()
	if !slices.IsSorted(voc) {
		t.Error("vocabulary not sorted")
	}
	for i := 1; i < len(voc); i++ {
		if voc[i] == voc[i-1] {
			t.Fatalf("duplicate word %q", voc[i])
		}
	}
	for _, w := range []string{"microwave", "heat", "-", ".", "1", "desklamp", "pick_heat_then_place_in_recep"} {
		_, found := slices.BinarySearch(voc, w)
		if w == "pick_heat_then_place_in_recep" {
			// Metadata is not shown to the policy, so it is not vocabulary.
			if found {
				t.Errorf("vocabulary holds metadata word %q", w)
			}
			continue
		}
		if !found {
			t.Errorf("vocabulary lacks %q", w)
		}
	}
	// Every word of every shown text is in the vocabulary.
	for _, s := range l.Skills() {
		for _, w := range words.Split(s.Name + " " + s.Description + " " + s.Body) {
			if _, ok := slices.BinarySearch(voc, w); !ok {
				t.Fatalf("word %q of %s missing", w, s.Name)
			}
		}
	}
}

func TestWords(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"Heat-then-place", []string{"heat", "-", "then", "-", "place"}},
		{"click[buy now].", []string{"click", "[", "buy", "now", "]", "."}},
		{"pick_two_obj_and_place  x1", []string{"pick_two_obj_and_place", "x1"}},
		{"next >\n< prev", []string{"next", ">", "<", "prev"}},
		{"a,b", []string{"a", ",", "b"}},
	} {
		if got := words.Split(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("words.Split(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestValidateName(t *testing.T) {
	for _, c := range []struct {
		name string
		ok   bool
	}{
		{"heat-then-place", true},
		{"a", true},
		{"skill2", true},
		{strings.Repeat("a", 64), true},
		{strings.Repeat("a", 65), false},
		{"", false},
		{"Heat", false},
		{"heat--place", false},
		{"-heat", false},
		{"heat-", false},
		{"heat_place", false},
		{"heat place", false},
		{"héat", false},
	} {
		err := ValidateName(c.name)
		if (err == nil) != c.ok {
			t.Errorf("ValidateName(%q) = %v, want ok=%v", c.name, err, c.ok)
		}
	}
}

func TestParse(t *testing.T) {
	long := strings.Repeat("x", 1025)
	for _, c := range []struct {
		label, text, dir string
		wantErr          string // substring; empty means success
	}{
		{"ok", "---\nname: a-b\ndescription: does a then b\n---\nbody\n", "a-b", ""},
		{"uppercase", "---\nname: A-b\ndescription: d\n---\n", "A-b", "lowercase"},
		{"double hyphen", "---\nname: a--b\ndescription: d\n---\n", "a--b", "consecutive"},
		{"leading hyphen", "---\nname: -ab\ndescription: d\n---\n", "-ab", "hyphen"},
		{"folder mismatch", "---\nname: a-b\ndescription: d\n---\n", "a-c", "folder"},
		{"too long name", "---\nname: " + strings.Repeat("a", 65) + "\ndescription: d\n---\n", "", "more than 64"},
		{"too long description", "---\nname: a\ndescription: " + long + "\n---\n", "a", "more than 1024"},
		{"max description", "---\nname: a\ndescription: " + long[1:] + "\n---\n", "a", ""},
		{"no name", "---\ndescription: d\n---\n", "", "no name"},
		{"no description", "---\nname: a\n---\n", "a", "no description"},
		{"no front matter", "name: a\n", "a", "front matter"},
		{"unclosed", "---\nname: a\ndescription: d\n", "a", "not closed"},
		{"unknown key", "---\nname: a\ndescription: d\nauthor: me\n---\n", "a", "unknown key \"author\""},
		{"duplicate key", "---\nname: a\nname: a\ndescription: d\n---\n", "a", "duplicate"},
		{"block scalar", "---\nname: a\ndescription: >\n  d\n---\n", "a", "block scalars"},
		{"stray indent", "---\nname: a\n  description: d\n---\n", "a", "front matter line 3: mapping values are not allowed"},
		{"both", "---\nname: a\ndescription: d\nmetadata:\n  right-for: x\n  misleading-for: y, x\n---\n", "a", "both"},
		{"bad metadata", "---\nname: a\ndescription: d\nmetadata: x\n---\n", "a", "metadata must be a map"},
		{"second document", "---\nname: a\ndescription: d\n--- {name: b}\n---\n", "a", "a second YAML document"},
		{"quoted", "---\nname: \"a\"\ndescription: 'it''s: fine'\n---\n", "a", ""},
		{"NUL in the body", "---\nname: a\ndescription: d\n---\nline one\nli\x00ne two\n", "a", "line 6 holds a NUL byte"},
		{"not UTF-8", "---\nname: a\ndescription: d\n---\n\xff\n", "a", "line 5 holds a byte that is not UTF-8"},
		{"UTF-8 body", "---\nname: a\ndescription: d\n---\nHéat the mug \uFFFD ok\n", "a", ""},
	} {
		s, err := Parse(c.text, c.dir)
		if c.wantErr == "" {
			if err != nil {
				t.Errorf("%s: %v", c.label, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.wantErr) {
			t.Errorf("%s: got %v (skill %+v), want error containing %q", c.label, err, s, c.wantErr)
		}
	}
}

func TestParseMetadata(t *testing.T) {
	text := "---\r\nname: cool-it\r\ndescription: \"Cool \\\"it\\\" down\"\r\nlicense: MIT\r\nmetadata:\r\n" +
		"  right-for: [t1, 't2']\r\n  misleading-for: t3 # a comment\r\n  author: someone\r\n---\r\n\r\n  go to fridge 1.\r\n"
	s, err := Parse(text, "cool-it")
	if err != nil {
		t.Fatal(err)
	}
	want := Skill{
		Name: "cool-it", Description: `Cool "it" down`, Body: "go to fridge 1.",
		RightFor: []string{"t1", "t2"}, MisleadingFor: []string{"t3"},
		Metadata: map[string]string{"right-for": "t1, t2", "misleading-for": "t3", "author": "someone"},
	}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("got %+v\nwant %+v", s, want)
	}
}

func writeSkill(t *testing.T, dir, folder, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, folder), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, folder, FileName), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadDir(t *testing.T) {
	dir := t.TempDir()
	writeSkill(t, dir, "zeta", "---\nname: zeta\ndescription: z\nmetadata:\n  right-for: t\n---\nzz\n")
	writeSkill(t, dir, "alpha", "---\nname: alpha\ndescription: a\nmetadata:\n  misleading-for: t\n---\naa\n")
	if err := os.MkdirAll(filepath.Join(dir, "notes"), 0o755); err != nil { // no SKILL.md: skipped
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("hi"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Names(); !reflect.DeepEqual(got, []string{"alpha", "zeta"}) {
		t.Errorf("names = %v", got)
	}
	s, ok := l.Get("zeta")
	if !ok || s.Body != "zz" || s.Path != filepath.Join(dir, "zeta", FileName) {
		t.Errorf("Get(zeta) = %+v, %v", s, ok)
	}
	if _, ok := l.Get("beta"); ok {
		t.Error("Get(beta) found a skill")
	}
	if !l.IsRight("zeta", "t") || l.IsRight("alpha", "t") || l.IsRight("zeta", "u") || l.IsRight("nope", "t") {
		t.Error("IsRight wrong")
	}
	if !l.IsMisleading("alpha", "t") || l.IsMisleading("zeta", "t") {
		t.Error("IsMisleading wrong")
	}

	// A bad skill is an error naming its file.
	writeSkill(t, dir, "Bad", "---\nname: Bad\ndescription: b\n---\n")
	_, err = LoadDir(dir)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "Bad", FileName)) {
		t.Errorf("bad skill: error %v does not name the file", err)
	}
	if _, err := LoadDir(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no <name>/SKILL.md") {
		t.Errorf("empty folder: %v", err)
	}
	if _, err := LoadDir(filepath.Join(dir, "missing")); err == nil {
		t.Error("missing folder: no error")
	}
}

func TestNewDuplicate(t *testing.T) {
	if _, err := New([]Skill{{Name: "a"}, {Name: "a"}}); err == nil || !strings.Contains(err.Error(), "two skills") {
		t.Errorf("duplicate names: %v", err)
	}
}
