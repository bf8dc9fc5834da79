package spl

import (
	"strings"
	"testing"
)

// errorCases: the first Error diagnostic of ParseAndLint must have this
// code, contain msg, and cover exactly the text at (sub, nth occurrence);
// sub == "" means the zero-width span at the end of the input.
var errorCases = []struct {
	name, src, code, msg, sub string
	nth                       int
}{
	{"missing ]", `for n in {1} SELF[gen(n) <= x[gen](n)`, CodeUnclosed,
		`expected "]" to close the generator of "SELF[" but found "("`, "(", 0},
	{"metric units", `cpu(SELF)[g] <= alloc(x)[g]`, CodeMetricMismatch, `the comparison sets cpu (ns) against alloc (B)`, "<=", 0},
	{"metric unclosed", `cpu(SELF[g] <= x[g]`, CodeUnclosed, `expected ")" to close the metric "cpu(" but found "["`, "[", 0},
	{"missing ] at end", `SELF[gen`, CodeUnclosed, `expected "]" to close the generator of "SELF[" but found end of input`, "", 0},
	{"unknown =<", `for n in {1} SELF[g](n) =< x[g](n)`, CodeUnknownOperator, `unknown comparison "=<": write "<="`, "=<", 0},
	{"unknown =>", `SELF[g] => x[g]`, CodeUnknownOperator, `unknown comparison "=>": write ">="`, "=>", 0},
	{"unknown != ", `SELF[g] != x[g]`, CodeUnknownOperator, `SPL has no "!=" comparison`, "!=", 0},
	{"unicode sign", `SELF[g] ≤ x[g]`, CodeUnknownOperator, `write "<=" instead of "≤"`, "≤", 0},
	{"&&", `a[g] < b[g] && c[g] < d[g]`, CodeUnknownOperator, `unknown operator "&&": write "&" (or "and")`, "&&", 0},
	{"||", `a[g] < b[g] || c[g] < d[g]`, CodeUnknownOperator, `unknown operator "||"`, "||", 0},
	{"=> as implication", `a[g] < b[g] => c[g] < d[g]`, CodeUnknownOperator, `write "==>" (or "implies")`, "=>", 0},
	{"unterminated string", `for f in {"big.xml} SELF[g](f) <= x[g](f)`, CodeUnterminatedString,
		`unterminated string: expected a closing " before the end of the text`, `"big.xml} SELF[g](f) <= x[g](f)`, 0},
	{"unterminated string at line end", "for f in {'a.xml\nSELF[g](f) <= x[g](f)", CodeUnterminatedString,
		`expected a closing ' before the end of the line`, "'a.xml", 0},
	{"unterminated for values", `for n in {1,`, CodeUnexpectedEnd,
		`expected a value after "," in the values of "n" but found end of input`, "", 0},
	{"unclosed for values", `for n in {1, 2 SELF[g](n) <= x[g](n)`, CodeUnclosed,
		`expected "}" to close the values of "n" but found "SELF"`, "SELF", 0},
	{"empty for values", `for n in {} SELF[g](n) <= x[g](n)`, CodeUnexpectedToken,
		`expected at least one value in the values of "n" but found "}"`, "}", 0},
	{"for without in", `for n = {1} SELF[g](n) <= x[g](n)`, CodeUnexpectedToken, `expected "in" after "for n" but found "="`, "=", 0},
	{"for without variable", `for {1} SELF[g] <= x[g]`, CodeUnexpectedToken, `expected a variable name or "(" after "for" but found "{"`, "{", 0},
	{"for block unclosed", `for (i{1} SELF[g](i) <= x[g](i)`, CodeUnclosed, `expected ")" to close "for (" but found "SELF"`, "SELF", 0},
	{"for block empty", `for () SELF[g] <= x[g]`, CodeUnexpectedToken, `expected a variable such as "n{10, 100}" in "for (…)" but found ")"`, ")", 0},
	{"quantifier without formula", `for n in {1}`, CodeUnexpectedEnd, `expected a comparison after the quantifier but found end of input`, "", 0},
	{"undeclared variable", `for n in {1, 2} SELF[g](k) <= x[g](n)`, CodeUndeclaredVariable,
		`variable "k" is not declared (declared: n)`, "k", 0},
	{"undeclared without quantifier", `SELF[g](k) <= x[g](k)`, CodeUndeclaredVariable,
		`add a quantifier such as "for k in {10, 100}"`, "k", 0},
	{"zipped tuple count", `for ((a, b){(1, 2)}) x[g](a, b) <= y[g](a)`, CodeArityMismatch,
		`the sequence (a, b) has 2 variables but 1 value tuples`, "(a, b){(1, 2)}", 0},
	{"zipped tuple lengths", `for ((a, b){(1, 2), (3)}) x[g](a, b) <= y[g](a)`, CodeArityMismatch,
		`value tuple 2 of the sequence (a, b) has 1 values but tuple 1 has 2`, "(3)", 0},
	{"duplicate variable", `for (n{1} n{2}) x[g](n) <= y[g](n)`, CodeDuplicateVariable, `variable "n" is declared twice`, "n", 1},
	{"duplicate variable thesis", "for n in {1}\nfor n in {2} x[g](n) <= y[g](n)", CodeDuplicateVariable, `variable "n" is declared twice`, "n", 2},
	{"dangling and", `SELF[g] <= x[g] and`, CodeUnexpectedEnd, `expected a comparison after "and" but found end of input`, "", 0},
	{"dangling &", `SELF[g] <= x[g] &`, CodeUnexpectedEnd, `expected a comparison after "&" but found end of input`, "", 0},
	{"keyword as operand", `SELF[g] <= x[g] and or y[g] <= z[g]`, CodeUnexpectedToken, `expected a comparison after "and" but found "or"`, "or", 0},
	{"empty", ``, CodeEmpty, `expected an SPL formula but the text is empty`, "", 0},
	{"blank", " \n\t# only a comment\n", CodeEmpty, `the text is empty`, "", -1},
	{"garbage", `%%% ???`, CodeInvalidCharacter, `invalid character "%%%": expected a comparison`, "%%%", 0},
	{"garbage after formula", `SELF[g] <= x[g] ^^`, CodeInvalidCharacter, `invalid character "^^"`, "^^", 0},
	{"missing sign", `SELF[g] x[g]`, CodeUnexpectedToken,
		`expected a comparison operator ("<", "<=", ">", ">=", "==" or "=") after "SELF[g]" but found "x"`, "x", 0},
	{"missing right side", `SELF[g] <=`, CodeUnexpectedEnd, `expected a measured method after "<=" but found end of input`, "", 0},
	{"number as operand", `SELF[g] <= 5`, CodeUnexpectedToken, `expected a measured method after "<=" but found "5"`, "5", 0},
	{"args unclosed", `for n in {1} SELF[g](n <= x[g]`, CodeUnclosed, `expected ")" to close the arguments of "SELF[g](" but found "<="`, "<=", 0},
	{"bad argument", `SELF[g](<) <= x[g]`, CodeUnexpectedToken, `expected an argument (a variable, a number, arithmetic such as 10 * n, or a string) in "SELF[g](" but found "<"`, "<", 0},
	{"generator missing", `SELF[ <= x[g]`, CodeUnexpectedToken, `expected a generator (an alias, a method name or pkg.Class#gen) in "SELF[" but found "<="`, "<=", 0},
	{"scale without star", `10 current[w] <= x[w]`, CodeUnexpectedToken, `expected "*" after the scale factor 10 but found "current"`, "current", 0},
	{"method name missing", `SELF[g] <= pkg.C#[g]`, CodeUnexpectedToken, `expected a method name after "#" but found "["`, "[", 1},
	{"name after dot missing", `SELF[g] <= pkg.[g]`, CodeUnexpectedToken, `expected a name after "." but found "["`, "[", 1},
	{"constructor without method", `SELF[g] <= p:C[g]`, CodeUnexpectedToken, `expected "#" and a method name after "p:C" but found "["`, "[", 1},
	{"parameter type", `SELF[g] <= pkg.C#m(int, 'x')[g]`, CodeUnexpectedToken, `expected a parameter type in "pkg.C#m(" but found "'x'"`, "'x'", 0},
	{"empty revision", `SELF[g] <= x@[g]`, CodeInvalidRevision, `expected a revision (HEAD, a commit hash or a tag) after "@"`, "@", 0},
	{"revision twice", `SELF[g] <= pkg.C#m@a(int)@b[g]`, CodeInvalidRevision, `revision given twice: "a" and "b"`, "@b", 0},
	{"interval not a number", `a[g] =(CPU) b[g]`, CodeUnexpectedToken, `expected a number as the equality interval in "=(δ)" but found "CPU"`, "(CPU)", 0},
	{"lambda without comma", `a[g] <=(2 3) b[g]`, CodeUnexpectedToken, `expected "," between the left and the right multiplier in the multipliers after "<=" but found "3"`, "3", 0},
	{"lambda unclosed", `a[g] <=(2, 3 b[g]`, CodeUnclosed, `expected ")" to close the multipliers after "<=" but found "b"`, "b", 0},
	{"stray )", `SELF[g] <= x[g])`, CodeUnexpectedToken, `unexpected ")": there is no "(" to close`, ")", 0},
	{"unclosed (", `(SELF[g] <= x[g]`, CodeUnclosed, `expected ")" to close "(" but found end of input`, "", 0},
	{"two formulas on a line", `a[g] <= b[g] c[g] <= d[g]`, CodeUnexpectedToken,
		`expected a logical operator ("and", "or", "&", "|", "==>") or the end of the formula but found "c"`, "c", 0},
	{"number out of range", `for n in {99999999999999999999} x[g](n) <= y[g](n)`, CodeInvalidNumber, `out of range`, "99999999999999999999", 0},
	{"invalid escape", `SELF[Gen('a\qb')] <= x[g]`, CodeInvalidEscape, `invalid escape "\\q" in string`, `\q`, 0},
	{"alias without entity", "w :=\nSELF[w] <= x[w]", CodeUnexpectedEnd, `expected a method or generator after "w :=" but found end of line`, "", -2},
	{"alias with bad entity", "w := )\nSELF[w] <= x[w]", CodeUnexpectedToken, `expected a method or generator after "w :=" but found ")"`, ")", 0},
	{"alias reserved name", "SELF := gen\nSELF[g] <= x[g]", CodeReservedName, `"SELF" is reserved`, "SELF", 0},
	{"duplicate alias", "w := a\nw := b\nSELF[w] <= x[w]", CodeDuplicateAlias, `alias "w" is declared twice (first as "w := a")`, "w", 1},
	{"scale not positive", `0 * SELF[g] <= x[g]`, CodeInvalidScale, `scale factor 0 must be positive`, "0 *", 0},
	{"multiplier not positive", `SELF[g] <=(0, 1) x[g]`, CodeInvalidScale, `multiplier 0 must be positive`, "0", 0},
	// Arithmetic in arguments is refused where it has no value, never wrapped.
	{"product beyond a long", `for n in {10, 4611686018427387904} SELF[g](2 * n) <= x[g](n)`, CodeArithmetic,
		`at n=4611686018427387904: 2 * 4611686018427387904 does not fit in a Java long (-9223372036854775808 to 9223372036854775807): use smaller values`, "2 * n", 0},
	{"square beyond a long", `for n in {3037000500} SELF[g]((n * n) + 1) <= x[g](n)`, CodeArithmetic,
		`3037000500 * 3037000500 does not fit in a Java long`, "(n * n)", 0},
	{"sum beyond a long", `SELF[g](9223372036854775807 + 1) <= x[g]`, CodeArithmetic, `9223372036854775807 + 1 does not fit in a Java long`, "9223372036854775807 + 1", 0},
	{"difference beyond a long", `for n in {-9223372036854775807} SELF[g](n - 2) <= x[g](n)`, CodeArithmetic, `-9223372036854775807 - 2 does not fit`, "n - 2", 0},
	{"product of two variables", `for n in {1, 2}, m in {4294967296, 1} SELF[g](n * m * m) <= x[g](n, m)`, CodeArithmetic,
		`at n=1, m=4294967296: 4294967296 * 4294967296 does not fit`, "n * m * m", 0},
	{"division by zero", `for n in {10}, m in {2, 0} SELF[g](n / m) <= x[g](n, m)`, CodeArithmetic, `at n=10, m=0: 10 / 0 divides by zero`, "n / m", 0},
	{"float beyond finite", `for n in {1e308} SELF[g](n * 10) <= x[g](n)`, CodeArithmetic, `1e+308 * 10 is not a finite number`, "n * 10", 0},
}

