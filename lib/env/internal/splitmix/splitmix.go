// Package splitmix is the small pseudo-random generator the built-in
// generated environments (household, shop, searchqa) draw their worlds, catalogues and
// tasks from: splitmix64 (a Weyl sequence with step 0x9e3779b97f4a7c15,
// finished by a 64-bit mixer). It is kept independent of math/rand so that
// the generated data, and with it every task list and vocabulary, stays the
// same across Go releases and machines.
//
// A Rand is not safe for concurrent use; give each generation stream its
// own, seeded with a fixed constant. Intn, Perm and Shuffle are defined by
// the exact sequence of Uint64 calls they make (documented on each), because
// the generated data depends on it.
package splitmix

// Rand is a splitmix64 generator.
type Rand struct{ s uint64 }

// New returns a generator whose first Uint64 is the splitmix64 output for
// state seed.
func New(seed uint64) *Rand { return &Rand{s: seed} }

// Uint64 returns the next 64-bit output: Mix64 of the advanced state.
func (r *Rand) Uint64() uint64 {
	r.s += 0x9e3779b97f4a7c15
	return Mix64(r.s)
}

// Mix64 is splitmix64's output function, a bijective 64-bit mixer; the
// environments also use it to derive seeds from hashes.
func Mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Float64 returns a value in [0, 1) from the top 53 bits of one Uint64.
func (r *Rand) Float64() float64 { return float64(r.Uint64()>>11) / (1 << 53) }

// Intn returns Uint64() % n, a value in [0, n); n must be positive. The
// modulo bias is below n/2^64, negligible for the small n used.
func (r *Rand) Intn(n int) int { return int(r.Uint64() % uint64(n)) }

// Perm returns a permutation of 0..n-1: the identity shuffled by Shuffle.
func (r *Rand) Perm(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	r.Shuffle(n, func(i, j int) { p[i], p[j] = p[j], p[i] })
	return p
}

// Shuffle permutes n elements by Fisher-Yates from the top: for i = n-1
// down to 1 it swaps i with Intn(i+1).
func (r *Rand) Shuffle(n int, swap func(i, j int)) {
	for i := n - 1; i > 0; i-- {
		swap(i, r.Intn(i+1))
	}
}
