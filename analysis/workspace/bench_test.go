package workspace

import (
	"fmt"
	"strings"
	"testing"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/internal/benchtime"
)

// genAnnotated generates a Java file of about the given number of lines
// where every third method has an @SPL annotation with its own formula
// (about 180 formulas in 5,000 lines), generators and workloads
// referring to the same class.
func genAnnotated(lines int) string {
	var sb strings.Builder
	sb.WriteString("package bench.gen;\n\nimport java.util.*;\n\npublic class Generated {\n")
	sb.WriteString("    static final String PREFIX = \"for n in {10, 100, 1000} \";\n")
	sb.WriteString("    public static Iterable<Object[]> ints(int n) { return null; }\n\n")
	count := 7
	for i := 0; count < lines-2; i++ {
		var m string
		switch {
		case i%3 == 0:
			m = fmt.Sprintf(`    /**
     * Sorts the data, variant %d.
     */
    @SPL(PREFIX + "SELF[bench.gen.Generated#ints](n) <= %d.5 * bench.gen.Generated#sum%d[bench.gen.Generated#ints](n)")
    public static int[] sort%d(final int[] data) {
        int[] copy = data.clone();
        Arrays.sort(copy);
        return copy;
    }

`, i, i%7+1, i+1, i)
		default:
			m = fmt.Sprintf(`    public static long sum%d(int[] values) {
        long sum = 0;
        for (int k = 0; k < values.length; k++) {
            if (values[k] != 0) {
                sum += values[k] * %d;
            }
        }
        return sum;
    }

`, i, i)
		}
		sb.WriteString(m)
		count += strings.Count(m, "\n")
	}
	sb.WriteString("}\n")
	return sb.String()
}

// BenchmarkEditInFormula is what an editor's didChange costs for a
// one-character edit inside an @SPL string of a 5,000-line file: the
// incremental reparse, the formulas and their syntax diagnostics, and the
// references checked against an index where the file is open.
func BenchmarkEditInFormula(b *testing.B) {
	src := genAnnotated(5000)
	mid := strings.Index(src[len(src)/2:], "SELF[") + len(src)/2
	edited := src[:mid] + " " + src[mid:]
	d := javasrc.NewDoc("Generated.java")
	defer d.Close()
	f0, err := d.Update([]byte(src))
	if err != nil {
		b.Fatal(err)
	}
	base := NewIndex([]*javasrc.File{f0})
	formulas, syntax := JavaFormulas(f0)
	if len(formulas) < 150 || len(syntax) != 0 {
		b.Fatalf("%d formulas, syntax diagnostics %v", len(formulas), syntax)
	}
	if checked := base.Lint(formulas, LintOptions{}); len(checked) != 0 {
		b.Fatalf("checked diagnostics: %v", checked[0])
	}
	texts := [][]byte{[]byte(edited), []byte(src)}
	benchtime.Run(b, func(i int) {
		f, err := d.Update(texts[i%2])
		if err != nil {
			b.Fatal(err)
		}
		formulas, syntax := JavaFormulas(f)
		checked := base.With([]*javasrc.File{f}).Lint(formulas, LintOptions{})
		if len(formulas) == 0 || len(syntax)+len(checked) != 0 {
			b.Fatal("unexpected result")
		}
	})
}
