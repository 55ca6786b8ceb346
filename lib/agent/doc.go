// Package agent assembles the context a policy sees and writes into: one
// token sequence per episode, each token tagged with a role (lib/table's
// Role constants) and, for policy-written tokens, the behaviour
// log-probability it was sampled with.
//
// Layout of an episode's context:
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
package agent
