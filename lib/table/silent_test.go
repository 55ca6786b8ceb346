package table

import (
	"bytes"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// goodTrajectories are rows that pass the trajectory checks.
func goodTrajectories() []Trajectory {
	return []Trajectory{
		{GroupID: "g", Sample: 0, Reward: 1, Score: 1, Success: true, Tokens: []int32{5, 6}, Roles: []int8{RoleTask, RoleAction}, NTokens: 2},
		{GroupID: "g", Sample: 1, Tokens: []int32{5, 7, 8}, Roles: []int8{RoleTask, RoleAction, RoleAction}, NTokens: 3},
	}
}

// withNull rewrites an Arrow stream of trajectories as another tool might
// write it: column col nullable, and NULL in the first row (elem false) or
// as the first element of the first row's list (elem true). A NULL list is
// written with nullList.
func withNull(t *testing.T, rows []Trajectory, col string, elem, nullList bool) []byte {
	t.Helper()
	var in bytes.Buffer
	if err := Write(&in, ArrowStream, rows, Meta{}); err != nil {
		t.Fatal(err)
	}
	rd, err := ipc.NewReader(&in)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Release()
	if !rd.Next() {
		t.Fatal("no record")
	}
	rec := rd.RecordBatch()
	schema := rd.Schema()
	j := schema.FieldIndices(col)[0]
	fields := schema.Fields()
	fields[j].Nullable = true
	md := schema.Metadata()
	schema = arrow.NewSchema(fields, &md)
	nulled := func(d arrow.ArrayData) arrow.ArrayData {
		bits := bytes.Repeat([]byte{0xff}, (d.Len()+7)/8)
		bits[0] &^= 1
		bufs := append([]*memory.Buffer{memory.NewBufferBytes(bits)}, d.Buffers()[1:]...)
		return array.NewData(d.DataType(), d.Len(), bufs, d.Children(), 1, 0)
	}
	d := rec.Column(j).Data()
	if elem {
		d = array.NewData(d.DataType(), d.Len(), d.Buffers(), []arrow.ArrayData{nulled(d.Children()[0])}, 0, 0)
	} else {
		d = nulled(d)
	}
	cols := append([]arrow.Array(nil), rec.Columns()...)
	cols[j] = array.MakeFromData(d)
	var out bytes.Buffer
	w := ipc.NewWriter(&out, ipc.WithSchema(schema))
	if err := w.Write(array.NewRecordBatch(schema, cols, rec.NumRows())); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// encodeStream writes rows as an Arrow stream without the writers' checks.
func encodeStream[T any](t *testing.T, rows []T) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := write(&b, ArrowStream, rows, Meta{}, false); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// Inputs that used to be read without a word: each is an input error
// naming the file and the problem.
func TestSilentAcceptanceRefused(t *testing.T) {
	dir := t.TempDir()
	save := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	stream := encodeStream(t, goodTrajectories())
	proposals := []Proposal{
		{ProposalID: "p-1", Primitive: "EXPAND", Op: "add"},
		{ProposalID: "p-2", Primitive: "COMPRESS", Op: "delete"},
	}
	negVersion := func() []byte {
		var b bytes.Buffer
		if err := write(&b, ArrowStream, goodTrajectories(), Meta{SchemaVersion: -1}, false); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	cases := []struct {
		name string
		read func(path string) error
		data []byte
		want string
	}{
		{"null scalar", readTraj, withNull(t, goodTrajectories(), "reward", false, false), "column reward: 1 NULL values"},
		{"null list element", readTraj, withNull(t, goodTrajectories(), "tokens", true, false), "column tokens: 1 NULL list elements"},
		{"two streams", readTraj, append(bytes.Clone(stream), stream...), "bytes after the end of the Arrow stream"},
		{"schema version -1", readTraj, negVersion(), `bad metadata pats.schema_version "-1"`},
		{"duplicate proposal id", readProposals, encodeStream(t, []Proposal{proposals[0], proposals[0]}), "id p-1 repeats row 0"},
		{"unknown primitive", readProposals, encodeStream(t, []Proposal{{ProposalID: "p", Primitive: "GROW", Op: "add"}}), `column primitive: "GROW" is not one of`},
		{"unknown op", readProposals, encodeStream(t, []Proposal{{ProposalID: "p", Primitive: "EXPAND", Op: "insert"}}), `column op: "insert"`},
		{"empty proposal id", readProposals, encodeStream(t, []Proposal{{Primitive: "EXPAND", Op: "add"}}), "column proposal_id: empty"},
		{"proposal iteration -2", readProposals, encodeStream(t, []Proposal{{ProposalID: "p", Iteration: -2, Primitive: "EXPAND", Op: "add"}}), "column iteration: -2"},
		{"score 7", readTraj, encodeStream(t, []Trajectory{{Score: 7}}), "column score: 7 is not a share"},
		{"eval success NaN", readEval, encodeStream(t, []EvalMetrics{{TaskType: "all", Success: math.NaN()}}), "column success: NaN"},
		{"eval read rate 1.5", readEval, encodeStream(t, []EvalMetrics{{TaskType: "all", RightReadRate: NullNaN(1.5)}}), "column right_read_rate: 1.5"},
		{"eval steps -1", readEval, encodeStream(t, []EvalMetrics{{TaskType: "all", Steps: -1}}), "column steps: -1"},
		{"eval tokens +Inf", readEval, encodeStream(t, []EvalMetrics{{TaskType: "all", Tokens: math.Inf(1)}}), "column tokens: +Inf"},
		{"card iteration -3", readCards, encodeStream(t, []Card{{CardID: "c", Iteration: -3}}), "column iteration: -3"},
		{"state primitive", readStates, encodeStream(t, []ControllerState{{Primitive: "GROW"}}), "column primitive"},
		{"item tokens", readItems, encodeStream(t, []ScaffoldItem{{ID: "g-1", Tokens: -1}}), "column tokens: negative"},
	}
	for _, c := range cases {
		path := save(strings.ReplaceAll(c.name, " ", "-")+".arrow", c.data)
		err := c.read(path)
		if err == nil || !IsInputError(err) || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), path+": ") {
			t.Errorf("%s: got %v, want an input error naming %s with %q", c.name, err, path, c.want)
		}
	}
}

func readTraj(p string) error      { _, _, err := ReadFiles[Trajectory](p); return err }
func readProposals(p string) error { _, _, err := ReadFiles[Proposal](p); return err }
func readEval(p string) error      { _, _, err := ReadFiles[EvalMetrics](p); return err }
func readCards(p string) error     { _, _, err := ReadFiles[Card](p); return err }
func readStates(p string) error    { _, _, err := ReadFiles[ControllerState](p); return err }
func readItems(p string) error     { _, _, err := ReadFiles[ScaffoldItem](p); return err }

// What the checks must still accept: a NULL list (read as empty), one
// stream, iteration -1 (before training).
func TestSilentAcceptanceKeeps(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "t.arrow")
	if err := os.WriteFile(p, withNull(t, goodTrajectories(), "features", false, false), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadFiles[Trajectory](p); err != nil {
		t.Errorf("NULL list: %v", err)
	}
	rows := goodTrajectories()
	rows[0].Iteration, rows[1].Iteration = -1, -1
	if err := os.WriteFile(p, encodeStream(t, rows), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadFiles[Trajectory](p); err != nil {
		t.Errorf("iteration -1: %v", err)
	}
	cards := []Card{{CardID: "c-before", Iteration: -1}}
	if err := os.WriteFile(p, encodeStream(t, cards), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadFiles[Card](p); err != nil {
		t.Errorf("card of iteration -1: %v", err)
	}
}

// A file counts once: given twice, through a link, inside a named folder,
// or on stdin too, it is refused, by identity rather than by name.
func TestSameFileTwice(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.parquet")
	if err := WriteFile(a, goodTrajectories(), Meta{}); err != nil {
		t.Fatal(err)
	}
	b := filepath.Join(dir, "b.parquet")
	if err := WriteFile(b, goodTrajectories()[:1], Meta{}); err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	link := filepath.Join(other, "link.parquet")
	if err := os.Symlink(a, link); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(other, "hard.parquet")
	if err := os.Link(a, hard); err != nil {
		t.Fatal(err)
	}
	stdinFile := func() *os.File {
		f, err := os.Open(a)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	cases := []struct {
		name  string
		stdin *os.File
		paths []string
		bad   string // the path named in the error; "" for none
	}{
		{"twice", nil, []string{a, b, a}, a},
		{"dot path", nil, []string{a, dir + "/./a.parquet"}, dir + "/./a.parquet"},
		{"symlink", nil, []string{a, link}, link},
		{"hard link", nil, []string{hard, a}, a},
		{"folder and file", nil, []string{dir, a}, a},
		{"link and its folder", nil, []string{link, dir}, a},
		{"stdin and file", stdinFile(), []string{"-", a}, a},
		{"file and stdin", stdinFile(), []string{b, a, "-"}, "stdin"},
		{"two files", nil, []string{a, b}, ""},
		{"stdin and another", stdinFile(), []string{"-", b}, ""},
	}
	for _, c := range cases {
		var stdin io.Reader = strings.NewReader("")
		if c.stdin != nil {
			stdin = c.stdin
		}
		_, _, err := ReadFilesFrom[Trajectory](stdin, c.paths...)
		if c.bad == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		if err == nil || !IsInputError(err) || !strings.HasPrefix(err.Error(), c.bad+": ") ||
			!strings.Contains(err.Error(), "is the same file as") && !strings.Contains(err.Error(), "named twice") {
			t.Errorf("%s: got %v, want an input error naming %s as the same file", c.name, err, c.bad)
		}
		// Distinct checks the same for a table read one input at a time.
		if err2 := Distinct(stdin, c.paths...); (err2 == nil) != (err == nil) {
			t.Errorf("%s: Distinct gives %v, ReadFilesFrom %v", c.name, err2, err)
		}
	}
}
