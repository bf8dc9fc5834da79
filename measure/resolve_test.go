package measure

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/analysis/methodspec"
)

func TestEraseTypeName(t *testing.T) {
	for in, want := range map[string]string{
		" int [ ] ":                 "int[]",
		"java.util.List<String>":    "java.util.List",
		"Map<String, List<Long>>[]": "Map[]",
		"int...":                    "int[]",
		"final @NonNull String":     "String",
		"@A(x = 1) final long":      "long",
		"Outer$Inner":               "Outer.Inner",
		"List>":                     "List",
	} {
		if got := eraseTypeName(in); got != want {
			t.Errorf("eraseTypeName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestResolve(t *testing.T) {
	_, b := fixtureBuild(t)
	specs := []methodspec.Spec{
		{Class: "fixture.Work", Name: "fast"},                                              // 0 static, unique
		{Class: "fixture.Work", Name: "add"},                                               // 1 instance
		{Class: "fixture.Work", Name: "find", Params: []string{"int[]", "int"}},            // 2 overload
		{Class: "fixture.Work", Name: "find", Params: []string{"long[]", "long"}},          // 3 overload
		{Class: "fixture.Work", Name: "find", Params: []string{"List<String>", "T"}},       // 4 generic overload
		{Class: "fixture.Work", Name: "find"},                                              // 5 ambiguous
		{Class: "java.util.Arrays", Name: "sort", Params: []string{"int[]"}},               // 6 JDK
		{Class: "fixture.Nope", Name: "x"},                                                 // 7 unknown class
		{Class: "fixture.Work", Name: "nope"},                                              // 8 unknown method
		{Class: "fixture.Work", Name: "find", Params: []string{"double[]"}},                // 9 no such overload
		{Class: "fixture.Work", Name: "secret"},                                            // 10 private
		{Class: "fixture.Work.Inner", Name: "twice"},                                       // 11 nested, dotted
		{Class: "fixture.Work$Inner", Name: "twice", Params: []string{"int"}},              // 12 nested, binary
		{Class: "fixture.Work", Name: "hidden"},                                            // 13 package-private
		{Class: "fixture.gen.Data", Name: "arrays"},                                        // 14 second source root
		{Class: "java.util.Arrays", Name: "sort"},                                          // 15 JDK ambiguous
		{Class: "Math", Name: "max", Params: []string{"int", "int"}},                       // 16 java.lang by simple name
		{Class: "fixture.Work", Name: "toString"},                                          // 17 inherited
		{Class: "java.util.ArrayList", Name: "add", Params: []string{"java.lang.Object"}},  // 18 JDK instance
		{Class: "fixture.Work", Name: "sumLoop", Params: []string{"SPLController", "int"}}, // 19 workload loop
		{Class: "fixture.Loud", Name: "quiet"},                                             // 20 static init must not run
		{Class: "java.lang.Thread", Name: "setUncaughtExceptionHandler", Params: []string{"java.lang.Thread$UncaughtExceptionHandler"}}, // 21 a nested parameter type, binary
	}
	rs, errs := Resolve(context.Background(), b, specs)
	if errs[21] != nil || rs[21].Name != "setUncaughtExceptionHandler" || len(rs[21].ParamTypes) != 1 {
		t.Errorf("spec 21 (%s): %+v, %v", specs[21], rs[21], errs[21])
	}
	ok := func(i int, want measured.Resolved) {
		t.Helper()
		if errs[i] != nil {
			t.Errorf("spec %d (%s): %v", i, specs[i], errs[i])
			return
		}
		if !reflect.DeepEqual(rs[i], want) {
			t.Errorf("spec %d (%s) = %+v, want %+v", i, specs[i], rs[i], want)
		}
	}
	fails := func(i int, wants ...string) {
		t.Helper()
		if errs[i] == nil {
			t.Errorf("spec %d (%s) resolved to %v, want an error", i, specs[i], rs[i])
			return
		}
		for _, w := range wants {
			if !strings.Contains(errs[i].Error(), w) {
				t.Errorf("spec %d (%s): error %q lacks %q", i, specs[i], errs[i], w)
			}
		}
	}
	ok(0, measured.Resolved{Class: "fixture.Work", Name: "fast", Static: true, ParamTypes: []string{"int[]"}, ReturnType: "long", DeclaringClass: "fixture.Work"})
	ok(1, measured.Resolved{Class: "fixture.Work", Name: "add", ParamTypes: []string{"int"}, ReturnType: "int", DeclaringClass: "fixture.Work"})
	ok(2, measured.Resolved{Class: "fixture.Work", Name: "find", Static: true, ParamTypes: []string{"int[]", "int"}, ReturnType: "int", DeclaringClass: "fixture.Work"})
	ok(3, measured.Resolved{Class: "fixture.Work", Name: "find", Static: true, ParamTypes: []string{"long[]", "long"}, ReturnType: "int", DeclaringClass: "fixture.Work"})
	ok(4, measured.Resolved{Class: "fixture.Work", Name: "find", Static: true, ParamTypes: []string{"java.util.List", "java.lang.Object"}, ReturnType: "int", DeclaringClass: "fixture.Work"})
	fails(5, "fixture.Work#find is ambiguous", "find(int[],int)", "find(long[],long)", "find(java.util.List,java.lang.Object)", "write the parameter types, e.g. fixture.Work#find(")
	ok(6, measured.Resolved{Class: "java.util.Arrays", Name: "sort", Static: true, ParamTypes: []string{"int[]"}, ReturnType: "void", DeclaringClass: "java.util.Arrays"})
	fails(7, "class fixture.Nope not found")
	fails(8, "no method nope in fixture.Work")
	fails(9, "no method fixture.Work#find(double[])", "candidates are")
	fails(10, "is private")
	ok(11, measured.Resolved{Class: "fixture.Work$Inner", Name: "twice", Static: true, ParamTypes: []string{"int"}, ReturnType: "int", DeclaringClass: "fixture.Work$Inner"})
	ok(12, rs[11])
	ok(13, measured.Resolved{Class: "fixture.Work", Name: "hidden", Static: true, ParamTypes: []string{"int"}, ReturnType: "int", DeclaringClass: "fixture.Work"})
	ok(14, measured.Resolved{Class: "fixture.gen.Data", Name: "arrays", Static: true, ParamTypes: []string{"int"}, ReturnType: "java.util.List", DeclaringClass: "fixture.gen.Data"})
	fails(15, "java.util.Arrays#sort is ambiguous", "sort(int[])", "write the parameter types")
	ok(16, measured.Resolved{Class: "java.lang.Math", Name: "max", Static: true, ParamTypes: []string{"int", "int"}, ReturnType: "int", DeclaringClass: "java.lang.Math"})
	ok(17, measured.Resolved{Class: "fixture.Work", Name: "toString", ParamTypes: []string{}, ReturnType: "java.lang.String", DeclaringClass: "java.lang.Object"})
	ok(18, measured.Resolved{Class: "java.util.ArrayList", Name: "add", ParamTypes: []string{"java.lang.Object"}, ReturnType: "boolean", DeclaringClass: "java.util.ArrayList"})
	ok(20, measured.Resolved{Class: "fixture.Loud", Name: "quiet", Static: true, ParamTypes: []string{"int"}, ReturnType: "int", DeclaringClass: "fixture.Loud"})
	ok(19, measured.Resolved{Class: "fixture.Work", Name: "sumLoop", Static: true, ParamTypes: []string{"dev.perfls.SPLController", "int"}, ReturnType: "void", DeclaringClass: "fixture.Work"})
}
