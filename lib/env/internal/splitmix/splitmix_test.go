package splitmix

import (
	"slices"
	"testing"
)

// The reference outputs of splitmix64 seeded with 0 and with
// 1234567 (from the algorithm's published reference implementation).
func TestReferenceOutputs(t *testing.T) {
	cases := []struct {
		seed uint64
		want []uint64
	}{
		{0, []uint64{0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f}},
		{1234567, []uint64{6457827717110365317, 3203168211198807973, 9817491932198370423}},
	}
	for _, c := range cases {
		r := New(c.seed)
		for i, w := range c.want {
			if got := r.Uint64(); got != w {
				t.Errorf("seed %d output %d = %#x, want %#x", c.seed, i, got, w)
			}
		}
	}
}

func TestIntnAndPerm(t *testing.T) {
	for _, n := range []int{1, 2, 3, 7, 100} {
		r := New(uint64(n))
		counts := make([]int, n)
		for i := 0; i < 200*n; i++ {
			v := r.Intn(n)
			if v < 0 || v >= n {
				t.Fatalf("Intn(%d) = %d", n, v)
			}
			counts[v]++
		}
		for v, c := range counts {
			if c == 0 {
				t.Errorf("Intn(%d) never gave %d in %d draws", n, v, 200*n)
			}
		}
		p := New(9).Perm(n)
		s := slices.Clone(p)
		slices.Sort(s)
		for i, v := range s {
			if v != i {
				t.Fatalf("Perm(%d) = %v is not a permutation", n, p)
			}
		}
	}
}

// Shuffle's sequence of draws is part of the generated data: check it
// against a direct transcription of its documentation.
func TestShuffleDrawSequence(t *testing.T) {
	got := New(42).Perm(10)
	r := New(42)
	want := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	for i := 9; i > 0; i-- {
		j := int(r.Uint64() % uint64(i+1))
		want[i], want[j] = want[j], want[i]
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Perm(10) = %v, want %v", got, want)
	}
	if slices.Equal(got, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}) {
		t.Fatal("Perm(10) is the identity")
	}
}
