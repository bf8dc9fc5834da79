package measure

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfls/perfls/analysis/measured"
)

// perfls.json's "release" and "javacArgs" are read and checked; flags
// perfls sets itself, an argument file and a release that is none are
// refused, saying where.
func TestConfigReleaseAndJavacArgs(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "src/p/A.java"), "package p; class A {}")
	writeFile(t, filepath.Join(dir, ConfigFile), `{"release": 8, "javacArgs": ["-Xlint:none", "-parameters"]}`)
	p, err := FindProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	if p.Release != 8 || strings.Join(p.JavacArgs, " ") != "-Xlint:none -parameters" || !p.releaseSet {
		t.Errorf("release %d (set %v), javac flags %q", p.Release, p.releaseSet, p.JavacArgs)
	}
	for cfg, want := range map[string]string{
		`{"release": 3}`:                      `"release": 3 is not a Java release`,
		`{"javacArgs": ["-d", "out"]}`:        `"javacArgs": "-d" is set by perfls`,
		`{"javacArgs": ["--release=11"]}`:     `give the Java release in "release"`,
		`{"javacArgs": ["-source", "8"]}`:     `give the Java release in "release"`,
		`{"javacArgs": ["@more.txt"]}`:        `is not a javac flag`,
		`{"javacArgs": ["-J-Xmx1g"]}`:         `would change javac's own JVM`,
		`{"javacArgs": ["-classpath", "x"]}`:  `is set by perfls`,
		`{"javacArgs": ["--class-path=x:y"]}`: `is set by perfls`,
	} {
		writeFile(t, filepath.Join(dir, ConfigFile), cfg)
		_, err := FindProject(dir)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), ConfigFile) {
			t.Errorf("%s: %v, want an error saying %s", cfg, err, want)
		}
	}
}

// The command line's release wins over perfls.json's, an older forked JVM's
// over both, and its javac flags follow perfls.json's.
func TestApplyOptions(t *testing.T) {
	requireJDK(t)
	p := &Project{Release: 11, releaseSet: true, JavacArgs: []string{"-Xlint:none"}}
	if err := p.ApplyOptions(context.Background(), Options{Release: 8, JavacArgs: []string{"-parameters"}}); err != nil {
		t.Fatal(err)
	}
	if p.Release != 8 || !p.releaseSet || strings.Join(p.JavacArgs, " ") != "-Xlint:none -parameters" {
		t.Errorf("release %d (set %v), flags %q", p.Release, p.releaseSet, p.JavacArgs)
	}
	if err := (&Project{}).ApplyOptions(context.Background(), Options{Release: 2}); err == nil || !strings.Contains(err.Error(), "--release") {
		t.Errorf("--release 2: %v", err)
	}
}

// Code older than the JDK: a method of its own clashing with one the JDK
// added since, a word that became a keyword. The hint names the cause and
// the release that compiles it, and says nothing of other errors or when
// the project already compiles for that release.
func TestJDKHint(t *testing.T) {
	p := &Project{Sources: []string{"/p/src/p/A.java", "/p/src/p/Shape.java"}}
	clash := []measured.CompilerMessage{{Severity: "error", Message: "sort(Comparator<? super Content>) in ContentList cannot implement sort(Comparator<? super E>) in List; attempting to assign weaker access privileges; was public"}}
	h := JDKHint(p, 17, clash)
	for _, want := range []string{"sort in ContentList clashes with List.sort, which Java 8 added", "Compile it as Java 7", `"release": 7 in perfls.json, or --release 7`} {
		if !strings.Contains(h, want) {
			t.Errorf("List.sort: hint lacks %q: %s", want, h)
		}
	}
	if h := JDKHint(p, 21, clash); !strings.Contains(h, "javac 21 compiles for 8 and later; JDK 19 and older compile for 7") {
		t.Errorf("javac 21 cannot compile for 7: %s", h)
	}
	transfer := []measured.CompilerMessage{{Severity: "error", Message: "transferTo(OutputStream) in Bytes cannot override transferTo(OutputStream) in InputStream; attempting to assign weaker access privileges; was public"}}
	if h := JDKHint(p, 17, transfer); !strings.Contains(h, "which Java 9 added") || !strings.Contains(h, "--release 8") {
		t.Errorf("InputStream.transferTo: %s", h)
	}
	keyword := []measured.CompilerMessage{{Severity: "error", Message: "as of release 9, '_' is a keyword, and may not be used as an identifier"}}
	if h := JDKHint(p, 17, keyword); !strings.Contains(h, "'_', a keyword since Java 9") || !strings.Contains(h, "--release 8") {
		t.Errorf("'_': %s", h)
	}
	unknown := []measured.CompilerMessage{{Severity: "error", Message: "frob(int) in Widget cannot override frob(int) in Gadget; overridden method is final"}}
	if h := JDKHint(p, 17, unknown); !strings.Contains(h, "likely a method a newer JDK added") {
		t.Errorf("a clash with an unknown type: %s", h)
	}
	own := []measured.CompilerMessage{{Severity: "error", Message: "area() in Circle cannot override area() in Shape; attempting to assign weaker access privileges; was public"}}
	for name, msgs := range map[string][]measured.CompilerMessage{
		"the project's own type": own,
		"another error":          {{Severity: "error", Message: "cannot find symbol; symbol: variable x"}},
		"a warning":              {{Severity: "warning", Message: clash[0].Message}},
	} {
		if h := JDKHint(p, 17, msgs); h != "" {
			t.Errorf("%s: hint %q, want none", name, h)
		}
	}
	if h := JDKHint(&Project{Release: 7}, 17, clash); h != "" {
		t.Errorf("already compiled for 7: hint %q", h)
	}
}

// A release the project asks for that this javac cannot compile for is an
// error saying so; one only the forked JVM needs falls back to javac's own.
func TestReleaseJavacCannotCompileFor(t *testing.T) {
	requireJDK(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "src/p/A.java"), "package p; public class A { public static int f() { return 1; } }")
	writeFile(t, filepath.Join(dir, ConfigFile), `{"release": 6, "classpath": []}`)
	p, err := FindProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	j, err := findJDK(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if minRelease(j.major) <= 6 {
		t.Skipf("javac %d compiles for release 6", j.major)
	}
	_, err = Compile(context.Background(), p, sharedCache)
	var ce *CompileError
	if err == nil || errors.As(err, &ce) || !strings.Contains(err.Error(), "cannot compile for release 6") || !strings.Contains(err.Error(), `"release"`) {
		t.Errorf("release 6: %v", err)
	}
	p.releaseSet = false // as when only an old forked JVM needs it
	if _, err := Compile(context.Background(), p, sharedCache); err != nil {
		t.Errorf("release 6 for the forked JVM only: %v", err)
	}
}
