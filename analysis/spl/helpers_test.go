package spl

import (
	"fmt"
	"strings"
	"testing"
)

// spanOf returns the span of the n-th (0-based) occurrence of sub in src.
func spanOf(t *testing.T, src, sub string, n int) Span {
	t.Helper()
	off := 0
	for i := 0; ; i++ {
		k := strings.Index(src[off:], sub)
		if k < 0 {
			t.Fatalf("%q does not occur %d times in %q", sub, n+1, src)
		}
		if i == n {
			return Span{off + k, off + k + len(sub)}
		}
		off += k + len(sub)
	}
}

func eofSpan(src string) Span { return Span{len(src), len(src)} }

func fmtDiags(ds []Diagnostic) string {
	var b strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&b, "\n  %v %v %s: %s", d.Span, d.Severity, d.Code, d.Message)
	}
	return b.String()
}

func errorsOnly(ds []Diagnostic) []Diagnostic {
	var out []Diagnostic
	for _, d := range ds {
		if d.Severity == Error {
			out = append(out, d)
		}
	}
	return out
}

// mustParse parses and checks src and fails on any error or warning.
func mustParse(t *testing.T, src string) *Unit {
	t.Helper()
	u, ds := ParseAndLint(src)
	for _, d := range ds {
		if (d.Severity == Error || d.Severity == Warning) && d.Code != CodeScalePlacement {
			t.Fatalf("unexpected diagnostics for %q:%s", src, fmtDiags(ds))
		}
	}
	return u
}

// onlyFormula returns the single formula of u.
func onlyFormula(t *testing.T, u *Unit) *Formula {
	t.Helper()
	if len(u.Formulas) != 1 {
		t.Fatalf("want 1 formula, got %d", len(u.Formulas))
	}
	return u.Formulas[0]
}

func onlyComparison(t *testing.T, src string) *Comparison {
	t.Helper()
	f := onlyFormula(t, mustParse(t, src))
	cs := Comparisons(f.Body)
	if len(cs) != 1 {
		t.Fatalf("want 1 comparison in %q, got %d", src, len(cs))
	}
	return cs[0]
}

func strp(s string) *string { return &s }

func f64p(f float64) *float64 { return &f }

// noSpans returns copies without spans, for structural comparison.
func mNoSpan(m *MethodRef) MethodRef {
	if m == nil {
		return MethodRef{}
	}
	c := *m
	c.Span, c.RevisionSpan = Span{}, Span{}
	return c
}

func gNoSpan(g *GeneratorRef) GeneratorRef {
	if g == nil {
		return GeneratorRef{}
	}
	c := *g
	c.Span, c.RevisionSpan = Span{}, Span{}
	return c
}

// inSource asserts that every diagnostic span lies within src.
func checkSpans(t *testing.T, src string, ds []Diagnostic) {
	t.Helper()
	for _, d := range ds {
		if d.Span.Start < 0 || d.Span.End > len(src) || d.Span.Start > d.Span.End {
			t.Fatalf("diagnostic span %v outside [0,%d] for %q: %s", d.Span, len(src), src, d.Message)
		}
		if d.Code == "" || d.Message == "" || d.Severity < Error || d.Severity > Hint {
			t.Fatalf("incomplete diagnostic %+v for %q", d, src)
		}
	}
}
