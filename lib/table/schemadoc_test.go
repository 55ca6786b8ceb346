package table

// The golden check of docs/schemas.md is lib/report's TestSchemasDoc (its
// test binary registers every kind); these tests drive the generator on
// small inputs.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Structs declared in the matched files are found with their comments,
// keyed by package and type (a `desc` tag is read by reflection instead);
// files outside the globs and test files are not read; role constants come
// only from the table package.
func TestParseStructs(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "a"), 0o755)
	os.MkdirAll(filepath.Join(root, "b"), 0o755)
	os.WriteFile(filepath.Join(root, "a", "rows_extra.go"), []byte(`package table

// Card is evidence.
type Card struct {
	GroupID string  `+"`parquet:\"group_id\"`"+` // group of the card
	Rate    float64 `+"`parquet:\"rate\" desc:\"success rate\"`"+`
	// Features of the successful side.
	Plus []string `+"`parquet:\"plus,list\"`"+`
}

const RoleX = 9 // a role
`), 0o644)
	os.WriteFile(filepath.Join(root, "a", "rows_x_test.go"), []byte("package table\n\ntype Hidden struct{ A int }\n"), 0o644)
	os.WriteFile(filepath.Join(root, "a", "other.go"), []byte("package table\n\ntype Other struct{ A int }\n"), 0o644)
	os.WriteFile(filepath.Join(root, "b", "sweep.go"), []byte(`package report

// Row is one row.
type Row struct {
	V int32 `+"`parquet:\"v\"`"+` // a value
}

const RoleY = 3 // not a role of the table package
`), 0o644)
	docs, roles, err := parseStructs(root, []string{"a/rows*.go", "b/sweep.go"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]structDoc{
		"table.Card": {file: "a/rows_extra.go", doc: "Card is evidence.\n",
			fields: map[string]string{"GroupID": "group of the card", "Rate": "", "Plus": "Features of the successful side."}},
		"report.Row": {file: "b/sweep.go", doc: "Row is one row.\n", fields: map[string]string{"V": "a value"}},
	}
	if d := cmp.Diff(want, docs, cmp.AllowUnexported(structDoc{})); d != "" {
		t.Errorf("parsed docs (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]roleDoc{{id: "9", constant: "RoleX", desc: "a role"}}, roles, cmp.AllowUnexported(roleDoc{})); d != "" {
		t.Errorf("roles (-want +got):\n%s", d)
	}
	if _, _, err := parseStructs(root, []string{"a/rows*.go", "c/*.go"}); err == nil || !strings.Contains(err.Error(), "c/*.go matches no file") {
		t.Errorf("a glob matching nothing: err %v; want one naming the glob", err)
	}
}

// With only the table package's files as sources, every kind of the
// package is documented under its file, and a kind declared elsewhere
// would be a problem; here none is registered, so there is none.
func TestSchemaDocTableKinds(t *testing.T) {
	doc, problems, err := SchemaDoc("../..", "lib/table/rows*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
	for _, want := range []string{
		"Go type `table.Trajectory` in `lib/table/rows.go`.",
		"Go type `table.Card` in `lib/table/rows_pats.go`.",
		"| `misleading_exposure` | float64 or NULL |",
		"| 5 | `skill_body` | `RoleSkillBody` |",
		"by `" + SchemaDocCommand + "`",
	} {
		if !strings.Contains(string(doc), want) {
			t.Errorf("the document lacks %q", want)
		}
	}
	// A kind whose struct the sources do not declare is named.
	_, problems, err = SchemaDoc("../..", "lib/table/rows_rl.go")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(problems, "\n"), "kind trajectory: struct table.Trajectory is not declared in lib/table/rows_rl.go") {
		t.Errorf("problems %q; want the undeclared trajectory struct named", problems)
	}
}
