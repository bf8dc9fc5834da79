package measure

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/analysis/methodspec"
)

// sharedCache is one cache directory for the whole test binary, so that the
// perfls library is compiled once.
var sharedCache string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "perfls-measure-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	sharedCache = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func requireJDK(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("forks JVMs; skipped with -short")
	}
	if _, err := findJDK(context.Background()); err != nil {
		t.Skipf("no JDK: %v", err)
	}
}

// copyTree copies testdata/<name> into a new temporary directory.
func copyTree(t *testing.T, name string) string {
	t.Helper()
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS(filepath.Join("testdata", name))); err != nil {
		t.Fatal(err)
	}
	return dst
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// lineOf returns the 1-based line of the first line of file containing marker.
func lineOf(t *testing.T, file, marker string) int {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, marker) {
			return i + 1
		}
	}
	t.Fatalf("%s: no line with %q", file, marker)
	return 0
}

var fixture struct {
	once sync.Once
	dir  string
	b    *Build
	err  error
}

// fixtureBuild compiles testdata/fixture (once per test binary).
func fixtureBuild(t *testing.T) (string, *Build) {
	t.Helper()
	requireJDK(t)
	fixture.once.Do(func() {
		dir, err := os.MkdirTemp(sharedCache, "fixture-")
		if err != nil {
			fixture.err = err
			return
		}
		err = filepath.WalkDir(filepath.Join("testdata", "fixture"), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(filepath.Join("testdata", "fixture"), p)
			if d.IsDir() {
				return os.MkdirAll(filepath.Join(dir, rel), 0o755)
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, rel), data, 0o644)
		})
		if err != nil {
			fixture.err = err
			return
		}
		p, err := FindProject(dir)
		if err != nil {
			fixture.err = err
			return
		}
		fixture.dir = dir
		fixture.b, fixture.err = Compile(context.Background(), p, sharedCache)
	})
	if fixture.err != nil {
		t.Fatal(fixture.err)
	}
	return fixture.dir, fixture.b
}

// resolveAll resolves specs written "pkg.Class#name" or "pkg.Class#name(t1,t2)".
func resolveAll(t *testing.T, b *Build, specs ...string) []measured.Resolved {
	t.Helper()
	var ms []methodspec.Spec
	for _, s := range specs {
		ms = append(ms, parseSpec(s))
	}
	rs, errs := Resolve(context.Background(), b, ms)
	for i, err := range errs {
		if err != nil {
			t.Fatalf("resolve %s: %v", specs[i], err)
		}
	}
	return rs
}

func parseSpec(s string) methodspec.Spec {
	cls, rest, _ := strings.Cut(s, "#")
	name, params, hasParams := strings.Cut(rest, "(")
	ms := methodspec.Spec{Class: cls, Name: name}
	if hasParams {
		params = strings.TrimSuffix(params, ")")
		ms.Params = []string{}
		if params != "" {
			ms.Params = strings.Split(params, ",")
		}
	}
	return ms
}
