package server_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/perfls/perfls/internal/lsptest"
	"github.com/perfls/perfls/server"
)

// benchJars are real jars Debian installs in /usr/share/java, with one
// method each that the benchmark's formulas name.
var benchJars = map[string]string{
	"guava-31.1-jre.jar":           "com.google.common.collect.ImmutableList#copyOf(java.util.Collection)",
	"commons-lang3-3.12.0.jar":     "org.apache.commons.lang3.StringUtils#isBlank",
	"commons-collections4-4.2.jar": "org.apache.commons.collections4.CollectionUtils#isEmpty",
	"commons-io-2.11.0.jar":        "org.apache.commons.io.IOUtils#toByteArray(java.io.InputStream)",
	"junit4-4.13.2.jar":            "org.junit.Assert#assertEquals(long, long)",
	"hamcrest-2.2.jar":             "org.hamcrest.Matchers#anything()",
	"slf4j-api-1.7.32.jar":         "org.slf4j.LoggerFactory#getLogger(String)",
	"commons-math3-3.6.1.jar":      "org.apache.commons.math3.util.FastMath#sqrt",
}

// BenchmarkDidChangeWithClasspath: BenchmarkDidChangeToDiagnostics on a
// 1,000-line file whose 60 formulas each name a method of one of eight
// real jars on the project's classpath (perfls.json), resolved through the
// jars' class files, one of them misspelt: timing starts once its
// diagnostic shows that the classpath has been read. Skipped when the jars
// are not installed.
func BenchmarkDidChangeWithClasspath(b *testing.B) {
	var jars, methods []string
	for jar, m := range benchJars {
		p := filepath.Join("/usr/share/java", jar)
		if _, err := os.Stat(p); err != nil {
			b.Skipf("%s is not installed", p)
		}
		jars, methods = append(jars, `"`+p+`"`), append(methods, m)
	}
	b.Setenv("XDG_CACHE_HOME", b.TempDir())
	dir := b.TempDir()
	os.WriteFile(filepath.Join(dir, "perfls.json"), []byte(`{"classpath": [`+strings.Join(jars, ", ")+`]}`), 0o644)
	var sb strings.Builder
	sb.WriteString("package bench.cp;\n\npublic class UsesJars {\n    public static Iterable<Object[]> ints(int n) { return null; }\n\n")
	for i := 0; i < 60; i++ {
		m := methods[i%len(methods)]
		if i == 30 { // one typo, reported once the classpath is read
			m = "org.apache.commons.lang3.StringUtils#isBlnk"
		}
		fmt.Fprintf(&sb, "    @SPL(\"for n in {10, 100} SELF[ints](n) <= %s[ints](n)\")\n    public static int m%d(int[] a) {\n", m, i)
		sb.WriteString(strings.Repeat("        a[0]++;\n", 12) + "        return a[0];\n    }\n\n")
	}
	sb.WriteString("}\n")
	src := sb.String()
	path := filepath.Join(dir, "src", "bench", "cp", "UsesJars.java")
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	benchEditsIn(b, server.Options{CacheDir: b.TempDir()}, dir, path, src, 1, func(u protocol.DocumentURI, src string, mid int, v uint32) any {
		text := src
		if v%2 == 0 {
			text = src[:mid] + " " + src[mid:]
		}
		return lsptest.ChangeParams(u, int32(v), lsptest.Change{Text: text})
	})
}
