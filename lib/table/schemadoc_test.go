package table

// docs/schemas.md is generated from the row structs: the registered kinds
// (see Kinds), their columns and types by reflection, and the descriptions
// from the `desc` tag or the comment on each field in lib/table/rows*.go.
// Regenerate with
//
//	go test ./lib/table -run TestSchemasDoc -update

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite docs/schemas.md from the row structs")

const schemasDoc = "../../docs/schemas.md"

// fallbackDesc describes columns whose field has no comment, by
// "kind.column" or by column name alone.
var fallbackDesc = map[string]string{
	"run":                   "run name",
	"env":                   "environment name",
	"split":                 "task split (train, valid_seen, valid_unseen, test)",
	"policy":                "oracle, random, or the checkpoint path",
	"eval_metrics.episodes": "episodes evaluated",
}

// structDocs holds what go/parser finds in rows*.go: per struct, its doc
// comment, its file, and per field the description.
type structDoc struct {
	file   string
	doc    string
	fields map[string]string
}

func parseRowFiles(t *testing.T, dir string) (map[string]structDoc, []roleDoc) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "rows*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no rows*.go files: %v", err)
	}
	sort.Strings(files)
	docs := map[string]structDoc{}
	var roles []roleDoc
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		name = filepath.Base(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, spec := range g.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					st, ok := s.Type.(*ast.StructType)
					if !ok {
						continue
					}
					doc := s.Doc
					if doc == nil {
						doc = g.Doc
					}
					sd := structDoc{file: name, doc: doc.Text(), fields: map[string]string{}}
					for _, fld := range st.Fields.List {
						text := fld.Comment.Text()
						if text == "" {
							text = fld.Doc.Text()
						}
						for _, n := range fld.Names {
							sd.fields[n.Name] = strings.Join(strings.Fields(text), " ")
						}
					}
					docs[s.Name.Name] = sd
				case *ast.ValueSpec:
					// Token roles: constants named Role* with a literal value.
					for i, n := range s.Names {
						if !strings.HasPrefix(n.Name, "Role") || i >= len(s.Values) {
							continue
						}
						lit, ok := s.Values[i].(*ast.BasicLit)
						if !ok {
							continue
						}
						roles = append(roles, roleDoc{id: lit.Value, constant: n.Name, desc: strings.TrimSpace(s.Comment.Text())})
					}
				}
			}
		}
	}
	return docs, roles
}

type roleDoc struct{ id, constant, desc string }

