package javasrc

import (
	"context"
	"strings"
	"testing"
)

// TestEntryPoints: every method and constructor with a body has its entry
// just after '{', or after an explicit this(…)/super(…) call; abstract
// methods and lambdas have none; each entry's declaration is the start of
// the Method that Parse reports.
func TestEntryPoints(t *testing.T) {
	src := `package p;
abstract class A {
    A(int x) { this(); /*1*/ }
    A() { // c
        super(); /*2*/ }
    @Deprecated
    static int f(int y) { /*3*/ return y; }
    abstract void g();
    void h() { Runnable r = () -> { }; new Object() { public String toString() { /*4*/ return ""; } }; /*5*/ }
    record R(int a) { R { /*6*/ } }
}
`
	eps, importAt, err := EntryPoints(context.Background(), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if src[:importAt] != "package p;" {
		t.Errorf("import at %d, after %q", importAt, src[:importAt])
	}
	if _, at, err := EntryPoints(context.Background(), []byte("/* x */ class B { }")); err != nil || at != 0 {
		t.Errorf("without a package: import at %d, %v", at, err)
	}
	var got []string
	for _, e := range eps {
		got = append(got, strings.TrimSpace(src[e.Offset:e.Offset+6]))
	}
	want := []string{"/*1*/", "/*2*/", "/*3*/", "Runna", "/*4*/", "/*6*/"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("entries at %q, want %q", got, want)
	}
	f, err := Parse("A.java", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	decls := map[int]string{}
	for _, m := range f.Methods {
		decls[m.Span.Start] = m.Type.BinaryName + "#" + m.Name
	}
	var names []string
	for _, e := range eps {
		names = append(names, decls[e.Decl])
	}
	wantNames := "p.A#<init>|p.A#<init>|p.A#f|p.A#h|p.A$1#toString|p.A$R#<init>"
	if strings.Join(names, "|") != wantNames {
		t.Fatalf("declarations %q, want %s", names, wantNames)
	}
	if _, _, err := EntryPoints(context.Background(), []byte("class B { void f( { }")); err == nil {
		t.Fatal("a file with syntax errors gave entry points")
	}
}
