package report

import (
	"bytes"
	"flag"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/table"
)

var update = flag.Bool("update", false, "rewrite docs/schemas.md from the row structs")

const schemasDoc = "../../docs/schemas.md"

// docs/schemas.md is generated from every registered row struct: this test
// binary registers the table package's kinds and the sweep report's, so
// the check lives here (regenerate with table.SchemaDocCommand).
func TestSchemasDoc(t *testing.T) {
	doc, problems, err := table.SchemaDoc("../..", table.SchemaSources...)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
	for _, k := range []string{"sweep_run", "sweep_result", "sweep_credit", "trajectory", "eval_metrics"} {
		if !strings.Contains(string(doc), "\n## "+k+"\n") {
			t.Errorf("the document has no section for kind %s", k)
		}
	}
	if *update {
		if err := table.AtomicWrite(schemasDoc, func(w io.Writer) error { _, err := w.Write(doc); return err }); err != nil {
			t.Fatal(err)
		}
		return
	}
	old, err := os.ReadFile(schemasDoc)
	if err != nil {
		t.Fatalf("%v; generate it with: %s", err, table.SchemaDocCommand)
	}
	if !bytes.Equal(old, doc) {
		t.Errorf("docs/schemas.md is out of step with the row structs; regenerate it with: %s", table.SchemaDocCommand)
	}
}
