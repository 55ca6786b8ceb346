package table

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/parquet-go/parquet-go"
)

// oldLayout returns row type t as an older schema version wrote it: every
// nullable column required, pointer fields as plain values (except the
// fields named in nullable, which that version wrote as now), and the
// columns added since version left out.
func oldLayout(t reflect.Type, version int, nullable ...string) reflect.Type {
	var fields []reflect.StructField
	cols, err := columnsOf(t)
	if err != nil {
		panic(err)
	}
	for _, c := range cols {
		if c.since > version {
			continue
		}
		f := t.Field(c.field)
		tag := c.name
		if c.list {
			tag += ",list"
		}
		if slices.Contains(nullable, f.Name) {
			tag += ",optional"
		} else if c.ptr {
			f.Type = f.Type.Elem()
		}
		f.Tag = reflect.StructTag(`parquet:"` + tag + `"`)
		fields = append(fields, f)
	}
	return reflect.StructOf(fields)
}

// writeOld writes rows (a slice of an oldLayout type) as a Parquet file of
// the kind at the given schema version.
func writeOld(t *testing.T, path, kind string, version int, rows reflect.Value) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := parquet.NewWriter(f, parquet.SchemaOf(reflect.New(rows.Type().Elem()).Elem().Interface()),
		parquet.KeyValueMetadata(keyKind, kind), parquet.KeyValueMetadata(keyVersion, strconv.Itoa(version)))
	for i := 0; i < rows.Len(); i++ {
		if err := w.Write(rows.Index(i).Interface()); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// setFields sets the named fields of struct value v.
func setFields(v reflect.Value, fields map[string]any) {
	for name, x := range fields {
		v.FieldByName(name).Set(reflect.ValueOf(x))
	}
}

// TestReadSentinelVersions: files of the versions before NULLs (trajectory
// 6 and 7, eval_metrics 1 to 4, card 1, type_evidence 1, train_metrics 1,
// controller_state 2, reading_audit 2, credit_audit 3, scaffold_audit 1) with their sentinels ("" run,
// scaffold_version -1, task type "all" or "", representative -1, sampling
// columns 0 without a checkpoint, GRPO columns 0 on SFT rows, success
// rates 0 before any evidence, NaN for a mean or correlation over
// nothing, a relative change over a first gap of 0, a misleading exposure
// of 0 without episodes) read as the current version's NULLs, and so does
// a column an older version lacks (eval_metrics 1's misleading exposure),
// while a required column's values stay values (eval_metrics 2 to 4's
// misleading exposure, 0 included); the same rows written now read back
// equal.
func TestReadSentinelVersions(t *testing.T) {
	v := func(x int32) *int32 { return &x }
	f := func(x float64) *float64 { return &x }
	cases := []struct {
		kind     string
		version  int
		typ      reflect.Type
		old      []map[string]any
		want     any
		nullable []string // fields the version already wrote as NULL where absent
	}{
		{"trajectory", 6, reflect.TypeFor[Trajectory](),
			[]map[string]any{
				{"GroupID": "g", "Sample": int32(0), "Run": "", "ScaffoldVersion": int32(-1), "FailureMode": "loop"},
				{"GroupID": "g", "Sample": int32(1), "Run": "r1", "ScaffoldVersion": int32(0)},
			},
			[]Trajectory{
				{GroupID: "g", Sample: 0, FailureMode: "loop"},
				{GroupID: "g", Sample: 1, Run: "r1", ScaffoldVersion: v(0)},
			}, nil},
		{"trajectory", 7, reflect.TypeFor[Trajectory](),
			[]map[string]any{
				// the oracle: no sampling rule, written as 0
				{"GroupID": "g", "Sample": int32(0), "Policy": "oracle"},
				// a greedy checkpoint: temperature 0 is a value
				{"GroupID": "g", "Sample": int32(1), "Policy": "ck", "PolicyHash": "h", "TopP": 1.0, "RepetitionPenalty": 1.0},
				{"GroupID": "g", "Sample": int32(2), "Policy": "ck", "PolicyHash": "h", "Temperature": 0.7, "TopP": 0.8, "TopK": int32(20), "RepetitionPenalty": 1.05},
			},
			[]Trajectory{
				{GroupID: "g", Sample: 0, Policy: "oracle"},
				{GroupID: "g", Sample: 1, Policy: "ck", PolicyHash: "h", Temperature: f(0), TopP: f(1), TopK: v(0), RepetitionPenalty: f(1)},
				{GroupID: "g", Sample: 2, Policy: "ck", PolicyHash: "h", Temperature: f(0.7), TopP: f(0.8), TopK: v(20), RepetitionPenalty: f(1.05)},
			}, []string{"Run", "FailureMode", "ScaffoldVersion", "PolicyHash"}},
		{"eval_metrics", 1, reflect.TypeFor[EvalMetrics](),
			[]map[string]any{
				// no misleading_exposure column: unknown, though these
				// episodes read misleading skills
				{"Env": "household", "TaskType": "all", "Episodes": int32(4), "Success": 0.5, "ReadsPerEp": 1.0, "RightReadRate": 0.5, "MisleadingRate": 0.25},
				{"Env": "household", "TaskType": "pick", "Episodes": int32(4)},
			},
			[]EvalMetrics{
				{Env: "household", Scope: ScopeAll, Episodes: 4, Success: 0.5, ReadsPerEp: 1, RightReadRate: f(0.5), MisleadingRate: f(0.25)},
				{Env: "household", Scope: ScopeType, TaskType: "pick", Episodes: 4},
			}, nil},
		{"eval_metrics", 2, reflect.TypeFor[EvalMetrics](),
			[]map[string]any{
				{"Env": "household", "TaskType": "all", "Episodes": int32(4), "Success": 0.5, "MisleadingExposure": 0.25},
				{"Env": "household", "TaskType": "pick", "Episodes": int32(4), "Success": 0.5, "Scaffold": "snap/1.parquet"},
			},
			[]EvalMetrics{
				{Env: "household", Scope: ScopeAll, Episodes: 4, Success: 0.5, MisleadingExposure: f(0.25)},
				{Env: "household", Scope: ScopeType, TaskType: "pick", Episodes: 4, Success: 0.5, Scaffold: "snap/1.parquet", MisleadingExposure: f(0)},
			}, nil},
		{"eval_metrics", 3, reflect.TypeFor[EvalMetrics](),
			[]map[string]any{
				{"Env": "household", "Scope": "all", "Episodes": int32(4)},
				{"Env": "household", "Scope": "type", "TaskType": "pick", "Episodes": int32(4), "ReadsPerEp": 1.0, "RightReadRate": 0.0, "MisleadingRate": 0.25},
			},
			[]EvalMetrics{
				{Env: "household", Scope: ScopeAll, Episodes: 4, MisleadingExposure: f(0)},
				{Env: "household", Scope: ScopeType, TaskType: "pick", Episodes: 4, ReadsPerEp: 1, RightReadRate: f(0), MisleadingRate: f(0.25), MisleadingExposure: f(0)},
			}, []string{"Run", "Scaffold", "TaskType", "Iteration", "Seed", "Temperature"}},
		{"eval_metrics", 4, reflect.TypeFor[EvalMetrics](),
			[]map[string]any{
				// misleading_exposure a required double: its values read
				// as they are, 0 among them (episodes that read nothing)...
				{"Env": "household", "Scope": "all", "Episodes": int32(4), "ReadsPerEp": 1.0, "RightReadRate": f(0.5), "MisleadingRate": f(0.25), "MisleadingExposure": 0.25},
				{"Env": "household", "Scope": "type", "TaskType": "pick", "Episodes": int32(4), "MisleadingExposure": 0.0},
				// ...but the 0 of a row without episodes is no share
				{"Env": "household", "Scope": "type", "TaskType": "heat", "MisleadingExposure": 0.0},
			},
			[]EvalMetrics{
				{Env: "household", Scope: ScopeAll, Episodes: 4, ReadsPerEp: 1, RightReadRate: f(0.5), MisleadingRate: f(0.25), MisleadingExposure: f(0.25)},
				{Env: "household", Scope: ScopeType, TaskType: "pick", Episodes: 4, MisleadingExposure: f(0)},
				{Env: "household", Scope: ScopeType, TaskType: "heat"},
			}, []string{"Run", "Scaffold", "TaskType", "RightReadRate", "MisleadingRate", "Iteration", "Seed", "Temperature"}},
		{"card", 1, reflect.TypeFor[Card](),
			[]map[string]any{
				{"CardID": "c-0-a", "NEpisodes": int32(2), "NSuccess": int32(2), "SuccessRate": 1.0, "RepSuccessSample": int32(1), "RepFailureSample": int32(-1)},
			},
			[]Card{{CardID: "c-0-a", NEpisodes: 2, NSuccess: 2, SuccessRate: 1, RepSuccessSample: v(1)}}, nil},
		{"train_metrics", 1, reflect.TypeFor[TrainMetrics](),
			[]map[string]any{
				// SFT: the GRPO columns written as 0
				{"Phase": "sft", "Step": int32(1), "Loss": 2.5, "Entropy": 1.5, "Tokens": int32(40)},
				// GRPO: its zeros are values (on-policy, no KL yet)...
				{"Phase": "grpo", "Step": int32(1), "Loss": 0.1, "PolicyLoss": 0.1, "RatioMean": 1.0, "Entropy": 1.2, "AdvStd": 0.5, "Groups": int32(2), "Tokens": int32(30)},
				// ...but its token means without tokens are not
				{"Phase": "grpo", "Step": int32(2), "Groups": int32(1), "ZeroVarGroups": int32(1)},
			},
			[]TrainMetrics{
				{Phase: "sft", Step: 1, Loss: 2.5, Entropy: f(1.5), Tokens: 40},
				{Phase: "grpo", Step: 1, Loss: 0.1, PolicyLoss: f(0.1), KL: f(0), ClipFrac: f(0), RatioMean: f(1), Entropy: f(1.2),
					AdvMean: f(0), AdvStd: f(0.5), SkillNameShare: f(0), ZeroVarGroups: v(0), Groups: v(2), Tokens: 30},
				{Phase: "grpo", Step: 2, PolicyLoss: f(0), KL: f(0), AdvMean: f(0), AdvStd: f(0), SkillNameShare: f(0), ZeroVarGroups: v(1), Groups: v(1)},
			}, nil},
		{"controller_state", 2, reflect.TypeFor[ControllerState](),
			[]map[string]any{
				// never observed: rates written as 0
				{"TaskType": "a", "Primitive": "NONE", "NNone": int32(1)},
				// observed with no success: 0 is a value
				{"TaskType": "b", "Primitive": "EXPAND", "Observed": true, "NObserved": int32(1), "NExpand": int32(1)},
			},
			[]ControllerState{
				{TaskType: "a", Primitive: "NONE", NNone: 1},
				{TaskType: "b", Primitive: "EXPAND", Observed: true, NObserved: 1, NExpand: 1, SmoothedSuccess: f(0), LastSuccess: f(0)},
			}, nil},
		{"reading_audit", 2, reflect.TypeFor[ReadingAudit](),
			[]map[string]any{
				{"Condition": "none", "Episodes": int32(2), "RightReads": math.NaN()},
				{"Condition": "wrong-skill", "Episodes": int32(2), "Reads": 1.0, "RightReads": 0.0},
			},
			[]ReadingAudit{
				{Condition: "none", Episodes: 2},
				{Condition: "wrong-skill", Episodes: 2, Reads: 1, RightReads: f(0)},
			}, nil},
		{"credit_audit", 3, reflect.TypeFor[CreditAudit](),
			[]map[string]any{
				{"Horizon": "steps", "Episodes": int32(2), "SkillNameShare": 0.5, "RightNegFrac": math.NaN(), "RightSign": math.NaN(), "WrongSign": -1.0,
					"RhoSkillNameShare": math.NaN(), "RhoRightNeg": math.NaN(), "RhoRightSign": math.NaN(), "RhoWrongSign": math.NaN(),
					"AnchorCoverage": math.NaN(), "StepGroupSize": math.NaN()},
				{"Horizon": "steps", "Bin": int32(1), "Episodes": int32(2), "SkillNameShare": 0.0, "RightReads": int32(1), "RightNegFrac": 0.0, "RightSign": 1.0, "WrongSign": math.NaN(),
					"RhoSkillNameShare": 1.0, "RhoRightNeg": math.NaN(), "RhoRightSign": math.NaN(), "RhoWrongSign": math.NaN(),
					"Turns": int32(4), "AnchorCoverage": 0.5, "StepGroupSize": 1.5},
			},
			[]CreditAudit{
				{Horizon: "steps", Episodes: 2, SkillNameShare: f(0.5), WrongSign: f(-1)},
				{Horizon: "steps", Bin: 1, Episodes: 2, SkillNameShare: f(0), RightReads: 1, RightNegFrac: f(0), RightSign: f(1),
					RhoSkillNameShare: f(1), Turns: 4, AnchorCoverage: f(0.5), StepGroupSize: f(1.5)},
			}, nil},
		{"scaffold_audit", 1, reflect.TypeFor[ScaffoldAudit](),
			[]map[string]any{
				// no scored tokens: NaN, and the first checkpoint's change 0
				{"Checkpoint": "a0", "Episodes": int32(1), "NLLWith": math.NaN(), "NLLWithout": math.NaN(), "Gap": math.NaN(), "GapRelative": 0.0},
				{"Checkpoint": "a1", "Index": int32(1), "Episodes": int32(1), "NLLWith": math.NaN(), "NLLWithout": math.NaN(), "Gap": math.NaN(), "GapRelative": math.NaN()},
				// scored: values, the first checkpoint's change 0 among them
				{"Checkpoint": "b0", "Episodes": int32(2), "Tokens": int64(10), "NLLWith": 2.0, "NLLWithout": 2.5, "Gap": 0.5, "GapRelative": 0.0},
				{"Checkpoint": "b1", "Index": int32(1), "Episodes": int32(2), "Tokens": int64(10), "NLLWith": 2.0, "NLLWithout": 2.75, "Gap": 0.75, "GapRelative": 0.5},
				// a first gap of 0: no relative change
				{"Checkpoint": "c0", "Episodes": int32(2), "Tokens": int64(10), "NLLWith": 2.0, "NLLWithout": 2.0, "Gap": 0.0, "GapRelative": 0.0},
				{"Checkpoint": "c1", "Index": int32(1), "Episodes": int32(2), "Tokens": int64(10), "NLLWith": 2.0, "NLLWithout": 2.25, "Gap": 0.25, "GapRelative": math.Inf(1)},
			},
			[]ScaffoldAudit{
				{Checkpoint: "a0", Episodes: 1},
				{Checkpoint: "a1", Index: 1, Episodes: 1},
				{Checkpoint: "b0", Episodes: 2, Tokens: 10, NLLWith: f(2), NLLWithout: f(2.5), Gap: f(0.5), GapRelative: f(0)},
				{Checkpoint: "b1", Index: 1, Episodes: 2, Tokens: 10, NLLWith: f(2), NLLWithout: f(2.75), Gap: f(0.75), GapRelative: f(0.5)},
				{Checkpoint: "c0", Episodes: 2, Tokens: 10, NLLWith: f(2), NLLWithout: f(2), Gap: f(0)},
				{Checkpoint: "c1", Index: 1, Episodes: 2, Tokens: 10, NLLWith: f(2), NLLWithout: f(2.25), Gap: f(0.25)},
			}, nil},
		{"type_evidence", 1, reflect.TypeFor[TypeEvidence](),
			[]map[string]any{{"TaskType": "", "NCards": int32(1)}, {"TaskType": "pick", "NCards": int32(1)}},
			[]TypeEvidence{{NCards: 1}, {TaskType: "pick", NCards: 1}}, nil},
	}
	for _, c := range cases {
		old := oldLayout(c.typ, c.version, c.nullable...)
		rows := reflect.MakeSlice(reflect.SliceOf(old), len(c.old), len(c.old))
		for i, fields := range c.old {
			setFields(rows.Index(i), fields)
		}
		path := filepath.Join(t.TempDir(), c.kind+".parquet")
		writeOld(t, path, c.kind, c.version, rows)
		k, _ := LookupKind(c.kind)
		got, metas, err := k.read(path)
		if err != nil {
			t.Fatalf("%s version %d: %v", c.kind, c.version, err)
		}
		if metas[0].SchemaVersion != c.version {
			t.Errorf("%s: read version %d", c.kind, metas[0].SchemaVersion)
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s version %d (-want +got):\n%s", c.kind, c.version, diff)
		}
		// Written now, the same rows carry NULLs and read back equal.
		now := filepath.Join(t.TempDir(), c.kind+".parquet")
		f, err := os.Create(now)
		if err != nil {
			t.Fatal(err)
		}
		if err := k.write(f, Parquet, c.want, Meta{}); err != nil {
			t.Fatal(err)
		}
		f.Close()
		back, _, err := k.read(now)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(c.want, back); diff != "" {
			t.Errorf("%s written now (-want +got):\n%s", c.kind, diff)
		}
	}
}

// TestNullsInFile: the absent values of current files are NULLs in the
// Parquet column chunks (null counts), not sentinels.
func TestNullsInFile(t *testing.T) {
	rows := []EvalMetrics{{Env: "shop", Split: "s", Policy: "oracle", Scope: ScopeAll}, {Env: "shop", Split: "s", Policy: "oracle", Scope: ScopeType, TaskType: "a"}}
	path := filepath.Join(t.TempDir(), "m.parquet")
	if err := WriteFile(path, rows, Meta{}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := parquet.OpenFile(strings.NewReader(string(b)), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"run": 2, "scaffold": 2, "task_type": 1, "iteration": 2, "seed": 2, "temperature": 2, "right_read_rate": 2, "misleading_read_rate": 2, "misleading_exposure": 2, "env": 0, "scope": 0}
	got := map[string]int64{}
	for name := range want {
		l, ok := f.Schema().Lookup(name)
		if !ok {
			t.Fatalf("no column %s", name)
		}
		for _, rg := range f.Metadata().RowGroups {
			got[name] += rg.Columns[l.ColumnIndex].MetaData.Statistics.NullCount
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("NULL counts (-want +got):\n%s", diff)
	}
}
