package report

import (
	"bytes"
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

// oldLayout returns row type t as an older schema version wrote it: the
// columns added since version left out, pointer fields as plain values
// and every column required, except the fields named in nullable, which
// that version wrote as now. With no nullable fields it is the layout of
// the versions before NULLs.
func oldLayout(t reflect.Type, version int, nullable ...string) reflect.Type {
	var fields []reflect.StructField
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if since, _ := strconv.Atoi(f.Tag.Get("since")); since > version {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("parquet"), ",")
		if slices.Contains(nullable, f.Name) {
			name += ",optional"
		} else if f.Type.Kind() == reflect.Pointer {
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
// measure; "" for no paper row) read as NULL; values stay values. The
// misleading exposure, nullable since sweep_run and sweep_result 6, reads
// as NULL from files of version 3, which lack it, and as the value (0
// included) from versions 4 and 5, where it was required; their means
// were over every seed, so its seed counts read as the row's seeds.
func TestReadSweepSentinelVersions(t *testing.T) {
	nan := math.NaN()
	f := func(x float64) *float64 { return &x }
	runNullable := []string{"SeenRightReads", "SeenMisleading", "UnseenRightReads", "UnseenMisleading", "ReattachSeen", "ReattachUnseen", "ReattachTokens"}
	resultNullable := []string{"PaperSuccess", "PaperVariant", "SeenRightReadsMean", "SeenRightReadsStd", "SeenMisleadingMean", "SeenMisleadingStd",
		"UnseenRightReadsMean", "UnseenRightReadsStd", "UnseenMisleadingMean", "UnseenMisleadingStd",
		"ReattachSeenMean", "ReattachSeenStd", "ReattachUnseenMean", "ReattachUnseenStd", "ReattachTokensMean", "ReattachTokensStd"}
	cases := []struct {
		kind     string
		version  int
		typ      reflect.Type
		old      []map[string]any
		read     func(string) (any, error)
		want     any
		nullable []string // fields the version already wrote as NULL where absent
	}{
		{"sweep_run", 3, reflect.TypeFor[SweepRun](),
			[]map[string]any{
				// no exposure columns: unknown
				{"Variant": "pats", "SeenReads": 2.0, "SeenRightReads": 0.5, "SeenMisleading": 0.5, "ReattachSeen": nan, "ReattachUnseen": nan, "ReattachTokens": nan},
			},
			func(p string) (any, error) { r, _, err := table.ReadFiles[SweepRun](p); return r, err },
			[]SweepRun{{Variant: "pats", SeenReads: 2, SeenRightReads: f(0.5), SeenMisleading: f(0.5)}}, nil},
		{"sweep_run", 4, reflect.TypeFor[SweepRun](),
			[]map[string]any{
				// no reads in either split, no re-attached evaluation
				{"Variant": "grpo", "ReattachSeen": nan, "ReattachUnseen": nan, "ReattachTokens": nan},
				// reads in valid_seen only; a share of 0 with reads is a value
				{"Variant": "pats", "SeenReads": 2.0, "SeenRightReads": 0.0, "SeenMisleading": 0.5, "ReattachSeen": 0.5, "ReattachUnseen": 0.25, "ReattachTokens": 90.0},
			},
			func(p string) (any, error) { r, _, err := table.ReadFiles[SweepRun](p); return r, err },
			[]SweepRun{
				{Variant: "grpo", SeenExposure: f(0), UnseenExposure: f(0)},
				{Variant: "pats", SeenReads: 2, SeenRightReads: f(0), SeenMisleading: f(0.5), ReattachSeen: f(0.5), ReattachUnseen: f(0.25), ReattachTokens: f(90),
					SeenExposure: f(0), UnseenExposure: f(0)},
			}, nil},
		{"sweep_run", 5, reflect.TypeFor[SweepRun](),
			[]map[string]any{
				// the exposure required: values, 0 included, stay values
				{"Variant": "pats", "SeenReads": 2.0, "SeenRightReads": f(0.5), "SeenMisleading": f(0.25), "SeenExposure": 0.4, "UnseenExposure": 0.0},
			},
			func(p string) (any, error) { r, _, err := table.ReadFiles[SweepRun](p); return r, err },
			[]SweepRun{{Variant: "pats", SeenReads: 2, SeenRightReads: f(0.5), SeenMisleading: f(0.25), SeenExposure: f(0.4), UnseenExposure: f(0)}},
			runNullable},
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
				{Variant: "mine", Seeds: 1, SeenExposureMean: f(0), SeenExposureStd: f(0), UnseenExposureMean: f(0), UnseenExposureStd: f(0), SeenExposureSeeds: 1, UnseenExposureSeeds: 1},
				{Variant: "pats", Seeds: 1, PaperSuccess: f(80.71), PaperVariant: "full PATS", SeenReadSeeds: 1, SeenRightReadsMean: f(0.5), SeenRightReadsStd: f(0),
					SeenMisleadingMean: f(0), SeenMisleadingStd: f(0), ReattachSeeds: 1, ReattachSeenMean: f(0.5), ReattachSeenStd: f(0), ReattachTokensMean: f(90), ReattachTokensStd: f(0),
					SeenExposureMean: f(0), SeenExposureStd: f(0), UnseenExposureMean: f(0), UnseenExposureStd: f(0), SeenExposureSeeds: 1, UnseenExposureSeeds: 1},
			}, nil},
		{"sweep_result", 3, reflect.TypeFor[SweepResult](),
			[]map[string]any{
				// no exposure columns: unknown, over no seed
				{"Variant": "pats", "Seeds": int32(2), "PaperSuccess": nan, "SeenReadSeeds": int32(2), "SeenRightReadsMean": 0.5, "SeenMisleadingMean": 0.25,
					"UnseenRightReadsMean": nan, "UnseenRightReadsStd": nan, "UnseenMisleadingMean": nan, "UnseenMisleadingStd": nan,
					"ReattachSeenMean": nan, "ReattachSeenStd": nan, "ReattachUnseenMean": nan, "ReattachUnseenStd": nan, "ReattachTokensMean": nan, "ReattachTokensStd": nan},
			},
			func(p string) (any, error) { r, _, err := table.ReadFiles[SweepResult](p); return r, err },
			[]SweepResult{{Variant: "pats", Seeds: 2, SeenReadSeeds: 2, SeenRightReadsMean: f(0.5), SeenRightReadsStd: f(0), SeenMisleadingMean: f(0.25), SeenMisleadingStd: f(0)}},
			nil},
		{"sweep_result", 5, reflect.TypeFor[SweepResult](),
			[]map[string]any{
				// the exposure required, over every seed: values, 0 included
				{"Variant": "pats", "Seeds": int32(2), "SeenExposureMean": 0.3, "SeenExposureStd": 0.1, "UnseenExposureMean": 0.0, "UnseenExposureStd": 0.0},
			},
			func(p string) (any, error) { r, _, err := table.ReadFiles[SweepResult](p); return r, err },
			[]SweepResult{{Variant: "pats", Seeds: 2, SeenExposureMean: f(0.3), SeenExposureStd: f(0.1), UnseenExposureMean: f(0), UnseenExposureStd: f(0),
				SeenExposureSeeds: 2, UnseenExposureSeeds: 2}},
			resultNullable},
		{"sweep_credit", 1, reflect.TypeFor[SweepCredit](),
			[]map[string]any{
				{"Variant": "gigpo", "Seeds": int32(1), "ShareMean": nan, "ShareStd": nan, "RightNegMean": nan, "RightNegStd": nan, "CoverageMean": 0.5, "GroupSizeMean": nan, "GroupSizeStd": nan},
			},
			func(p string) (any, error) { r, _, err := table.ReadFiles[SweepCredit](p); return r, err },
			[]SweepCredit{{Variant: "gigpo", Seeds: 1, CoverageMean: f(0.5), CoverageStd: f(0)}}, nil},
	}
	for _, c := range cases {
		old := oldLayout(c.typ, c.version, c.nullable...)
		rows := reflect.MakeSlice(reflect.SliceOf(old), len(c.old), len(c.old))
		for i, fields := range c.old {
			for name, x := range fields {
				rows.Index(i).FieldByName(name).Set(reflect.ValueOf(x))
			}
		}
		path := filepath.Join(t.TempDir(), c.kind+".parquet")
		writeOld(t, path, c.kind, c.version, rows)
		got, err := c.read(path)
		if err != nil {
			t.Fatalf("%s version %d: %v", c.kind, c.version, err)
		}
		if d := cmp.Diff(c.want, got); d != "" {
			t.Errorf("%s version %d (-want +got):\n%s", c.kind, c.version, d)
		}
	}
}

// writeOld writes rows (a slice of an oldLayout type) as a Parquet file of
// the kind at the given schema version.
func writeOld(t *testing.T, path, kind string, version int, rows reflect.Value) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	fh, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	w := parquet.NewWriter(fh, parquet.SchemaOf(reflect.New(rows.Type().Elem()).Elem().Interface()),
		parquet.KeyValueMetadata("pats.kind", kind), parquet.KeyValueMetadata("pats.schema_version", strconv.Itoa(version)))
	for i := 0; i < rows.Len(); i++ {
		if err := w.Write(rows.Index(i).Interface()); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestSweepExposureUnknown: report sweep over runs whose final
// evaluations are eval_metrics version 1 files, which have no
// misleading_exposure column, beside a seed whose evaluations have one.
// Such a run's exposure is NULL (unknown), not 0; a variant's mean is over
// the seeds that have it, the Markdown saying over how many; where no seed
// has it, the mean is NULL and the Markdown prints —. The reads, which
// version 1 has, are as the files hold them.
func TestSweepExposureUnknown(t *testing.T) {
	root := t.TempDir()
	f := func(x float64) *float64 { return &x }
	// writeV1 writes one version 1 evaluation file: the overall row marked
	// by task type "all", beside a task-type row the report must not read.
	writeV1 := func(dir, split string) {
		rows := reflect.MakeSlice(reflect.SliceOf(oldLayout(reflect.TypeFor[table.EvalMetrics](), 1)), 2, 2)
		for i, fields := range []map[string]any{
			{"Split": split, "TaskType": "all", "Episodes": int32(10), "Success": 0.5, "Score": 0.5, "Tokens": 100.0, "ReadsPerEp": 2.0, "RightReadRate": 0.5, "MisleadingRate": 0.25},
			{"Split": split, "TaskType": "t1", "Episodes": int32(10), "Success": 0.99, "Tokens": 1.0, "ReadsPerEp": 9.0, "RightReadRate": 0.99, "MisleadingRate": 0.99},
		} {
			for name, x := range fields {
				rows.Index(i).FieldByName(name).Set(reflect.ValueOf(x))
			}
		}
		writeOld(t, filepath.Join(dir, "eval", "3", "bare-"+split+".parquet"), "eval_metrics", 1, rows)
	}
	variants := []string{"mixed", "old"}
	for _, run := range []string{"mixed-s1", "mixed-s2", "old-s1", "old-s2"} {
		dir := filepath.Join(root, run)
		finish(t, dir)
		for _, split := range []string{"valid_seen", "valid_unseen"} {
			if run == "mixed-s2" {
				writeEvalAll(t, dir, 3, "bare", table.EvalMetrics{Split: split, Episodes: 10, Success: 0.5, Score: 0.5, Tokens: 100,
					ReadsPerEp: 2, RightReadRate: f(0.5), MisleadingRate: f(0.25), MisleadingExposure: f(0.4)})
			} else {
				writeV1(dir, split)
			}
		}
	}
	var runs []SweepRun
	for _, v := range variants {
		for _, s := range []int64{1, 2} {
			r, err := LoadSweepRun(RunDir(root, v, s), v, s)
			if err != nil {
				t.Fatal(err)
			}
			runs = append(runs, r)
		}
	}
	type expo struct {
		Run                    string
		SeenReads, UnseenReads float64
		SeenMis, Seen, Unseen  *float64
	}
	var gotRuns []expo
	for _, r := range runs {
		gotRuns = append(gotRuns, expo{filepath.Base(r.Run), r.SeenReads, r.UnseenReads, r.SeenMisleading, r.SeenExposure, r.UnseenExposure})
	}
	wantRuns := []expo{{"mixed-s1", 2, 2, f(0.25), nil, nil}, {"mixed-s2", 2, 2, f(0.25), f(0.4), f(0.4)}, {"old-s1", 2, 2, f(0.25), nil, nil}, {"old-s2", 2, 2, f(0.25), nil, nil}}
	if d := cmp.Diff(wantRuns, gotRuns); d != "" {
		t.Errorf("per-run exposure (-want +got):\n%s", d)
	}

	res := Aggregate(runs, variants)
	type mean struct {
		Variant                                  string
		Seeds, SeenSeeds, UnseenSeeds            int32
		SeenMean, SeenStd, UnseenMean, UnseenStd *float64
	}
	var gotRes []mean
	for _, r := range res {
		gotRes = append(gotRes, mean{r.Variant, r.Seeds, r.SeenExposureSeeds, r.UnseenExposureSeeds, r.SeenExposureMean, r.SeenExposureStd, r.UnseenExposureMean, r.UnseenExposureStd})
	}
	wantRes := []mean{{"mixed", 2, 1, 1, f(0.4), f(0), f(0.4), f(0)}, {"old", 2, 0, 0, nil, nil, nil, nil}}
	if d := cmp.Diff(wantRes, gotRes); d != "" {
		t.Errorf("exposure over seeds (-want +got):\n%s", d)
	}

	// Written, the unknown exposures are NULLs.
	p := filepath.Join(t.TempDir(), "runs.parquet")
	if err := table.WriteFile(p, runs, table.Meta{}); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]int64{"seen_misleading_exposure": 3, "unseen_misleading_exposure": 3},
		nullCounts(t, p, "seen_misleading_exposure", "unseen_misleading_exposure")); d != "" {
		t.Errorf("sweep_run NULL counts (-want +got):\n%s", d)
	}
	p = filepath.Join(t.TempDir(), "results.parquet")
	if err := table.WriteFile(p, res, table.Meta{}); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]int64{"seen_misleading_exposure_mean": 1, "unseen_misleading_exposure_std": 1},
		nullCounts(t, p, "seen_misleading_exposure_mean", "unseen_misleading_exposure_std")); d != "" {
		t.Errorf("sweep_result NULL counts (-want +got):\n%s", d)
	}

	var b bytes.Buffer
	WriteSweepMarkdown(&b, res, nil)
	for _, want := range []string{
		"| mixed | valid_seen | 2 | 50.0 ± 0.0 | 2.00 ± 0.00 | 50.0 ± 0.0 | 40.0 ± 0.0 (1 of 2 seeds) | 25.0 ± 0.0 |\n",
		"| mixed | valid_unseen | 2 | 50.0 ± 0.0 | 2.00 ± 0.00 | 50.0 ± 0.0 | 40.0 ± 0.0 (1 of 2 seeds) | 25.0 ± 0.0 |\n",
		"| old | valid_seen | 2 | 50.0 ± 0.0 | 2.00 ± 0.00 | 50.0 ± 0.0 | — | 25.0 ± 0.0 |\n",
		"| old | valid_unseen | 2 | 50.0 ± 0.0 | 2.00 ± 0.00 | 50.0 ± 0.0 | — | 25.0 ± 0.0 |\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("sweep Markdown has no line\n%s\n%s", want, b.String())
		}
	}
}
