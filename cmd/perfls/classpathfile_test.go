package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfls/perfls/internal/fixture"
)

// check --classpath-file (how the Maven plugin and the Gradle task pass the
// classpath they resolved) is refused before anything is measured when the
// file or one of its entries is missing, or with --remote, whose workers
// do not have the files. Its use is tested with Maven and Gradle in
// plugins/plugins_test.go.
func TestCheckClasspathFileRefusals(t *testing.T) {
	fixture.Isolate(t)
	dir := t.TempDir()
	missing := filepath.Join(dir, "nope.txt")
	cp := filepath.Join(dir, "cp.txt")
	fixture.WriteFiles(t, dir, map[string]string{"cp.txt": "gone.jar\n", "ok.txt": "\n"})
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"check", "--classpath-file", missing, dir}, []string{"--classpath-file", "nope.txt"}},
		{[]string{"check", "--classpath-file", cp, dir}, []string{"--classpath-file", "cp.txt", `"gone.jar"`}},
		{[]string{"check", "--remote", "--classpath-file", filepath.Join(dir, "ok.txt"), dir}, []string{"--classpath-file", "--remote"}},
	} {
		code, out, errs := runCLI(t, c.args...)
		if code != exitUsage {
			t.Errorf("perfls %s: exit %d, want %d\n%s%s", strings.Join(c.args, " "), code, exitUsage, out, errs)
		}
		for _, w := range c.want {
			if !strings.Contains(errs, w) {
				t.Errorf("perfls %s: stderr lacks %q:\n%s", strings.Join(c.args, " "), w, errs)
			}
		}
	}
}
