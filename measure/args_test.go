package measure

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/perfls/perfls/analysis/measured"
)

// Request arguments reach the JVM at run time (program arguments), so the
// harness class depends only on the method and generator.

var argsProject struct {
	once sync.Once
	b    *Build
	err  error
}

// argsBuild compiles testdata/args (once per test binary).
func argsBuild(t *testing.T) *Build {
	t.Helper()
	requireJDK(t)
	argsProject.once.Do(func() {
		dir := copyTreeTo(t, "args", sharedCache)
		p, err := FindProject(dir)
		if err != nil {
			argsProject.err = err
			return
		}
		argsProject.b, argsProject.err = Compile(context.Background(), p, sharedCache)
	})
	if argsProject.err != nil {
		t.Fatal(argsProject.err)
	}
	return argsProject.b
}

// jstr is how A.describe prints a string: its UTF-16 code units in hex.
func jstr(class, s string) string {
	var b strings.Builder
	b.WriteString(class + "=")
	for _, u := range utf16.Encode([]rune(s)) {
		fmt.Fprintf(&b, "%04x", u)
	}
	return b.String() + "."
}

// genCase is a set of arguments for a.A#gen and the line gen prints for them.
type genCase struct {
	args []measured.Arg
	want string
}

func genCases() []genCase {
	awkward := "a, b 'q' \"dq\" \\ \\u0041"
	unicode := "é – 日本 🎉\n"
	options := "=x arg.0=i:1 s:"
	return []genCase{
		{[]measured.Arg{measured.StringArg(awkward), measured.IntArg(-2147483648), measured.IntArg(1 << 40), measured.IntArg(5), measured.IntArg(7), measured.IntArg(-3), measured.IntArg(2), measured.StringArg(unicode), measured.IntArg(1 << 40)},
			"args: " + jstr("String", awkward) + " Integer=-2147483648 Long=1099511627776 Integer=5 Integer=7 Short=-3 Double=2.0 " +
				jstr("String", unicode) + " Long=1099511627776"},
		{[]measured.Arg{measured.StringArg(""), measured.IntArg(100), measured.IntArg(-1), measured.StringArg(options), measured.IntArg(0), measured.IntArg(32767), measured.IntArg(-(1 << 53)), measured.StringArg("\x00\t\r"), measured.StringArg("x y")},
			"args: " + jstr("String", "") + " Integer=100 Long=-1 " + jstr("String", options) + " Integer=0 Short=32767 Double=-9.007199254740992E15 " +
				jstr("String", "\x00\t\r") + " " + jstr("String", "x y")},
		{[]measured.Arg{measured.StringArg("ünï\u2028"), measured.IntArg(3), measured.IntArg(4), measured.IntArg(-5), measured.IntArg(6), measured.IntArg(7), measured.IntArg(8), measured.StringArg(","), measured.StringArg("'")},
			"args: " + jstr("String", "ünï\u2028") + " Integer=3 Long=4 Integer=-5 Integer=6 Short=7 Double=8.0 " + jstr("String", ",") + " " + jstr("String", "'")},
	}
}

func argsOptions() Options {
	return Options{Forks: 1, SamplesPerFork: 3, Warmup: 50 * time.Millisecond, MaxWarmup: time.Second, HeapMB: 64}
}

// outputOf returns what the measured code printed, or fails the test.
func outputOf(t *testing.T, what string, r measured.Result) string {
	t.Helper()
	if r.Err != nil {
		t.Fatalf("%s: %v", what, r.Err)
	}
	if len(r.Forks) != 1 {
		t.Fatalf("%s: %d forks, want 1", what, len(r.Forks))
	}
	return r.Forks[0].Output
}

