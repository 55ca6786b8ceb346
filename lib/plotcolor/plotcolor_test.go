package plotcolor

import (
	"image/color"
	"testing"
)

func TestAt(t *testing.T) {
	n := len(Palette)
	cases := []struct {
		i    int
		want color.Color
	}{
		{0, Palette[0]},
		{n - 1, Palette[n-1]},
		{n, Palette[0]},
		{n + 3, Palette[3]},
		{-2, Palette[2]},
	}
	for _, c := range cases {
		if got := At(c.i); got != c.want {
			t.Errorf("At(%d) = %v, want %v", c.i, got, c.want)
		}
	}
	seen := map[color.Color]int{}
	for i, c := range Palette {
		if j, ok := seen[c]; ok {
			t.Errorf("Palette[%d] repeats Palette[%d]", i, j)
		}
		seen[c] = i
	}
}
