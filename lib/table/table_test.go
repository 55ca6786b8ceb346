package table

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/parquet-go/parquet-go"
)

// sampleTrajectories builds n episodes with varied list contents: empty and
// nil lists, unicode text, negative and extreme numbers.
func sampleTrajectories(n int, seed uint64) []Trajectory {
	r := rand.New(rand.NewPCG(seed, 1))
	rows := make([]Trajectory, n)
	for i := range rows {
		nt := r.IntN(300)
		t := Trajectory{
			Run: "run-α", Iteration: int32(i % 3), Env: "household", Split: "train",
			TaskID: fmt.Sprintf("task-%03d", i), TaskType: []string{"pick", "clean", "heat"}[i%3],
			GroupID: fmt.Sprintf("g%d", i/4), Sample: int32(i % 4), Seed: int64(r.Uint64() >> 1),
			Policy: "oracle", Success: i%2 == 0, Reward: r.NormFloat64(), Score: r.Float64(),
			Steps: int32(r.IntN(50)), Goal: "put a clean mug in the coffeemachine\n\"quoted\" ☕",
			NTokens: int32(nt), Tokenizer: "abc123"}
		if i%2 == 1 {
			v := int32(i)
			t.ScaffoldVersion = &v
		}
		if !t.Success {
			t.FailureMode = "max_steps"
		}
		if i%5 != 1 { // i%5 == 1 keeps every list nil
			na := 1 + r.IntN(6)
			for a := 0; a < na; a++ {
				t.Actions = append(t.Actions, fmt.Sprintf("go to cabinet %d", r.IntN(10)))
				t.Observations = append(t.Observations, strings.Repeat("You see a mug. ", r.IntN(4)))
				t.StepKeys = append(t.StepKeys, fmt.Sprintf("%016x", r.Uint64()))
				t.StepRewards = append(t.StepRewards, float64(r.IntN(3))-0.5)
			}
			t.Features = []string{"", "loop", "inventory:mug"}
			t.Tokens = make([]int32, nt)
			t.Roles = make([]int8, nt)
			t.Logprobs = make([]float32, nt)
			for k := range t.Tokens {
				t.Tokens[k] = int32(r.IntN(1 << 20))
				t.Roles[k] = int8(r.IntN(len(RoleNames)))
				if PolicyWritten(t.Roles[k]) {
					t.Logprobs[k] = -float32(r.ExpFloat64())
					t.NPolicyTokens++
				}
			}
			t.Slate = []string{"heat-skill", "clean-skill", "misleading"}
			t.Reads = []string{"clean-skill"}
			t.ReadsRight = []bool{i%3 == 1}
			t.ReadsMisleading = []bool{false}
		}
		rows[i] = t
	}
	return rows
}

func sampleEvalMetrics() []EvalMetrics {
	return []EvalMetrics{
		{Run: "r", Env: "shop", Split: "valid_seen", Policy: "ckpt/3", Scope: ScopeAll, Episodes: 40, Success: 0.625, Score: 0.7, Steps: 9.5, Tokens: 812.25, PolicyTokens: 90, ReadsPerEp: 1, RightReadRate: NullNaN(0.8), MisleadingRate: NullNaN(0.05)},
		{Run: "r", Env: "shop", Split: "valid_seen", Policy: "ckpt/3", Scaffold: "snap/3.parquet", Scope: ScopeType, TaskType: "search", Episodes: 0},
	}
}

var testMeta = Meta{
	Command: "rollout --seed 7 'a b'",
	Seed:    7,
	Inputs:  map[string]string{"ckpt/0": "00ff", "snap/0.parquet": "1234"},
	Extra:   map[string]string{"note": "x=1"},
}

// wantMeta is testMeta as read back from a file of kind k at path.
func wantMeta(k string, path string) Meta {
	m := testMeta
	kind, _ := LookupKind(k)
	m.Kind, m.SchemaVersion, m.Path = k, kind.Version, path
	return m
}

