package engine

import (
	"strings"
	"testing"

	"github.com/perfls/perfls/analysis/javasrc"
)

// A generator's documented minimum (@Param(min = …)) is the argument a
// method is measured with when no formula gives one: a minimum that is not
// a whole number or does not fit a Java long is refused, never truncated
// or wrapped.
func TestDocumentedArgsRefuseWhatJavaCannotTake(t *testing.T) {
	f, err := javasrc.Parse("/p/G.java", []byte(`package p;
import dev.perfls.Param;
class G {
    static Iterable<Object[]> ok(@Param(min = 1e3) long n) { return null; }
    static Iterable<Object[]> huge(@Param(min = 1e30) long n) { return null; }
    static Iterable<Object[]> half(@Param(min = 2.5) double d) { return null; }
}
`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"ok": "", "huge": "1e+30 does not fit in a Java long", "half": "2.5 is not a whole number"}
	for _, m := range f.Methods {
		args, err := documentedArgs(m)
		switch w := want[m.Name]; {
		case w == "" && (err != nil || len(args) != 1 || args[0].Int != 1000):
			t.Errorf("%s: %v, %v", m.Name, args, err)
		case w != "" && (err == nil || !strings.Contains(err.Error(), w)):
			t.Errorf("%s: %v, %v; want an error saying %q", m.Name, args, err, w)
		}
	}
}
