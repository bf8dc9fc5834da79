package classpath

import (
	"archive/zip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/internal/fixture"
)

const builder = `package org.acme.xml;

import java.io.File;

/** Builds documents. */
public class Builder extends Base implements Runnable {
    public Doc build(File f) { return null; }
    public Doc build(String s, int... flags) { return null; }
    public static Builder create() { return new Builder(); }
    private void secret() {}
    public void run() {}
    public static class Options { public boolean validate(String schema) { return true; } }
    final Runnable r = new Runnable() { public void run() {} };
}
`

const base = `package org.acme.xml;

public abstract class Base {
    public void reset() {}
    protected int depth() { return 0; }
}
`

const doc = `package org.acme.xml;

public interface Doc { String text(); }
`

// acmeJars holds the jars acmeJar built, one with a -sources.jar and one
// without, shared by the package's tests (javac takes seconds).
var acmeJars = struct {
	sync.Mutex
	dir  string
	jars map[bool]string
}{jars: map[bool]string{}}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "classpath-test")
	if err != nil {
		panic(err)
	}
	acmeJars.dir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// acmeJar returns lib/acme-xml-1.0.jar, with its -sources.jar beside it
// when withSources; tests must not modify it.
func acmeJar(t *testing.T, withSources bool) string {
	t.Helper()
	acmeJars.Lock()
	defer acmeJars.Unlock()
	if p := acmeJars.jars[withSources]; p != "" {
		return p
	}
	p := filepath.Join(acmeJars.dir, fmt.Sprint(withSources), "lib", "acme-xml-1.0.jar")
	fixture.Jar(t, p, map[string]string{
		"org/acme/xml/Builder.java": builder, "org/acme/xml/Base.java": base, "org/acme/xml/Doc.java": doc,
	}, withSources)
	acmeJars.jars[withSources] = p
	return p
}

func TestJarLookup(t *testing.T) {
	dir := t.TempDir()
	jar := acmeJar(t, true)
	cp := New([]string{jar, filepath.Join(dir, "missing.jar")})
	if !cp.Covers("org.acme.xml.Nope") || cp.Covers("org.acme.Nope") || cp.Covers("java.util.List") {
		t.Error("Covers: want exactly the jar's packages")
	}
	if len(cp.Problems()) != 1 || !strings.Contains(cp.Problems()[0], "missing.jar") {
		t.Errorf("problems %v", cp.Problems())
	}
	c, err := cp.Class("org.acme.xml.Builder")
	if err != nil || c == nil {
		t.Fatalf("Builder: %v %v", c, err)
	}
	if c.Origin != jar || !reflect.DeepEqual(c.Supers, []string{"org.acme.xml.Base", "java.lang.Runnable"}) || !c.Complete {
		t.Errorf("Builder: %+v", c)
	}
	if c.SourceArchive != strings.TrimSuffix(jar, ".jar")+"-sources.jar" || c.SourceEntry != "org/acme/xml/Builder.java" {
		t.Errorf("source: %s %s", c.SourceArchive, c.SourceEntry)
	}
	var sigs []string
	for _, m := range c.Methods {
		sigs = append(sigs, m.Name+"("+strings.Join(m.Params, ",")+")")
	}
	want := []string{"build(java.io.File)", "build(java.lang.String,int[])", "create()", "run()"}
	if !reflect.DeepEqual(sigs, want) {
		t.Errorf("methods %v, want %v", sigs, want)
	}
	for _, name := range []string{"org.acme.xml.Builder.Options", "org.acme.xml.Builder$Options"} {
		if o, _ := cp.Class(name); o == nil || o.Methods[0].Name != "validate" {
			t.Errorf("%s: %+v", name, o)
		}
	}
	if a, _ := cp.Class("org.acme.xml.Builder$1"); a != nil {
		t.Errorf("anonymous class found: %+v", a)
	}
	pkg, origin, classes := cp.Package("org.acme.xml.Buildr")
	if pkg != "org.acme.xml" || origin != "acme-xml-1.0.jar" || !reflect.DeepEqual(classes, []string{"org.acme.xml.Base", "org.acme.xml.Builder", "org.acme.xml.Builder.Options", "org.acme.xml.Doc"}) {
		t.Errorf("package: %q %q %v", pkg, origin, classes)
	}
	if got, want := cp.ClassesWithPrefix("org.acme.xml.B", 0), []string{"org.acme.xml.Base", "org.acme.xml.Builder", "org.acme.xml.Builder.Options"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ClassesWithPrefix: %v, want %v", got, want)
	}
	if got := cp.ClassesWithPrefix("org.", 2); len(got) != 2 || got[0] != "org.acme.xml.Base" {
		t.Errorf("ClassesWithPrefix with a limit: %v", got)
	}
	// Members through supertypes, the JDK's left out.
	_, ms, err := workspace.ExternalMembers(cp, "org.acme.xml.Builder", "")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range ms {
		names = append(names, m.Class.Name+"#"+m.Signature())
	}
	if want := []string{"org.acme.xml.Builder#build(File)", "org.acme.xml.Builder#build(String, int[])", "org.acme.xml.Builder#create()", "org.acme.xml.Builder#run()", "org.acme.xml.Base#reset()", "org.acme.xml.Base#depth()"}; !reflect.DeepEqual(names, want) {
		t.Errorf("members %v, want %v", names, want)
	}
}