var formats = []Format{Parquet, ArrowStream, ArrowFile}

// roundTrip writes rows in format f to a file and reads them back.
func roundTrip[T any](t *testing.T, f Format, rows []T) ([]T, []Meta, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "rows."+f.String())
	if err := AtomicWrite(path, func(w io.Writer) error { return Write(w, f, rows, testMeta) }); err != nil {
		t.Fatalf("write %v: %v", f, err)
	}
	got, metas, err := ReadFiles[T](path)
	if err != nil {
		t.Fatalf("read %v: %v", f, err)
	}
	return got, metas, path
}

// noRowChecks turns the row invariants off for a test of the I/O alone.
func noRowChecks(t *testing.T) {
	rowChecks = false
	t.Cleanup(func() { rowChecks = true })
}

func TestRoundTrip(t *testing.T) {
	noRowChecks(t)
	traj := sampleTrajectories(37, 1)
	// Expected: as written, except empty lists come back as nil.
	wantTraj := append([]Trajectory(nil), traj...)
	for i := range wantTraj {
		if len(wantTraj[i].Features) == 0 {
			wantTraj[i].Features = nil
		}
	}
	evals := sampleEvalMetrics()
	for _, f := range formats {
		t.Run("trajectory/"+f.String(), func(t *testing.T) {
			got, metas, path := roundTrip(t, f, traj)
			if d := cmp.Diff(wantTraj, got); d != "" {
				t.Errorf("rows differ (-want +got):\n%s", d)
			}
			if d := cmp.Diff([]Meta{wantMeta("trajectory", path)}, metas); d != "" {
				t.Errorf("meta differs (-want +got):\n%s", d)
			}
		})
		t.Run("eval_metrics/"+f.String(), func(t *testing.T) {
			got, metas, path := roundTrip(t, f, evals)
			if d := cmp.Diff(evals, got); d != "" {
				t.Errorf("rows differ (-want +got):\n%s", d)
			}
			if d := cmp.Diff([]Meta{wantMeta("eval_metrics", path)}, metas); d != "" {
				t.Errorf("meta differs (-want +got):\n%s", d)
			}
		})
		t.Run("empty/"+f.String(), func(t *testing.T) {
			got, metas, _ := roundTrip(t, f, []Trajectory{})
			if len(got) != 0 || len(metas) != 1 || metas[0].Kind != "trajectory" {
				t.Errorf("got %d rows, metas %+v", len(got), metas)
			}
		})
	}
	// More rows than one Parquet read buffer and one Arrow record batch, so
	// that buffer reuse between batches would show.
	// (reflect.DeepEqual first: cmp is slow on this many values.)
	many := sampleTrajectories(arrowBatchRows+77, 10)
	for _, f := range formats {
		got, _, _ := roundTrip(t, f, many)
		if !reflect.DeepEqual(normalised(many), got) {
			t.Errorf("%v: %d rows differ (-want +got):\n%s", f, len(many), cmp.Diff(many, got, equateNil))
		}
	}
	// Empty lists written as empty (not nil) slices read back as nil.
	empty := []Trajectory{{Tokens: []int32{}, Actions: []string{}, ReadsRight: []bool{}}}
	for _, f := range formats {
		got, _, _ := roundTrip(t, f, empty)
		if got[0].Tokens != nil || got[0].Actions != nil || got[0].ReadsRight != nil {
			t.Errorf("%v: empty lists read back as %#v %#v %#v, want nil", f, got[0].Tokens, got[0].Actions, got[0].ReadsRight)
		}
	}
}