func TestErrors(t *testing.T) {
	for _, tc := range errorCases {
		t.Run(tc.name, func(t *testing.T) {
			_, ds := ParseAndLint(tc.src)
			checkSpans(t, tc.src, ds)
			errs := errorsOnly(ds)
			if len(errs) == 0 {
				t.Fatalf("no errors for %q", tc.src)
			}
			d := errs[0]
			var want Span
			switch {
			case tc.sub == "" && tc.nth == -1:
				want = Span{0, 0}
			case tc.sub == "" && tc.nth == -2: // end of the first line
				k := strings.IndexByte(tc.src, '\n')
				want = Span{k, k}
			case tc.sub == "" && tc.code == CodeEmpty:
				want = Span{0, 0}
			case tc.sub == "":
				want = eofSpan(tc.src)
			default:
				want = spanOf(t, tc.src, tc.sub, tc.nth)
			}
			if d.Code != tc.code || !strings.Contains(d.Message, tc.msg) || d.Span != want {
				t.Errorf("%q:\n got  %v %s %q\n want %v %s %q\nall:%s", tc.src, d.Span, d.Code, d.Message, want, tc.code, tc.msg, fmtDiags(ds))
			}
		})
	}
}

func TestWarnings(t *testing.T) {
	cases := []struct {
		src, code, msg, sub string
		nth                 int
		sev                 Severity
	}{
		{`for n in {1, 2} SELF[g] <= x[g]`, CodeUnusedVariable, `variable "n" is declared but not used`, "n", 0, Warning},
		{`for n in {1, 2, 1} SELF[g](n) <= x[g](n)`, CodeDuplicateValue, `value 1 appears twice in the values of "n"`, "1", 1, Warning},
		{`for n in {1, "a"} SELF[g](n) <= x[g](n)`, CodeMixedValues, `mix numbers and strings`, `1, "a"`, 0, Warning},
		{`SELF[g] =(1.5) x[g]`, CodeInvalidInterval, `should lie between 0 and 1`, "=", 0, Warning},
		{"w := gen\nq := other\nSELF[w] <= x[w]", CodeUnusedAlias, `alias "q" is not used by any formula`, "q", 0, Hint},
		{`10 * current[w] <= copy[w]`, CodeScalePlacement,
			`this requires current[w] to be at least 10 times faster than copy[w]; if it may be up to 10 times slower, write current[w] <= 10 * copy[w]`, "10 *", 0, Warning},
		{`copy[w] >= current[w] * 10`, CodeScalePlacement, `write 10 * copy[w] >= current[w]`, "* 10", 0, Warning},
	}
	for _, tc := range cases {
		_, ds := ParseAndLint(tc.src)
		checkSpans(t, tc.src, ds)
		if e := errorsOnly(ds); len(e) > 0 {
			t.Errorf("%q: unexpected errors:%s", tc.src, fmtDiags(e))
			continue
		}
		want := spanOf(t, tc.src, tc.sub, tc.nth)
		found := false
		for _, d := range ds {
			if d.Code == tc.code && strings.Contains(d.Message, tc.msg) && d.Span == want && d.Severity == tc.sev {
				found = true
			}
		}
		if !found {
			t.Errorf("%q: want %v %v %s %q, got:%s", tc.src, want, tc.sev, tc.code, tc.msg, fmtDiags(ds))
		}
	}
	// Listings 4 and 9 produce no hints; Listing 5 exactly the scale hint.
	_, ds := ParseAndLint("for l in {5}\n10 * current[w](l) <= copy[w](l) and\ncurrent[w](l) <= 1.05 * history[w](l)")
	if len(ds) != 1 || ds[0].Code != CodeScalePlacement {
		t.Errorf("listing 5:%s", fmtDiags(ds))
	}
	// Growth formulas scale the smaller input on purpose: no warning.
	for _, src := range []string{"for n in {100, 1000} 3 * SELF[g](n) <= SELF[g](20000)", "SELF[g](1000) >= 4 * SELF[g](100)", "2 * p.A#m[g](10) < p.A#m[g](100)"} {
		if _, ds := ParseAndLint(src); len(ds) != 0 {
			t.Errorf("growth formula %q:%s", src, fmtDiags(ds))
		}
	}
	// The same method on another workload is not a growth formula.
	if _, ds := ParseAndLint("2 * SELF[g](10) <= SELF[h](10)"); len(ds) != 1 || ds[0].Code != CodeScalePlacement {
		t.Errorf("other workload:%s", fmtDiags(ds))
	}
}

