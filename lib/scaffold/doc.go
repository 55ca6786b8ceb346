// Package scaffold holds PATS scaffold snapshots: the items, their layers,
// stable ids, content hashes, seeding from a hand-written items.yaml,
// rendering the scaffold z shown to the policy for one task type within a
// token budget, and the diff between two snapshots.
//
// A snapshot B_k is a set of table.ScaffoldItem rows. Layers:
//
//   - general: rules for every task type (TaskType empty);
//   - task: rules for one task type;
//   - mistake: errors to avoid for one task type.
//
// Invariants every snapshot keeps (Check verifies them): ids are non-empty
// and unique; the layer is one of the three; general items have an empty
// task type and the others a non-empty one; the text is one non-empty line
// without control characters; Tokens is the token count of Text.
//
// Ids are stable across iterations: an item keeps its id through edits and
// merges (a merge keeps its first target's id). Seeded items are numbered in
// file order ("g-0001", "t-<type>-0001", "m-<type>-0001"); items created by
// the loop get a content-derived id ("t-<type>-<8 hex of sha256>"), so a
// rerun creates the same ids.
//
// Units: token counts come from a caller-supplied count function (the run's
// tokenizer); WordCount, whitespace-separated words, is the default when
// none is given. The snapshot version k and its parent's hash are file
// metadata written by the command; Hash gives the content hash.
//
// Rendering (Render): the text is
//
//	General:
//	- <item>
//
//	Task rules:
//	- <item>
//
//	Mistakes to avoid:
//	- <item>
//
// with a section left out when it has no item. When the whole text would
// exceed the budget, items are dropped lowest priority first, where the
// priority order is: task rules, then mistakes, then general rules; within a
// layer, more supporting cards first, then the more recently updated, then
// by id. Rendering keeps the longest prefix of that order that fits, so the
// result is deterministic and monotone in the budget.
package scaffold
