package methodspec

import "testing"

// TestSpecMatches is the one rule by which a written method names a
// resolved one (oracle keys, measurement keys): simple and qualified type
// names, nested classes, generics and varargs, and overloads kept apart.
func TestSpecMatches(t *testing.T) {
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
		spec, err := Parse(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		if got := spec.Matches(c.resolved); got != c.want {
			t.Errorf("%s matches %s: %v, want %v", c.spec, c.resolved, got, c.want)
		}
	}
}
