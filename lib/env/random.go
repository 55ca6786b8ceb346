package env

import "math/rand/v2"

// RandomAgent returns a policy that picks uniformly among the admissible
// actions. Its choices are a deterministic function of the seed given to
// Start and the admissible lists it is shown: the generator is math/rand/v2
// PCG seeded with (seed, a fixed constant), restarted by every Start. With no
// admissible actions it returns "" (the environment answers it as invalid).
// An Act before any Start behaves as if Start had been given seed 0.
func RandomAgent() Agent { return &randomAgent{} }

// randomStream is the PCG stream constant of RandomAgent.
const randomStream = 0x72616e646f6d // "random"

type randomAgent struct {
	rng *rand.Rand
}

func (a *randomAgent) Start(goal, observation string, seed int64) {
	a.rng = rand.New(rand.NewPCG(uint64(seed), randomStream))
}

func (a *randomAgent) Act(lastObservation string, admissible []string) string {
	if a.rng == nil {
		a.Start("", "", 0)
	}
	if len(admissible) == 0 {
		return ""
	}
	return admissible[a.rng.IntN(len(admissible))]
}
