package measure

import (
	"encoding/base64"
	"slices"
	"strings"
	"testing"

	"github.com/perfls/perfls/analysis/measured"
)

func TestArgValue(t *testing.T) {
	cases := []struct {
		arg  measured.Arg
		typ  string
		want string
		err  string
	}{
		{measured.IntArg(1000), "int", "i:1000", ""},
		{measured.IntArg(-2147483648), "int", "i:-2147483648", ""},
		{measured.IntArg(1 << 31), "int", "", "does not fit in int"},
		{measured.IntArg(1 << 31), "java.lang.Integer", "", "does not fit in java.lang.Integer"},
		{measured.IntArg(1 << 40), "long", "i:1099511627776", ""},
		{measured.IntArg(7), "java.lang.Integer", "i:7", ""},
		{measured.IntArg(7), "java.lang.Long", "i:7", ""},
		{measured.IntArg(-3), "short", "i:-3", ""},
		{measured.IntArg(300), "byte", "", "does not fit in byte"},
		{measured.IntArg(2), "double", "i:2", ""},
		{measured.IntArg(1<<53 + 1), "double", "", "does not fit in double"},
		{measured.IntArg(2), "float", "i:2", ""},
		{measured.IntArg(1<<24 + 1), "java.lang.Float", "", "does not fit in java.lang.Float"},
		{measured.IntArg(5), "java.lang.Object", "i:5", ""},
		{measured.IntArg(1 << 40), "java.lang.Number", "i:1099511627776", ""},
		{measured.IntArg(5), "java.lang.String", "", "integer argument 5 cannot be passed as java.lang.String"},
		{measured.IntArg(5), "int[]", "", "integer argument 5 cannot be passed as int[]"},
		{measured.StringArg("a\"b\\c\n\x01é"), "java.lang.String", "s:" + base64.StdEncoding.EncodeToString([]byte("a\"b\\c\n\x01é")), ""},
		{measured.StringArg("a, b"), "java.lang.CharSequence", "s:YSwgYg==", ""},
		{measured.StringArg(""), "java.lang.Object", "s:", ""},
		{measured.StringArg("x"), "int", "", `string argument "x" cannot be passed as int`},
	}
	for _, c := range cases {
		got, err := argValue(c.arg, c.typ)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("argValue(%v, %s) = %q, %v; want error %q", c.arg, c.typ, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("argValue(%v, %s) = %q, %v; want %q", c.arg, c.typ, got, err, c.want)
		}
		if _, ok := argExprs[c.typ]; !ok {
			t.Errorf("argValue accepts %s, which has no Java expression", c.typ)
		}
	}
}