// Every registered kind round-trips through every format with non-zero
// values in every column, filled by reflection so that kinds added later
// are covered too.
func TestRoundTripEveryKind(t *testing.T) {
	noRowChecks(t)
	for _, k := range Kinds() {
		for _, f := range formats {
			t.Run(k.Name+"/"+f.String(), func(t *testing.T) {
				rows := reflect.MakeSlice(reflect.SliceOf(k.Type), 5, 5)
				for i := 0; i < rows.Len(); i++ {
					fill(rows.Index(i), i)
				}
				var buf bytes.Buffer
				if err := writeAny(&buf, f, rows.Interface()); err != nil {
					t.Fatal(err)
				}
				path := filepath.Join(t.TempDir(), "x")
				if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				got, err := readAny(k.Type, path)
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(rows.Interface(), got); d != "" {
					t.Errorf("rows differ (-want +got):\n%s", d)
				}
			})
		}
	}
}

// fill sets every field of struct v to a value that depends on the field
// and the row; list i of row r has (r+i)%4 elements, so some are nil.
func fill(v reflect.Value, r int) {
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		if !f.CanSet() {
			continue
		}
		if f.Kind() == reflect.Pointer {
			if (r+i)%3 == 0 {
				continue // NULL
			}
			p := reflect.New(f.Type().Elem())
			fillScalar(p.Elem(), r*100+i)
			f.Set(p)
			continue
		}
		if f.Kind() == reflect.String && (r+i)%5 == 0 {
			continue // "" (NULL in a nullable column)
		}
		if f.Kind() == reflect.Slice {
			n := (r + i) % 4
			if n == 0 {
				continue
			}
			s := reflect.MakeSlice(f.Type(), n, n)
			for j := 0; j < n; j++ {
				fillScalar(s.Index(j), r*100+i*10+j)
			}
			f.Set(s)
		} else {
			fillScalar(f, r*100+i)
		}
	}
}

func fillScalar(f reflect.Value, x int) {
	switch f.Kind() {
	case reflect.String:
		f.SetString(fmt.Sprintf("s%d·", x))
	case reflect.Bool:
		f.SetBool(x%2 == 1)
	case reflect.Int8:
		f.SetInt(int64(x%250 - 125))
	case reflect.Int16, reflect.Int32, reflect.Int64, reflect.Int:
		f.SetInt(int64(x) - 300)
	case reflect.Float32, reflect.Float64:
		f.SetFloat(float64(x) + 0.25)
	}
}

// writeAny and readAny call the generic API for a row type known only at
// run time.
func writeAny(w io.Writer, f Format, rows any) error {
	k, ok := kindOf(reflect.TypeOf(rows).Elem())
	if !ok {
		return fmt.Errorf("%T: not a registered kind", rows)
	}
	return k.write(w, f, rows, Meta{})
}

func readAny(t reflect.Type, path string) (any, error) {
	k, _ := kindOf(t)
	rows, _, err := k.read(path)
	return rows, err
}

func TestDeterministicBytes(t *testing.T) {
	rows := sampleTrajectories(20, 2)
	for _, f := range formats {
		var a, b bytes.Buffer
		if err := Write(&a, f, rows, testMeta); err != nil {
			t.Fatal(err)
		}
		// Same content built anew: fresh maps, copied rows.
		m := testMeta
		m.Inputs = map[string]string{"snap/0.parquet": "1234", "ckpt/0": "00ff"}
		if err := Write(&b, f, sampleTrajectories(20, 2), m); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("%v: two writes of the same rows differ", f)
		}
		// The bytes do not depend on the number of threads.
		var one bytes.Buffer
		procs := runtime.GOMAXPROCS(1)
		err := Write(&one, f, rows, testMeta)
		runtime.GOMAXPROCS(procs)
		if err != nil || !bytes.Equal(a.Bytes(), one.Bytes()) {
			t.Errorf("%v: bytes differ under GOMAXPROCS=1 (%v)", f, err)
		}
		var c bytes.Buffer
		m.Seed = 8
		Write(&c, f, rows, m)
		if bytes.Equal(a.Bytes(), c.Bytes()) {
			t.Errorf("%v: metadata change did not change the bytes", f)
		}
	}
}

