package tokenizer

// Special tokens of the built-in tokenizer and of the prompt format the agent
// assembles (lib/agent). A Hugging Face tokenizer used with pats must map
// each of these to one id (they are added as special tokens when missing).
const (
	Pad      = "<|pad|>"
	Unk      = "<|unk|>"
	BOS      = "<|bos|>"
	System   = "<|system|>"   // opens the system text
	Scaffold = "<|scaffold|>" // opens the rendered scaffold
	Skills   = "<|skills|>"   // opens the skill slate
	Task     = "<|task|>"     // opens the task text and first observation
	Obs      = "<|obs|>"      // opens an observation
	Act      = "<|act|>"      // the prompt's cue that the policy writes an action now
	End      = "<|end|>"      // the policy ends its action with it
	Skill    = "<|skill|>"    // opens the body of a skill that was read
)

// Specials lists the special tokens in id order for the built-in tokenizer.
var Specials = []string{Pad, Unk, BOS, System, Scaffold, Skills, Task, Obs, Act, End, Skill}