func TestHarnessSource(t *testing.T) {
	search := measured.Resolved{Class: "q.Search", Name: "find", Static: true, ParamTypes: []string{"int[]", "int"}, ReturnType: "int"}
	inst := measured.Resolved{Class: "q.Box$Inner", Name: "get", ParamTypes: []string{"long[][]"}, ReturnType: "void"}
	gen := measured.Resolved{Class: "q.Data", Name: "sorted", Static: true, ParamTypes: []string{"int"}, ReturnType: "java.util.List"}

	src, argv, err := harnessSource("q", "PerflsHarness_0", measured.Request{Method: search, Generator: gen, Args: []measured.Arg{measured.IntArg(10)}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"package q;",
		"return q.Data.sorted(intArg(0));",
		"$p0[$i] = dev.perfls.internal.Convert.ref($a[0], int[].class, $i, 0);",
		"$p1[$i] = dev.perfls.internal.Convert.toInt($a[1], $i, 1);",
		"$bh.consume(q.Search.find($p0[$i], $p1[$i]));",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("harness lacks %q:\n%s", want, src)
		}
	}
	if want := []string{"arg.0=i:10"}; !slices.Equal(argv, want) {
		t.Errorf("program arguments %q, want %q", argv, want)
	}
	// Another argument value: the same source, other program arguments.
	src2, argv2, err := harnessSource("q", "PerflsHarness_0", measured.Request{Method: search, Generator: gen, Args: []measured.Arg{measured.IntArg(-7)}})
	if err != nil || src2 != src || !slices.Equal(argv2, []string{"arg.0=i:-7"}) {
		t.Errorf("harness for another argument: %v %q, source changed: %v", err, argv2, src2 != src)
	}

	src, argv, err = harnessSource("", "PerflsHarness_1", measured.Request{Method: inst, Generator: gen, Args: []measured.Arg{measured.IntArg(1)}})
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

	loop := measured.Resolved{Class: "q.W", Name: "loop", ParamTypes: []string{splControllerClass, "java.lang.String", "java.lang.Long"}, ReturnType: "void"}
	src, argv, err = harnessSource("q", "PerflsHarness_2", measured.Request{Method: loop, Args: []measured.Arg{measured.StringArg("s"), measured.IntArg(3)}})
	for _, want := range []string{
		"workloadLoop() { return true; }",
		"final java.lang.String $a0 = stringArg(0);",
		"final java.lang.Long $a1 = java.lang.Long.valueOf(longArg(1));",
		"new q.W().loop($spl, $a0, $a1);",
	} {
		if err != nil || !strings.Contains(src, want) {
			t.Errorf("workload harness lacks %q: %v\n%s", want, err, src)
		}
	}
	if want := []string{"arg.0=s:cw==", "arg.1=i:3"}; !slices.Equal(argv, want) {
		t.Errorf("workload program arguments %q, want %q", argv, want)
	}

	plain := measured.Resolved{Class: "q.P", Name: "f", Static: true, ParamTypes: []string{"short", "java.lang.Object", "java.lang.CharSequence"}, ReturnType: "int"}
	src, _, err = harnessSource("q", "H", measured.Request{Method: plain, Args: []measured.Arg{measured.IntArg(2), measured.StringArg("o"), measured.StringArg("c")}})
	if want := "return java.util.Collections.singletonList(new Object[] {shortArg(0), objectArg(1), ((java.lang.CharSequence) stringArg(2))});"; err != nil || !strings.Contains(src, want) {
		t.Errorf("harness without generator lacks %q: %v\n%s", want, err, src)
	}

	bad := []struct {
		req  measured.Request
		want string
	}{
		{measured.Request{Method: inst}, "needs a generator that supplies the receiver"},
		{measured.Request{Method: search, Generator: measured.Resolved{Class: "q.D", Name: "g", ParamTypes: []string{}, ReturnType: "java.util.List"}}, "generator q.D#g() must be static"},
		{measured.Request{Method: search, Generator: measured.Resolved{Class: "q.D", Name: "g", Static: true, ParamTypes: []string{}, ReturnType: "int"}}, "must return an Iterable<Object[]>"},
		{measured.Request{Method: search, Generator: gen}, "takes 1 argument(s) (int), got 0"},
		{measured.Request{Method: search, Generator: gen, Args: []measured.Arg{measured.IntArg(3000000000)}}, "generator q.Data#sorted(int), argument 1: argument 3000000000 does not fit in int"},
		{measured.Request{Method: loop, Args: []measured.Arg{measured.IntArg(1), measured.IntArg(3)}}, "workload q.W#loop(dev.perfls.SPLController,java.lang.String,java.lang.Long), argument 1: integer argument 1 cannot be passed as java.lang.String"},
		{measured.Request{}, "no method to measure"},
	}
	for _, c := range bad {
		if _, _, err := harnessSource("q", "H", c.req); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("harnessSource(%s) = %v, want error %q", c.req.Key(), err, c.want)
		}
	}
}

func TestRequestKey(t *testing.T) {
	m := measured.Resolved{Class: "quickstart.Search", Name: "linearSearch", Static: true, ParamTypes: []string{"int[]", "int"}}
	g := measured.Resolved{Class: "quickstart.Data", Name: "sorted", Static: true, ParamTypes: []string{"int"}}
	r := measured.Request{Method: m, Generator: g, Args: []measured.Arg{measured.IntArg(1000)}}
	if got, want := r.Key(), "quickstart.Search#linearSearch(int[],int)[quickstart.Data#sorted(int)](1000)"; got != want {
		t.Errorf("Key() = %q, want %q", got, want)
	}
	r = measured.Request{Method: m, Args: []measured.Arg{measured.StringArg("a b"), measured.IntArg(-1)}}
	if got, want := r.Key(), `quickstart.Search#linearSearch(int[],int)("a b",-1)`; got != want {
		t.Errorf("Key() = %q, want %q", got, want)
	}
}
