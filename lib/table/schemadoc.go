package table

// docs/schemas.md is generated from the row structs: the registered kinds
// (see Kinds), their columns and types by reflection, and the descriptions
// from the `desc` tag or the comment on each field in the Go files that
// declare them.

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// SchemaDocCommand regenerates docs/schemas.md. The check lives in
// lib/report, whose test binary registers every kind (the table package's
// own and the sweep report's).
const SchemaDocCommand = "go test ./lib/report -run TestSchemasDoc -update"

// SchemaSources are the Go files, as globs relative to the repository
// root, that declare the registered row structs.
var SchemaSources = []string{"lib/table/rows*.go", "lib/report/sweep.go", "lib/report/credit.go"}

// fallbackDesc describes columns whose field has no comment, by
// "kind.column" or by column name alone.
var fallbackDesc = map[string]string{
	"run":                   "run name",
	"env":                   "environment name",
	"split":                 "task split (train, valid_seen, valid_unseen, test)",
	"policy":                "oracle, random, or the checkpoint path",
	"eval_metrics.episodes": "episodes evaluated",
}

// structDoc is what go/parser finds for one struct: its doc comment, its
// file (as given, relative to the root) and per field the description.
type structDoc struct {
	file   string
	doc    string
	fields map[string]string
}

// structKey names a struct as the docs do: package name and type name,
// e.g. "table.Card".
func structKey(t reflect.Type) string { return path.Base(t.PkgPath()) + "." + t.Name() }

// parseStructs reads the struct declarations (keyed "package.Type") and,
// from the table package's files, the token role constants (Role* with a
// literal value) of the Go files matching the globs under root. Test files
// are skipped; a glob matching nothing is an error.
func parseStructs(root string, sources []string) (map[string]structDoc, []roleDoc, error) {
	docs := map[string]structDoc{}
	var roles []roleDoc
	fset := token.NewFileSet()
	for _, glob := range sources {
		files, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(glob)))
		if err != nil {
			return nil, nil, err
		}
		if len(files) == 0 {
			return nil, nil, fmt.Errorf("schema sources: %s matches no file under %s", glob, root)
		}
		sort.Strings(files)
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
			if err != nil {
				return nil, nil, err
			}
			rel, err := filepath.Rel(root, name)
			if err != nil {
				return nil, nil, err
			}
			rel = filepath.ToSlash(rel)
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
						sd := structDoc{file: rel, doc: doc.Text(), fields: map[string]string{}}
						for _, fld := range st.Fields.List {
							text := fld.Comment.Text()
							if text == "" {
								text = fld.Doc.Text()
							}
							for _, n := range fld.Names {
								sd.fields[n.Name] = strings.Join(strings.Fields(text), " ")
							}
						}
						docs[f.Name.Name+"."+s.Name.Name] = sd
					case *ast.ValueSpec:
						if f.Name.Name != "table" {
							continue
						}
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
	}
	return docs, roles, nil
}

type roleDoc struct{ id, constant, desc string }

// SchemaDoc renders docs/schemas.md from the registered kinds (Kinds: only
// those registered in the calling binary) and the Go files matching the
// sources globs under root (the repository root). Problems lists what the
// document cannot say: a kind whose struct none of the files declares, a
// column without a description.
func SchemaDoc(root string, sources ...string) (doc []byte, problems []string, err error) {
	docs, roles, err := parseStructs(root, sources)
	if err != nil {
		return nil, nil, err
	}
	var b bytes.Buffer
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	p("# Row schemas\n\n")
	p("<!-- Generated from %s by `%s`. Do not edit. -->\n\n", strings.Join(sources, ", "), SchemaDocCommand)
	p("Every file a pats stage writes holds rows of one *kind*: Parquet at rest, an Arrow IPC stream on a pipe\n")
	p("(`-`). Each kind is one Go struct (in %s); its `parquet` tags are the column names below.\n", codeList(sources))
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
		sd, ok := docs[structKey(k.Type)]
		if !ok {
			problems = append(problems, fmt.Sprintf("kind %s: struct %v is not declared in %s", k.Name, k.Type, strings.Join(sources, ", ")))
			continue
		}
		p("\n## %s\n\n", k.Name)
		p("Version %d. Go type `%s` in `%s`.\n\n", k.Version, structKey(k.Type), sd.file)
		if d := strings.Join(strings.Fields(sd.doc), " "); d != "" {
			p("%s\n\n", d)
		}
		p("| column | type | description |\n| --- | --- | --- |\n")
		cols, err := columnsOf(k.Type)
		if err != nil {
			return nil, nil, err
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
	return b.Bytes(), problems, nil
}

func escape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// codeList writes the globs as inline code: `a`, `b` and `c`.
func codeList(globs []string) string {
	q := make([]string, len(globs))
	for i, g := range globs {
		q[i] = "`" + g + "`"
	}
	if len(q) < 2 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}
