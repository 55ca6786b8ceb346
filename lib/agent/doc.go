// Package agent assembles the context a policy sees and writes into: one
// token sequence per episode, each token tagged with a role (lib/table's
// Role constants) and, for policy-written tokens, the behaviour
// log-probability it was sampled with.
//
// A Format writes the context: WordLevelFormat (--prompt-format builtin),
// the toolkit's own layout for its word-level models, or ChatML, the chat format of Qwen2/2.5/3
// instruct checkpoints, which uses only tokens the checkpoint's vocabulary
// has (nothing is ever added to a pretrained vocabulary). A Context's
// Format is WordLevelFormat unless set.
//
// Layout of an episode's context under WordLevelFormat:
//
//	<|bos|> <|system|> system text                      role system
//	<|scaffold|> rendered scaffold z                    role scaffold (training only)
//	<|skills|> name: description ...                    role skill_slate (skills on)
//	<|task|> goal, first observation                    role task
//	<|act|>                                             role observation (the cue)
//	go to fridge 1 <|end|>                              role action
//	<|obs|> observation <|act|>                         role observation
//	read_skill heat-then-place <|end|>                  action, skill_name..., action
//	<|skill|> skill body <|act|>                        role skill_body, then the cue
//
// Everything up to the first cue is the prompt; the episodes of a group
// share it token for token. In a read action the verb read_skill and the
// end token are execution tokens (role action) and only the tokens naming
// the skill get role skill_name, so SkillGate's two credit channels never
// share a token.
//
// Under ChatML an episode is a chat (see ChatML.Begin for the roles): a
// system message (ChatSystemText and, in training, the scaffold after
// "Rules:"), a user message with the task, the slate and the first
// observation, then alternating assistant turns (the policy's answers,
// each ending with the <|im_end|> it samples) and user turns
// (observations, skill bodies, InvalidAnswer). Every token the harness
// writes, the chat template's included, has a prompt role (system, task,
// observation, skill body); only the answers are policy-written. An answer
// may think first, <think>...</think>, then names its action in
// <action>...</action> (ParseAnswer); one without a well-formed action is
// invalid: the environment sees no step and the episode goes on. Inside
// <action>read_skill NAME</action> the tokens that overlap NAME's bytes
// get role skill_name and every other token of the answer (thinking, tags,
// the verb, the end token) role action, so the two SkillGate channels
// stay disjoint under both formats. Text runs of one role end in a newline
// or before a chat token, so encoding them one by one gives the ids the
// whole text gets (the golden test checks this against an independent
// tokenizer).
//
// A history window (Context.History, rollout --history) shows each answer
// the prompt, the skill bodies read in dropped turns (pinned, in the order
// read), a marker line for the dropped turns and the last N turns
// (Visible); the context keeps the whole episode and records per answer
// what it saw (Turns, Bodies, Window), for the trainer to rebuild.
package agent
