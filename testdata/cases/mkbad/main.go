// Command mkbad writes the broken inputs of the bad-input cases: it reads a
// good table, breaks one invariant of its first row, and writes it back
// out, bypassing the checks a reader applies.
//
//	mkbad MUTATION IN OUT
package main

import (
	"fmt"
	"math"
	"os"
	"reflect"
	"sort"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/pats-rl/pats/lib/model/safetensors"
	"github.com/pats-rl/pats/lib/table"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: mkbad MUTATION IN OUT")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2], os.Args[3]); err != nil {
		fmt.Fprintln(os.Stderr, "mkbad:", err)
		os.Exit(1)
	}
}

func cards(in, out string, edit func(c *table.Card)) error {
	rows, _, err := table.ReadFiles[table.Card](in)
	if err != nil {
		return err
	}
	edit(&rows[0])
	return write(out, rows)
}

func write[T any](out string, rows []T) error {
	// table.Write refuses rows its readers refuse
	return table.WriteUnchecked(out, rows, table.Meta{})
}

func run(mutation, in, out string) error {
	switch mutation {
	case "cards-nan-success":
		return cards(in, out, func(c *table.Card) { c.SuccessRate = math.NaN() })
	case "cards-success-range":
		return cards(in, out, func(c *table.Card) { c.SuccessRate = 1.5 })
	case "cards-negative-count":
		return cards(in, out, func(c *table.Card) { c.NEpisodes = -3 })
	case "cards-contrast-mismatch":
		return cards(in, out, func(c *table.Card) {
			c.Contrast = append(c.Contrast, "extra")
		})
	case "cards-duplicate-id":
		rows, _, err := table.ReadFiles[table.Card](in)
		if err != nil {
			return err
		}
		rows[1].CardID = rows[0].CardID
		return write(out, rows)
	case "traj-nan-reward", "traj-roles-short":
		rows, _, err := table.ReadFiles[table.Trajectory](in)
		if err != nil {
			return err
		}
		if mutation == "traj-nan-reward" {
			rows[0].Reward = math.NaN()
		} else {
			rows[0].Roles = rows[0].Roles[:len(rows[0].Roles)-1]
		}
		return write(out, rows)
	case "traj-turn-at-negative", "traj-prompt-len-huge", "traj-turn-from-after", "traj-iteration-negative":
		rows, _, err := table.ReadFiles[table.Trajectory](in)
		if err != nil {
			return err
		}
		r := &rows[0]
		switch mutation {
		case "traj-turn-at-negative":
			r.History, r.TurnAt, r.TurnFrom = 1, []int32{-1}, []int32{0}
		case "traj-prompt-len-huge":
			r.History, r.PromptLen, r.TurnAt, r.TurnFrom = 1, 2000000000, []int32{1}, []int32{2000000000}
		case "traj-turn-from-after":
			at := int32(-1)
			for i, ro := range r.Roles {
				if table.PolicyWritten(ro) {
					at = int32(i)
					break
				}
			}
			r.History, r.TurnAt, r.TurnFrom = 1, []int32{at}, []int32{at + 1}
		case "traj-iteration-negative":
			r.Iteration = -4
		}
		return write(out, rows)
	case "moments-negative", "weights-nan", "weights-inf":
		ts, meta, err := safetensors.ReadFile(in)
		if err != nil {
			return err
		}
		names := make([]string, 0, len(ts))
		for n := range ts {
			names = append(names, n)
		}
		sort.Strings(names)
		var out2 []safetensors.Named
		done := false
		for _, n := range names {
			w, err := ts[n].Float32()
			if err != nil {
				return err
			}
			if !done && (mutation != "moments-negative" || strings.HasSuffix(n, ".exp_avg_sq")) {
				switch mutation {
				case "moments-negative":
					w[0] = -1
				case "weights-nan":
					w[0] = float32(math.NaN())
				case "weights-inf":
					w[len(w)-1] = float32(math.Inf(-1))
				}
				done = true
			}
			out2 = append(out2, safetensors.Named{Name: n, Shape: ts[n].Shape, Data: w})
		}
		return safetensors.WriteFile(out, out2, meta, safetensors.F32)
	case "traj-null-reward":
		rows, _, err := table.ReadFiles[table.Trajectory](in)
		if err != nil {
			return err
		}
		return writeNullReward(out, rows)
	}
	return fmt.Errorf("unknown mutation %q", mutation)
}

// writeNullReward writes rows as another tool might: with a nullable
// reward column, NULL in the first row.
func writeNullReward(out string, rows []table.Trajectory) error {
	base := reflect.TypeOf(table.Trajectory{})
	fields := make([]reflect.StructField, base.NumField())
	for i := range fields {
		fields[i] = base.Field(i)
		if fields[i].Name == "Reward" {
			fields[i].Type = reflect.TypeOf((*float64)(nil))
			fields[i].Tag = `parquet:"reward,optional"`
		}
	}
	typ := reflect.StructOf(fields)
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	w := parquet.NewWriter(f, parquet.SchemaOf(reflect.New(typ).Elem().Interface()))
	for i, r := range rows {
		v := reflect.New(typ).Elem()
		src := reflect.ValueOf(r)
		for j := range fields {
			if fields[j].Name == "Reward" {
				if i > 0 {
					x := r.Reward
					v.Field(j).Set(reflect.ValueOf(&x))
				}
				continue
			}
			v.Field(j).Set(src.Field(j))
		}
		if err := w.Write(v.Interface()); err != nil {
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	return f.Close()
}
