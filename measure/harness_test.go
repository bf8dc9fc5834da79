package measure

import (
	"strings"
	"testing"
)

func TestArgLiteral(t *testing.T) {
	cases := []struct {
		arg  Arg
		typ  string
		want string
		err  string
	}{
		{IntArg(1000), "int", "1000", ""},
		{IntArg(-2147483648), "int", "-2147483648", ""},
		{IntArg(1 << 31), "int", "", "does not fit in int"},
		{IntArg(1 << 40), "long", "1099511627776L", ""},
		{IntArg(7), "java.lang.Integer", "java.lang.Integer.valueOf(7)", ""},
		{IntArg(7), "java.lang.Long", "java.lang.Long.valueOf(7L)", ""},
		{IntArg(-3), "short", "(short) -3", ""},
		{IntArg(300), "byte", "", "does not fit in byte"},
		{IntArg(2), "double", "2.0", ""},
		{IntArg(2), "float", "2.0f", ""},
		{IntArg(5), "java.lang.Object", "java.lang.Integer.valueOf(5)", ""},
		{IntArg(5), "java.lang.String", "", "integer argument 5 cannot be passed as java.lang.String"},
		{StringArg("a\"b\\c\n\x01é"), "java.lang.String", `"a\"b\\c\n\001é"`, ""},
		{StringArg(`\u0041`), "java.lang.CharSequence", `"\\u0041"`, ""},
		{StringArg("x"), "int", "", `string argument "x" cannot be passed as int`},
	}
	for _, c := range cases {
		got, err := argLiteral(c.arg, c.typ)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("argLiteral(%v, %s) = %q, %v; want error %q", c.arg, c.typ, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("argLiteral(%v, %s) = %q, %v; want %q", c.arg, c.typ, got, err, c.want)
		}
	}
}

func TestHarnessSource(t *testing.T) {
	search := Resolved{Class: "q.Search", Name: "find", Static: true, ParamTypes: []string{"int[]", "int"}, ReturnType: "int"}
	inst := Resolved{Class: "q.Box$Inner", Name: "get", ParamTypes: []string{"long[][]"}, ReturnType: "void"}
	gen := Resolved{Class: "q.Data", Name: "sorted", Static: true, ParamTypes: []string{"int"}, ReturnType: "java.util.List"}

	src, err := harnessSource("q", "PerflsHarness_0", Request{Method: search, Generator: gen, Args: []Arg{IntArg(10)}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"package q;",
		"return q.Data.sorted(10);",
		"$p0[$i] = dev.perfls.internal.Convert.ref($a[0], int[].class, $i, 0);",
		"$p1[$i] = dev.perfls.internal.Convert.toInt($a[1], $i, 1);",
		"$bh.consume(q.Search.find($p0[$i], $p1[$i]));",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("harness lacks %q:\n%s", want, src)
		}
	}

	src, err = harnessSource("", "PerflsHarness_1", Request{Method: inst, Generator: gen, Args: []Arg{IntArg(1)}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"private q.Box.Inner[] $r;",
		"final long[][][] $p0 = new long[$k][][];",
		"Convert.tuple($t, $i, 2)",
		"                $r[$i].get($p0[$i]);\n",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("harness lacks %q:\n%s", want, src)
		}
	}
	if strings.Contains(src, "package") {
		t.Error("default-package harness has a package declaration")
	}

	loop := Resolved{Class: "q.W", Name: "loop", ParamTypes: []string{splControllerClass, "java.lang.String"}, ReturnType: "void"}
	src, err = harnessSource("q", "PerflsHarness_2", Request{Method: loop, Args: []Arg{StringArg("s")}})
	if err != nil || !strings.Contains(src, `new q.W().loop($spl, "s");`) || !strings.Contains(src, "workloadLoop() { return true; }") {
		t.Errorf("workload harness: %v\n%s", err, src)
	}

	bad := []struct {
		req  Request
		want string
	}{
		{Request{Method: inst}, "needs a generator that supplies the receiver"},
		{Request{Method: search, Generator: Resolved{Class: "q.D", Name: "g", ParamTypes: []string{}, ReturnType: "java.util.List"}}, "generator q.D#g() must be static"},
		{Request{Method: search, Generator: Resolved{Class: "q.D", Name: "g", Static: true, ParamTypes: []string{}, ReturnType: "int"}}, "must return an Iterable<Object[]>"},
		{Request{Method: search, Generator: gen}, "takes 1 argument(s) (int), got 0"},
		{Request{}, "no method to measure"},
	}
	for _, c := range bad {
		if _, err := harnessSource("q", "H", c.req); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("harnessSource(%s) = %v, want error %q", c.req.Key(), err, c.want)
		}
	}
}

func TestRequestKey(t *testing.T) {
	m := Resolved{Class: "quickstart.Search", Name: "linearSearch", Static: true, ParamTypes: []string{"int[]", "int"}}
	g := Resolved{Class: "quickstart.Data", Name: "sorted", Static: true, ParamTypes: []string{"int"}}
	r := Request{Method: m, Generator: g, Args: []Arg{IntArg(1000)}}
	if got, want := r.Key(), "quickstart.Search#linearSearch(int[],int)[quickstart.Data#sorted(int)](1000)"; got != want {
		t.Errorf("Key() = %q, want %q", got, want)
	}
	r = Request{Method: m, Args: []Arg{StringArg("a b"), IntArg(-1)}}
	if got, want := r.Key(), `quickstart.Search#linearSearch(int[],int)("a b",-1)`; got != want {
		t.Errorf("Key() = %q, want %q", got, want)
	}
}
