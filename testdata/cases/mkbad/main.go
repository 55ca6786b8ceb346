// Command mkbad writes the broken inputs of the bad-input cases: it reads a
// good table, breaks one invariant of its first row, and writes it back
// out, bypassing the checks a reader applies.
//
//	mkbad MUTATION IN OUT
package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
	"math"
	"os"
	"reflect"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/parquet-go/parquet-go"

	"github.com/pats-rl/pats/lib/model/safetensors"
	"github.com/pats-rl/pats/lib/scaffold"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
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
	case "cards-zero-episodes":
		return cards(in, out, func(c *table.Card) { c.NEpisodes, c.NSuccess, c.SuccessRate = 0, 0, 0.5 })
	case "cards-rate-disagrees":
		return cards(in, out, func(c *table.Card) {
			// a rate of other counts: 1 of 4 claimed as 0.9
			c.NEpisodes, c.NSuccess, c.SuccessRate = 4, 1, 0.9
		})
	case "snap-text-long", "proposals-text-long":
		// one item text a byte past table.MaxItemTextBytes
		long := strings.Repeat("x", table.MaxItemTextBytes) + "y"
		if mutation == "snap-text-long" {
			rows, metas, err := table.ReadFiles[table.ScaffoldItem](in)
			if err != nil {
				return err
			}
			rows[0].Text = long
			// the stored hash made again, so that only the text is wrong
			m := metas[0]
			extra := map[string]string{}
			for k, v := range m.Extra {
				extra[k] = v
			}
			extra[scaffold.MetaHash] = scaffold.Hash(rows)
			m.Extra = extra
			return table.WriteUnchecked(out, rows, m)
		}
		rows, metas, err := table.ReadFiles[table.Proposal](in)
		if err != nil {
			return err
		}
		rows[0].Text = long
		return table.WriteUnchecked(out, rows, metas[0])
	case "tokenizer-id-huge", "tokenizer-id-past-bound":
		// a Qwen2-style byte-level BPE tokenizer.json of three tokens, the
		// merged one at id 2,000,000,000 or one past the reader's bound
		// for three tokens (2*3+1024); in is not read
		id := 2_000_000_000
		if mutation == "tokenizer-id-past-bound" {
			id = 2*3 + 1024
		}
		b, err := json.Marshal(map[string]any{
			"version": "1.0", "normalizer": nil, "added_tokens": []any{},
			"pre_tokenizer": map[string]any{"type": "Sequence", "pretokenizers": []any{
				map[string]any{"type": "Split", "pattern": map[string]any{"Regex": tokenizer.Qwen2Pattern}, "behavior": "Isolated"},
				map[string]any{"type": "ByteLevel", "use_regex": false},
			}},
			"decoder": map[string]any{"type": "ByteLevel"},
			"model":   map[string]any{"type": "BPE", "vocab": map[string]int{"a": 0, "b": 1, "ab": id}, "merges": []string{"a b"}},
		})
		if err != nil {
			return err
		}
		return os.WriteFile(out, b, 0o644)
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
	case "traj-step-rewards-huge", "traj-rewards-far-apart":
		rows, _, err := table.ReadFiles[table.Trajectory](in)
		if err != nil {
			return err
		}
		if mutation == "traj-step-rewards-huge" {
			// Every turn's reward finite, their sum not.
			for i := range rows[0].StepRewards {
				rows[0].StepRewards[i] = math.MaxFloat64
			}
		} else {
			// Two finite rewards of one group whose difference is not.
			rows[0].Reward, rows[1].Reward = math.MaxFloat64, -math.MaxFloat64
		}
		return write(out, rows)
	case "traj-footer-rows", "traj-footer-repeat", "traj-footer-shared":
		return rewriteFooter(mutation, in, out)
	case "weights-same-offsets":
		return sameOffsets(in, out)
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
	case "traj-score-seven", "traj-iteration-before", "traj-stream-null-reward", "traj-stream-null-token", "traj-file-null-reward":
		rows, _, err := table.ReadFiles[table.Trajectory](in)
		if err != nil {
			return err
		}
		switch mutation {
		case "traj-score-seven":
			rows[0].Score = 7
		case "traj-iteration-before":
			for i := range rows {
				rows[i].Iteration = -1
			}
		case "traj-stream-null-reward":
			return writeArrowNull(out, rows, "reward", false, false)
		case "traj-file-null-reward":
			return writeArrowNull(out, rows, "reward", false, true)
		case "traj-stream-null-token":
			return writeArrowNull(out, rows, "tokens", true, false)
		}
		return write(out, rows)
	case "cards-iteration-negative", "cards-schema-version-negative":
		rows, metas, err := table.ReadFiles[table.Card](in)
		if err != nil {
			return err
		}
		if mutation == "cards-iteration-negative" {
			for i := range rows {
				rows[i].Iteration = -3
			}
			return write(out, rows)
		}
		m := metas[0]
		m.SchemaVersion = -1
		return table.WriteUnchecked(out, rows, m)
	case "proposals-duplicate-id", "proposals-unknown-primitive", "proposals-unknown-op", "proposals-iteration-negative":
		rows, metas, err := table.ReadFiles[table.Proposal](in)
		if err != nil {
			return err
		}
		if len(rows) < 2 {
			return fmt.Errorf("%s: %d proposals, want two or more", in, len(rows))
		}
		switch mutation {
		case "proposals-duplicate-id":
			rows[1].ProposalID = rows[0].ProposalID
		case "proposals-unknown-primitive":
			rows[0].Primitive = "GROW"
		case "proposals-unknown-op":
			rows[0].Op = "insert"
		case "proposals-iteration-negative":
			rows[0].Iteration = -7
		}
		// the validator compares the proposals' metadata with the snapshot
		return table.WriteUnchecked(out, rows, metas[0])
	case "state-unknown-primitive":
		rows, metas, err := table.ReadFiles[table.ControllerState](in)
		if err != nil {
			return err
		}
		for i := range rows {
			rows[i].Iteration = -1 // the state before the cards of iteration 0
		}
		rows[0].Primitive = "GROW"
		return table.WriteUnchecked(out, rows, metas[0])
	case "eval-nan-success", "eval-read-rate-range":
		rows, metas, err := table.ReadFiles[table.EvalMetrics](in)
		if err != nil {
			return err
		}
		if mutation == "eval-nan-success" {
			rows[0].Success = math.NaN()
		} else {
			rows[0].RightReadRate = table.NullNaN(1.5)
		}
		return table.WriteUnchecked(out, rows, metas[0])
	case "snap-wrong-hash":
		rows, metas, err := table.ReadFiles[table.ScaffoldItem](in)
		if err != nil {
			return err
		}
		m := metas[0]
		extra := map[string]string{}
		for k, v := range m.Extra {
			extra[k] = v
		}
		extra["hash"] = strings.Repeat("0", 64)
		m.Extra = extra
		return table.WriteUnchecked(out, rows, m)
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

