package input

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The commands' readers open what they are given through this package, so
// that a new one cannot forget the context and the cap: no other read of
// a file in the packages that read inputs (issue 34 item 4). A read that
// must stay lists itself in allowed with the reason.
func TestReadersGoThroughInput(t *testing.T) {
	allowed := map[string]string{
		"engine/revision.go": "a workload's Java files from the working tree, added to a revision's (the git work's file)",
	}
	read := regexp.MustCompile(`\bos\.(ReadFile|Open)\(|\bos\.OpenFile\([^)]*O_RDONLY`)
	for _, dir := range []string{"cmd/perfls", "engine", "analysis/dataset", "analysis/ensemble/csvrun", "analysis/model"} {
		files, err := filepath.Glob(filepath.Join("..", "..", dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", dir, err)
		}
		for _, f := range files {
			rel := filepath.ToSlash(strings.TrimPrefix(f, filepath.Join("..", "..")+string(filepath.Separator)))
			if strings.HasSuffix(f, "_test.go") || allowed[rel] != "" {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for i, line := range strings.Split(string(src), "\n") {
				if read.MatchString(line) {
					t.Errorf("%s:%d reads a file past package input: %s", rel, i+1, strings.TrimSpace(line))
				}
			}
		}
	}
}
