package javasrc

import (
	"strings"
	"sync"
	"testing"

	"github.com/perfls/perfls/analysis/textpos"
)

// Parse runs concurrently (each call has its own parser and tree) and a
// File is read concurrently; run with -race.
func TestConcurrentParseAndRead(t *testing.T) {
	// Names.java exercises the declaration query (anonymous and local
	// classes), the annotations the string evaluator, the broken tail the
	// repair pass.
	src := readTestdata(t, "Names.java") + "\n" + strings.Replace(annotationsSrc, "package dev.example;", "", 1) +
		"\nclass Broken {\n  @SPL(\n  void half() { new Object() {};\n  void more() {}\n"
	want := mustParse(t, src)
	if len(want.SyntaxErrors) == 0 || len(want.Types) < 30 {
		t.Fatalf("race source should be broken and rich: %d errors, %d types", len(want.SyntaxErrors), len(want.Types))
	}
	wantSig := signatures(want)

	const workers = 8
	files := make([]*File, workers)
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for r := 0; r < 5; r++ {
				f, err := Parse("A.java", []byte(src))
				if err != nil {
					t.Error(err)
					return
				}
				files[i] = f
			}
		}(i)
	}
	wg.Wait()
	for i, f := range files {
		if f == nil {
			t.Fatalf("worker %d produced no file", i)
		}
		if got := signatures(f); got != wantSig {
			t.Fatalf("worker %d: different model:\n%s\nwant\n%s", i, got, wantSig)
		}
	}

	// Many readers of one shared File.
	shared := files[0]
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for off := i; off < len(shared.Src); off += 97 {
				if m := shared.MethodAt(off); m != nil {
					_ = m.Signature()
					for _, s := range m.SPL {
						for _, v := range s.Formulas {
							_ = shared.Mapper.Position(v.DocOffset(len(v.Text) / 2))
							_ = v.DocSpan(textpos.Span{Start: 0, End: len(v.Text)})
						}
					}
				}
				_ = shared.TypeAt(off)
			}
			for _, ty := range shared.Types {
				for _, c := range ty.Constants {
					_ = c.DocOffset(0)
				}
			}
		}(i)
	}
	wg.Wait()
}

func signatures(f *File) string {
	var sb strings.Builder
	for _, m := range f.Methods {
		if m.Type != nil {
			sb.WriteString(m.Type.BinaryName)
		}
		sb.WriteString("." + m.Signature())
		for _, s := range m.SPL {
			for _, v := range s.Formulas {
				sb.WriteString(" " + v.Text)
			}
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}
