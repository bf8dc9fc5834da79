package measure

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// perfls.json's "classpath" expands ~ and globs; "classpathFile" reads a
// file as mvn dependency:build-classpath writes it, relative to the file.
func TestConfigClasspathFileHomeAndGlobs(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	dir := t.TempDir()
	writeFile(t, filepath.Join(home, "jars", "h.jar"), "x")
	writeFile(t, filepath.Join(dir, "lib", "a.jar"), "x")
	writeFile(t, filepath.Join(dir, "lib", "b.jar"), "x")
	writeFile(t, filepath.Join(dir, "lib", "notes.txt"), "x")
	writeFile(t, filepath.Join(dir, "cp", "dep.jar"), "x")
	writeFile(t, filepath.Join(dir, "cp", "classes", "X.class"), "x")
	sep := string(os.PathListSeparator)
	writeFile(t, filepath.Join(dir, "cp", "cp.txt"), "dep.jar"+sep+filepath.Join(dir, "cp", "classes")+"\n\n"+"~/jars/h.jar\n")
	writeFile(t, filepath.Join(dir, ConfigFile), `{"classpath": ["lib/*.jar", "~/jars/h.jar"], "classpathFile": "cp/cp.txt"}`)
	writeFile(t, filepath.Join(dir, "src", "A.java"), "class A {}")
	p, err := FindProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		filepath.Join(dir, "lib", "a.jar"), filepath.Join(dir, "lib", "b.jar"), filepath.Join(home, "jars", "h.jar"),
		filepath.Join(dir, "cp", "dep.jar"), filepath.Join(dir, "cp", "classes"), filepath.Join(home, "jars", "h.jar"),
	}
	if !reflect.DeepEqual(p.Classpath, want) {
		t.Errorf("classpath\n got %q\nwant %q", p.Classpath, want)
	}
	if !strings.Contains(p.ClasspathFrom, `"classpath"`) || !strings.Contains(p.ClasspathFrom, `"classpathFile" (cp/cp.txt)`) {
		t.Errorf("ClasspathFrom = %q", p.ClasspathFrom)
	}

	// A missing entry of the file is named, with the file.
	writeFile(t, filepath.Join(dir, "cp", "cp.txt"), "gone.jar")
	_, err = FindProject(dir)
	if err == nil || !strings.Contains(err.Error(), "cp.txt") || !strings.Contains(err.Error(), `"gone.jar"`) {
		t.Errorf("missing entry: err = %v", err)
	}
	// So is a missing file.
	writeFile(t, filepath.Join(dir, ConfigFile), `{"classpathFile": "~/nope.txt"}`)
	if _, err = FindProject(dir); err == nil || !strings.Contains(err.Error(), "classpathFile") {
		t.Errorf("missing file: err = %v", err)
	}
}