// TestRecovery: the parser keeps going and reports several independent
// errors in one formula, and keeps the parts that did parse.
func TestRecovery(t *testing.T) {
	src := `for n in {1} SELF[g(n) <= x[g](n & a[g] =< b[g] | c[g] d[g] | e[g] <= f[g]`
	u, ds := Parse(src)
	checkSpans(t, src, ds)
	codes := []string{}
	for _, d := range ds {
		codes = append(codes, d.Code)
	}
	want := []string{CodeUnclosed, CodeUnclosed, CodeUnknownOperator, CodeUnexpectedToken}
	if strings.Join(codes, ",") != strings.Join(want, ",") {
		t.Fatalf("codes %v, want %v:%s", codes, want, fmtDiags(ds))
	}
	if ds[3].Span != spanOf(t, src, "d[g]", 0) && ds[3].Span != spanOf(t, src, "d", 0) {
		t.Errorf("missing sign span %v", ds[3].Span)
	}
	cs := Comparisons(u.Formulas[0].Body)
	if len(cs) != 3 { // SELF<=x, a=<b (read as <=), e<=f; "c[g] d[g]" is dropped
		t.Fatalf("kept %d comparisons: %s", len(cs), u.Formulas[0])
	}
	if cs[1].Op != LE || cs[2].Left.Method.Name != "e" {
		t.Errorf("kept: %s", u.Formulas[0])
	}

	// Errors on one line of a .spl file do not hide the next items.
	src = "w := gen\nSELF[w] <= % x[w]\nfor n in {1} SELF[w](n) <= y[w](n)\nv := )\nSELF[w] <= z[w]"
	u, ds = ParseAndLint(src)
	if len(u.Formulas) != 2 || len(errorsOnly(ds)) != 2 {
		t.Errorf("formulas %d:%s", len(u.Formulas), fmtDiags(ds))
	}
}

