package cache

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// quickJavac runs javac's own JIT at C1 with one GC thread, as perfls
// does (measure/compile.go): the same class files for half the CPU.
var quickJavac = []string{"-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC"}

// compile writes files under src and compiles every Java source there
// into classes.
func compile(t *testing.T, src, classes string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(src, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var all []string
	filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".java") {
			all = append(all, p)
		}
		return nil
	})
	out, err := exec.Command("javac", append(append(quickJavac, "-d", classes), all...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
}

func TestFingerprintFollowsReachableClassesOnly(t *testing.T) {
	if _, err := exec.LookPath("javac"); err != nil {
		t.Skip("no javac")
	}
	src, classes := t.TempDir(), t.TempDir()
	files := map[string]string{
		"p/A.java":      "package p; public class A { public static int m(int[] a) { return Helper.sum(a) + new Inner().v; } static class Inner { int v = 1; } }",
		"p/Helper.java": "package p; public class Helper { public static int sum(int[] a) { int s = 0; for (int x : a) s += x; return s; } }",
		// Only named in a descriptor: a parameter type, never instantiated.
		"p/Gen.java":       "package p; public class Gen { public static Iterable<Object[]> gen(int n, Config c) { return null; } }",
		"p/Config.java":    "package p; public class Config { int size = 3; }",
		"p/Unrelated.java": "package p; public class Unrelated { public static int x() { return 1; } }",
	}
	compile(t, src, classes, files)
	fp, covered, err := Fingerprint([]string{classes}, []string{"p.A", "p.Gen"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"p.A", "p.A$Inner", "p.Helper", "p.Gen", "p.Config"} {
		if !slices.Contains(covered, want) {
			t.Errorf("fingerprint does not cover %s: %v", want, covered)
		}
	}
	if slices.Contains(covered, "p.Unrelated") {
		t.Errorf("covers unrelated code: %v", covered)
	}

	// Editing unrelated code keeps the fingerprint.
	compile(t, src, classes, map[string]string{"p/Unrelated.java": "package p; public class Unrelated { public static int x() { return 2; } }"})
	if fp2, _, _ := Fingerprint([]string{classes}, []string{"p.A", "p.Gen"}); fp2 != fp {
		t.Errorf("an edit of unrelated code changed the fingerprint")
	}
	// Editing a callee changes it.
	compile(t, src, classes, map[string]string{"p/Helper.java": "package p; public class Helper { public static int sum(int[] a) { int s = 1; for (int x : a) s += x; return s; } }"})
	fp3, _, _ := Fingerprint([]string{classes}, []string{"p.A", "p.Gen"})
	if fp3 == fp {
		t.Errorf("an edit of a callee kept the fingerprint")
	}
	// Editing a class reached only through a descriptor changes it too.
	compile(t, src, classes, map[string]string{"p/Config.java": "package p; public class Config { int size = 4; }"})
	if fp4, _, _ := Fingerprint([]string{classes}, []string{"p.A", "p.Gen"}); fp4 == fp3 {
		t.Errorf("an edit of a parameter type kept the fingerprint")
	}
}

func TestFingerprintRejectsGarbage(t *testing.T) {
	for _, b := range [][]byte{nil, []byte("hello"), {0xCA, 0xFE, 0xBA, 0xBE, 0, 0, 0, 61, 0, 5, 1, 0, 200}} {
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, "p"), 0o755)
		os.WriteFile(filepath.Join(dir, "p", "A.class"), b, 0o644)
		if _, _, err := Fingerprint([]string{dir}, []string{"p.A"}); err == nil || !strings.Contains(err.Error(), "A.class") {
			t.Errorf("%q: error %v does not name the file", b, err)
		}
	}
}

// perflsLibrary is the annotation sources of perfls's Java library.
func perflsLibrary(t *testing.T) map[string]string {
	t.Helper()
	files := map[string]string{}
	for _, name := range []string{"SPL", "SPLs", "Workload", "Workloads", "Generator", "Param", "SeeAlso"} {
		b, err := os.ReadFile(filepath.Join("..", "measure", "javalib", "dev", "perfls", name+".java"))
		if err != nil {
			t.Fatal(err)
		}
		files["dev/perfls/"+name+".java"] = string(b)
	}
	return files
}

