package lint

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines is the most lines a function of the product may have
// (from its func line to its closing brace) unless its doc comment says
// why it is longer, in a line that starts with "Long:" (a flat list of
// properties read in their documented order, say). A longer function is
// split into named steps a reader can follow.
const maxFuncLines = 100

// longFuncs lists the functions of a file over maxFuncLines whose doc
// comment has no line starting with "Long:", as "file name (n lines)";
// name is the file's name as given, for the list.
func longFuncs(fset *token.FileSet, f *ast.File, name string) []string {
	var out []string
	for _, decl := range f.Decls {
		fd, ok := decl.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1
		if n <= maxFuncLines || saysLong(fd.Doc) {
			continue
		}
		out = append(out, fmt.Sprintf("%s %s (%d lines)", name, fd.Name.Name, n))
	}
	return out
}

// saysLong reports whether a doc comment has a line starting with
// "Long:".
func saysLong(doc *ast.CommentGroup) bool {
	if doc == nil {
		return false
	}
	for _, l := range strings.Split(doc.Text(), "\n") {
		if strings.HasPrefix(l, "Long:") {
			return true
		}
	}
	return false
}

func TestLongFuncs(t *testing.T) {
	body := strings.Repeat("\tx++\n", maxFuncLines-2) // with its func line and closing brace: maxFuncLines
	for _, c := range []struct {
		src  string
		want int
	}{
		{"func f() {\n" + body + "}\n", 0},                                                 // just at the bound
		{"func f() {\n" + body + "\tx++\n}\n", 1},                                          // one line over
		{"// f counts.\nfunc f() {\n" + body + "\tx++\n}\n", 1},                            // a doc comment that gives no reason
		{"// f counts.\n//\n// Long: a flat list.\nfunc f() {\n" + body + "\tx++\n}\n", 0}, // one that does
		{"// f counts. Long: not at a line's start.\nfunc f() {\n" + body + "\tx++\n}\n", 1},
		{"/*\nLong: a flat list.\n*/\nfunc f() {\n" + body + "\tx++\n}\n", 0}, // a block comment's line
		{"type T int\n\nfunc (T) m() {\n" + body + "\tx++\n}\n", 1},           // a method
		{"var g = func() {\n" + body + "\tx++\n}\n", 0},                       // a function literal is its function's part
	} {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "x.go", "package x\n\nvar x int\n\n"+c.src, parser.ParseComments)
		if err != nil {
			t.Fatalf("%.40q: %v", c.src, err)
		}
		if got := longFuncs(fset, f, "x.go"); len(got) != c.want {
			t.Errorf("%.60q: %q, want %d", c.src, got, c.want)
		}
	}
}

// TestFunctionLength checks every function of the product (not tools/,
// testdata or tests): none over maxFuncLines but those whose doc comment
// says why.
func TestFunctionLength(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("the module's root: %v", err)
	}
	fset := token.NewFileSet()
	var long []string
	files := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (rel == "tools" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		long = append(long, longFuncs(fset, f, rel)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("only %d files read", files)
	}
	for _, l := range long {
		t.Errorf("%s: over %d lines; split it into named steps, or say why in its doc comment (a line starting with \"Long:\")", l, maxFuncLines)
	}
}
