package jdk

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/workspace"
)

// methodNames lists a class's methods as "name(params)", static ones
// marked.
func methodNames(c *workspace.ExternalClass) []string {
	var out []string
	for _, m := range c.Methods {
		s := m.Name + "(" + strings.Join(m.Params, ", ") + ")"
		if m.Static {
			s = "static " + s
		}
		if m.Varargs {
			s += "..."
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// checkFakeClasses asserts what the fake JDK classes look like through c,
// whatever file they come from.
func checkFakeClasses(t *testing.T, c Classes) {
	t.Helper()
	if !c.Covers("java.util.Nope") || !c.Covers("javax.swing.JList") || c.Covers("javax.inject.Inject") || c.Covers("org.x.Y") ||
		!c.Covers("org.xml.sax.helpers.Nope") || c.Covers("org.xml.nope.X") || c.Covers("jdk.internal.Misc") {
		t.Error("Covers: java.* always, javax.*, org.xml.* and the like where the JDK has the package, nothing else")
	}
	l, err := c.Class("java.util.AbstractList")
	if err != nil || l == nil {
		t.Fatalf("AbstractList: %v %v", l, err)
	}
	// Constructors and private methods are not named by formulas.
	if got, want := methodNames(l), []string{"removeRange(int, int)", "subList(int, int)"}; !reflect.DeepEqual(got, want) {
		t.Errorf("AbstractList methods: %v, want %v", got, want)
	}
	if !reflect.DeepEqual(l.Supers, []string{"java.lang.Object", "java.util.List"}) || !l.Complete || l.Origin != c.Path() {
		t.Errorf("AbstractList: %+v", l)
	}
	list, _ := c.Class("java.util.List")
	if got := methodNames(list); !reflect.DeepEqual(got, []string{"get(int)", "static of(java.lang.Object[])..."}) {
		t.Errorf("List methods: %v", got)
	}
	for _, name := range []string{"java.util.Map$Entry", "java.util.Map.Entry"} {
		if e, err := c.Class(name); err != nil || e == nil || e.Name != "java.util.Map$Entry" {
			t.Errorf("%s: %+v %v", name, e, err)
		}
	}
	if e, err := c.Class("java.util.Nope"); e != nil || err != nil {
		t.Errorf("a class the JDK does not have: %+v %v", e, err)
	}
	if pkg, origin, cs := c.Package("java.util.Lisst"); pkg != "java.util" || origin != "the JDK" || !slices.Contains(cs, "java.util.List") || slices.Contains(cs, "java.util.Map.1") {
		t.Errorf("Package: %q %q %v", pkg, origin, cs)
	}
	if got := c.ClassesWithPrefix("java.util.Ma", 0); !reflect.DeepEqual(got, []string{"java.util.Map", "java.util.Map.Entry"}) {
		t.Errorf("ClassesWithPrefix: %v", got)
	}
	if got := c.ClassesWithPrefix("jdk.", 0); len(got) != 0 {
		t.Errorf("jdk.internal is left out: %v", got)
	}
}

// ct.sym: the sections holding a release's digit, with and without module
// directories; "-" sections and system-modules are not classes.
func TestCtSym(t *testing.T) {
	p := fakeCtSym(t, filepath.Join(t.TempDir(), "ct.sym"), "")
	releases, current, err := CtSymReleases(p)
	if err != nil || !reflect.DeepEqual(releases, []int{8, 16, 17}) || current != 0 {
		t.Fatalf("CtSymReleases: %v %d %v", releases, current, err)
	}
	d, err := OpenCtSym(p, 16)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	checkFakeClasses(t, d)
	if a, _ := d.Class("java.util.ArrayList"); a != nil || d.String() != p+" (ct.sym, release 16)" {
		t.Errorf("release 16 has no ArrayList here: %+v; %s", a, d)
	}
	d17, err := OpenCtSym(p, 17)
	if err != nil {
		t.Fatal(err)
	}
	defer d17.Close()
	if a, _ := d17.Class("java.util.ArrayList"); a == nil || a.Supers[0] != "java.util.AbstractList" {
		t.Errorf("release 17: ArrayList %+v", a)
	}
	d8, err := OpenCtSym(p, 8) // JDK 9's layout: no module directory
	if err != nil {
		t.Fatal(err)
	}
	defer d8.Close()
	if o, _ := d8.Class("java.lang.Object"); o == nil || d8.Classes() != 1 {
		t.Errorf("release 8: Object %+v, %d classes", o, d8.Classes())
	}
	if _, err := OpenCtSym(p, 11); err == nil || !strings.Contains(err.Error(), "no classes of release 11") {
		t.Errorf("a release it does not have: %v", err)
	}
	// In JDK 17's ct.sym the JDK's own release is a section with only a
	// system-modules file: javac reads those classes from lib/modules.
	p2 := fakeCtSym(t, filepath.Join(t.TempDir(), "ct.sym"), "I")
	if releases, current, _ := CtSymReleases(p2); current != 18 || slices.Contains(releases, 18) {
		t.Errorf("system-modules: releases %v, current %d", releases, current)
	}
}

// The runtime image, in either byte order, with a zip-compressed class.
func TestModules(t *testing.T) {
	for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		p := fakeModules(t, filepath.Join(t.TempDir(), "lib", "modules"), order, "zip")
		d, err := OpenModules(p)
		if err != nil {
			t.Fatal(err)
		}
		checkFakeClasses(t, d)
		a, err := d.Class("java.util.ArrayList")
		if err != nil || a == nil || !reflect.DeepEqual(methodNames(a), []string{"trimToSize()"}) {
			t.Errorf("%v: compressed ArrayList: %+v %v", order, a, err)
		}
		if d.String() != p+" (runtime image)" {
			t.Errorf("String: %s", d)
		}
		d.Close()
	}
	// A compression perfls does not read is an error that says what to do.
	d, err := OpenModules(fakeModules(t, filepath.Join(t.TempDir(), "modules"), binary.LittleEndian, "compact-cp"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, err := d.Class("java.util.ArrayList"); err == nil || !strings.Contains(err.Error(), `compressed with "compact-cp"`) || !strings.Contains(err.Error(), "src.zip") {
		t.Errorf("compact-cp: %v", err)
	}
}

// A damaged image is an error, never a panic: every truncation of one, and
// bytes that are no image.
func TestModulesDamaged(t *testing.T) {
	dir := t.TempDir()
	good, err := os.ReadFile(fakeModules(t, filepath.Join(dir, "good"), binary.LittleEndian, "zip"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "modules")
	opened := 0
	for n := 0; n < len(good); n += 7 {
		if err := os.WriteFile(p, good[:n], 0o644); err != nil {
			t.Fatal(err)
		}
		d, err := OpenModules(p)
		if err != nil {
			continue
		}
		opened++
		for _, c := range []string{"java.lang.Object", "java.util.ArrayList", "java.util.AbstractList", "javax.swing.JList"} {
			d.Class(c) // may fail; must not panic
		}
		d.Close()
	}
	if opened == 0 {
		t.Error("no truncation opened: the index must come before the resources")
	}
	if err := os.WriteFile(p, []byte("PK\x03\x04 a zip, not an image"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenModules(p); err == nil || !strings.Contains(err.Error(), "not a JDK runtime image") {
		t.Errorf("not an image: %v", err)
	}
	bad := append([]byte(nil), good...)
	binary.LittleEndian.PutUint32(bad[4:], 2<<16)
	if err := os.WriteFile(p, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenModules(p); err == nil || !strings.Contains(err.Error(), "version 2.0 is not supported") {
		t.Errorf("version 2: %v", err)
	}
}

// JDK 8's rt.jar is read like a jar.
func TestRtJar(t *testing.T) {
	files := map[string][]byte{"META-INF/MANIFEST.MF": []byte("Manifest-Version: 1.0\n")}
	for n, b := range fakeClasses() {
		files[n+".class"] = b
	}
	d, err := OpenRtJar(writeFakeZip(t, filepath.Join(t.TempDir(), "rt.jar"), files))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	checkFakeClasses(t, d)
}

// fakeHome makes a JDK home in a temporary directory with the files named
// (any of "src.zip", "ct.sym", "modules", "modules-compact", "rt.jar",
// "dangling-src.zip") and a release file for release (none when 0).
func fakeHome(t *testing.T, release string, files ...string) string {
	t.Helper()
	home := t.TempDir()
	lib := filepath.Join(home, "lib")
	if err := os.MkdirAll(lib, 0o755); err != nil {
		t.Fatal(err)
	}
	if release != "" {
		writeFile(t, filepath.Join(home, "release"), "IMPLEMENTOR=\"test\"\nJAVA_VERSION=\""+release+"\"\n")
	}
	for _, f := range files {
		switch f {
		case "src.zip":
			fakeSrcZipFile(t, filepath.Join(lib, "src.zip"))
		case "dangling-src.zip":
			if err := os.Symlink("../../no-such-jdk/src.zip", filepath.Join(lib, "src.zip")); err != nil {
				t.Fatal(err)
			}
		case "ct.sym":
			fakeCtSym(t, filepath.Join(lib, "ct.sym"), "")
		case "ct.sym-17-in-modules":
			fakeCtSymOlder(t, filepath.Join(lib, "ct.sym"))
		case "modules":
			fakeModules(t, filepath.Join(lib, "modules"), binary.LittleEndian, "")
		case "modules-compact":
			fakeModules(t, filepath.Join(lib, "modules"), binary.LittleEndian, "compact-cp")
		case "rt.jar":
			rt := map[string][]byte{}
			for n, b := range fakeClasses() {
				rt[n+".class"] = b
			}
			writeFakeZip(t, filepath.Join(home, "jre", "lib", "rt.jar"), rt)
		default:
			t.Fatalf("fakeHome: %q", f)
		}
	}
	return home
}

// fakeCtSymOlder writes the ct.sym of a JDK 17 that leaves 17 to
// lib/modules: the fake classes in section "G" (16), "H" only
// system-modules.
func fakeCtSymOlder(t *testing.T, p string) {
	files := map[string][]byte{"H/system-modules": []byte("java.base\n")}
	for name, data := range fakeClasses() {
		files["G/java.base/"+name+".sig"] = data
	}
	writeFakeZip(t, p, files)
}

// Which of a JDK home's files is read.
func TestOpenHome(t *testing.T) {
	for _, tc := range []struct {
		name, release string
		files         []string
		want          string // the file read and what it is, after the home
	}{
		{"only src.zip", "17.0.2", []string{"src.zip"}, "/lib/src.zip"},
		{"src.zip first", "17.0.2", []string{"src.zip", "ct.sym", "modules"}, "/lib/src.zip"},
		{"only ct.sym", "", []string{"ct.sym"}, "/lib/ct.sym (ct.sym, release 17)"},
		{"only modules", "", []string{"modules"}, "/lib/modules (runtime image)"},
		{"dangling src.zip, ct.sym with the JDK's release", "17", []string{"dangling-src.zip", "ct.sym", "modules"}, "/lib/ct.sym (ct.sym, release 17)"},
		{"ct.sym without the JDK's release: modules", "17.0.15", []string{"dangling-src.zip", "ct.sym-17-in-modules", "modules"}, "/lib/modules (runtime image)"},
		{"unreadable modules: the older ct.sym, said so", "17.0.15", []string{"ct.sym-17-in-modules", "modules-compact"},
			"/lib/ct.sym (ct.sym, release 16; the JDK is 17: classes and methods new in 17 are missing)"},
		{"JDK 8", "1.8.0_392", []string{"rt.jar"}, "/jre/lib/rt.jar (rt.jar)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := fakeHome(t, tc.release, tc.files...)
			c, err := OpenHome(home)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if got := strings.TrimPrefix(c.String(), home); got != tc.want {
				t.Errorf("read %s, want %s", got, tc.want)
			}
			if l, err := c.Class("java.util.AbstractList"); err != nil || l == nil || l.Methods[len(l.Methods)-1].Name != "subList" && l.Methods[0].Name != "subList" {
				t.Errorf("AbstractList: %+v %v", l, err)
			}
		})
	}
	home := fakeHome(t, "17", "dangling-src.zip", "modules-compact")
	_, err := OpenHome(home)
	var nf *NotFoundError
	if !errors.As(err, &nf) || !strings.Contains(err.Error(), "no src.zip, ct.sym or modules under "+home) || !strings.Contains(err.Error(), "compact-cp") {
		t.Errorf("nothing readable: %v", err)
	}
}

// The JDK is found by its files: the javaHome setting, JAVA_HOME, then
// javac and java on PATH through their symlinks.
func TestHomes(t *testing.T) {
	jdkA := fakeHome(t, "17", "modules")
	jdkB := fakeHome(t, "21", "ct.sym")
	bin := t.TempDir()
	writeFile(t, filepath.Join(jdkB, "bin", "javac"), "#!/bin/sh\n")
	if err := os.Chmod(filepath.Join(jdkB, "bin", "javac"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(jdkB, "bin", "javac"), filepath.Join(bin, "javac")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	t.Setenv("JAVA_HOME", jdkA)
	want := []Home{{jdkA, "JAVA_HOME"}, {jdkB, "javac on PATH"}}
	if got := Homes(""); !reflect.DeepEqual(got, want) {
		t.Errorf("Homes: %v, want %v", got, want)
	}
	setting := fakeHome(t, "25", "src.zip")
	if got := Homes(setting); len(got) != 3 || got[0] != (Home{setting, "the javaHome setting"}) {
		t.Errorf("with the setting: %v", got)
	}
	c, err := Load(setting)
	if err != nil || c.Path() != filepath.Join(setting, "lib", "src.zip") {
		t.Fatalf("Load(setting): %v %v", c, err)
	}
	c.Close()
	c, err = Load("")
	if err != nil || c.Path() != filepath.Join(jdkA, "lib", "modules") {
		t.Fatalf("Load: %v %v", c, err)
	}
	c.Close()
	// A JAVA_HOME without classes is passed over for the next.
	t.Setenv("JAVA_HOME", t.TempDir())
	if c, err = Load(""); err != nil || c.Path() != filepath.Join(jdkB, "lib", "ct.sym") {
		t.Fatalf("Load past an empty JAVA_HOME: %v %v", c, err)
	}
	c.Close()
	t.Setenv("PATH", t.TempDir())
	t.Setenv("JAVA_HOME", "")
	if _, err := Load(""); err == nil || err.Error() != "no JDK found: JAVA_HOME is not set and neither javac nor java is on PATH" {
		t.Errorf("no JDK: %v", err)
	}
	empty := t.TempDir()
	if _, err := Load(empty); err == nil || err.Error() != "no src.zip, ct.sym or modules under "+empty+" (the javaHome setting)" {
		t.Errorf("an empty javaHome: %v", err)
	}
}

// OpenPath opens what --jdk-src names.
func TestOpenPath(t *testing.T) {
	home := fakeHome(t, "17", "src.zip", "ct.sym", "modules")
	for p, want := range map[string]string{
		home:                               "/lib/src.zip",
		filepath.Join(home, "lib/ct.sym"):  "/lib/ct.sym (ct.sym, release 17)",
		filepath.Join(home, "lib/modules"): "/lib/modules (runtime image)",
		filepath.Join(home, "lib/src.zip"): "/lib/src.zip",
	} {
		c, err := OpenPath(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if got := strings.TrimPrefix(c.String(), home); got != want {
			t.Errorf("%s: read %s, want %s", p, got, want)
		}
		c.Close()
	}
	if _, err := OpenPath(filepath.Join(home, "nope")); err == nil {
		t.Error("a missing path opened")
	}
}

// realJDKs are the JDK homes installed here (/usr/lib/jvm, JAVA_HOME),
// each once.
func realJDKs(t testing.TB) []string {
	cands, _ := filepath.Glob("/usr/lib/jvm/*")
	if h := os.Getenv("JAVA_HOME"); h != "" {
		cands = append(cands, h)
	}
	var out []string
	seen := map[string]bool{}
	for _, c := range cands {
		real, err := filepath.EvalSymlinks(c)
		if err != nil || seen[real] {
			continue
		}
		if _, err := os.Stat(filepath.Join(real, "lib", "modules")); err == nil {
			seen[real] = true
			out = append(out, real)
		}
	}
	if len(out) == 0 {
		t.Skip("no JDK installed under /usr/lib/jvm or JAVA_HOME")
	}
	return out
}

// The JDKs installed here, whole and as homes holding only one of their
// files each (linked): every way reads java.util.ArrayList and its
// supertypes.
func TestRealJDKs(t *testing.T) {
	for _, real := range realJDKs(t) {
		t.Run(filepath.Base(real), func(t *testing.T) {
			c, err := OpenHome(real)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %s", real, c)
			checkArrayList(t, c)
			c.Close()
			for _, file := range []string{"src.zip", "ct.sym", "modules"} {
				target := filepath.Join(real, "lib", file)
				if !isFile(target) {
					t.Logf("%s: no %s (or a dangling link)", real, file)
					continue
				}
				home := t.TempDir()
				writeFile(t, filepath.Join(home, "lib", "README"), "") // no release file: the newest in ct.sym
				if err := os.Symlink(target, filepath.Join(home, "lib", file)); err != nil {
					t.Fatal(err)
				}
				c, err := OpenHome(home)
				if err != nil {
					t.Fatalf("only %s: %v", file, err)
				}
				if c.Path() != filepath.Join(home, "lib", file) {
					t.Errorf("only %s: read %s", file, c)
				}
				checkArrayList(t, c)
				c.Close()
			}
		})
	}
}

func checkArrayList(t *testing.T, c Classes) {
	t.Helper()
	a, err := c.Class("java.util.ArrayList")
	if err != nil || a == nil {
		t.Fatalf("%s: ArrayList: %v %v", c, a, err)
	}
	names := map[string]bool{}
	for _, m := range a.Methods {
		names[m.Name] = true
	}
	if !names["add"] || !names["trimToSize"] || !names["subList"] || a.Supers[0] != "java.util.AbstractList" {
		t.Errorf("%s: ArrayList %v, supers %v", c, names, a.Supers)
	}
	top, ms, err := workspace.ExternalMembers(c, "java.util.ArrayList", "containsAll")
	if top == nil || len(ms) == 0 || err != nil {
		t.Errorf("%s: containsAll, inherited from AbstractCollection: %v", c, err)
	}
	if !c.Covers("javax.swing.JList") || c.Covers("javax.inject.Inject") || !c.Covers("org.w3c.dom.Element") || c.Covers("sun.misc.Unsafe") {
		t.Errorf("%s: Covers javax, org.w3c", c)
	}
	if h, err := c.Class("org.xml.sax.helpers.DefaultHandler"); h == nil || err != nil {
		t.Errorf("%s: the JDK's SAX: %v %v", c, h, err)
	}
}

// Lint through the JDK's class data: a workspace class extending a JDK
// class has its method names checked, with suggestions; without the JDK
// the same references are unchecked, and said to be.
func TestLintThroughClassData(t *testing.T) {
	src := `package demo;
public class MyList extends java.util.AbstractList<String> {
    public static Iterable<Object[]> gen(int n) { return null; }
    @SPL({"SELF[gen](1) <= demo.MyList#size[gen](1)", "SELF[gen](1) <= demo.MyList#sizee[gen](1)",
          "SELF[gen](1) <= java.util.AbstractList#sublist[gen](1)", "SELF[gen](1) <= demo.MyList#get(int)[gen](1)"})
    public static int m(int[] a) { return 0; }
}
`
	f, err := javasrc.Parse("/p/demo/MyList.java", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	formulas, _ := workspace.JavaFormulas(f)
	ix := workspace.NewIndex([]*javasrc.File{f})
	d, err := OpenCtSym(fakeCtSym(t, filepath.Join(t.TempDir(), "ct.sym"), ""), 17)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var got []string
	for _, diag := range ix.Lint(formulas, workspace.LintOptions{External: d, Unchecked: func(u workspace.Unchecked) { t.Errorf("unchecked with the JDK: %+v", u) }}) {
		got = append(got, diag.Code+": "+diag.Message)
	}
	want := []string{
		`unknown-method: demo.MyList has no method "sizee"`,
		`unknown-method: java.util.AbstractList has no method "sublist"; did you mean subList?`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("with the JDK's class data:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var unchecked []string
	diags := ix.Lint(formulas, workspace.LintOptions{Unchecked: func(u workspace.Unchecked) {
		unchecked = append(unchecked, u.Ref+" "+strings.Join(u.Missing, ","))
	}})
	if len(diags) != 0 {
		t.Errorf("without the JDK nothing is certain: %v", diags)
	}
	wantUnchecked := []string{ // right or wrong, nothing can be told
		"demo.MyList#size java.util.AbstractList", "demo.MyList#sizee java.util.AbstractList",
		"java.util.AbstractList#sublist java.util.AbstractList", "demo.MyList#get java.util.AbstractList",
	}
	if !reflect.DeepEqual(unchecked, wantUnchecked) {
		t.Errorf("unchecked without the JDK: %q, want %q", unchecked, wantUnchecked)
	}
}

// BenchmarkOpenJDK opens each file of the JDKs installed here and looks up
// the classes a lint through java.util.ArrayList reads (ArrayList and its
// supertypes): what each perfls lint pays for the JDK.
//
//	go test -run XXX -bench OpenJDK ./analysis/workspace/jdk
func BenchmarkOpenJDK(b *testing.B) {
	homes := realJDKs(b)
	for _, home := range homes {
		for _, file := range []string{"src.zip", "ct.sym", "modules"} {
			p := filepath.Join(home, "lib", file)
			if !isFile(p) {
				continue
			}
			b.Run(filepath.Base(home)+"/"+file, func(b *testing.B) {
				for range b.N {
					c, err := OpenPath(p)
					if err != nil {
						b.Fatal(err)
					}
					if _, ms, err := workspace.ExternalMembers(c, "java.util.ArrayList", "size"); len(ms) == 0 || err != nil {
						b.Fatalf("%s: ArrayList#size: %v", c, err)
					}
					c.Close()
				}
			})
		}
	}
}
