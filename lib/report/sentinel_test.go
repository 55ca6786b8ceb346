package report

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/parquet-go/parquet-go"

	"github.com/pats-rl/pats/lib/table"
)

// nullCounts returns the NULL count of each named column of a Parquet
// file, from its column chunks' statistics.
func nullCounts(t *testing.T, path string, cols ...string) map[string]int64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := parquet.OpenFile(strings.NewReader(string(b)), int64(len(b)))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	got := map[string]int64{}
	for _, name := range cols {
		l, ok := f.Schema().Lookup(name)
		if !ok {
			t.Fatalf("%s: no column %s", path, name)
		}
		got[name] = 0
		for _, rg := range f.Metadata().RowGroups {
			got[name] += rg.Columns[l.ColumnIndex].MetaData.Statistics.NullCount
		}
	}
	return got
}

// beforeNulls returns row type t as the versions before NULLs wrote it:
// pointer fields as plain values, every column required.
func beforeNulls(t reflect.Type) reflect.Type {
	var fields []reflect.StructField
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("parquet"), ",")
		if f.Type.Kind() == reflect.Pointer {
			f.Type = f.Type.Elem()
		}
		f.Tag = reflect.StructTag(`parquet:"` + name + `"`)
		fields = append(fields, f)
	}
	return reflect.StructOf(fields)
}

// TestReadSweepSentinelVersions: report sweep's files of the versions
// before NULLs (sweep_run 4, sweep_result 4, sweep_credit 1), with their
// stand-ins (a read share 0 without reads, NaN without a re-attached
// evaluation, a paper figure, a seed with reads or a seed with the
// measure; "" for no paper row) read as NULL; values stay values.
func TestReadSweepSentinelVersions(t *testing.T) {
	nan := math.NaN()
	f := func(x float64) *float64 { return &x }
	cases := []struct {
		kind    string
		version int
		typ     reflect.Type
		old     []map[string]any
		read    func(string) (any, error)
		want    any
	}{
		{"sweep_run", 4, reflect.TypeFor[SweepRun](),
			[]map[string]any{
				// no reads in either split, no re-attached evaluation
				{"Variant": "grpo", "ReattachSeen": nan, "ReattachUnseen": nan, "ReattachTokens": nan},
				// reads in valid_seen only; a share of 0 with reads is a value
				{"Variant": "pats", "SeenReads": 2.0, "SeenRightReads": 0.0, "SeenMisleading": 0.5, "ReattachSeen": 0.5, "ReattachUnseen": 0.25, "ReattachTokens": 90.0},
			},
			func(p string) (any, error) { r, _, err := table.ReadFiles[SweepRun](p); return r, err },
			[]SweepRun{
				{Variant: "grpo"},
				{Variant: "pats", SeenReads: 2, SeenRightReads: f(0), SeenMisleading: f(0.5), ReattachSeen: f(0.5), ReattachUnseen: f(0.25), ReattachTokens: f(90)},
			}},
		{"sweep_result", 4, reflect.TypeFor[SweepResult](),
			[]map[string]any{
				{"Variant": "mine", "Seeds": int32(1), "PaperSuccess": nan, "SeenRightReadsMean": nan, "SeenRightReadsStd": nan, "SeenMisleadingMean": nan, "SeenMisleadingStd": nan,
					"UnseenRightReadsMean": nan, "UnseenRightReadsStd": nan, "UnseenMisleadingMean": nan, "UnseenMisleadingStd": nan,
					"ReattachSeenMean": nan, "ReattachSeenStd": nan, "ReattachUnseenMean": nan, "ReattachUnseenStd": nan, "ReattachTokensMean": nan, "ReattachTokensStd": nan},
				{"Variant": "pats", "Seeds": int32(1), "PaperSuccess": 80.71, "PaperVariant": "full PATS", "SeenReadSeeds": int32(1), "SeenRightReadsMean": 0.5, "SeenMisleadingMean": 0.0,
					"UnseenRightReadsMean": nan, "UnseenRightReadsStd": nan, "UnseenMisleadingMean": nan, "UnseenMisleadingStd": nan,
					"ReattachSeeds": int32(1), "ReattachSeenMean": 0.5, "ReattachUnseenMean": nan, "ReattachUnseenStd": nan, "ReattachTokensMean": 90.0},
			},
			func(p string) (any, error) { r, _, err := table.ReadFiles[SweepResult](p); return r, err },
			[]SweepResult{
				{Variant: "mine", Seeds: 1},
				{Variant: "pats", Seeds: 1, PaperSuccess: f(80.71), PaperVariant: "full PATS", SeenReadSeeds: 1, SeenRightReadsMean: f(0.5), SeenRightReadsStd: f(0),
					SeenMisleadingMean: f(0), SeenMisleadingStd: f(0), ReattachSeeds: 1, ReattachSeenMean: f(0.5), ReattachSeenStd: f(0), ReattachTokensMean: f(90), ReattachTokensStd: f(0)},
			}},
		{"sweep_credit", 1, reflect.TypeFor[SweepCredit](),
			[]map[string]any{
				{"Variant": "gigpo", "Seeds": int32(1), "ShareMean": nan, "ShareStd": nan, "RightNegMean": nan, "RightNegStd": nan, "CoverageMean": 0.5, "GroupSizeMean": nan, "GroupSizeStd": nan},
			},
			func(p string) (any, error) { r, _, err := table.ReadFiles[SweepCredit](p); return r, err },
			[]SweepCredit{{Variant: "gigpo", Seeds: 1, CoverageMean: f(0.5), CoverageStd: f(0)}}},
	}
	for _, c := range cases {
		old := beforeNulls(c.typ)
		rows := reflect.MakeSlice(reflect.SliceOf(old), len(c.old), len(c.old))
		for i, fields := range c.old {
			for name, x := range fields {
				rows.Index(i).FieldByName(name).Set(reflect.ValueOf(x))
			}
		}
		path := filepath.Join(t.TempDir(), c.kind+".parquet")
		fh, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		w := parquet.NewWriter(fh, parquet.SchemaOf(reflect.New(old).Elem().Interface()),
			parquet.KeyValueMetadata("pats.kind", c.kind), parquet.KeyValueMetadata("pats.schema_version", strconv.Itoa(c.version)))
		for i := 0; i < rows.Len(); i++ {
			if err := w.Write(rows.Index(i).Interface()); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		fh.Close()
		got, err := c.read(path)
		if err != nil {
			t.Fatalf("%s version %d: %v", c.kind, c.version, err)
		}
		if d := cmp.Diff(c.want, got); d != "" {
			t.Errorf("%s version %d (-want +got):\n%s", c.kind, c.version, d)
		}
	}
}
