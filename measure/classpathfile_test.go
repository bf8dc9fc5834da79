package measure

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// perfls check --classpath-file: the file's entries (relative to it) are
// the whole classpath, the build tool is not asked, and perfls.json's
// classpath is replaced.
func TestUseClasspathFileReplacesConfigAndBuildTool(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "pom.xml"), "<project/>")
	writeFile(t, filepath.Join(dir, "src", "A.java"), "class A {}")
	writeFile(t, filepath.Join(dir, "target", "dep.jar"), "x")
	writeFile(t, filepath.Join(dir, "target", "cp.txt"), "dep.jar\n")
	p, err := FindProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	if p.BuildTool != "maven" {
		t.Fatalf("BuildTool = %q before, want maven", p.BuildTool)
	}
	file := filepath.Join(dir, "target", "cp.txt")
	if err := p.UseClasspathFile(file); err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(dir, "target", "dep.jar")}; !reflect.DeepEqual(p.Classpath, want) || p.BuildTool != "" || p.ClasspathFrom != "--classpath-file "+file {
		t.Errorf("classpath %q from %q, build tool %q; want %q from the file and no build tool", p.Classpath, p.ClasspathFrom, p.BuildTool, want)
	}

	writeFile(t, file, "gone.jar\n")
	if err := p.UseClasspathFile(file); err == nil || !strings.Contains(err.Error(), "--classpath-file") || !strings.Contains(err.Error(), `"gone.jar"`) {
		t.Errorf("missing entry: %v", err)
	}
}
