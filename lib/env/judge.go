package env

// Verdicts of a Judge.
const (
	VerdictTrue         = "true"          // every claim the text makes holds
	VerdictFalse        = "false"         // at least one claim the text makes is false
	VerdictNotJudgeable = "not_judgeable" // the text makes no claim the environment can check
)

// A Rule is one of an environment's own type-level rules: a fact that holds
// for most tasks of its type (where the house keeps the goal objects, which
// appliance does a type's job), in the words of its right hints.
type Rule struct {
	TaskType string // the type it is about
	Kind     string // "place" (where to look) or "tool" (which appliance)
	Text     string // as a right hint states it ("Look in the drawer first.")
}

// A Judgement is a Judge's answer about one scaffold item.
type Judgement struct {
	Verdict string   // VerdictTrue, VerdictFalse or VerdictNotJudgeable
	Claims  []string // the claims found, in the environment's words ("look:drawer", "heat:stoveburner")
	States  []Rule   // the environment's rules the item states (true claims only)
}

// A Judge is an environment that knows its own rules well enough to say
// whether a scaffold item's text is true of it. Judges serve audits only:
// nothing a judge says may reach the controller, the refiner or the
// validator, or the scaffold would learn the environment's rules from
// somewhere other than the policy's own rollouts.
type Judge interface {
	// Rules lists the environment's type-level rules, sorted by task type
	// and text.
	Rules() ([]Rule, error)
	// JudgeItem judges text as an item of the scaffold for task type t
	// ("" for the general layer, which must hold for every type).
	JudgeItem(t, text string) (Judgement, error)
}
