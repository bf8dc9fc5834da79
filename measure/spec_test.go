package measure

import "testing"

func TestParseArgsAndMethodSpec(t *testing.T) {
	if got := ParseArgs(" 100, 5 ,abc,'x'"); len(got) != 4 || got[0].Int != 100 || got[1].Int != 5 || got[2].Str != "abc" || got[3].Str != "x" {
		t.Errorf("ParseArgs: %+v", got)
	}
	// Quotes keep commas and spaces, make digits a string, and double to stand for themselves.
	got := ParseArgs(`'a, b', "42", 'it''s', 7`)
	if len(got) != 4 || got[0].Str != "a, b" || !got[1].IsString || got[1].Str != "42" || got[2].Str != "it's" || got[3].Int != 7 || got[3].IsString {
		t.Errorf("ParseArgs with quotes: %+v", got)
	}
	if k := ArgsKey(got); k != `"a, b","42","it's",7` {
		t.Errorf("ArgsKey: %s", k)
	}
	spec, err := ParseMethodSpec("a.B#m(int[], java.lang.String)")
	if err != nil || spec.Class != "a.B" || spec.Name != "m" || len(spec.Params) != 2 || spec.Params[1] != "java.lang.String" {
		t.Errorf("ParseMethodSpec: %+v %v", spec, err)
	}
	for _, bad := range []string{"a.B", "#m", "a.B#m(int"} {
		if _, err := ParseMethodSpec(bad); err == nil {
			t.Errorf("ParseMethodSpec(%q) accepted", bad)
		}
	}
}

// TestMethodSpecMatches is the one rule by which a written method names a
// resolved one (oracle keys, measurement keys): simple and qualified type
// names, nested classes, generics and varargs, and overloads kept apart.
func TestMethodSpecMatches(t *testing.T) {
	cases := []struct {
		spec, resolved string
		want           bool
	}{
		{"p.C#handle", "p.C#handle(java.lang.String)", true},
		{"p.C#handle(String)", "p.C#handle(java.lang.String)", true},
		{"p.C#handle(java.lang.String)", "p.C#handle(java.lang.String)", true},
		{"p.C#handle(java.lang.String)", "p.C#handle(String)", true},
		{"p.C#handle(String)", "p.C#handle(p.String)", true}, // a simple name cannot tell packages apart
		{"p.C#handle(String)", "p.C#handle(java.lang.StringBuilder)", false},
		{"p.C#handle(int)", "p.C#handle(long)", false}, // overloads
		{"p.C#handle(int)", "p.C#handle(int[])", false},
		{"p.C#handle(int[])", "p.C#handle(int[])", true},
		{"p.C#handle(String[])", "p.C#handle(java.lang.String[])", true},
		{"p.C#handle(String[])", "p.C#handle(java.lang.String[][])", false},
		{"p.C#handle(int...)", "p.C#handle(int[])", true},
		{"p.C#handle(List<String>)", "p.C#handle(java.util.List)", true},
		{"p.C#handle(Map<String, List<Integer>>, int)", "p.C#handle(java.util.Map,int)", true},
		{"p.C#handle()", "p.C#handle()", true},
		{"p.C#m(int[],int)", "p.C#m(int[], int)", true},
		{"p.C#handle()", "p.C#handle(int)", false},
		{"p.C#handle(int)", "p.C#handle(int,int)", false},
		{"p.Outer.In#m", "p.Outer$In#m(int)", true},
		{"p.Outer$In#m(p.Outer.Arg)", "p.Outer$In#m(p.Outer$Arg)", true},
		{"Math#abs(int)", "java.lang.Math#abs(int)", true},
		{"p.C#handle", "p.C#handler(int)", false},
		{"p.C#handle", "p.D#handle(int)", false},
		{"p.C#handle", "q.p.C#handle(int)", false},
	}
	for _, c := range cases {
		spec, err := ParseMethodSpec(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		if got := spec.Matches(c.resolved); got != c.want {
			t.Errorf("%s matches %s: %v, want %v", c.spec, c.resolved, got, c.want)
		}
	}
}
