package trust

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

func TestGate(t *testing.T) {
	ctx := context.Background()
	if err := Check(ctx, "run x"); err != nil {
		t.Fatalf("a context without a gate is the user's explicit action: %v", err)
	}
	g := Closed("perfls lint reads files only")
	ctx = With(ctx, g)
	err := Check(ctx, "run ./mvnw")
	var r *Refused
	if !errors.As(err, &r) || !errors.Is(err, ErrUntrusted) {
		t.Fatalf("closed gate: got %v, want a *Refused wrapping ErrUntrusted", err)
	}
	if got, want := err.Error(), "did not run ./mvnw: perfls lint reads files only"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	if _, err := Command(ctx, "true"); err == nil {
		t.Error("Command ran under a closed gate")
	}
	if _, err := LongCommand(ctx, "true"); err == nil {
		t.Error("LongCommand ran under a closed gate")
	}
	if _, err := StartProcess(ctx, "/bin/true", []string{"true"}, &os.ProcAttr{}); err == nil {
		t.Error("StartProcess ran under a closed gate")
	}
	g.Set(true, "")
	if err := Check(ctx, "run x"); err != nil || !Trusted(ctx) {
		t.Errorf("opened gate: %v", err)
	}
	g.Set(false, "")
	if Trusted(ctx) || !strings.Contains(Check(ctx, "run x").Error(), ErrUntrusted.Error()) {
		t.Error("a gate closed without a reason must say the workspace is not trusted")
	}
	var zero Gate
	if zero.Trusted() {
		t.Error("the zero Gate must be closed")
	}
}

// processStarters are the calls that start a process or open a
// connection. Outside this package only the files listed in allowed may
// make them, each for a reason said there.
var processStarters = map[string]bool{
	"exec.Command": true, "exec.CommandContext": true, "os.StartProcess": true,
	"syscall.ForkExec": true, "syscall.Exec": true, "syscall.StartProcess": true,
	"sql.Open": true, "pgx.Connect": true, "pgxpool.New": true, "pgxpool.NewWithConfig": true,
	"net.Dial": true, "net.DialTimeout": true, "net.Listen": true,
}

// allowed are the non-test files that may call a process starter
// directly, and why.
var allowed = map[string]string{
	"cache/open.go":                  "sql.Open of the SQLite file in the cache directory: a file, not a connection",
	"cache/postgres.go":              "sql.Open of a shared store, after trust.Check (cache.Open)",
	"measure/remote/remote.go":       "the job queue's pool, after trust.Check",
	"measure/service/daemon.go":      "the daemon's own unix socket (listen and dial), owned by the user; its requests ask trust.Check",
	"internal/pgtest/pgtest.go":      "test helper: a throwaway PostgreSQL server",
	"internal/fixture/fixture.go":    "test helper: git histories for tests",
	"internal/fixture/maven.go":      "test helper: Maven for tests",
	"internal/fixture/command.go":    "test helper: runs the commands a test names (plugins, releases)",
	"internal/fixture/oldhistory.go": "test helper: runs bench/old-history.sh to build a git history for tests",
}

// TestEveryProcessStartsHere walks the module's non-test Go files (bench
// programs aside: they are the developers' tools) and fails on a process
// start or connection made anywhere but through this package or an
// allowed file: trust is enforced in one place only if nothing goes
// around it.
func TestEveryProcessStartsHere(t *testing.T) {
	root := filepath.Join("..", "..")
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root: %v", err)
	}
	var offenders []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			switch {
			case rel == "bench" || rel == "internal/trust" || strings.HasSuffix(rel, "/node_modules") || (strings.HasPrefix(d.Name(), ".") && rel != "."):
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		imports := map[string]string{} // local name → import path
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			name := filepath.Base(p)
			if p == "github.com/jackc/pgx/v5" {
				name = "pgx"
			}
			if im.Name != nil {
				name = im.Name.Name
			}
			imports[name] = p
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			x, ok := sel.X.(*ast.Ident)
			if !ok || imports[x.Name] == "" {
				return true
			}
			call := filepath.Base(imports[x.Name]) + "." + sel.Sel.Name
			if imports[x.Name] == "github.com/jackc/pgx/v5" {
				call = "pgx." + sel.Sel.Name
			}
			if processStarters[call] && allowed[rel] == "" {
				offenders = append(offenders, fset.Position(sel.Pos()).String()+": "+call)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(offenders)
	if len(offenders) > 0 {
		t.Errorf("processes or connections started around package trust (use trust.Command, LongCommand, StartProcess or trust.Check):\n%s", strings.Join(offenders, "\n"))
	}
}
