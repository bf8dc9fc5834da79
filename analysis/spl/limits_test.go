package spl

import (
	"strconv"
	"strings"
	"testing"
)

// setFormula is "for n in {1,…,count} x(n) <= y(n)".
func setFormula(count int) string {
	var b strings.Builder
	b.WriteString("for n in {")
	for i := 1; i <= count; i++ {
		if i > 1 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(i))
	}
	b.WriteString("} x(n) <= y(n)")
	return b.String()
}

func codes(ds []Diagnostic) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Code)
	}
	return out
}

// Lint reports a formula with more instances than check expands, without
// expanding it: lint and the editor showed nothing.
func TestLintTooManyInstances(t *testing.T) {
	cases := []struct {
		src  string
		over bool
	}{
		{setFormula(maxInstances), false},
		{setFormula(maxInstances + 1), true},
		{"for a in {" + strings.Repeat("1,", 999) + "1} for b in {" + strings.Repeat("2,", 100) + "2} x(a, b) <= y(a, b)", true},
		{"for (a{" + strings.Repeat("1,", 999) + "1} b{" + strings.Repeat("2,", 99) + "2}) x(a, b) <= y(a, b)", false},
		// A sequence is one dimension: 1000 steps, not 1000².
		{"for ((a,b){(" + strings.Repeat("1,", 999) + "1),(" + strings.Repeat("2,", 999) + "2)}) x(a, b) <= y(a, b)", false},
		{"for ((a,b){(" + strings.Repeat("1,", 999) + "1),(" + strings.Repeat("2,", 999) + "2)}) for c in {" + strings.Repeat("3,", 100) + "3} x(a, b, c) <= y(a, b, c)", true},
	}
	for i, c := range cases {
		_, ds := ParseAndLint(c.src)
		var too []Diagnostic
		for _, d := range ds {
			if d.Code == CodeTooManyInstances {
				too = append(too, d)
			} else if d.Severity == Error {
				t.Errorf("case %d: unexpected %s", i, fmtDiags([]Diagnostic{d}))
			}
		}
		if c.over != (len(too) == 1) || len(too) > 1 {
			t.Errorf("case %d: too-many-instances diagnostics %v, want one: %v", i, codes(too), c.over)
		}
		// At the quantifier that passes the limit.
		if len(too) == 1 && !strings.HasPrefix(c.src[too[0].Span.Start:], "for n in {") && !strings.HasPrefix(c.src[too[0].Span.Start:], "for b in {") &&
			!strings.HasPrefix(c.src[too[0].Span.Start:], "for c in {") {
			t.Errorf("case %d: diagnostic at %q", i, c.src[too[0].Span.Start:min(len(c.src), too[0].Span.Start+10)])
		}
	}
}

// Text over MaxTextBytes is not parsed: one error, no formula.
func TestParseTooLarge(t *testing.T) {
	src := setFormula(1500000)
	if len(src) <= MaxTextBytes {
		t.Fatalf("test text of %d bytes is not over the limit", len(src))
	}
	u, ds := ParseAndLint(src)
	if len(u.Formulas) != 0 || len(ds) != 1 || ds[0].Code != CodeTooLarge || ds[0].Severity != Error {
		t.Fatalf("%d formulas:%s", len(u.Formulas), fmtDiags(ds))
	}
	if want := "10.9 MB of formula text: larger than the 1 MiB limit, not parsed"; ds[0].Message != want {
		t.Errorf("message %q, want %q", ds[0].Message, want)
	}
	for _, parse := range []func(string) []Diagnostic{
		func(s string) []Diagnostic { _, ds := ParseMethodAlias(s); return ds },
		func(s string) []Diagnostic { _, ds := ParseMethod(s); return ds },
	} {
		if ds := parse(src); len(ds) != 1 || ds[0].Code != CodeTooLarge {
			t.Errorf("entity:%s", fmtDiags(ds))
		}
	}
}
