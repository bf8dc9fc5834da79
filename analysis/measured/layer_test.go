package measured

import (
	"go/build"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/perfls/perfls"

// TestAnalysisRunsNothing keeps the analysis packages pure: no package of
// analysis/ — its code or its tests — depends, directly or through any
// other perfls package, on one outside analysis/ and internal/ (measure,
// cache, engine, server: the packages that run JVMs, keep the store or
// serve the editor). Measured data they need lives here.
func TestAnalysisRunsNothing(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root: %v", err)
	}
	var start []string
	err = filepath.WalkDir(filepath.Join(root, "analysis"), func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() {
			rel, _ := filepath.Rel(root, path)
			start = append(start, module+"/"+filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(start) < 10 {
		t.Fatalf("found only %d directories under analysis/: %v", len(start), start)
	}
	bad := outsideLayer(t, root, start)
	var lines []string
	for pkg, via := range bad {
		lines = append(lines, pkg+" (imported by "+via+")")
	}
	sort.Strings(lines)
	for _, l := range lines {
		t.Errorf("analysis depends on %s; move what it needs into analysis/ (measured data: analysis/measured)", l)
	}
}

// outsideLayer walks the perfls imports of the packages start (with their
// tests' imports) and of everything they reach (without tests), and
// returns each package outside analysis/ and internal/ with one importer.
func outsideLayer(t *testing.T, root string, start []string) map[string]string {
	t.Helper()
	bad := map[string]string{}
	seen := map[string]bool{}
	type item struct {
		pkg   string
		tests bool
	}
	queue := []item{}
	for _, p := range start {
		queue = append(queue, item{p, true})
		seen[p] = true
	}
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		dir := filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(it.pkg, module)))
		p, err := build.Default.ImportDir(dir, 0)
		if err != nil {
			if _, ok := err.(*build.NoGoError); ok {
				continue
			}
			t.Fatalf("read %s: %v", dir, err)
		}
		imports := p.Imports
		if it.tests {
			imports = append(append(append([]string(nil), imports...), p.TestImports...), p.XTestImports...)
		}
		for _, imp := range imports {
			rel, ok := strings.CutPrefix(imp, module+"/")
			if !ok {
				continue
			}
			if !strings.HasPrefix(rel, "analysis/") && !strings.HasPrefix(rel, "internal/") {
				if _, dup := bad[imp]; !dup {
					bad[imp] = it.pkg
				}
				continue
			}
			if !seen[imp] {
				seen[imp] = true
				queue = append(queue, item{imp, false})
			}
		}
	}
	return bad
}