func TestMultiFileAndDirectory(t *testing.T) {
	rows := sampleTrajectories(30, 3)
	dir := t.TempDir()
	shards := filepath.Join(dir, "shards")
	// Three shards in three formats, written out of name order; a hidden
	// temporary file and a non-data file must be ignored.
	parts := []struct {
		name string
		f    Format
		rows []Trajectory
	}{
		{"part-2.arrow", ArrowStream, rows[20:]},
		{"part-0.parquet", Parquet, rows[:8]},
		{"part-1.parquet", ArrowFile, rows[8:20]},
	}
	for _, p := range parts {
		if err := AtomicWrite(filepath.Join(shards, p.name), func(w io.Writer) error { return Write(w, p.f, p.rows, testMeta) }); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(shards, ".part-3.parquet.tmp-123"), []byte("PAR1 half"), 0o644)
	os.WriteFile(filepath.Join(shards, "README.md"), []byte("notes"), 0o644)

	got, metas, err := ReadFiles[Trajectory](shards)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(rows, got, equateNil); d != "" {
		t.Errorf("directory read differs (-want +got):\n%s", d)
	}
	var paths []string
	for _, m := range metas {
		paths = append(paths, filepath.Base(m.Path))
	}
	if d := cmp.Diff([]string{"part-0.parquet", "part-1.parquet", "part-2.arrow"}, paths); d != "" {
		t.Errorf("file order (-want +got):\n%s", d)
	}

	// Explicit files in the order given, mixed with the directory.
	single := filepath.Join(dir, "one.parquet")
	if err := WriteFile(single, rows[:2], testMeta); err != nil {
		t.Fatal(err)
	}
	got, metas, err = ReadFiles[Trajectory](single, shards)
	if err != nil {
		t.Fatal(err)
	}
	want := append(append([]Trajectory(nil), rows[:2]...), rows...)
	if d := cmp.Diff(want, got, equateNil); d != "" {
		t.Errorf("multi-file read differs (-want +got):\n%s", d)
	}
	if len(metas) != 4 {
		t.Errorf("got %d metas, want 4", len(metas))
	}

	// Directory hash covers its data files only, and changes with them.
	h1, err := HashFile(shards)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(shards, "README.md"), []byte("other notes"), 0o644)
	if h2, _ := HashFile(shards); h2 != h1 {
		t.Errorf("directory hash changed with a non-data file")
	}
	WriteFile(filepath.Join(shards, "part-3.parquet"), rows[:1], testMeta)
	if h3, _ := HashFile(shards); h3 == h1 {
		t.Errorf("directory hash unchanged after adding a shard")
	}
}

// normalised returns a copy of rows with empty lists set to nil, as they
// read back.
func normalised(rows []Trajectory) []Trajectory {
	out := append([]Trajectory(nil), rows...)
	for i := range out {
		r := &out[i]
		if len(r.Tokens) == 0 {
			r.Tokens, r.Roles, r.Logprobs = nil, nil, nil
		}
		if len(r.Features) == 0 {
			r.Features = nil
		}
	}
	return out
}

// equateNil treats nil and empty slices as equal (the samples hold some
// empty, non-nil lists, which read back as nil).
var equateNil = cmpopts.EquateEmpty()

func TestWriteFileFormats(t *testing.T) {
	dir := t.TempDir()
	rows := sampleEvalMetrics()
	for name, magic := range map[string]string{"m.parquet": "PAR1", "m.arrow": "ARROW1", "sub/dir/m": "PAR1"} {
		p := filepath.Join(dir, name)
		if err := WriteFile(p, rows, Meta{Seed: 3}); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(p)
		if !bytes.HasPrefix(b, []byte(magic)) {
			t.Errorf("%s starts with %q, want %q", name, b[:8], magic)
		}
		st, _ := os.Stat(p)
		if st.Mode().Perm() != 0o644 {
			t.Errorf("%s has mode %v", name, st.Mode())
		}
	}
	if err := WriteFile(filepath.Join(dir, "k.parquet"), rows, Meta{Kind: "trajectory"}); err == nil {
		t.Error("Meta.Kind of another kind was accepted")
	}
	type unregistered struct {
		A int32 `parquet:"a"`
	}
	if err := WriteFile(filepath.Join(dir, "u.parquet"), []unregistered{{1}}, Meta{}); err == nil {
		t.Error("unregistered row type was accepted")
	}
	if _, err := os.Stat(filepath.Join(dir, "u.parquet")); !errors.Is(err, fs.ErrNotExist) {
		t.Error("failed write left a file")
	}
}

