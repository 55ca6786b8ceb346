package report

import (
	"github.com/pats-rl/pats/lib/table"
)

// MixGroups concatenates trajectory tables (for example an oracle's and a
// weak policy's episodes of the same tasks) so that episodes of one group
// from several tables form one group: the sample index of a row becomes
// its position in the group across all tables, counting the tables in the
// order given and the rows of each table in their order. Rows keep every
// other column. The result depends only on the inputs and their order.
func MixGroups(tables ...[]table.Trajectory) []table.Trajectory {
	type key struct {
		iter  int32
		group string
	}
	next := map[key]int32{}
	var out []table.Trajectory
	for _, rows := range tables {
		for _, r := range rows {
			k := key{r.Iteration, r.GroupID}
			r.Sample = next[k]
			next[k]++
			out = append(out, r)
		}
	}
	return out
}
