package validate

import "github.com/pats-rl/pats/lib/table"

// Fixtures of the validate stage tests (the same as the validator's own
// tests use).

func cards() []table.Card {
	return []table.Card{
		{CardID: "c1", TaskType: "a"}, {CardID: "c2", TaskType: "a"}, {CardID: "c3", TaskType: "a"},
		{CardID: "c4", TaskType: "b"}, {CardID: "c5", TaskType: "b"},
	}
}

func prop(prim, op, typ, layer, text string, targets []string, sup ...string) table.Proposal {
	return table.Proposal{ProposalID: "p1", TaskType: typ, Primitive: prim, Op: op, Layer: layer, Text: text, Targets: targets, Support: sup}
}
