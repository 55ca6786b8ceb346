package env

// Hints are rules about one task, written in the words of the scaffold's
// items ("Look in the drawer first."). Right rules are true for the task and
// a policy that follows them does better; Misleading rules have the same
// form and are false for it; Irrelevant rules bear only on other task types
// (a policy that reads well ignores them). They feed demonstrations whose
// right action depends on text in the context, and the reading test.
type Hints struct {
	Right, Misleading, Irrelevant []string
}

// Hinter is an environment that can state Hints about its tasks. The rules
// are derived from the task (its room and goal), never from an episode.
type Hinter interface {
	Hints(taskID string) (Hints, error)
}

// Reader is an Agent that follows rules written in its context: the rollout
// gives it the scaffold (with any hints) and every skill body the episode
// reads, each as it enters the context, after Start.
type Reader interface {
	Read(text string)
}
