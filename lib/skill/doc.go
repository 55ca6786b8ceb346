// Package skill reads skill libraries and draws the slates SkillGate shows.
//
// A library is a folder with one sub-folder per skill, each holding a
// SKILL.md in the public Agent Skills format: YAML front matter between two
// "---" lines, then a Markdown body.
//
//	---
//	name: heat-then-place
//	description: Heat an object with the microwave, then put it in a receptacle. Use when ...
//	metadata:
//	  right-for: pick_heat_then_place_in_recep
//	---
//
//	1. find the object and take it. ...
//
// Rules checked by Parse (every error names the file and the problem):
// name is 1-64 characters of lowercase ASCII letters, digits and single
// hyphens, not starting or ending with a hyphen, and equal to the folder
// name; description is non-empty and at most 1024 characters; only the
// top-level keys name, description, license, compatibility, metadata and
// allowed-tools are allowed. The front matter is YAML, read with
// go.yaml.in/yaml/v3: one-line plain or quoted values, and one level of
// "key: value" entries under metadata (a flow list [a, b] there is kept as
// "a, b"); block scalars, lists elsewhere and deeper nesting are rejected
// with the line number.
//
// Two metadata entries say what a skill is for, as comma-separated task
// types: "right-for" (the procedure solves tasks of that type in the
// environment) and "misleading-for" (a plausible procedure that fails for
// that type). A skill with neither is unrelated. A task type may not be both
// right and misleading for one skill.
//
// Slates. Library.Slate(taskType, k, seed) draws k candidates with exactly
// one right skill, min(#misleading, max(1, k/4), k-1) misleading ones and
// the rest from all other skills, shuffled; it is a pure function of the
// library, taskType, k and seed (math/rand/v2 PCG seeded with seed and a
// hash of taskType), independent of GOMAXPROCS. A k the library cannot fill
// is an error, never a shorter slate.
//
// Built-in libraries (embedded with go:embed under library/<env>/) cover the
// household (ALFWorld-like), shop (WebShop-like) and searchqa (Search-R1-like)
// environments: for every task type at least one right and one misleading
// skill, plus unrelated skills, at least 20 per environment so a slate of 16
// can be filled. Bodies are short (at most 60 words) and use plain lowercase
// words, because the built-in word-level tokenizer maps unknown words to
// <unk>; Library.Vocabulary lists the words (split as words.Split does) that a
// tokenizer built for a library must hold.
package skill
