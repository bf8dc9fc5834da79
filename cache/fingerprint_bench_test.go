package cache

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// BenchmarkFingerprint times Fingerprint over every class of a project:
// the classes folder in PERFLS_BENCH_CLASSES (e.g. JDOM's compiled core), or
// else a generated project of 300 classes compiled with javac.
func BenchmarkFingerprint(b *testing.B) {
	dir := os.Getenv("PERFLS_BENCH_CLASSES")
	if dir == "" {
		dir = b.TempDir()
		classes := generated(b)
		for name, data := range classes {
			p := filepath.Join(dir, filepath.FromSlash(name))
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, data, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	var roots []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".class") {
			rel, _ := filepath.Rel(dir, p)
			roots = append(roots, strings.ReplaceAll(strings.TrimSuffix(filepath.ToSlash(rel), ".class"), "/", "."))
		}
		return nil
	})
	if len(roots) == 0 {
		b.Fatalf("no class files in %s", dir)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, covered, err := Fingerprint([]string{dir}, roots); err != nil || len(covered) != len(roots) {
			b.Fatalf("covered %d of %d classes: %v", len(covered), len(roots), err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(roots))/1e3, "µs/class")
}

// generatedOnce keeps the generated project's class files (path → bytes)
// across the benchmark's runs: javac takes seconds.
var generatedOnce struct {
	sync.Once
	classes map[string][]byte
}

func generated(b *testing.B) map[string][]byte {
	generatedOnce.Do(func() {
		dir := generatedClasses(b, 300)
		generatedOnce.classes = map[string][]byte{}
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(dir, p)
				generatedOnce.classes[filepath.ToSlash(rel)], _ = os.ReadFile(p)
			}
			return nil
		})
	})
	if len(generatedOnce.classes) == 0 {
		b.Skip("no generated classes (no javac?)")
	}
	return generatedOnce.classes
}

// generatedClasses compiles a project of n classes, each calling the next
// and carrying perfls annotations, a lambda and a switch, as real code does.
func generatedClasses(b *testing.B, n int) string {
	b.Helper()
	if _, err := exec.LookPath("javac"); err != nil {
		b.Skip("no javac")
	}
	src, out := b.TempDir(), b.TempDir()
	var files []string
	write := func(name, text string) {
		p := filepath.Join(src, "p", name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
		files = append(files, p)
	}
	write("SPL.java", "package p; import java.lang.annotation.*; @Retention(RetentionPolicy.RUNTIME) public @interface SPL { String[] value(); }")
	for i := 0; i < n; i++ {
		write(fmt.Sprintf("C%03d.java", i), fmt.Sprintf(`package p;
import java.util.*;
public class C%03[1]d {
	static final String NAME = "class %03[1]d";
	private final List<String> items = new ArrayList<>();
	@SPL({"C%03[1]d#work(int) <= 1.2 * C%03[2]d#work(int)"})
	public static int work(int n) {
		int s = 0;
		for (int i = 0; i < n; i++) s += C%03[2]d.step(i) * 31;
		return s + NAME.length();
	}
	static int step(int i) {
		switch (i %% 4) { case 0: return 1; case 1: return 2; case 2: return 3; default: return i; }
	}
	public long sum() { return items.stream().mapToLong(s -> s.length() * 7L).sum(); }
	public static Iterable<Object[]> gen(int n) { return List.of(new Object[][]{{n}}); }
}
`, i, (i+1)%n))
	}
	cmd := exec.Command("javac", append([]string{"-d", out}, files...)...)
	if msg, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("javac: %v\n%s", err, msg)
	}
	return out
}