// The fingerprint leaves out what perfls alone reads — formulas, workload
// bindings, parameter documentation — and keeps everything that can change
// what the measured code does.
func TestFingerprintLeavesOutPerflsAnnotations(t *testing.T) {
	if _, err := exec.LookPath("javac"); err != nil {
		t.Skip("no javac")
	}
	base := map[string]string{
		"p/Hot.java": `package p;
import dev.perfls.*;
public class Hot {
	@SPL("for n in {100, 200}: Hot#compute[Gen#ints](n) <= 1.2 * Hot#slow[Gen#ints](n)")
	@Tag("hot")
	public static long compute(int[] a) {
		long s = 0;
		for (int x : a) s += Helper.mix(x);
		return s + "salt".hashCode();
	}
	@Workload("p.Gen#ints")
	@SeeAlso("p.Hot#compute")
	public static long slow(int[] a) { return compute(a) + compute(a); }
}
`,
		"p/Gen.java": `package p;
import dev.perfls.*;
import java.util.List;
public class Gen {
	@Generator("random ints")
	public static Iterable<Object[]> ints(@Param(value = "n", min = 1, max = 1e6) int n) {
		return List.<Object[]>of(new Object[] {new int[n]});
	}
}
`,
		"p/Helper.java": "package p; public class Helper { static int mix(int x) { return x * 31; } }",
		"p/Tag.java":    "package p; import java.lang.annotation.*; @Retention(RetentionPolicy.RUNTIME) public @interface Tag { String value(); }",
	}
	src, classes := t.TempDir(), t.TempDir()
	files := perflsLibrary(t)
	for k, v := range base {
		files[k] = v
	}
	compile(t, src, classes, files)
	roots := []string{"p.Hot", "p.Gen"}
	want, covered, err := Fingerprint([]string{classes}, roots)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(covered, "p.Helper") || !slices.Contains(covered, "p.Tag") {
		t.Errorf("covered %v: the callee and the kept annotation's type are missing", covered)
	}
	if slices.Contains(covered, "dev.perfls.SPL") {
		t.Errorf("covered %v: perfls's annotation types are followed", covered)
	}
	for _, e := range []struct {
		name, file, old, new string
		same                 bool
	}{
		{"formula bound", "p/Hot.java", "1.2 *", "1.3 *", true},
		{"formula sizes", "p/Hot.java", "{100, 200}", "{100, 200, 400}", true},
		{"a formula added on a line of its own", "p/Hot.java", "\t@Tag(\"hot\")", "\t@SPL(\"Hot#slow[Gen#ints](100) <= 2 * Hot#compute[Gen#ints](100)\")\n\t@Tag(\"hot\")", true},
		{"workload binding", "p/Hot.java", `@Workload("p.Gen#ints")`, `@Workload("p.Gen.ints(int)")`, true},
		{"see-also", "p/Hot.java", `@SeeAlso("p.Hot#compute")`, `@SeeAlso({"p.Hot#compute", "p.Hot#slow"})`, true},
		{"param min", "p/Gen.java", "min = 1,", "min = 10,", true},
		{"generator description", "p/Gen.java", `"random ints"`, `"ints, random"`, true},
		{"method body", "p/Hot.java", "s += Helper.mix(x)", "s -= Helper.mix(x)", false},
		{"string constant the code uses", "p/Hot.java", `"salt"`, `"pepper"`, false},
		{"another tool's annotation", "p/Hot.java", `@Tag("hot")`, `@Tag("cold")`, false},
		{"generator body", "p/Gen.java", "new int[n]", "new int[n + 1]", false},
		{"a class the method calls", "p/Helper.java", "x * 31", "x * 37", false},
	} {
		text := base[e.file]
		if !strings.Contains(text, e.old) {
			t.Fatalf("%s: %q not in %s", e.name, e.old, e.file)
		}
		// The edited file alone, compiled against the rest, in a folder
		// searched first.
		edited := filepath.Join(t.TempDir(), "src", e.file)
		os.MkdirAll(filepath.Dir(edited), 0o755)
		os.WriteFile(edited, []byte(strings.Replace(text, e.old, e.new, 1)), 0o644)
		over := t.TempDir()
		if out, err := exec.Command("javac", append(quickJavac, "-cp", classes, "-d", over, edited)...).CombinedOutput(); err != nil {
			t.Fatalf("%s: javac: %v\n%s", e.name, err, out)
		}
		got, _, err := Fingerprint([]string{over, classes}, roots)
		if err != nil {
			t.Fatal(err)
		}
		if (got == want) != e.same {
			t.Errorf("%s: fingerprint kept = %v, want %v", e.name, got == want, e.same)
		}
	}
}
