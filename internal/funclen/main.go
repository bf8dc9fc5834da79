// Command funclen lists the Go functions longer than a limit, counted from
// the line of "func" to the line of the closing brace, in the non-test files
// below a directory (testdata, node_modules and hidden directories are
// skipped). It prints one "lines path:line name" row per function, longest
// first, then the count. It is the figure of issue #17:
//
//	go run ./internal/funclen -over 80 .
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	over := flag.Int("over", 80, "list functions with more lines than this")
	tests := flag.Bool("tests", false, "count _test.go files too")
	flag.Parse()
	root := "."
	if flag.NArg() > 0 {
		root = flag.Arg(0)
	}
	type fn struct {
		lines int
		at    string
	}
	var long []fn
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != root && (n == "testdata" || n == "node_modules" || strings.HasPrefix(n, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || (!*tests && strings.HasSuffix(p, "_test.go")) {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			start, end := fset.Position(fd.Pos()), fset.Position(fd.End())
			if n := end.Line - start.Line + 1; n > *over {
				name := fd.Name.Name
				if fd.Recv != nil && len(fd.Recv.List) > 0 {
					name = fmt.Sprintf("(%s).%s", recvType(fd.Recv.List[0].Type), name)
				}
				long = append(long, fn{n, fmt.Sprintf("%s:%d %s", p, start.Line, name)})
			}
		}
		return nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "funclen:", err)
		os.Exit(2)
	}
	sort.Slice(long, func(i, j int) bool { return long[i].lines > long[j].lines })
	for _, f := range long {
		fmt.Printf("%4d %s\n", f.lines, f.at)
	}
	fmt.Printf("%d functions over %d lines\n", len(long), *over)
}

func recvType(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return "*" + recvType(t.X)
	case *ast.Ident:
		return t.Name
	case *ast.IndexExpr:
		return recvType(t.X)
	}
	return "?"
}
