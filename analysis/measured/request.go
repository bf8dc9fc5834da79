package measured

import (
	"strconv"
	"strings"
)

// SPLControllerClass is the class of a workload loop's first parameter
// (Resolved.IsLoop).
const SPLControllerClass = "dev.perfls.SPLController"

// Arg is one argument of a generator (or of a workload loop, or of a method
// measured without a generator): an integer or a string.
type Arg struct {
	Int      int64
	Str      string
	IsString bool
}

// IntArg and StringArg build Args.
func IntArg(v int64) Arg     { return Arg{Int: v} }
func StringArg(s string) Arg { return Arg{Str: s, IsString: true} }

func (a Arg) String() string {
	if a.IsString {
		return strconv.Quote(a.Str)
	}
	return strconv.FormatInt(a.Int, 10)
}

// Resolved is a method as measure.Resolve found it in the compiled classes.
type Resolved struct {
	Class      string   // binary name of the class named by the spec ("a.Outer$Inner")
	Name       string   // method name
	Static     bool     // static method
	ParamTypes []string // canonical Java source names: "int[]", "java.lang.String", "a.Outer.Inner"
	ReturnType string   // "void", "int", "java.lang.Object", ...
	// DeclaringClass is the binary name of the class declaring the method
	// (a superclass of Class for an inherited method).
	DeclaringClass string
}

func (r Resolved) String() string {
	return r.Class + "#" + r.Name + "(" + strings.Join(r.ParamTypes, ",") + ")"
}

// IsLoop tells a workload loop: its first parameter is the SPLController
// that drives it.
func (r Resolved) IsLoop() bool {
	return len(r.ParamTypes) > 0 && r.ParamTypes[0] == SPLControllerClass
}

// IsZero reports whether r names no method.
func (r Resolved) IsZero() bool { return r.Class == "" && r.Name == "" }

// Request is one thing to measure.
//
//   - With a Generator: the generator is a static method returning an
//     Iterable<Object[]> (or an Iterator, an Object[][] or a Stream of
//     Object[]); each Object[] holds one call's arguments, with the receiver
//     first for an instance method. Args are the generator's arguments
//     (integers for int/long/short/byte/double/float and their wrappers,
//     strings for String).
//   - Without a Generator, when the method's first parameter is
//     dev.perfls.SPLController: a workload loop, called once with the
//     controller and Args.
//   - Without a Generator otherwise: a static method called with Args.
type Request struct {
	Method    Resolved
	Generator Resolved
	Args      []Arg
}

// Key is a stable identity of the request, e.g.
// "quickstart.Search#linearSearch(int[],int)[quickstart.Data#sorted(int)](1000)".
func (r Request) Key() string {
	var b strings.Builder
	b.WriteString(r.Method.String())
	if !r.Generator.IsZero() {
		b.WriteString("[" + r.Generator.String() + "]")
	}
	b.WriteByte('(')
	for i, a := range r.Args {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(a.String())
	}
	b.WriteByte(')')
	return b.String()
}

// Result is the outcome of one request. Err is set when the request could not
// be measured (its harness did not compile, or a fork failed; a *WorkloadError
// then); Forks holds the forks that completed before.
type Result struct {
	Request Request
	Forks   []Fork
	Env     Environment
	Err     error
	// Preliminary marks a quick-phase result (Worker.Measure): one warm JVM,
	// short warm-up, few samples.
	Preliminary bool
}