// TestArgumentsAtRunTime: every kind of argument arrives intact and typed in
// generators, workload loops and methods without a generator; requests that
// differ only in their arguments share a class (one javac run for them all);
// the resolved overload is called; bad arguments fail before any JVM starts.
func TestArgumentsAtRunTime(t *testing.T) {
	b := argsBuild(t)
	rs := resolveAll(t, b, "a.A#id", "a.A#gen", "a.A#loop", "a.A#plain", "a.A#over(java.lang.Object)")
	id, gen, loop, plain, over := rs[0], rs[1], rs[2], rs[3], rs[4]
	cases := genCases()
	var reqs []measured.Request
	for _, c := range cases {
		reqs = append(reqs, measured.Request{Method: id, Generator: gen, Args: c.args})
	}
	reqs = append(reqs,
		measured.Request{Method: loop, Args: []measured.Arg{measured.StringArg("loop, \"one\""), measured.IntArg(-9)}},
		measured.Request{Method: loop, Args: []measured.Arg{measured.StringArg("loop two"), measured.IntArg(1 << 62)}},
		measured.Request{Method: plain, Args: []measured.Arg{measured.StringArg("plain ☃"), measured.IntArg(12)}},
		measured.Request{Method: id, Generator: over, Args: []measured.Arg{measured.IntArg(9)}},
		measured.Request{Method: id, Generator: gen, Args: append([]measured.Arg{measured.StringArg("s"), measured.IntArg(3000000000)}, cases[0].args[2:]...)},
		measured.Request{Method: id, Generator: gen, Args: append([]measured.Arg{measured.IntArg(1), measured.IntArg(1)}, cases[0].args[2:]...)},
	)
	wants := []string{cases[0].want, cases[1].want, cases[2].want,
		"args: " + jstr("String", "loop, \"one\"") + " Long=-9",
		"args: " + jstr("String", "loop two") + " Long=4611686018427387904",
		"args: " + jstr("String", "plain ☃") + " Integer=12",
		"over(Object) args: Integer=9",
	}
	badInt := "generator a.A#gen(java.lang.String,int,long,java.lang.Object,java.lang.Integer,short,double,java.lang.CharSequence,java.lang.Object), argument 2: argument 3000000000 does not fit in int"
	badString := "argument 1: integer argument 1 cannot be passed as java.lang.String"

	var mu sync.Mutex
	started := map[string]bool{}
	runs := harnessJavacRuns.Load()
	results, err := Measure(context.Background(), b, reqs, argsOptions(), func(e Event) {
		mu.Lock()
		defer mu.Unlock()
		if !e.Done {
			started[e.Request.Key()] = true
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := harnessJavacRuns.Load() - runs; n != 1 {
		t.Errorf("%d javac runs for one Measure, want 1", n)
	}
	for i, want := range wants {
		if out := outputOf(t, reqs[i].Key(), results[i]); !strings.Contains(out, want+"\n") {
			t.Errorf("%s printed %q, want the line %q", reqs[i].Key(), out, want)
		}
	}
	for i, want := range []string{badInt, badString} {
		r := results[len(wants)+i]
		if r.Err == nil || !strings.Contains(r.Err.Error(), want) {
			t.Errorf("Err = %v, want %q", r.Err, want)
		}
		if started[r.Request.Key()] {
			t.Errorf("a fork was started for %s, whose arguments do not fit", r.Request.Key())
		}
	}
}

// TestHarnessSharedAcrossArguments: prepareHarnesses generates one class per
// method and generator, whatever the arguments.
func TestHarnessSharedAcrossArguments(t *testing.T) {
	b := argsBuild(t)
	rs := resolveAll(t, b, "a.A#id", "a.A#gen", "a.A#loop")
	id, gen, loop := rs[0], rs[1], rs[2]
	cases := genCases()
	reqs := []measured.Request{
		{Method: id, Generator: gen, Args: cases[0].args},
		{Method: loop, Args: []measured.Arg{measured.StringArg("x"), measured.IntArg(1)}},
		{Method: id, Generator: gen, Args: cases[1].args},
		{Method: loop, Args: []measured.Arg{measured.StringArg("y"), measured.IntArg(2)}},
	}
	ctx := context.Background()
	j, err := findJDK(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := runtimeClasspath(ctx, j, b)
	if err != nil {
		t.Fatal(err)
	}
	hs, err := prepareHarnesses(ctx, j, 0, b, cp, reqs)
	if err != nil {
		t.Fatal(err)
	}
	defer hs.cleanup()
	for i, e := range hs.errs {
		if e != nil {
			t.Fatalf("request %d: %v", i, e)
		}
	}
	if hs.mains[0] != hs.mains[2] || hs.mains[1] != hs.mains[3] || hs.mains[0] == hs.mains[1] {
		t.Errorf("harness classes %q: want one for the generator's requests and one for the loop's", hs.mains)
	}
	if strings.Join(hs.args[1], " ") != "arg.0=s:eA== arg.1=i:1" || strings.Join(hs.args[3], " ") != "arg.0=s:eQ== arg.1=i:2" {
		t.Errorf("loop program arguments %q, %q", hs.args[1], hs.args[3])
	}
	// Each class has its cache directory, its source kept next to its classes.
	var srcs []string
	for _, i := range []int{0, 1} {
		got, _ := filepath.Glob(filepath.Join(filepath.Dir(hs.classes[i]), "src", "a", "*.java"))
		srcs = append(srcs, got...)
	}
	if hs.classes[0] != hs.classes[2] || hs.classes[0] == hs.classes[1] {
		t.Errorf("class directories %q: want one per harness class", hs.classes)
	}
	if len(srcs) != 2 {
		t.Errorf("harness sources %q, want 2", srcs)
	}
	for _, p := range srcs {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), "1099511627776") || strings.Contains(string(data), `"x"`) {
			t.Errorf("%s holds an argument value:\n%s", p, data)
		}
	}
}

// TestNewArgumentValueRunsNoJavac: once a method's harness is compiled,
// measuring it with other argument values, forked or in the warm worker,
// compiles nothing.
func TestNewArgumentValueRunsNoJavac(t *testing.T) {
	b := argsBuild(t)
	rs := resolveAll(t, b, "a.A#id", "a.A#gen")
	cases := genCases()
	req := func(c genCase) measured.Request {
		return measured.Request{Method: rs[0], Generator: rs[1], Args: c.args}
	}
	ctx := context.Background()
	res, err := Measure(ctx, b, []measured.Request{req(cases[0])}, argsOptions(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if out := outputOf(t, "first", res[0]); !strings.Contains(out, cases[0].want) {
		t.Errorf("first measurement printed %q, want %q", out, cases[0].want)
	}

	runs := harnessJavacRuns.Load()
	res, err = Measure(ctx, b, []measured.Request{req(cases[1])}, argsOptions(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if out := outputOf(t, "second", res[0]); !strings.Contains(out, cases[1].want) {
		t.Errorf("second measurement printed %q, want %q", out, cases[1].want)
	}
	if n := harnessJavacRuns.Load() - runs; n != 0 {
		t.Errorf("measuring with another argument value ran javac %d time(s)", n)
	}

	w := NewWorker(ctx)
	defer w.Close()
	quick, err := w.Measure(ctx, b, req(cases[2]), argsOptions())
	if err != nil {
		t.Fatal(err)
	}
	if out := outputOf(t, "quick", quick); !strings.Contains(out, cases[2].want) {
		t.Errorf("the worker's measurement printed %q, want %q", out, cases[2].want)
	}
	if n := harnessJavacRuns.Load() - runs; n != 0 {
		t.Errorf("the quick phase with another argument value ran javac %d time(s)", n)
	}
}