func TestErrorCap(t *testing.T) {
	src := "SELF[g] <= x[g]" + strings.Repeat(" & a[g] =< b[g]", 50)
	_, ds := Parse(src)
	checkSpans(t, src, ds)
	if len(ds) != maxErrorsPerItem+1 || ds[len(ds)-1].Code != CodeTooManyErrors {
		t.Errorf("%d diagnostics, last %v", len(ds), ds[len(ds)-1])
	}
	// The cap is per item: the next line reports again.
	src2 := src + "\n" + "SELF[g] =< x[g]"
	_, ds = Parse(src2)
	if last := ds[len(ds)-1]; last.Code != CodeUnknownOperator || last.Span.Start <= len(src) {
		t.Errorf("next item not reported: %v", last)
	}
}

func TestDepthGuard(t *testing.T) {
	src := strings.Repeat("(", maxDepth+5) + "a[g] < b[g]" + strings.Repeat(")", maxDepth+5)
	u, ds := Parse(src)
	checkSpans(t, src, ds)
	if len(ds) != 1 || ds[0].Code != CodeTooDeep || ds[0].Span != (Span{maxDepth, maxDepth + 1}) {
		t.Fatalf("diags:%s", fmtDiags(ds))
	}
	if len(u.Formulas) != 0 {
		t.Errorf("formulas %d", len(u.Formulas))
	}
	// Exactly at the limit is fine.
	src = strings.Repeat("(", maxDepth) + "a[g] < b[g]" + strings.Repeat(")", maxDepth)
	if _, ds := Parse(src); len(ds) != 0 {
		t.Errorf("at the limit:%s", fmtDiags(ds))
	}
}
