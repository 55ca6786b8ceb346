package scaffold

import (
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pats-rl/pats/lib/table"
)

func TestParsePrimitives(t *testing.T) {
	cases := []struct {
		in   string
		want []string
		err  string
	}{
		{"", nil, "empty"},
		{" ", nil, "empty"},
		{"all", Primitives, ""},
		{"expand", []string{Expand}, ""},
		{"no-revise", []string{Expand, Compress, ForcedPrune}, ""},
		{"Expand, prune,expand", []string{Expand, ForcedPrune}, ""},
		{"grow", nil, "unknown primitive"},
		{"no-x", nil, "unknown primitive"},
	}
	for _, c := range cases {
		got, err := ParsePrimitives(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: err %v", c.in, err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: %v %v, want %v", c.in, got, err, c.want)
		}
	}
}

// TestLimitsValidate: the defaults pass; each broken limit is refused with
// a message that names the value, not an option.
func TestLimitsValidate(t *testing.T) {
	if err := DefaultLimits().Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	cases := []struct {
		name string
		edit func(*Limits)
		want string
	}{
		{"items", func(l *Limits) { l.MaxItems = 0 }, "caps must be positive"},
		{"general tokens", func(l *Limits) { l.MaxGeneralTokens = -1 }, "caps must be positive"},
		{"quota", func(l *Limits) { l.ExpandQuota = -1 }, "expand quota must be >= 0, got -1"},
		{"support", func(l *Limits) { l.MinSupport = 0 }, "min support must be at least 1, got 0"},
		{"item tokens", func(l *Limits) { l.MaxItemTokens = 0 }, "max item tokens must be at least 1, got 0"},
	}
	for _, c := range cases {
		l := DefaultLimits()
		c.edit(&l)
		err := l.Validate()
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "--") {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// The readers refuse a primitive column value that is not one of
// table.Primitives: the primitives here and NONE, no more.
func TestTablePrimitivesInStep(t *testing.T) {
	want := append(append([]string{}, Primitives...), None)
	if d := cmp.Diff(want, table.Primitives); d != "" {
		t.Errorf("table.Primitives differs from the scaffold's primitives and NONE (-want +got):\n%s", d)
	}
}
