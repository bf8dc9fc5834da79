package measure

import (
	"testing"

	"github.com/perfls/perfls/analysis/methodspec"
)

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
	spec, err := methodspec.Parse("a.B#m(int[], java.lang.String)")
	if err != nil || spec.Class != "a.B" || spec.Name != "m" || len(spec.Params) != 2 || spec.Params[1] != "java.lang.String" {
		t.Errorf("ParseMethodSpec: %+v %v", spec, err)
	}
	for _, bad := range []string{"a.B", "#m", "a.B#m(int"} {
		if _, err := methodspec.Parse(bad); err == nil {
			t.Errorf("ParseMethodSpec(%q) accepted", bad)
		}
	}
}
