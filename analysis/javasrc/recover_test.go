package javasrc

import (
	"reflect"
	"strings"
	"testing"

	"github.com/perfls/perfls/analysis/textpos"
)

// Files that are being typed: the model must still list the methods and
// their annotations, and report where the text is broken.
func TestSyntaxErrorsStillYieldMethods(t *testing.T) {
	cases := []struct {
		name        string
		src         string
		methods     []string // Type.Name + "." + Signature()
		formulas    []string // all formula texts, in order
		workloads   []string
		errContains []string // substrings of SyntaxMessages, in order
	}{
		{
			name: "unclosed method body",
			src: `package x;
public class Broken {
  @SPL("SELF < foo")
  public void ok(int n) {
    if (n > 0) {
      return;
  }

  @Workload("x.Y#gen")
  void third(String s) {}
}
`,
			methods:     []string{"Broken.ok(int)", "Broken.third(String)"},
			formulas:    []string{"SELF < foo"},
			workloads:   []string{"x.Y#gen"},
			errContains: []string{`missing "}"`},
		},
		{
			name: "half-typed annotation",
			src: `package x;
public class Broken {
  @SPL(
  void half() {}

  @SPL("SELF < foo")
  public void ok(int n) {
  }
  void third(String s) {}
}
`,
			methods:     []string{"Broken.half()", "Broken.ok(int)", "Broken.third(String)"},
			formulas:    []string{"SELF < foo"},
			errContains: []string{`missing ")"`},
		},
		{
			name: "unterminated formula string",
			src: `class Broken {
  @SPL("for n in {1, 2} SELF(n) <
  void half() {}
  void other() {}
}
`,
			methods:     []string{"Broken.half()", "Broken.other()"},
			formulas:    []string{"for n in {1, 2} SELF(n) <"},
			errContains: []string{`missing closing "\""`, `missing ")"`},
		},
		{
			name: "several errors at once",
			src: `package x;
public class Broken {
  @SPL(
  void half() {}

  @SPL("SELF < foo")
  public void ok(int n) {
    if (n > 0 {
      return;
  }

  @Workload("x.Y#gen")
  void third(String s) {}
`,
			methods:     []string{"Broken.half()", "Broken.ok(int)", "Broken.third(String)"},
			formulas:    []string{"SELF < foo"},
			workloads:   []string{"x.Y#gen"},
			errContains: []string{`missing ")"`, `missing ")"`, `missing "}"`, `missing "}"`},
		},
		{
			name: "unclosed array in annotation",
			src: `class A {
  @SPL(formula = {"a", "b"
  void fourth(String s) { }
  @SPL("c") void fifth() {}
}
`,
			methods:     []string{"A.fourth(String)", "A.fifth()"},
			formulas:    []string{"a", "b", "c"},
			errContains: []string{`missing "}"`, `missing ")"`},
		},
		{
			name: "broken statement inside a body",
			src: `class A {
  void f() { foo(; }
  @SPL("x") void g(int n) {}
}
`,
			methods:     []string{"A.f()", "A.g(int)"},
			formulas:    []string{"x"},
			errContains: []string{"syntax error"},
		},
		{
			name: "half-typed parameter annotation",
			src: `class A {
  @Workload("a.B#c") void g(@Param("n", min = ) int n) {}
  void h() {}
}
`,
			methods:     []string{"A.g(int)", "A.h()"},
			workloads:   []string{"a.B#c"},
			errContains: []string{"syntax error"},
		},
		{
			name:        "missing class brace at end of file",
			src:         "class A {\n  void f() {}\n  void g(int[] a) {}\n",
			methods:     []string{"A.f()", "A.g(int[])"},
			errContains: []string{`missing "}"`},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := mustParse(t, c.src)
			var methods, formulas, workloads []string
			for _, m := range f.Methods {
				tn := "<nil>"
				if m.Type != nil {
					tn = m.Type.Name
				}
				methods = append(methods, tn+"."+m.Signature())
				for _, s := range m.SPL {
					formulas = append(formulas, texts(s.Formulas)...)
				}
				workloads = append(workloads, texts(m.Workloads)...)
			}
			if !reflect.DeepEqual(methods, c.methods) {
				t.Errorf("methods %q, want %q", methods, c.methods)
			}
			if len(c.formulas) > 0 && !reflect.DeepEqual(formulas, c.formulas) {
				t.Errorf("formulas %q, want %q", formulas, c.formulas)
			}
			if len(c.workloads) > 0 && !reflect.DeepEqual(workloads, c.workloads) {
				t.Errorf("workloads %q, want %q", workloads, c.workloads)
			}
			if len(f.SyntaxErrors) == 0 || len(f.SyntaxErrors) != len(f.SyntaxMessages) {
				t.Fatalf("SyntaxErrors %v / %v", f.SyntaxErrors, f.SyntaxMessages)
			}
			k := 0
			for _, msg := range f.SyntaxMessages {
				if k < len(c.errContains) && strings.Contains(msg, c.errContains[k]) {
					k++
				}
			}
			if k != len(c.errContains) {
				t.Errorf("messages %q do not contain %q in order", f.SyntaxMessages, c.errContains)
			}
			checkInvariants(t, f, true)
		})
	}
}

