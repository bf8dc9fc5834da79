package spl

import (
	"testing"
)

func TestCheckScopesAndUses(t *testing.T) {
	if Lint(nil) != nil {
		t.Errorf("Lint(nil)")
	}
	// Parse reports syntax only; the semantic error appears with Check.
	src := "for n in {1} SELF[g](k) <= x[g](n)"
	u, ds := Parse(src)
	if len(ds) != 0 {
		t.Fatalf("Parse reported semantic problems:%s", fmtDiags(ds))
	}
	if ds := Lint(u); len(ds) != 1 || ds[0].Code != CodeUndeclaredVariable {
		t.Fatalf("Check:%s", fmtDiags(ds))
	}
	// Variables are scoped per formula.
	_, ds = ParseAndLint("for n in {1} SELF[g](n) <= x[g](n)\nSELF[g](n) <= x[g]")
	if len(ds) != 1 || ds[0].Code != CodeUndeclaredVariable || ds[0].Span.Start < 35 {
		t.Errorf("scope:%s", fmtDiags(ds))
	}
	// A variable used only in a lambda is used.
	mustParse(t, "for c in {2} SELF[g] <=(c, 1) x[g]")
	// Identifiers in lambdas may be configuration parameters: no error.
	mustParse(t, "SELF[g] <=(CPU, 1) x[g]")
	// Aliases used through bound generators, alias targets and factories count as used.
	_, ds = ParseAndLint("w := gen\nf := fac\nm := impl[w, f]\nimpl := pkg.C#m\nm(1) <= SELF[w]")
	for _, d := range ds {
		if d.Code == CodeUnusedAlias {
			t.Errorf("unexpected: %s", d.Message)
		}
	}
	// Alias-only text (an annotation's methods={…}) has no unused-alias hints.
	if _, ds := ParseAndLint("w := gen"); len(ds) != 0 {
		t.Errorf("alias-only:%s", fmtDiags(ds))
	}
	// Diagnostics come in source order.
	_, ds = ParseAndLint("for (a{1} b{1,1}) x[g](z) <= y[g](a)")
	for i := 1; i < len(ds); i++ {
		if ds[i].Span.Start < ds[i-1].Span.Start {
			t.Errorf("not sorted:%s", fmtDiags(ds))
		}
	}
	if len(ds) != 3 { // duplicate value, undeclared z, unused b
		t.Errorf("want 3:%s", fmtDiags(ds))
	}
}

func TestSeverityString(t *testing.T) {
	if Error != 1 || Hint != 4 {
		t.Errorf("severities must match LSP numbering")
	}
	for s, want := range map[Severity]string{Error: "error", Warning: "warning", Information: "information", Hint: "hint", 0: "unknown"} {
		if s.String() != want {
			t.Errorf("%d: %s", s, s.String())
		}
	}
}

// TestCheckAssembledUnit: the SPL Tools annotation form parses each element
// on its own; Check on the assembled unit still sees all of them.
func TestCheckAssembledUnit(t *testing.T) {
	g, ds1 := ParseGeneratorAlias("gen1=SPL:spl.LongUniform('-10;10')#generate()")
	m, ds2 := ParseMethodAlias("mth=THIS:main.Method#sortLong")
	dup, ds3 := ParseMethodAlias("gen1=THIS:main.Method#other")
	f, ds4 := Parse("for (i{1} j{10}) mth[gen1](i,j) = mth[gen1](i,j)")
	if len(ds1)+len(ds2)+len(ds3)+len(ds4) != 0 {
		t.Fatalf("parse errors")
	}
	u := &Unit{Aliases: []*Alias{g, m, dup}, Formulas: f.Formulas}
	ds := Lint(u)
	if len(ds) != 1 || ds[0].Code != CodeDuplicateAlias || ds[0].Span != (Span{0, 4}) {
		t.Errorf("diags:%s", fmtDiags(ds))
	}
}

func TestParseAndCheckDoesNotEchoSyntaxErrors(t *testing.T) {
	_, diags := ParseAndLint("for n in {1, 2} SELF[g](n) <=> other[g](n)")
	for _, d := range diags {
		if d.Code == CodeUnusedVariable {
			t.Errorf("unused-variable reported after a syntax error: %+v", diags)
		}
	}
	if len(diags) == 0 {
		t.Fatal("no syntax error for <=>")
	}
	_, diags = ParseAndLint("for n in {1, 2} SELF[g](1) <= other[g](1)")
	if len(diags) != 1 || diags[0].Code != CodeUnusedVariable {
		t.Errorf("clean syntax, unused n: %+v", diags)
	}
}