// renderSchemas builds docs/schemas.md; problems lists missing descriptions.
func renderSchemas(t *testing.T) (doc []byte, problems []string) {
	docs, roles := parseRowFiles(t, ".")
	var b bytes.Buffer
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	p("# Row schemas\n\n")
	p("<!-- Generated from lib/table/rows*.go by `go test ./lib/table -run TestSchemasDoc -update`. Do not edit. -->\n\n")
	p("Every file a pats stage writes holds rows of one *kind*: Parquet at rest, an Arrow IPC stream on a pipe\n")
	p("(`-`). Each kind is one Go struct in `lib/table/rows*.go`; its `parquet` tags are the column names below.\n")
	p("A folder of shards is one table: `SELECT * FROM 'traj/*.parquet'` in DuckDB, `pd.read_parquet('traj/')` in pandas.\n\n")
	p("## Metadata\n\n")
	p("Parquet key-value metadata, or Arrow schema metadata, of every file:\n\n")
	p("| key | value |\n| --- | --- |\n")
	p("| `%s` | row kind, one of the section names below |\n", keyKind)
	p("| `%s` | schema version of the kind (a reader refuses a newer one, or one below 1; in an older one, the columns added since read as empty, 0, or NULL where nullable) |\n", keyVersion)
	p("| `%s` | the producing command line, shell-quoted |\n", keyCommand)
	p("| `%s` | the producing command's seed |\n", keySeed)
	p("| `%s` | a JSON object (plain JSON text, no escaping to undo): input path -> content hash (first 16 bytes of SHA-256, hex) |\n", keyInputs)
	p("| `%sNAME` | free-form provenance as a plain string (e.g. a number, a path, a name) |\n", keyExtra)
	p("| `%s` | the toolkit's version (`(devel)` for a build from a work tree) |\n", keyToolkitVersion)
	p("| `%s` | the commit the binary was built from, `+modified` when its tree had changes (empty when the build recorded none) |\n", keyToolkitCommit)
	p("| `%s` | when the file was made, UTC, RFC 3339 (`$SOURCE_DATE_EPOCH` when set) |\n", keyTime)
	p("| `%s` | the host that made it (`$PATS_HOST` when set) |\n\n", keyHost)
	p("Two runs of a command on the same inputs write the same bytes but for `%s` and `%s`; with\n", keyTime, keyHost)
	p("`SOURCE_DATE_EPOCH` and `PATS_HOST` set alike (as the determinism tests do), the same bytes.\n")
	p("Library callers that never call `table.SetStamp` write none of the four keys.\n\n")
	p("## Types\n\n")
	p("| type | Parquet | Arrow | DuckDB / pandas |\n| --- | --- | --- | --- |\n")
	p("| string | BYTE_ARRAY (STRING) | utf8 | VARCHAR / object |\n")
	p("| bool | BOOLEAN | bool | BOOLEAN / bool |\n")
	p("| int8 | INT32 (INT(8,true)) | int8 | TINYINT / int8 |\n")
	p("| int16 | INT32 (INT(16,true)) | int16 | SMALLINT / int16 |\n")
	p("| int32 | INT32 (INT(32,true)) | int32 | INTEGER / int32 |\n")
	p("| int64 | INT64 (INT(64,true)) | int64 | BIGINT / int64 |\n")
	p("| float32 | FLOAT | float32 | FLOAT / float32 |\n")
	p("| float64 | DOUBLE | float64 | DOUBLE / float64 |\n")
	p("| list<T> | required LIST group, elements `NAME.list.element` | list<T> | T[] / array |\n\n")
	p("A column whose type says `or NULL` is nullable: NULL stands for an absent value (no run name, no scaffold, the\n")
	p("general layer's task type, an unknown iteration, the sampling rule of a policy that is not a checkpoint, the GRPO\n")
	p("figures of an SFT step, a mean over nothing), and no sentinel (\"\", -1, 0, NaN, \"all\") does. Every other column is\n")
	p("required; an empty list is stored as an empty list, never as null. Files of older schema versions wrote\n")
	p("sentinels; the readers take them as NULL (a description says which), so a Go program sees one meaning.\n")
	p("Notebooks read such a file's sentinels as they were written: [notebook.md](notebook.md) shows the SQL for both.\n")
	p("A reader refuses a NULL in a required column or a NULL list element from another tool's file (it would read as 0); a\n")
	p("NULL list reads as an empty list.\n\n")
	if len(roles) > 0 {
		p("## Token roles\n\n")
		p("The `roles` column of a trajectory holds one of these per token:\n\n")
		p("| id | name | constant | meaning |\n| --- | --- | --- | --- |\n")
		for _, r := range roles {
			name := ""
			if id, err := strconv.Atoi(r.id); err == nil && id >= 0 && id < len(RoleNames) {
				name = RoleNames[id]
			}
			p("| %s | `%s` | `%s` | %s |\n", r.id, name, r.constant, escape(r.desc))
		}
		p("\n")
	}
	p("## Row kinds\n\n")
	for _, k := range Kinds() {
		p("- [%s](#%s) (version %d)\n", k.Name, k.Name, k.Version)
	}
	for _, k := range Kinds() {
		sd, ok := docs[k.Type.Name()]
		if !ok {
			problems = append(problems, fmt.Sprintf("kind %s: struct %v is not declared in lib/table/rows*.go", k.Name, k.Type))
			continue
		}
		p("\n## %s\n\n", k.Name)
		p("Version %d. Go type `table.%s` in `lib/table/%s`.\n\n", k.Version, k.Type.Name(), sd.file)
		if d := strings.Join(strings.Fields(sd.doc), " "); d != "" {
			p("%s\n\n", d)
		}
		p("| column | type | description |\n| --- | --- | --- |\n")
		cols, err := columnsOf(k.Type)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cols {
			d := c.desc
			if d == "" {
				d = sd.fields[k.Type.Field(c.field).Name]
			}
			if d == "" {
				d = fallbackDesc[k.Name+"."+c.name]
			}
			if d == "" {
				d = fallbackDesc[c.name]
			}
			if d == "" {
				problems = append(problems, fmt.Sprintf("kind %s column %s has no description: add a trailing comment to field %s.%s", k.Name, c.name, k.Type.Name(), k.Type.Field(c.field).Name))
			}
			p("| `%s` | %s | %s |\n", c.name, c.typeName(), escape(d))
		}
	}
	return b.Bytes(), problems
}

func escape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

func TestSchemasDoc(t *testing.T) {
	doc, problems := renderSchemas(t)
	for _, p := range problems {
		t.Error(p)
	}
	if *update {
		if err := AtomicWrite(schemasDoc, func(w io.Writer) error { _, err := w.Write(doc); return err }); err != nil {
			t.Fatal(err)
		}
		return
	}
	old, err := os.ReadFile(schemasDoc)
	if err != nil {
		t.Fatalf("%v; generate it with: go test ./lib/table -run TestSchemasDoc -update", err)
	}
	if !bytes.Equal(old, doc) {
		t.Errorf("docs/schemas.md is out of step with lib/table/rows*.go; regenerate it with: go test ./lib/table -run TestSchemasDoc -update")
	}
}

// Structs declared in any rows*.go file are found with their comments (a
// `desc` tag is read by reflection instead); other files are not read.
func TestParseRowFiles(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "rows_extra.go"), []byte(`package table

// Card is evidence.
type Card struct {
	GroupID string  `+"`parquet:\"group_id\"`"+` // group of the card
	Rate    float64 `+"`parquet:\"rate\" desc:\"success rate\"`"+`
	// Features of the successful side.
	Plus []string `+"`parquet:\"plus,list\"`"+`
}
`), 0o644)
	os.WriteFile(filepath.Join(dir, "other.go"), []byte("package table\n\ntype Other struct{ A int }\n"), 0o644)
	docs, _ := parseRowFiles(t, dir)
	want := map[string]structDoc{"Card": {file: "rows_extra.go", doc: "Card is evidence.\n",
		fields: map[string]string{"GroupID": "group of the card", "Rate": "", "Plus": "Features of the successful side."}}}
	if d := cmp.Diff(want, docs, cmp.AllowUnexported(structDoc{})); d != "" {
		t.Errorf("parsed docs (-want +got):\n%s", d)
	}
}