func TestRepairReportsInsertionPoint(t *testing.T) {
	src := "class A {\n  void f() {\n    int x = 1;\n\n  void g() {}\n}\n"
	f := mustParse(t, src)
	if len(f.SyntaxErrors) != 1 {
		t.Fatalf("errors %v %q", f.SyntaxErrors, f.SyntaxMessages)
	}
	at := strings.Index(src, "int x = 1;") + len("int x = 1;")
	if f.SyntaxErrors[0] != (textpos.Span{Start: at, End: at}) || f.SyntaxMessages[0] != `missing "}" to close "{" on line 2` {
		t.Errorf("error %v %q, want at %d", f.SyntaxErrors[0], f.SyntaxMessages[0], at)
	}
	if got := f.Mapper.Position(at); got != (textpos.Position{Line: 2, Character: 14}) {
		t.Errorf("position %+v", got)
	}
	// Spans of declarations after the repair are document spans.
	g := f.Methods[1]
	if f.Src[g.NameSpan.Start:g.NameSpan.End] != "g" || f.Src[g.Span.Start:g.Span.End] != "void g() {}" {
		t.Errorf("g spans %v %v", g.NameSpan, g.Span)
	}
}

func TestOffsetMap(t *testing.T) {
	ins := []insertion{{at: 2, text: "}"}, {at: 2, text: ")"}, {at: 5, text: `"`}}
	src := "abcdefg"
	fixed := applyInsertions(src, ins)
	if fixed != `ab})cde"fg` {
		t.Fatalf("applied %q", fixed)
	}
	om := newOffsetMap(ins)
	want := []int{0, 1, 2, 2, 2, 3, 4, 5, 5, 6, 7}
	for x, w := range want {
		if got := om.orig(x); got != w {
			t.Errorf("orig(%d) = %d, want %d", x, got, w)
		}
	}
}

func TestDegenerateInputs(t *testing.T) {
	for _, src := range []string{
		"", "@", "class", "}}}}", "{{{{", "class A {", "@SPL(", `@SPL("`, "\"\"\"", "'", "/*", "class A { @SPL(\"\"\"\n x",
		"class A { void f(int... ) {} }", "enum E { A { }", "record R(", "interface I { default }",
		"class A { @SPL(x = ) void f() {} }", "\xff\xfe\x00class A{}", "class A { String s = \"\\u\"; }",
		strings.Repeat("(", 3000), strings.Repeat("class A {", 500), "class A { @SPL(\"a\" " + strings.Repeat(`+ "a" `, 3000) + ") void f() {} }",
	} {
		f, err := Parse("x.java", []byte(src))
		if err != nil || f == nil {
			t.Fatalf("Parse(%.20q): %v", src, err)
		}
		checkInvariants(t, f, true)
	}
}

// checkInvariants verifies that every span lies within the document and
// every decoded string maps inside it; thorough checks every sub-span of
// every string (quadratic), otherwise a few.
func checkInvariants(t testing.TB, f *File, thorough bool) {
	t.Helper()
	n := len(f.Src)
	ok := func(what string, s textpos.Span) {
		if s.Start < 0 || s.End > n || s.Start > s.End {
			t.Errorf("%s span %v outside [0,%d]", what, s, n)
		}
	}
	str := func(what string, v *StringValue) {
		if v == nil {
			t.Errorf("%s: nil StringValue", what)
			return
		}
		ok(what, v.Span)
		for i := 0; i <= len(v.Text); i++ {
			if o := v.DocOffset(i); o < 0 || o > n {
				t.Errorf("%s: DocOffset(%d) = %d outside [0,%d]", what, i, o, n)
			}
		}
		if thorough {
			for i := 0; i <= len(v.Text); i++ {
				ok(what+" DocSpan", v.DocSpan(textpos.Span{Start: i, End: len(v.Text)}))
				ok(what+" DocSpan", v.DocSpan(textpos.Span{Start: 0, End: i}))
			}
		} else {
			l := len(v.Text)
			for _, sp := range []textpos.Span{{Start: 0, End: l}, {Start: 0, End: l / 2}, {Start: l / 2, End: l}, {Start: l / 3, End: 2 * l / 3}, {Start: -1, End: l + 1}} {
				ok(what+" DocSpan", v.DocSpan(sp))
			}
		}
	}
	for _, ty := range f.Types {
		ok("type", ty.Span)
		ok("type name", ty.NameSpan)
		for name, c := range ty.Constants {
			str("constant "+name, c)
		}
	}
	for _, m := range f.Methods {
		ok("method", m.Span)
		ok("method name", m.NameSpan)
		for _, p := range m.Params {
			ok("param", p.Span)
			ok("param name", p.NameSpan)
		}
		for _, s := range m.SPL {
			ok("spl", s.Span)
			for _, v := range s.Formulas {
				str("formula", v)
			}
			for _, v := range s.MethodAliases {
				str("method alias", v)
			}
			for _, v := range s.GeneratorAliases {
				str("generator alias", v)
			}
		}
		for _, v := range m.Workloads {
			str("workload", v)
		}
		for _, v := range m.SeeAlso {
			str("seeAlso", v)
		}
		if g := m.Generator; g != nil {
			if g.Description != nil {
				str("description", g.Description)
			}
			if g.Name != nil {
				str("name", g.Name)
			}
			for _, p := range g.Params {
				if p.Label != nil {
					str("label", p.Label)
				}
			}
		}
		if got := f.MethodAt(m.NameSpan.Start); got == nil {
			t.Errorf("MethodAt(name of %s) = nil", m.Name)
		}
	}
	if len(f.SyntaxErrors) != len(f.SyntaxMessages) {
		t.Errorf("%d syntax errors, %d messages", len(f.SyntaxErrors), len(f.SyntaxMessages))
	}
	for _, s := range f.SyntaxErrors {
		ok("syntax error", s)
	}
	for _, p := range f.Problems {
		ok("problem", p.Span)
	}
}
