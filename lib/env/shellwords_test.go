package env_test

import (
	"reflect"
	"testing"

	"github.com/pats-rl/pats/lib/env"
)

func TestSplitCommand(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
		err  bool
	}{
		{"python -m alfworld.serve", []string{"python", "-m", "alfworld.serve"}, false},
		{"  a\t b  ", []string{"a", "b"}, false},
		{`a 'b c' "d e"`, []string{"a", "b c", "d e"}, false},
		{`a "x\"y\\z\n"`, []string{"a", `x"y\z\n`}, false},
		{`a\ b c''`, []string{"a b", "c"}, false},
		{`x '' y`, []string{"x", "", "y"}, false},
		{`sh -c 'echo $HOME'`, []string{"sh", "-c", "echo $HOME"}, false},
		{"", nil, false},
		{`a 'b`, nil, true},
		{`a "b`, nil, true},
	} {
		got, err := env.SplitCommand(c.in)
		if (err != nil) != c.err || !reflect.DeepEqual(got, c.want) {
			t.Errorf("SplitCommand(%q) = %q, %v; want %q (error %v)", c.in, got, err, c.want, c.err)
		}
	}
}