func TestSources(t *testing.T) {
	jar := acmeJar(t, true)
	c, _ := New([]string{jar}).Class("org.acme.xml.Builder")
	src, err := ReadSource(c.SourceArchive, c.SourceEntry)
	if err != nil || string(src) != builder {
		t.Fatalf("source: %v\n%s", err, src)
	}
	cache := t.TempDir()
	p, err := ExtractSource(cache, c.SourceArchive, c.SourceEntry)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(p)
	if err != nil || st.Mode().Perm()&0o222 != 0 || !strings.HasPrefix(p, filepath.Join(cache, "sources")) {
		t.Errorf("extracted %s: %v %v", p, st.Mode(), err)
	}
	if again, err := ExtractSource(cache, c.SourceArchive, c.SourceEntry); err != nil || again != p {
		t.Errorf("again: %s %v", again, err)
	}
	// The marker perfls cache gc reads (measure.PruneFiles).
	if m, _ := filepath.Glob(filepath.Join(cache, "sources", "*", ".used")); len(m) != 1 {
		t.Errorf("use markers: %v", m)
	}
	if _, err := ExtractSource(cache, c.SourceArchive, "../../etc/passwd"); err == nil {
		t.Error("an entry outside its directory was extracted")
	}
	if _, err := ReadSource(c.SourceArchive, "org/acme/xml/Nope.java"); err == nil {
		t.Error("missing entry: no error")
	}
	noSrc := acmeJar(t, false)
	if c, _ := New([]string{noSrc}).Class("org.acme.xml.Builder"); c == nil || c.SourceArchive != "" {
		t.Errorf("without sources jar: %+v", c)
	}
}

func TestClassFolder(t *testing.T) {
	dir := t.TempDir()
	jar := acmeJar(t, false)
	// A class folder: the jar's classes unpacked.
	classes := filepath.Join(dir, "classes")
	zr, err := zip.OpenReader(jar)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	for _, f := range zr.File {
		if !strings.HasSuffix(f.Name, ".class") {
			continue
		}
		rc, _ := f.Open()
		b := make([]byte, f.UncompressedSize64)
		if _, err := io.ReadFull(rc, b); err != nil {
			t.Fatal(err)
		}
		rc.Close()
		fixture.WriteFiles(t, classes, map[string]string{f.Name: string(b)})
	}
	cp := New([]string{classes})
	if !cp.Covers("org.acme.xml.X") {
		t.Fatal("folder package not covered")
	}
	if c, err := cp.Class("org.acme.xml.Doc"); err != nil || c == nil || c.Origin != classes || c.Methods[0].Name != "text" || !c.Methods[0].Abstract {
		t.Errorf("Doc: %+v %v", c, err)
	}
	// Rebuilt: a class file removed is gone once the directory changed.
	defer func(d time.Duration) { folderRecheck = d }(folderRecheck)
	folderRecheck = 0
	if err := os.Remove(filepath.Join(classes, "org", "acme", "xml", "Doc.class")); err != nil {
		t.Fatal(err)
	}
	if c, _ := New([]string{classes}).Class("org.acme.xml.Doc"); c != nil {
		t.Errorf("Doc after its class file was removed: %+v", c)
	}
}

func TestDamagedJar(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jar")
	os.WriteFile(bad, []byte("not a zip"), 0o644)
	// A jar whose class file is garbage: an error for that package, others fine.
	mixed := filepath.Join(dir, "mixed.jar")
	fixture.Zip(t, mixed, map[string]string{"p/Broken.class": "\xCA\xFE\xBA\xBE\x00\x00\x00\x34\x00\x09\x01"})
	cp := New([]string{bad, mixed})
	if len(cp.Problems()) != 1 || !strings.Contains(cp.Problems()[0], "bad.jar") {
		t.Errorf("problems %v", cp.Problems())
	}
	c, err := cp.Class("p.Broken")
	if c != nil || err == nil || !strings.Contains(err.Error(), "p/Broken.class in "+mixed) {
		t.Errorf("broken class: %v %v", c, err)
	}
}

// TestJarReplaced: a jar rebuilt in place (new size or modification time)
// is read again; the cache is keyed by path, size and mtime.
func TestJarReplaced(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.jar")
	data, err := os.ReadFile(acmeJar(t, false))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if c, _ := New([]string{p}).Class("org.acme.xml.Builder"); c == nil {
		t.Fatal("Builder not found")
	}
	fixture.Zip(t, p, map[string]string{"other/Thing.class": ""})
	cp := New([]string{p})
	if c, _ := cp.Class("org.acme.xml.Builder"); c != nil || cp.Covers("org.acme.xml.Builder") || !cp.Covers("other.Thing") {
		t.Errorf("after the jar changed: still %+v", c)
	}
}