// writeArrowNull writes rows as an Arrow IPC stream (or file) from another
// tool might: column col nullable, with a NULL in the first row, or, when
// elem is set, a NULL first element of the first row's list.
func writeArrowNull(out string, rows []table.Trajectory, col string, elem, file bool) error {
	var buf bytes.Buffer
	if err := table.Write(&buf, table.ArrowStream, rows, table.Meta{}); err != nil {
		return err
	}
	rd, err := ipc.NewReader(&buf)
	if err != nil {
		return err
	}
	defer rd.Release()
	schema := rd.Schema()
	j := schema.FieldIndices(col)[0]
	fields := schema.Fields()
	fields[j].Nullable = true
	md := schema.Metadata()
	schema = arrow.NewSchema(fields, &md)
	var recs []arrow.RecordBatch
	for rd.Next() {
		rec := rd.RecordBatch()
		rec.Retain()
		recs = append(recs, rec)
	}
	if err := rd.Err(); err != nil {
		return err
	}
	cols := recs[0].Columns()
	d := cols[j].Data()
	if elem {
		child := d.Children()[0]
		nc := nulled(child)
		d = array.NewData(d.DataType(), d.Len(), d.Buffers(), []arrow.ArrayData{nc}, d.NullN(), d.Offset())
	} else {
		d = nulled(d)
	}
	cols = append([]arrow.Array(nil), cols...)
	cols[j] = array.MakeFromData(d)
	recs[0] = array.NewRecordBatch(schema, cols, recs[0].NumRows())
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	var w interface {
		Write(arrow.RecordBatch) error
		Close() error
	}
	if file {
		if w, err = ipc.NewFileWriter(f, ipc.WithSchema(schema)); err != nil {
			return err
		}
	} else {
		w = ipc.NewWriter(f, ipc.WithSchema(schema))
	}
	for _, rec := range recs {
		if err := w.Write(rec); err != nil {
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	return f.Close()
}

// nulled returns d with its first value NULL (a validity bitmap with the
// first bit clear).
func nulled(d arrow.ArrayData) arrow.ArrayData {
	n := d.Len() + d.Offset()
	bits := make([]byte, (n+7)/8)
	for i := range bits {
		bits[i] = 0xff
	}
	bits[d.Offset()/8] &^= 1 << (d.Offset() % 8)
	bufs := append([]*memory.Buffer{memory.NewBufferBytes(bits)}, d.Buffers()[1:]...)
	return array.NewData(d.DataType(), d.Len(), bufs, d.Children(), 1, d.Offset())
}

// rewriteFooter rewrites the footer of the Parquet file in: 5e9 rows
// claimed (traj-footer-rows), its row group listed 20,001 times
// (traj-footer-repeat, a footer of about 80 MB) or twice
// (traj-footer-shared), the rows summed.
func rewriteFooter(mutation, in, out string) error {
	b, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	n := int(binary.LittleEndian.Uint32(b[len(b)-8:]))
	var md format.FileMetaData
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), b[len(b)-8-n:len(b)-8], &md); err != nil {
		return err
	}
	switch mutation {
	case "traj-footer-rows":
		md.NumRows = 5_000_000_000
		md.RowGroups[0].NumRows = 5_000_000_000
	default:
		times := 20_000
		if mutation == "traj-footer-shared" {
			times = 1
		}
		rg := md.RowGroups[0]
		for range times {
			md.RowGroups = append(md.RowGroups, rg)
			md.NumRows += rg.NumRows
		}
	}
	footer, err := thrift.Marshal(new(thrift.CompactProtocol), &md)
	if err != nil {
		return err
	}
	o := append(b[:len(b)-8-n:len(b)-8-n], footer...)
	o = binary.LittleEndian.AppendUint32(o, uint32(len(footer)))
	return os.WriteFile(out, append(o, "PAR1"...), 0o644)
}

