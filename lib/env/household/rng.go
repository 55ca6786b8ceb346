package household

import "github.com/pats-rl/pats/lib/env/internal/splitmix"

// rng is the splitmix64 generator of lib/env/internal/splitmix with the
// helpers the world generator uses; it is independent of math/rand so that
// rooms stay the same across Go releases.
type rng struct{ *splitmix.Rand }

func newRNG(seed uint64) *rng { return &rng{splitmix.New(seed)} }

func (r *rng) next() uint64 { return r.Uint64() }

// mix64 is splitmix64's output function (splitmix.Mix64).
func mix64(z uint64) uint64 { return splitmix.Mix64(z) }

// intn returns a value in [0, n); n must be positive. The modulo bias is
// below 2^-50 for the small n used here.
func (r *rng) intn(n int) int { return r.Intn(n) }

// between returns a value in [lo, hi].
func (r *rng) between(lo, hi int) int { return lo + r.intn(hi-lo+1) }

// chance returns true with probability p.
func (r *rng) chance(p float64) bool { return r.Float64() < p }

// shuffleInts permutes xs in place (Fisher-Yates, splitmix.Rand.Shuffle).
func (r *rng) shuffleInts(xs []int) {
	r.Shuffle(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
}

// hashString is FNV-1a over s, finished with mix64.
func hashString(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return mix64(h)
}
