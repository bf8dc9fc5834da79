package profile

import (
	"os"
	"reflect"
	"testing"

	"github.com/perfls/perfls/analysis/javasrc"
)

func shopDecls(t *testing.T) []Declaration {
	t.Helper()
	src, err := os.ReadFile("testdata/Shop.java")
	if err != nil {
		t.Fatal(err)
	}
	f, err := javasrc.Parse("testdata/Shop.java", src)
	if err != nil {
		t.Fatal(err)
	}
	return Declarations(f, "src/pkg/Shop.java")
}

func TestParamTypes(t *testing.T) {
	cases := []struct {
		desc string
		want []string
		ok   bool
	}{
		{"()V", nil, true},
		{"([ILjava/lang/String;)I", []string{"int[]", "java.lang.String"}, true},
		{"(JD[[Ljava/util/Map$Entry;ZBCSF)V", []string{"long", "double", "java.util.Map.Entry[][]", "boolean", "byte", "char", "short", "float"}, true},
		{"(Ljava/lang/String", nil, false},
		{"I", nil, false},
		{"(Q)V", nil, false},
		{"([", nil, false},
	}
	for _, c := range cases {
		got, ok := ParamTypes(c.desc)
		if ok != c.ok || (c.ok && !reflect.DeepEqual(got, c.want)) {
			t.Errorf("ParamTypes(%q) = %q, %v; want %q, %v", c.desc, got, ok, c.want, c.ok)
		}
	}
	if got := (Method{Class: "pkg.Outer$Inner", Name: "m", Descriptor: "([ILjava/lang/String;)V"}).MethodName(); got != "pkg.Outer$Inner#m(int[],java.lang.String)" {
		t.Errorf("MethodName = %q", got)
	}
}

func TestDeclarationsFromJavasrc(t *testing.T) {
	ds := shopDecls(t)
	find := func(class, method string, params ...string) Declaration {
		t.Helper()
		for _, d := range ds {
			if d.Class == class && d.Method == method && (method == "" || reflect.DeepEqual(d.Params, params) || len(params) == 0 && len(d.Params) == 0) {
				return d
			}
		}
		t.Fatalf("no declaration %s#%s(%v) in %+v", class, method, params, ds)
		return Declaration{}
	}
	if d := find("pkg.Shop", ""); d.StartLine != 6 || d.EndLine != 35 || d.NameLine != 6 || d.File != "src/pkg/Shop.java" {
		t.Errorf("type Shop: %+v", d)
	}
	if d := find("pkg.Shop", "total", "List"); d.StartLine != 7 || d.EndLine != 13 || d.NameLine != 7 {
		t.Errorf("total(List): %+v", d)
	}
	if d := find("pkg.Shop$Cart", "<init>", "int"); d.StartLine != 28 || d.EndLine != 30 {
		t.Errorf("Cart(int): %+v", d)
	}
	find("pkg.Shop", "each", "Map.Entry")
}

func TestAttributionByErasedSignatureNotSubstring(t *testing.T) {
	ds := shopDecls(t)
	b := newBuilder()
	h := b.harness()
	frames := map[string]int{
		"total(List)":  b.frame("pkg.Shop", "total", "(Ljava/util/List;)I", 10, 20, 1),
		"total(int[])": b.frame("pkg.Shop", "total", "([I)I", 15, 2, 0),
		"price(int)":   b.frame("pkg.Shop", "price", "(I)I", 18, 2, 0),
		"price(long)":  b.frame("pkg.Shop", "price", "(J)J", 21, 3, 0),
		"each":         b.frame("pkg.Shop", "each", "(Ljava/util/Map$Entry;)V", 25, 9, 0),
		"lambda":       b.frame("pkg.Shop", "lambda$each$0", "(Ljava/util/Map$Entry;)V", 24, 4, 0),
		"ctor":         b.frame("pkg.Shop$Cart", "<init>", "(I)V", 29, 6, 0),
		"runAll":       b.frame("pkg.Shop$Cart", "runAll", "()V", 33, 1, 0),
		"run":          b.frame("pkg.Shop$Cart", "run", "()V", 32, 0, 0),
		// Same simple names, other classes: library code, not the project's.
		"other":  b.frame("pkg.ShopKeeper", "total", "(Ljava/util/List;)I", 10, 20, 1),
		"other2": b.frame("other.Shop", "price", "(I)I", 18, 2, 0),
		// No declaration has this signature: attributed by line to total(List).
		"overload": b.frame("pkg.Shop", "total", "(Ljava/util/Set;)I", 9, 4, 1),
	}
	for _, f := range frames {
		b.stack(KindCPU, "", 1, 1, 1, f, h)
	}
	p := mustNew(t, b.s, ds, Target{})
	want := map[string]Location{
		"total(List)":  {Method: "pkg.Shop#total(java.util.List)", File: "src/pkg/Shop.java", Line: 10},
		"total(int[])": {Method: "pkg.Shop#total(int[])", File: "src/pkg/Shop.java", Line: 15},
		"price(int)":   {Method: "pkg.Shop#price(int)", File: "src/pkg/Shop.java", Line: 18},
		"price(long)":  {Method: "pkg.Shop#price(long)", File: "src/pkg/Shop.java", Line: 21},
		"each":         {Method: "pkg.Shop#each(java.util.Map.Entry)", File: "src/pkg/Shop.java", Line: 25},
		"lambda":       {Method: "pkg.Shop#each(Map.Entry)", File: "src/pkg/Shop.java", Line: 24},
		"ctor":         {Method: "pkg.Shop$Cart#<init>(int)", File: "src/pkg/Shop.java", Line: 29},
		"runAll":       {Method: "pkg.Shop$Cart#runAll()", File: "src/pkg/Shop.java", Line: 33},
		"run":          {Method: "pkg.Shop$Cart#run()", File: "src/pkg/Shop.java", Line: 32},
		"other":        {Method: "pkg.ShopKeeper#total(java.util.List)", Line: 10},
		"other2":       {Method: "other.Shop#price(int)", Line: 18},
		"overload":     {Method: "pkg.Shop#total(List)", File: "src/pkg/Shop.java", Line: 9},
	}
	for name, fi := range frames {
		if got := p.location(fi); got != want[name] {
			t.Errorf("%s: location %+v, want %+v", name, got, want[name])
		}
	}
	for name, proj := range map[string]bool{"total(List)": true, "ctor": true, "other": false, "other2": false} {
		if p.project(frames[name]) != proj {
			t.Errorf("%s: project = %v, want %v", name, !proj, proj)
		}
	}
	// The method declarations matched by signature, not by line.
	if d := p.attr.methodDecl[b.s.Frames[frames["price(long)"]].Method]; d < 0 || ds[d].Params[0] != "long" {
		t.Errorf("price(long) matched %v", d)
	}
	if d := p.attr.methodDecl[b.s.Frames[frames["overload"]].Method]; d >= 0 {
		t.Errorf("total(Set) matched declaration %+v", ds[d])
	}
}