func TestAtomicWrite(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "out.parquet")
	boom := errors.New("boom")

	// A failed first write leaves nothing.
	err := AtomicWrite(target, func(w io.Writer) error {
		w.Write(bytes.Repeat([]byte("x"), 100000))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("got %v, want the callback's error", err)
	}
	assertDir(t, dir, nil)

	// A good write, then failed writes, keep the good content.
	if err := WriteFile(target, sampleEvalMetrics(), testMeta); err != nil {
		t.Fatal(err)
	}
	old, _ := os.ReadFile(target)
	err = AtomicWrite(target, func(w io.Writer) error {
		if err := Write(w, Parquet, sampleTrajectories(3, 4), testMeta); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("got %v, want the callback's error", err)
	}
	func() {
		defer func() { recover() }()
		AtomicWrite(target, func(w io.Writer) error { w.Write([]byte("partial")); panic("crash") })
	}()
	now, _ := os.ReadFile(target)
	if !bytes.Equal(old, now) {
		t.Error("failed write changed the existing target")
	}
	assertDir(t, dir, []string{"out.parquet"})
	if _, _, err := ReadFiles[EvalMetrics](target); err != nil {
		t.Errorf("old target no longer reads: %v", err)
	}

	// A write that fails inside the encoder (unregistered type) also leaves
	// the target alone.
	type unregistered struct {
		A int32 `parquet:"a"`
	}
	if err := WriteFile(target, []unregistered{{1}}, Meta{}); err == nil {
		t.Error("expected an error")
	}
	now, _ = os.ReadFile(target)
	if !bytes.Equal(old, now) {
		t.Error("failed WriteFile changed the existing target")
	}
	assertDir(t, dir, []string{"out.parquet"})
}

func assertDir(t *testing.T, dir string, want []string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("directory content (-want +got):\n%s", d)
	}
}

