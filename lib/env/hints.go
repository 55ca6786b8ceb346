package env

// Hints are rules about one task, written in the words of the scaffold's
// items ("Look in the drawer first."). Right rules are true for the task and
// a policy that follows them does better; Misleading rules have the same
// form and are false for it; Irrelevant rules bear only on other task types
// (a policy that reads well ignores them); Steps say what Right says, as a
// skill body would. They feed demonstrations whose
// right action depends on text in the context, and the reading test.
type Hints struct {
	Right, Misleading, Irrelevant []string
	// Steps are the right rules as the steps of a skill body, in the words
	// of the environment's skill library ("look in the drawer first: the
	// object is in a drawer. take it."); empty when it has none.
	Steps []string
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

// BodyStater is an environment whose right skills' bodies state facts of
// the task, as its right rules do (household-drawn, whose conventions are
// drawn per task, so no fixed body can state them). When an episode reads
// a skill that is right for its task type, the rollout shows
// RightBody(taskID, body) in place of the library's body.
type BodyStater interface {
	RightBody(taskID, body string) string
}
