package report

import (
	"fmt"

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

// KeepApart returns the tables with the group ids of the n-th table (n >= 2,
// counting from 1) suffixed "#n", so that MixGroups keeps each table's
// groups apart: the same task played twice (say with and without a
// scaffold) becomes two groups with their own advantage baselines. The
// first table is returned as it is.
func KeepApart(tables ...[]table.Trajectory) [][]table.Trajectory {
	out := make([][]table.Trajectory, len(tables))
	for i, rows := range tables {
		if i == 0 {
			out[i] = rows
			continue
		}
		cp := make([]table.Trajectory, len(rows))
		for j, r := range rows {
			r.GroupID = fmt.Sprintf("%s#%d", r.GroupID, i+1)
			cp[j] = r
		}
		out[i] = cp
	}
	return out
}