func TestBadInputs(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	encode := func(f Format, rows any) []byte {
		var buf bytes.Buffer
		if err := writeAny(&buf, f, rows); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	traj := sampleTrajectories(10, 5)
	pq := encode(Parquet, traj)
	af := encode(ArrowFile, traj)
	as := encode(ArrowStream, traj)
	r := rand.New(rand.NewPCG(9, 9))
	random := make([]byte, 4096)
	for i := range random {
		random[i] = byte(r.Uint32())
	}
	// Parquet with a valid frame but a damaged footer.
	badFooter := bytes.Clone(pq)
	for i := len(badFooter) - 200; i < len(badFooter)-8; i++ {
		badFooter[i] ^= 0x5a
	}
	// A foreign file: same magic and footer layout, but another table.
	type other struct {
		Run    string  `parquet:"run"`
		Tokens []int64 `parquet:"tokens,list"`
	}
	var foreign bytes.Buffer
	if err := writeParquet(&foreign, []other{{"r", []int64{1}}}, Meta{}); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name, path, problem string
	}{
		{"missing", filepath.Join(dir, "nope.parquet"), "no such file"},
		{"empty", write("empty.parquet", nil), "empty file"},
		{"random", write("random.parquet", random), "not a Parquet file or Arrow"},
		{"text", write("notes.parquet", []byte("hello\n")), "not a Parquet file or Arrow"},
		{"parquet-truncated", write("t1.parquet", pq[:len(pq)/2]), "truncated Parquet"},
		{"parquet-head-only", write("t2.parquet", pq[:4]), "truncated Parquet"},
		{"parquet-bad-footer", write("t3.parquet", badFooter), "corrupt Parquet"},
		{"arrow-file-truncated", write("t4.arrow", af[:len(af)-10]), "truncated Arrow file"},
		{"arrow-stream-truncated", write("t5.arrow", as[:len(as)/2]), "truncated Arrow stream"},
		{"arrow-stream-cut-at-eos", write("t6.arrow", as[:len(as)-8]), "truncated Arrow stream"},
		{"kind-parquet", write("kind.parquet", encode(Parquet, sampleEvalMetrics())), "holds eval_metrics rows, want trajectory rows"},
		{"kind-arrow", write("kind.arrow", encode(ArrowStream, sampleEvalMetrics())), "holds eval_metrics rows, want trajectory rows"},
		{"schema-mismatch", write("foreign.parquet", foreign.Bytes()), `schema mismatch: no column "iteration"`},
		{"empty-dir", mkdir(t, filepath.Join(dir, "emptydir")), "no .parquet or .arrow files"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := ReadFiles[Trajectory](c.path)
			if err == nil {
				t.Fatal("no error")
			}
			if !IsInputError(err) {
				t.Fatalf("not an InputError: %v", err)
			}
			msg := err.Error()
			t.Log(msg)
			if !strings.HasPrefix(msg, c.path+": ") || !strings.Contains(msg, c.problem) || strings.Contains(msg, "\n") {
				t.Errorf("message %q: want one line %q", msg, c.path+": ..."+c.problem+"...")
			}
		})
	}
	// A bad shard among good ones names the bad shard.
	good := write("good.parquet", pq)
	_, _, err := ReadFiles[Trajectory](good, filepath.Join(dir, "t1.parquet"))
	var ie *InputError
	if !errors.As(err, &ie) || ie.Path != filepath.Join(dir, "t1.parquet") {
		t.Errorf("got %v, want an InputError for t1.parquet", err)
	}
	if _, _, err := ReadFiles[Trajectory](filepath.Join(dir, "nope")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file error %v does not wrap fs.ErrNotExist", err)
	}
}

