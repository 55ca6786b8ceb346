package stage

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// The rules of docs/architecture.md that the source shows rather than the
// imports: the play stage asks its policy instead of guessing its kind,
// and the domain speaks of values, never of flags.

// policyJob are the functions of lib/stage/play that open the policy: the
// only ones that may tell its kind by a type assertion.
var policyJob = map[string]bool{"policy": true, "served": true}

// policyKinds are the packages whose types are kinds of policy.
var policyKinds = map[string]bool{"rollout": true, "policy": true}

// kindAssertions lists, as "FILE:LINE in FUNC", every type assertion or
// type switch in src (a file of lib/stage/play) on a type of policyKinds
// outside the policy job.
func kindAssertions(fset *token.FileSet, name, src string) ([]string, error) {
	f, err := parser.ParseFile(fset, name, src, 0)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil || policyJob[fd.Name.Name] {
			continue
		}
		report := func(n ast.Node) {
			out = append(out, fset.Position(n.Pos()).String()+" in "+fd.Name.Name)
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.TypeAssertExpr:
				if n.Type != nil && namesKind(n.Type) {
					report(n)
				}
			case *ast.TypeSwitchStmt:
				for _, cc := range n.Body.List {
					for _, t := range cc.(*ast.CaseClause).List {
						if namesKind(t) {
							report(t)
						}
					}
				}
			}
			return true
		})
	}
	return out, nil
}

// namesKind says whether the type expression t names a type of one of
// policyKinds (pkg.T or *pkg.T).
func namesKind(t ast.Expr) bool {
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	sel, ok := t.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	return ok && policyKinds[id.Name]
}

// flagWord is a flag as a message names one: two dashes and a lower-case
// word, at the start or after a blank, a bracket or a quote.
var flagWord = regexp.MustCompile(`(^|[\s("'` + "`" + `])--[a-z][a-z0-9-]*`)

// flagErrors lists, as "FILE:LINE: TEXT", every string in src that names
// a flag inside an error: an argument of fmt.Errorf or errors.New, or a
// field of a composite literal of a type named ...Error.
func flagErrors(fset *token.FileSet, name, src string) ([]string, error) {
	f, err := parser.ParseFile(fset, name, src, 0)
	if err != nil {
		return nil, err
	}
	var out []string
	strs := func(n ast.Node) {
		ast.Inspect(n, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING && flagWord.MatchString(lit.Value) {
				out = append(out, fset.Position(lit.Pos()).String()+": "+lit.Value)
			}
			return true
		})
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && (id.Name == "fmt" && sel.Sel.Name == "Errorf" || id.Name == "errors" && sel.Sel.Name == "New") {
					for _, a := range n.Args {
						strs(a)
					}
					return false
				}
			}
		case *ast.CompositeLit:
			if typeName(n.Type) != "" && strings.HasSuffix(typeName(n.Type), "Error") {
				strs(n)
				return false
			}
		}
		return true
	})
	return out, nil
}

func typeName(t ast.Expr) string {
	switch t := t.(type) {
	case *ast.Ident:
		return t.Name
	case *ast.SelectorExpr:
		return t.Sel.Name
	}
	return ""
}

// sources calls each with the path and text of every non-test Go file of
// the module's packages (paths relative to the module) that match pkgs.
func sources(t *testing.T, pkgs []string, each func(pkg, path, src string)) int {
	t.Helper()
	root := filepath.Join("..", "..")
	n := 0
	err := filepath.WalkDir(filepath.Join(root, "lib"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil || !matchAny(pkgs, filepath.ToSlash(rel)) {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		each(filepath.ToSlash(rel), path, string(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestPlayAsksItsPolicy: no function of lib/stage/play but the policy job
// (policy, served) tells a policy's kind by a type assertion; the later
// jobs ask the policy (played).
func TestPlayAsksItsPolicy(t *testing.T) {
	fset := token.NewFileSet()
	var found []string
	if n := sources(t, []string{"lib/stage/play"}, func(_, path, src string) {
		got, err := kindAssertions(fset, path, src)
		if err != nil {
			t.Fatal(err)
		}
		found = append(found, got...)
	}); n < 5 {
		t.Fatalf("%d files of lib/stage/play read", n)
	}
	for _, f := range found {
		t.Errorf("%s: a type assertion on a kind of policy outside the policy job", f)
	}
}

// TestDomainNamesNoFlag: no error of a domain package names a flag; the
// stage that read the value names it (stage.FlagError).
func TestDomainNamesNoFlag(t *testing.T) {
	fset := token.NewFileSet()
	var found []string
	if n := sources(t, domainLayer, func(_, path, src string) {
		got, err := flagErrors(fset, path, src)
		if err != nil {
			t.Fatal(err)
		}
		found = append(found, got...)
	}); n < 50 {
		t.Fatalf("%d files of the domain read", n)
	}
	sort.Strings(found)
	for _, f := range found {
		t.Errorf("%s: a domain error names a flag", f)
	}
}

// TestSourceRulesCatchPlanted: the two checks report what is planted and
// pass what is allowed.
func TestSourceRulesCatchPlanted(t *testing.T) {
	play := `package play
func (f Options) policy(o *rollout.Options) { _, _ = o.Policy.(rollout.ServedPolicy) }
func (f Options) format(o *rollout.Options) {
	_, _ = o.Policy.(rollout.CheckpointPolicy)
	switch o.Policy.(type) {
	case *policy.Served:
	}
	_, _ = o.Format.(*agent.ChatML)
}`
	got, err := kindAssertions(token.NewFileSet(), "planted.go", play)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !strings.HasSuffix(got[0], "in format") || !strings.HasSuffix(got[1], "in format") {
		t.Errorf("kind assertions found %v, want the two in format", got)
	}
	domain := "package d\n" +
		"func a() error { return fmt.Errorf(\"a vLLM server needs a name (--model)\") }\n" +
		"func b() error { return errors.New(\"--tokenizer is missing\") }\n" +
		"func c() error { return &SettingError{Setting: \"x\", Problem: \"see --help\"} }\n" +
		"func d() error { return fmt.Errorf(\"%d--%d and a--b are no flags\", 1, 2) }\n" +
		"func e() string { return \"--help\" }\n"
	got, err = flagErrors(token.NewFileSet(), "planted.go", domain)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Errorf("flags in errors found %v, want the three planted", got)
	}
}
