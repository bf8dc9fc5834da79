package javasrc

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/perfls/perfls/analysis/textpos"
	"github.com/perfls/perfls/internal/benchtime"
)

// genJava generates a realistic file of about the given number of lines
// (about 30 bytes a line): fields, Javadoc, methods of various sizes, a
// third of them with perfls annotations, some anonymous and nested classes.
func genJava(lines int) string {
	var sb strings.Builder
	sb.WriteString("package bench.gen;\n\nimport java.util.*;\nimport static java.lang.Math.*;\n\n")
	sb.WriteString("public class Generated<T extends Comparable<T>> {\n")
	sb.WriteString("    static final String PREFIX = \"for n in {10, 100, 1000} \";\n")
	sb.WriteString("    private final List<T> items = new ArrayList<>();\n\n")
	count := 8
	for i := 0; count < lines-2; i++ {
		var m string
		switch {
		case i%40 == 39:
			m = fmt.Sprintf(`    static class Nested%d {
        static final String C%d = "java.util.Arrays#sort";
        int value;
    }

`, i, i)
		case i%10 == 0:
			m = fmt.Sprintf(`    /** Runs task %d (café 😀). */
    void task%d(List<T> data) {
        Runnable r = new Runnable() {
            @Override
            public void run() {
                data.clear();
            }
        };
        r.run();
    }

`, i, i)
		case i%3 == 0:
			m = fmt.Sprintf(`    /**
     * Sorts the data, variant %d.
     */
    @SPL(PREFIX + "SELF(n) <= 1.5 * java.util.Arrays#sort(n)")
    @Workload("bench.gen.Gens#ints(int)")
    public static int[] sort%d(final int[] data, String... names) {
        int[] copy = data.clone();
        Arrays.sort(copy);
        return copy;
    }

`, i, i)
		default:
			m = fmt.Sprintf(`    public <E extends Number> long sum%d(List<? extends E> values, int limit) {
        long sum = 0;
        for (int k = 0; k < values.size() && k < limit; k++) {
            if (values.get(k) != null) {
                sum += values.get(k).longValue() * %d;
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

func TestGenJavaParsesCleanly(t *testing.T) {
	src := genJava(600)
	f := mustParse(t, src)
	if len(f.SyntaxErrors) != 0 || len(f.Problems) != 0 {
		t.Fatalf("generated file has errors: %v %v", f.SyntaxMessages, f.Problems)
	}
	if len(f.Methods) < 50 {
		t.Fatalf("only %d methods", len(f.Methods))
	}
}

func BenchmarkParse(b *testing.B) {
	src := []byte(genJava(5000))
	b.Logf("%d lines, %d bytes", strings.Count(string(src), "\n"), len(src))
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	benchtime.Run(b, func(int) {
		f, err := Parse("Generated.java", src)
		if err != nil {
			b.Fatal(err)
		}
		if len(f.Methods) == 0 {
			b.Fatal("no methods")
		}
	})
}

// BenchmarkParseCold is BenchmarkParse with each parse started on an idle
// process (the previous parse's garbage collected, a pause): a file opened
// while the editor is otherwise quiet. BenchmarkParse, back to back, also
// pays for the previous parse's garbage collection.
func BenchmarkParseCold(b *testing.B) {
	src := []byte(genJava(5000))
	b.SetBytes(int64(len(src)))
	benchtime.RunIdle(b, nil, func(int) {
		f, err := Parse("Generated.java", src)
		if err != nil {
			b.Fatal(err)
		}
		if len(f.Methods) == 0 {
			b.Fatal("no methods")
		}
	})
}

// BenchmarkParseBroken measures a file with an unclosed method body, which
// adds the repair pass (a second parse).
func BenchmarkParseBroken(b *testing.B) {
	src := genJava(5000)
	// Drop the closing brace of a method in the middle of the file.
	i := strings.Index(src[len(src)/2:], "return copy;\n    }\n") + len(src)/2
	src = src[:i] + "return copy;\n" + src[i+len("return copy;\n    }\n"):]
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Parse("Generated.java", []byte(src)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTreeSitterOnly is the baseline: the tree-sitter parse of the
// same file alone, without extraction.
func BenchmarkTreeSitterOnly(b *testing.B) {
	src := []byte(genJava(5000))
	p := newParser()
	defer p.Close()
	b.SetBytes(int64(len(src)))
	benchtime.Run(b, func(int) {
		tree, err := p.ParseCtx(context.Background(), nil, src)
		if err != nil {
			b.Fatal(err)
		}
		tree.Close()
	})
}

// BenchmarkExtractOnly is Parse without the tree-sitter parse: the model
// built from an already parsed tree of the same file.
func BenchmarkExtractOnly(b *testing.B) {
	src := genJava(5000)
	p := newParser()
	defer p.Close()
	tree, err := p.ParseCtx(context.Background(), nil, []byte(src))
	if err != nil {
		b.Fatal(err)
	}
	defer tree.Close()
	b.ReportAllocs()
	benchtime.Run(b, func(int) {
		base := &File{Path: "Generated.java", Src: src, Mapper: textpos.NewMapper(src)}
		f, _, err := extract(base, tree, nil, false, false)
		if err != nil || len(f.Methods) == 0 {
			b.Fatal("no model", err)
		}
	})
}
