package chattemplate

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReference: every case of testdata/cases.json (the Qwen2.5 and Qwen3
// templates as shipped, with and without tools, tool calls and tool
// responses, and a template of the other supported features) renders to
// the text Python's jinja2 gives (testdata/reference.json, written by
// scripts/chattemplate-ref/gen.py).
func TestReference(t *testing.T) {
	var cases []struct {
		Name     string          `json:"name"`
		Template string          `json:"template"`
		Vars     json.RawMessage `json:"vars"`
	}
	readJSON(t, "cases.json", &cases)
	var ref struct {
		Cases []struct{ Name, Text string } `json:"cases"`
	}
	readJSON(t, "reference.json", &ref)
	if len(ref.Cases) != len(cases) || len(cases) < 10 {
		t.Fatalf("%d cases, %d references", len(cases), len(ref.Cases))
	}
	for i, c := range cases {
		src, err := os.ReadFile(filepath.Join("testdata", c.Template))
		if err != nil {
			t.Fatal(err)
		}
		tpl, err := Parse(string(src))
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		v, err := Decode(c.Vars)
		if err != nil {
			t.Fatal(err)
		}
		vars := map[string]any{}
		for _, k := range v.(*Map).Keys() {
			vars[k], _ = v.(*Map).Get(k)
		}
		got, err := tpl.Render(vars)
		if err != nil {
			t.Errorf("%s: %v", c.Name, err)
			continue
		}
		if ref.Cases[i].Name != c.Name {
			t.Fatalf("reference %d is %q, want %q: rerun the generator", i, ref.Cases[i].Name, c.Name)
		}
		if diff := cmp.Diff(ref.Cases[i].Text, got); diff != "" {
			t.Errorf("%s (-jinja2 +got):\n%s", c.Name, diff)
		}
	}
}

func readJSON(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// TestErrors: what the package does not support, and templates that
// fail, are errors that say what, never a blank.
func TestErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{"{% macro m() %}x{% endmacro %}", `statement "macro" is not supported`},
		{"{{ x|wordcount }}", `filter "wordcount" is not supported`},
		{"{{ x is divisibleby(3) }}", `test "divisibleby" is not supported`},
		{"{% if x %}never closed", "missing {% endif %}"},
		{"{{ 'open }}", "string never closed"},
		{"{{ x", "tag never closed"},
		{"{{ raise_exception('no tools here') }}", "no tools here"},
		{"{{ nothing() }}", "nothing is not defined"},
		{"{{ 1 + 'a' }}", "unsupported operand"},
		{"{% for x in 3 %}{% endfor %}", "not iterable"},
		{"{{ 1 / 0 }}", "division by zero"},
	}
	for _, c := range cases {
		tpl, err := Parse(c.src)
		if err == nil {
			_, err = tpl.Render(map[string]any{})
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one with %q", c.src, err, c.want)
		}
	}
	tpl, _ := Parse("{{ raise_exception('x') }}")
	if _, err := tpl.Render(nil); !errors.Is(err, ErrRaised) {
		t.Errorf("raise_exception's error %v does not wrap ErrRaised", err)
	}
}

// TestDecodeKeepsOrder: Decode keeps an object's keys as written and
// ToJSON writes them back in that order with Python's separators.
func TestDecodeKeepsOrder(t *testing.T) {
	v, err := Decode([]byte(`{"z": 1, "a": {"y": [1.5, "é", null, true], "b": -2}}`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := ToJSON(v)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"z": 1, "a": {"y": [1.5, "é", null, true], "b": -2}}`; got != want {
		t.Errorf("ToJSON = %s, want %s", got, want)
	}
	if _, err := Decode([]byte(`{"a": 1} x`)); err == nil {
		t.Error("trailing data decoded")
	}
}
