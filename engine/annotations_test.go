package engine

import (
	"archive/zip"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfls/perfls/internal/fixture"
	"github.com/perfls/perfls/measure"
)

// A project compiles against the annotations jar (import dev.perfls.SPL
// broke `mvn compile`: there was no jar), and --install lays it out where
// Maven and Gradle's mavenLocal() look for it. Issue #18 item 2.
func TestAnnotationsJarCompilesAProjectAndInstalls(t *testing.T) {
	javac, err := exec.LookPath("javac")
	if err != nil {
		t.Skip("no javac")
	}
	e := openEngine(t, measure.Options{})
	ctx := context.Background()
	repo := t.TempDir()
	jar, err := e.InstallAnnotations(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(repo, "dev", "perfls", "perfls-annotations", measure.LibraryVersion, "perfls-annotations-"+measure.LibraryVersion+".jar")
	if jar != want {
		t.Errorf("installed at %s, want %s", jar, want)
	}
	pom, err := os.ReadFile(strings.TrimSuffix(jar, ".jar") + ".pom")
	if err != nil || !strings.Contains(string(pom), "<artifactId>perfls-annotations</artifactId>") || !strings.Contains(string(pom), "<version>"+measure.LibraryVersion+"</version>") {
		t.Errorf("pom: %v\n%s", err, pom)
	}

	z, err := zip.OpenReader(jar)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	names := map[string]bool{}
	for _, f := range z.File {
		names[f.Name] = true
		if f.Name == "META-INF/MANIFEST.MF" {
			r, _ := f.Open()
			b, _ := io.ReadAll(r)
			r.Close()
			if !strings.Contains(string(b), "Automatic-Module-Name: dev.perfls") {
				t.Errorf("manifest:\n%s", b)
			}
		}
	}
	for _, n := range []string{"dev/perfls/SPL.class", "dev/perfls/Workload.class", "dev/perfls/SPLController.class", "dev/perfls/SPL.java", "META-INF/maven/dev.perfls/perfls-annotations/pom.xml"} {
		if !names[n] {
			t.Errorf("the jar lacks %s", n)
		}
	}

	dir := t.TempDir()
	fixture.WriteFiles(t, dir, map[string]string{"p/A.java": `package p;
import dev.perfls.SPL;
import dev.perfls.SPLController;
import dev.perfls.Workload;
public class A {
    @SPL("for n in {10} SELF[gen](n) <= p.A#b[gen](n)")
    @Workload("p.A#gen")
    public static int a(int n) { return n; }
    public static int b(int n) { return n; }
    public static Iterable<Object[]> gen(int n) { return java.util.Collections.singletonList(new Object[] {n}); }
    public static void loop(SPLController spl) { }
}
`})
	out, err := exec.Command(javac, "-d", filepath.Join(dir, "out"), "-cp", jar, filepath.Join(dir, "p", "A.java")).CombinedOutput()
	if err != nil {
		t.Fatalf("javac against the jar: %v\n%s", err, out)
	}
}
