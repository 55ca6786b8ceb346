package skill

import (
	"embed"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"path"
	"sort"
)

// DefaultSlateSize is the number of candidates a slate shows by default.
const DefaultSlateSize = 16

//go:embed library
var shippedFS embed.FS

// ShippedEnvs lists the environments that have a shipped (embedded) library.
func ShippedEnvs() []string {
	entries, err := shippedFS.ReadDir("library")
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

// sharedLibrary names, for a world that has no library of its own, the
// world whose library it uses: household-drawn (a pretraining world with
// household's tasks) shows household's skills; its right skills' bodies
// state each task's draws (env.BodyStater). The large worlds show the
// library of their world of ordinary rooms.
var sharedLibrary = map[string]string{
	"household-drawn":        "household",
	"household-drawn-large":  "household",
	"household-drawn-places": "household",
	"household-rl-large":     "household-rl",
}

// ShippedLibrary returns the skill library shipped for environment env
// ("household", "household-rl", "shop" or "searchqa"; household-drawn,
// household-drawn-large and household-drawn-places get household's,
// household-rl-large household-rl's).
func ShippedLibrary(env string) (*Library, error) {
	if lib, ok := sharedLibrary[env]; ok {
		env = lib
	}
	for _, e := range ShippedEnvs() {
		if e == env {
			return LoadFS(shippedFS, path.Join("library", env))
		}
	}
	return nil, fmt.Errorf("no built-in skill library for environment %q (have: %v)", env, ShippedEnvs())
}

// SlateError says that a library cannot make the slate asked for: a slate
// size beyond what it holds, or a task type without a right skill. It is
// the user's input that is wrong (the library or the slate size), so it
// reports itself as bad input (BadInput), which the commands' exit point
// maps to exit code 2.
type SlateError struct{ Msg string }

func (e *SlateError) Error() string { return e.Msg }

// BadInput marks the error as the input's fault.
func (e *SlateError) BadInput() bool { return true }

// CheckRight refuses a library in which no skill is right for any task
// type (no right-for metadata): no slate could be drawn from it.
func (l *Library) CheckRight() error {
	for _, s := range l.skills {
		if len(s.RightFor) > 0 {
			return nil
		}
	}
	return &SlateError{fmt.Sprintf("no skill is right for any task type (none has %s metadata)", MetaRightFor)}
}

// Slate draws k candidate skills for an episode of taskType, a deterministic
// function of (library, taskType, k, seed):
//
//   - exactly one skill right for taskType (drawn among the right ones);
//   - m = min(#misleading, max(1, k/4), k-1) skills misleading for taskType;
//   - the remaining k-1-m drawn from every other skill (unrelated skills and
//     skills right or misleading only for other task types); the other
//     skills right for taskType are left out, so the slate has exactly one
//     right candidate;
//   - all in a shuffled order.
//
// Errors: k < 1; no skill right for taskType; k larger than the number of
// skills a slate can hold (1 + every skill not right for taskType). Slates
// are never silently shortened.
func (l *Library) Slate(taskType string, k int, seed int64) ([]Skill, error) {
	if k < 1 {
		return nil, &SlateError{fmt.Sprintf("slate size %d: must be at least 1", k)}
	}
	var right, mis, rest []int
	for i, s := range l.skills {
		switch {
		case contains(s.RightFor, taskType):
			right = append(right, i)
		case contains(s.MisleadingFor, taskType):
			mis = append(mis, i)
		default:
			rest = append(rest, i)
		}
	}
	if len(right) == 0 {
		return nil, &SlateError{fmt.Sprintf("no skill is right for task type %q (task types with skills: %v)", taskType, l.TaskTypes())}
	}
	if avail := 1 + len(mis) + len(rest); k > avail {
		return nil, &SlateError{fmt.Sprintf("slate size %d for task type %q: the library can fill at most %d (one right skill plus %d others)", k, taskType, avail, avail-1)}
	}
	h := fnv.New64a()
	h.Write([]byte(taskType))
	rng := rand.New(rand.NewPCG(uint64(seed), h.Sum64()))

	m := min(len(mis), max(1, k/4), k-1)
	rng.Shuffle(len(mis), func(i, j int) { mis[i], mis[j] = mis[j], mis[i] })
	// Misleading skills not chosen as such may still fill the other places.
	rest = append(rest, mis[m:]...)
	sort.Ints(rest)
	rng.Shuffle(len(rest), func(i, j int) { rest[i], rest[j] = rest[j], rest[i] })

	pick := []int{right[rng.IntN(len(right))]}
	pick = append(pick, mis[:m]...)
	pick = append(pick, rest[:k-1-m]...)
	rng.Shuffle(len(pick), func(i, j int) { pick[i], pick[j] = pick[j], pick[i] })
	out := make([]Skill, len(pick))
	for i, p := range pick {
		out[i] = l.skills[p]
	}
	return out, nil
}