// sameOffsets rewrites a safetensors header so that the second of two
// tensors of one shape has the first's data_offsets: both load the same
// bytes.
func sameOffsets(in, out string) error {
	b, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	n := binary.LittleEndian.Uint64(b)
	var hdr map[string]map[string]any
	var meta json.RawMessage
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b[8:8+n], &raw); err != nil {
		return err
	}
	hdr = map[string]map[string]any{}
	for k, v := range raw {
		if k == "__metadata__" {
			meta = v
			continue
		}
		var e map[string]any
		if err := json.Unmarshal(v, &e); err != nil {
			return err
		}
		hdr[k] = e
	}
	names := make([]string, 0, len(hdr))
	for k := range hdr {
		names = append(names, k)
	}
	sort.Strings(names)
	byShape := map[string]string{}
	done := false
	for _, k := range names {
		shape := fmt.Sprint(hdr[k]["shape"])
		if first, ok := byShape[shape]; ok {
			hdr[k]["data_offsets"] = hdr[first]["data_offsets"]
			done = true
			break
		}
		byShape[shape] = k
	}
	if !done {
		return fmt.Errorf("%s: no two tensors of one shape", in)
	}
	all := map[string]any{}
	for k, v := range hdr {
		all[k] = v
	}
	if meta != nil {
		all["__metadata__"] = meta
	}
	h, err := json.Marshal(all)
	if err != nil {
		return err
	}
	o := binary.LittleEndian.AppendUint64(nil, uint64(len(h)))
	o = append(append(o, h...), b[8+n:]...)
	return os.WriteFile(out, o, 0o644)
}