func TestTypeMatches(t *testing.T) {
	cases := []struct {
		declared, actual string
		want             bool
	}{
		{"List", "java.util.List", true},
		{"java.util.List", "java.util.List", true},
		{"util.List", "java.util.List", true},
		{"ist", "java.util.List", false},
		{"List", "java.util.ArrayList", false},
		{"Map.Entry", "java.util.Map.Entry", true},
		{"Map$Entry", "java.util.Map.Entry", true},
		{"Entry", "java.util.Map.Entry", true},
		{"int", "int", true},
		{"int", "long", false},
		{"int[]", "int[]", true},
		{"int[]", "int[][]", false},
		{"String...", "java.lang.String[]", true},
		{"String []", "java.lang.String[]", true},
		{"Object", "java.lang.Object", true},
	}
	for _, c := range cases {
		if got := typeMatches(c.declared, c.actual); got != c.want {
			t.Errorf("typeMatches(%q, %q) = %v", c.declared, c.actual, got)
		}
	}
}

func TestValidateRejectsDamagedSummaries(t *testing.T) {
	b := newBuilder()
	f := b.frame("pkg.A", "m", "()V", 3, 0, 0)
	b.stack(KindCPU, "", 1, 1, 1, f)
	good := *b.s
	if _, err := New(&good, nil, Target{}); err != nil {
		t.Fatal(err)
	}
	damage := []func(s *Summary){
		func(s *Summary) { s.Version = 2 },
		func(s *Summary) { s.Frames = []Frame{{Method: 7}} },
		func(s *Summary) { s.Stacks = []Stack{{Kind: KindCPU, Frames: []int{9}}} },
		func(s *Summary) { s.Stacks = []Stack{{Kind: KindCPU, Frames: []int{-1}}} },
		func(s *Summary) { s.Stacks = []Stack{{Kind: KindCPU, Segments: []int64{1}}} },
		func(s *Summary) { s.Stacks = []Stack{{Kind: KindCPU, Count: -1}} },
		func(s *Summary) { s.Iterations = []Iteration{{Ns: -5, Ops: 1}} },
	}
	for i, d := range damage {
		s := good
		s.Frames = append([]Frame(nil), good.Frames...)
		s.Stacks = append([]Stack(nil), good.Stacks...)
		d(&s)
		if _, err := New(&s, nil, Target{}); err == nil {
			t.Errorf("damage %d: no error", i)
		}
	}
	if _, err := New(nil, nil, Target{}); err == nil {
		t.Error("nil summary: no error")
	}
}

// A recorded method (class and JVM descriptor) is the target as methodspec
// matches methods: parameters written simple or qualified, nested classes
// with "$" or ".", overloads kept apart, any overload without parameters.
func TestTargetMatchesByDescriptor(t *testing.T) {
	m := Method{Class: "p.Outer$In", Name: "find", Descriptor: "([ILjava/lang/String;)I"}
	for _, c := range []struct {
		target Target
		want   bool
	}{
		{Target{Class: "p.Outer$In", Name: "find", Params: []string{"int[]", "java.lang.String"}}, true},
		{Target{Class: "p.Outer.In", Name: "find", Params: []string{"int[]", "String"}}, true},
		{Target{Class: "p.Outer$In", Name: "find"}, true},
		{Target{Class: "p.Outer$In", Name: "find", Params: []string{"int[]"}}, false},
		{Target{Class: "p.Outer$In", Name: "find", Params: []string{"long[]", "String"}}, false},
		{Target{Class: "p.Other", Name: "find"}, false},
	} {
		if got := c.target.matches(m); got != c.want {
			t.Errorf("%s matches %v = %v, want %v", c.target, m, got, c.want)
		}
	}
	if (Target{Class: "p.Outer$In", Name: "find", Params: []string{}}).matches(Method{Class: "p.Outer$In", Name: "find", Descriptor: "bad"}) {
		t.Error("a target with parameters should not match a method whose descriptor cannot be read")
	}
}
