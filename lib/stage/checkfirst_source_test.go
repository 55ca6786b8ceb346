package stage

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// stageRuns lists, as "PACKAGE.FUNC", every exported Run function of the
// stage packages under root (a func RunX(ctx, f OPTIONS, std Streams)
// error), and in bad those whose first statement is not
// `if err := f.Check(); err != nil { return err }`.
func stageRuns(root string) (runs, bad []string, err error) {
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || fd.Body == nil || !strings.HasPrefix(fd.Name.Name, "Run") || !fd.Name.IsExported() {
				continue
			}
			ps := fd.Type.Params.List
			if len(ps) != 3 || len(ps[1].Names) != 1 || !isStreams(ps[2].Type) {
				continue
			}
			name := f.Name.Name + "." + fd.Name.Name
			runs = append(runs, name)
			if !checksFirst(fd.Body, ps[1].Names[0].Name) {
				bad = append(bad, name+" ("+fset.Position(fd.Pos()).String()+")")
			}
		}
		return nil
	})
	sort.Strings(runs)
	return runs, bad, err
}

// isStreams says whether t is Streams or stage.Streams.
func isStreams(t ast.Expr) bool {
	switch t := t.(type) {
	case *ast.Ident:
		return t.Name == "Streams"
	case *ast.SelectorExpr:
		return t.Sel.Name == "Streams"
	}
	return false
}

// checksFirst says whether body opens with `if err := opt.Check(); err
// != nil { return err }`.
func checksFirst(body *ast.BlockStmt, opt string) bool {
	if len(body.List) == 0 {
		return false
	}
	s, ok := body.List[0].(*ast.IfStmt)
	if !ok || s.Init == nil {
		return false
	}
	as, ok := s.Init.(*ast.AssignStmt)
	if !ok || len(as.Rhs) != 1 {
		return false
	}
	call, ok := as.Rhs[0].(*ast.CallExpr)
	if !ok || len(call.Args) != 0 {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Check" {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	return ok && x.Name == opt && len(s.Body.List) == 1
}

// TestRunChecksFirst: every stage's Run function opens with its options'
// Check (docs/architecture.md: one checker per option set, run before any
// file is read or model loaded). TestCheckBeforeRead shows it for one bad
// option each; this test keeps a new Run from leaving it out.
func TestRunChecksFirst(t *testing.T) {
	runs, bad, err := stageRuns(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"rollout.Run", "evaluate.Run", "audit.RunCredit", "learn.RunMerge", "validate.RunShow", "report.RunSettings", "cards.Run", "control.Run"} {
		if i := sort.SearchStrings(runs, want); i == len(runs) || runs[i] != want {
			t.Errorf("%s not found among the stages' Run functions %v: the test no longer sees them", want, runs)
		}
	}
	t.Logf("%d Run functions: %v", len(runs), runs)
	for _, b := range bad {
		t.Errorf("%s does not open with its options' Check", b)
	}
}
