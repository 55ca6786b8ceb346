package rl_test

import (
	"fmt"

	"github.com/pats-rl/pats/lib/rl"
	"github.com/pats-rl/pats/lib/table"
)

// Two groups of GRPO episodes: the group-relative outcome advantage, then
// how SkillGate splits one episode's tokens into its two credit channels.
func Example_credit() {
	rewards := []float64{1, 0, 0, 1, 1, 1}
	groups := []string{"g1", "g1", "g1", "g1", "g2", "g2"}
	adv, zeroVar := rl.GroupAdvantages(rewards, groups, rl.NormMean)
	fmt.Println("outcome advantages:", adv, "no credit in:", zeroVar)

	// Episode 0 (advantage +0.5) read one skill, the right one: selection
	// advantage +0.2 (the coefficient).
	roles := []int8{table.RoleTask, table.RoleSkillName, table.RoleObservation, table.RoleAction, table.RoleAction}
	sel := rl.SelectionAdvantage([]bool{true}, []bool{false}, 0.2)
	for _, c := range []rl.Credit{rl.Broadcast, rl.SkillGate} {
		tokAdv, channels := rl.TokenCredit(roles, c, adv[0], sel, true)
		fmt.Println(c, tokAdv, channels)
	}
	// Output:
	// outcome advantages: [0.5 -0.5 -0.5 0.5 0 0] no credit in: [g2]
	// broadcast [0 0.5 0 0.5 0.5] [0 1 0 1 1]
	// skillgate [0 0.2 0 0.5 0.5] [0 2 0 1 1]
}