func mkdir(t *testing.T, p string) string {
	if err := os.Mkdir(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// A file of a newer schema version, or without pats metadata, is handled as
// the doc of ReadFiles says.
func TestVersionAndForeignFiles(t *testing.T) {
	dir := t.TempDir()
	newer := filepath.Join(dir, "newer.parquet")
	k, _ := LookupKind("eval_metrics")
	if err := WriteFile(newer, sampleEvalMetrics(), Meta{SchemaVersion: k.Version + 1}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadFiles[EvalMetrics](newer); !IsInputError(err) || !strings.Contains(err.Error(), "newer") {
		t.Errorf("newer schema version: got %v", err)
	}
	// Same names as eval_metrics, but episodes is a float and policy a list.
	type mistyped struct {
		Run      string   `parquet:"run"`
		Env      string   `parquet:"env"`
		Split    string   `parquet:"split"`
		Policy   []string `parquet:"policy,list"`
		Scaffold string   `parquet:"scaffold"`
	}
	type mistyped2 struct {
		Run      string  `parquet:"run"`
		Env      string  `parquet:"env"`
		Split    string  `parquet:"split"`
		Policy   string  `parquet:"policy"`
		Scaffold string  `parquet:"scaffold"`
		TaskType string  `parquet:"task_type"`
		Episodes float64 `parquet:"episodes"`
	}
	for i, tc := range []struct {
		rows any
		want string
	}{
		{[]mistyped{{Run: "r"}}, `schema mismatch: column "policy" has no leaf "policy"`},
		{[]mistyped2{{Run: "r"}}, `schema mismatch: column "episodes" is DOUBLE, want INT32`},
	} {
		var buf bytes.Buffer
		pw := parquet.NewWriter(&buf, parquet.SchemaOf(reflect.ValueOf(tc.rows).Index(0).Interface()))
		for j := 0; j < reflect.ValueOf(tc.rows).Len(); j++ {
			if err := pw.Write(reflect.ValueOf(tc.rows).Index(j).Interface()); err != nil {
				t.Fatal(err)
			}
		}
		pw.Close()
		p := filepath.Join(dir, fmt.Sprintf("mistyped%d.parquet", i))
		os.WriteFile(p, buf.Bytes(), 0o644)
		if _, _, err := ReadFiles[EvalMetrics](p); !IsInputError(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("mistyped file %d: got %v, want %q", i, err, tc.want)
		}
	}

	// Same columns, no metadata: accepted.
	var buf bytes.Buffer
	if err := writeParquet(&buf, sampleEvalMetrics(), Meta{}); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "plain.parquet")
	os.WriteFile(plain, buf.Bytes(), 0o644)
	got, metas, err := ReadFiles[EvalMetrics](plain)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(sampleEvalMetrics(), got); d != "" {
		t.Errorf("rows differ:\n%s", d)
	}
	if metas[0].Kind != "" {
		t.Errorf("kind %q, want none", metas[0].Kind)
	}
}

func TestStdinStdout(t *testing.T) {
	rows := sampleTrajectories(6, 6)
	for _, f := range formats {
		var buf bytes.Buffer
		if err := Write(&buf, f, rows, testMeta); err != nil {
			t.Fatal(err)
		}
		got := withStdin(t, buf.Bytes(), func() []Trajectory {
			got, metas, err := ReadFiles[Trajectory]("-")
			if err != nil {
				t.Fatal(err)
			}
			if metas[0].Path != "-" || metas[0].Seed != 7 {
				t.Errorf("meta %+v", metas[0])
			}
			return got
		})
		if d := cmp.Diff(rows, got, equateNil); d != "" {
			t.Errorf("%v via stdin differs:\n%s", f, d)
		}
	}
	_, _, err := ReadFiles[Trajectory]("-", "-")
	if !IsInputError(err) {
		t.Errorf("stdin twice: %v", err)
	}

	// WriteFile("-") writes an Arrow stream to stdout.
	out := withStdout(t, func() {
		if err := WriteFile("-", rows, testMeta); err != nil {
			t.Error(err)
		}
	})
	if !bytes.HasPrefix(out, markerStream) {
		t.Fatalf("stdout starts with %x", out[:8])
	}
	var want bytes.Buffer
	Write(&want, ArrowStream, rows, testMeta)
	if !bytes.Equal(out, want.Bytes()) {
		t.Error("WriteFile(\"-\") differs from Write(ArrowStream)")
	}
}

func withStdin[R any](t *testing.T, data []byte, fn func() R) R {
	p := filepath.Join(t.TempDir(), "stdin")
	os.WriteFile(p, data, 0o644)
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	old := os.Stdin
	os.Stdin = f
	defer func() { os.Stdin = old }()
	return fn()
}

func withStdout(t *testing.T, fn func()) []byte {
	p := filepath.Join(t.TempDir(), "stdout")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdout
	os.Stdout = f
	fn()
	os.Stdout = old
	f.Close()
	b, _ := os.ReadFile(p)
	return b
}

func TestKinds(t *testing.T) {
	if KindOf[Trajectory]() != "trajectory" || KindOf[EvalMetrics]() != "eval_metrics" || KindOf[int]() != "" {
		t.Errorf("KindOf: %q %q %q", KindOf[Trajectory](), KindOf[EvalMetrics](), KindOf[int]())
	}
	if k, ok := LookupKind("trajectory"); !ok || k.Type != reflect.TypeFor[Trajectory]() || k.Version != 8 {
		t.Errorf("LookupKind: %+v %v", k, ok)
	}
	mustPanic := func(name string, fn func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s: no panic", name)
			}
		}()
		fn()
	}
	type noList struct {
		A []int32 `parquet:"a"`
	}
	type bad struct {
		M map[string]int `parquet:"m"`
	}
	type fresh struct {
		A int32 `parquet:"a"`
	}
	mustPanic("duplicate name", func() { RegisterKind[fresh]("trajectory", 1) })
	mustPanic("duplicate type", func() { RegisterKind[Trajectory]("traj2", 1) })
	mustPanic("slice without list tag", func() { RegisterKind[noList]("nolist", 1) })
	mustPanic("unsupported type", func() { RegisterKind[bad]("bad", 1) })
	mustPanic("version 0", func() { RegisterKind[fresh]("fresh", 0) })
	for _, k := range Kinds() {
		if k.Name == "nolist" || k.Name == "bad" || k.Name == "fresh" {
			t.Errorf("failed registration left kind %q", k.Name)
		}
	}
}

func TestMetaHelpers(t *testing.T) {
	for in, want := range map[string]string{
		"rollout": "rollout", "--seed=3": "--seed=3", "": "''", "a b": "'a b'",
		"it's": `'it'\''s'`, "traj/0.parquet": "traj/0.parquet", "$HOME": "'$HOME'",
	} {
		if got := ShellQuote(in); got != want {
			t.Errorf("ShellQuote(%q) = %s, want %s", in, got, want)
		}
	}
	old := os.Args
	os.Args = []string{"cards", "--in", "traj 0.parquet"}
	got := CommandLine()
	os.Args = old
	if got != "cards --in 'traj 0.parquet'" {
		t.Errorf("CommandLine = %s", got)
	}
	p := filepath.Join(t.TempDir(), "f")
	os.WriteFile(p, []byte("abc"), 0o644)
	h, err := HashFile(p)
	// sha256("abc") begins ba7816bf8f01cfea414140de5dae2223.
	if err != nil || h != "ba7816bf8f01cfea414140de5dae2223" {
		t.Errorf("HashFile = %q, %v", h, err)
	}
	if m, err := InputHashes(p, "-"); err != nil || m[p] != h || m["-"] != "stdin" || len(m) != 2 {
		t.Errorf("InputHashes = %v, %v", m, err)
	}
	if _, err := HashFile(p + "x"); !IsInputError(err) {
		t.Errorf("HashFile of a missing file: %v", err)
	}
}

// Damaged bytes anywhere never crash a reader. Parquet pages carry CRCs, so
// a damaged Parquet file is an InputError or (damage in statistics or page
// headers' spare fields) still reads the right rows; Arrow IPC has no checksums,
// so damage inside a value buffer can go unnoticed, but damage to offsets
// or metadata must be an InputError, not a panic.
func TestDamagedBytes(t *testing.T) {
	rows := sampleTrajectories(40, 8)
	for _, f := range formats {
		var buf bytes.Buffer
		if err := Write(&buf, f, rows, testMeta); err != nil {
			t.Fatal(err)
		}
		b := buf.Bytes()
		dir := t.TempDir()
		errs := 0
		for off := 8; off < len(b)-16; off += len(b) / 41 {
			c := bytes.Clone(b)
			for i := off; i < off+16; i++ {
				c[i] ^= 0xa5
			}
			p := filepath.Join(dir, fmt.Sprintf("d%d", off))
			os.WriteFile(p, c, 0o644)
			got, _, err := ReadFiles[Trajectory](p)
			if err != nil {
				errs++
				if !IsInputError(err) {
					t.Errorf("%v at %d: not an InputError: %v", f, off, err)
				}
			} else if f == Parquet && !cmp.Equal(rows, got, equateNil) {
				t.Errorf("parquet damaged at %d read wrong rows without error", off)
			}
		}
		if errs == 0 {
			t.Errorf("%v: no damage detected at all", f)
		}
	}
}
