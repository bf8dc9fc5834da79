package measure

import (
	"encoding/base64"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/perfls/perfls/analysis/measured"
)

// The generated harness (one class per distinct method and generator)
// extends dev.perfls.internal.Bench, which drives warm-up, sampling and
// reporting. The class only holds what must be typed: the generator call,
// the extraction of typed per-call arguments (before timing) and the timed
// loop with direct calls. The request's argument values are not in it: they
// are program arguments, read and converted by generate() or workload(). Its
// locals and fields start with '$' so that they never obscure a package name
// used in a qualified type name.

const splControllerClass = measured.SPLControllerClass

var javaPrimitives = map[string]string{
	"boolean": "Boolean", "byte": "Byte", "char": "Char", "short": "Short",
	"int": "Int", "long": "Long", "float": "Float", "double": "Double",
}

// sourceClassName turns a binary class name into a source name
// ("a.Outer$Inner" → "a.Outer.Inner"); classes whose own names contain '$'
// are not supported.
func sourceClassName(binary string) string { return strings.ReplaceAll(binary, "$", ".") }

// packageOf returns the package of a binary class name ("" for the default package).
func packageOf(binary string) string {
	if i := strings.LastIndexByte(binary, '.'); i >= 0 {
		return binary[:i]
	}
	return ""
}

// harnessPackage chooses the package of a request's harness. The harness goes
// in the measured class's package when that class was compiled from the
// project, so that package-private methods can be measured; otherwise (JDK
// and library classes, classes in the default package) in the default
// package. A generator in the default package forces the default package.
func harnessPackage(b *Build, req measured.Request) string {
	pkg := packageOf(req.Method.Class)
	if pkg == "" || b == nil || (b.ClassesDir == "" && len(b.ClassDirs) == 0) {
		return ""
	}
	if !req.Generator.IsZero() && packageOf(req.Generator.Class) == "" {
		return ""
	}
	top := req.Method.Class
	if i := strings.IndexByte(top[len(pkg)+1:], '$'); i >= 0 {
		top = top[:len(pkg)+1+i]
	}
	rel := filepath.FromSlash(strings.ReplaceAll(top, ".", "/")) + ".class"
	for _, d := range append([]string{b.ClassesDir}, b.ClassDirs...) {
		if d == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(d, rel)); err == nil {
			return pkg
		}
	}
	return ""
}

// typeParts splits "int[][]" into "int" and 2.
func typeParts(t string) (string, int) {
	dims := 0
	for strings.HasSuffix(t, "[]") {
		t = t[:len(t)-2]
		dims++
	}
	return t, dims
}

// argValue checks that a (a generator, workload or method argument) can be
// passed as the parameter type typ and encodes it for the harness's command
// line: "i:<decimal>" or "s:<base64 of UTF-8>" (see Options.java). The value
// travels at run time so that the harness's source, and so its compiled
// class, do not depend on it; base64 keeps commas, quotes, newlines and
// non-ASCII text intact whatever the platform's argument encoding.
func argValue(a measured.Arg, typ string) (string, error) {
	if a.IsString {
		switch typ {
		case "java.lang.String", "java.lang.CharSequence", "java.lang.Object":
			return "s:" + base64.StdEncoding.EncodeToString([]byte(a.Str)), nil
		}
		return "", fmt.Errorf("string argument %s cannot be passed as %s", strconv.Quote(a.Str), typ)
	}
	v := a.Int
	enc := "i:" + strconv.FormatInt(v, 10)
	check := func(lo, hi int64) (string, error) {
		if v < lo || v > hi {
			return "", fmt.Errorf("argument %d does not fit in %s", v, typ)
		}
		return enc, nil
	}
	switch typ {
	case "int", "java.lang.Integer":
		return check(math.MinInt32, math.MaxInt32)
	case "long", "java.lang.Long", "java.lang.Object", "java.lang.Number":
		return enc, nil
	case "short", "java.lang.Short":
		return check(math.MinInt16, math.MaxInt16)
	case "byte", "java.lang.Byte":
		return check(math.MinInt8, math.MaxInt8)
	case "double", "java.lang.Double": // integers a double holds exactly
		return check(-(1 << 53), 1<<53)
	case "float", "java.lang.Float":
		return check(-(1 << 24), 1<<24)
	}
	return "", fmt.Errorf("integer argument %d cannot be passed as %s", v, typ)
}

// argExprs maps a parameter type that argValue accepts to the Java
// expression, of exactly that type (so that overload resolution picks the
// resolved method), that reads request argument %d through Bench's accessors.
var argExprs = map[string]string{
	"int":                    "intArg(%d)",
	"java.lang.Integer":      "java.lang.Integer.valueOf(intArg(%d))",
	"long":                   "longArg(%d)",
	"java.lang.Long":         "java.lang.Long.valueOf(longArg(%d))",
	"short":                  "shortArg(%d)",
	"java.lang.Short":        "java.lang.Short.valueOf(shortArg(%d))",
	"byte":                   "byteArg(%d)",
	"java.lang.Byte":         "java.lang.Byte.valueOf(byteArg(%d))",
	"double":                 "doubleArg(%d)",
	"java.lang.Double":       "java.lang.Double.valueOf(doubleArg(%d))",
	"float":                  "floatArg(%d)",
	"java.lang.Float":        "java.lang.Float.valueOf(floatArg(%d))",
	"java.lang.Object":       "objectArg(%d)",
	"java.lang.Number":       "((java.lang.Number) objectArg(%d))",
	"java.lang.String":       "stringArg(%d)",
	"java.lang.CharSequence": "((java.lang.CharSequence) stringArg(%d))",
}

// bindArgs checks args against the parameter types params and returns the
// Java expressions that read them in the harness and the harness's program
// arguments that carry their values.
func bindArgs(what string, args []measured.Arg, params []string) (exprs, argv []string, err error) {
	if len(args) != len(params) {
		return nil, nil, fmt.Errorf("%s takes %d argument(s) (%s), got %d", what, len(params), strings.Join(params, ","), len(args))
	}
	for i, a := range args {
		v, err := argValue(a, params[i])
		if err != nil {
			return nil, nil, fmt.Errorf("%s, argument %d: %w", what, i+1, err)
		}
		expr, ok := argExprs[params[i]]
		if !ok { // cannot happen: argValue accepts only these types
			return nil, nil, fmt.Errorf("%s, argument %d: unsupported parameter type %s", what, i+1, params[i])
		}
		exprs = append(exprs, fmt.Sprintf(expr, i))
		argv = append(argv, "arg."+strconv.Itoa(i)+"="+v)
	}
	return exprs, argv, nil
}

// harnessSource generates the Java source of the harness class pkg.name for
// req, and the program arguments that pass req.Args to it. The source
// depends on req's method and generator only, never on the argument values,
// so that requests differing only in Args share one compiled class.
func harnessSource(pkg, name string, req measured.Request) (string, []string, error) {
	m := req.Method
	if m.IsZero() {
		return "", nil, fmt.Errorf("no method to measure")
	}
	var b strings.Builder
	what := m.String()
	if !req.Generator.IsZero() {
		what += "[" + req.Generator.String() + "]"
	}
	b.WriteString("// Generated by perfls for " + strings.ReplaceAll(what, "\n", " ") + ". Do not edit.\n")
	if pkg != "" {
		b.WriteString("package " + pkg + ";\n")
	}
	b.WriteString("\n@SuppressWarnings({\"unchecked\", \"rawtypes\", \"deprecation\", \"removal\"})\n")
	fmt.Fprintf(&b, "public final class %s extends dev.perfls.internal.Bench {\n", name)
	owner := sourceClassName(m.Class)

	var argv []string
	workloadLoop := req.Generator.IsZero() && m.IsLoop()
	switch {
	case workloadLoop:
		exprs, av, err := bindArgs("workload "+m.String(), req.Args, m.ParamTypes[1:])
		if err != nil {
			return "", nil, err
		}
		argv = av
		target := owner
		if !m.Static {
			target = "new " + owner + "()"
		}
		b.WriteString("    @Override protected boolean workloadLoop() { return true; }\n\n")
		b.WriteString("    @Override protected void workload(dev.perfls.SPLController $spl) throws Throwable {\n")
		// Typed locals first: the arguments are converted before the workload runs.
		call := "$spl"
		for i, e := range exprs {
			fmt.Fprintf(&b, "        final %s $a%d = %s;\n", m.ParamTypes[1+i], i, e)
			call += fmt.Sprintf(", $a%d", i)
		}
		fmt.Fprintf(&b, "        %s.%s(%s);\n", target, m.Name, call)
		b.WriteString("    }\n")
	default:
		av, err := writeGenerate(&b, req)
		if err != nil {
			return "", nil, err
		}
		argv = av
		if err := writeCalls(&b, m, owner); err != nil {
			return "", nil, err
		}
	}
	fmt.Fprintf(&b, "\n    public static void main(String[] args) {\n        dev.perfls.internal.Bench.main(new %s(), args);\n    }\n}\n", name)
	return b.String(), argv, nil
}

// writeGenerate writes generate(): the generator call, or, without a
// generator, a single call whose arguments are the request's Args. It
// returns the program arguments that carry the Args.
func writeGenerate(b *strings.Builder, req measured.Request) ([]string, error) {
	m, g := req.Method, req.Generator
	var exprs, argv []string
	var err error
	b.WriteString("    @Override protected Object generate() throws Throwable {\n")
	if g.IsZero() {
		if !m.Static {
			return nil, fmt.Errorf("instance method %s needs a generator that supplies the receiver as args[0] (each tuple's first element, the arguments after it): name one with --workload, or bind it with @Workload(\"pkg.Class#generator\")", m)
		}
		if exprs, argv, err = bindArgs("method "+m.String(), req.Args, m.ParamTypes); err != nil {
			return nil, err
		}
		fmt.Fprintf(b, "        return java.util.Collections.singletonList(new Object[] {%s});\n", strings.Join(exprs, ", "))
	} else {
		if !g.Static {
			return nil, fmt.Errorf("generator %s must be static", g)
		}
		if _, prim := javaPrimitives[g.ReturnType]; prim || g.ReturnType == "void" {
			return nil, fmt.Errorf("generator %s returns %s; it must return an Iterable<Object[]>", g, g.ReturnType)
		}
		if exprs, argv, err = bindArgs("generator "+g.String(), req.Args, g.ParamTypes); err != nil {
			return nil, err
		}
		fmt.Fprintf(b, "        return %s.%s(%s);\n", sourceClassName(g.Class), g.Name, strings.Join(exprs, ", "))
	}
	b.WriteString("    }\n\n")
	return argv, nil
}

// writeCalls writes the typed argument fields, prepare() and the timed run().
func writeCalls(b *strings.Builder, m measured.Resolved, owner string) error {
	type slot struct{ field, elem, conv string }
	var slots []slot
	arity := len(m.ParamTypes)
	if !m.Static {
		arity++
		slots = append(slots, slot{"$r", owner, "dev.perfls.internal.Convert.receiver($a[0], " + owner + ".class, $i)"})
	}
	for i, t := range m.ParamTypes {
		if t == "" || strings.ContainsAny(t, "<>?") {
			return fmt.Errorf("unsupported parameter type %q of %s", t, m)
		}
		el := len(slots)
		var conv string
		if p, ok := javaPrimitives[t]; ok {
			conv = fmt.Sprintf("dev.perfls.internal.Convert.to%s($a[%d], $i, %d)", p, el, el)
		} else {
			conv = fmt.Sprintf("dev.perfls.internal.Convert.ref($a[%d], %s.class, $i, %d)", el, t, el)
		}
		slots = append(slots, slot{fmt.Sprintf("$p%d", i), t, conv})
	}
	b.WriteString("    private int $k;\n")
	for _, s := range slots {
		fmt.Fprintf(b, "    private %s[] %s;\n", s.elem, s.field)
	}
	b.WriteString("\n    @Override protected void prepare(Object[][] $t) throws Throwable {\n")
	b.WriteString("        final int $k = $t.length;\n")
	for _, s := range slots {
		base, dims := typeParts(s.elem)
		fmt.Fprintf(b, "        final %s[] %s = new %s[$k]%s;\n", s.elem, s.field, base, strings.Repeat("[]", dims))
	}
	b.WriteString("        for (int $i = 0; $i < $k; $i++) {\n")
	fmt.Fprintf(b, "            final Object[] $a = dev.perfls.internal.Convert.tuple($t, $i, %d);\n", arity)
	for _, s := range slots {
		fmt.Fprintf(b, "            %s[$i] = %s;\n", s.field, s.conv)
	}
	b.WriteString("        }\n        this.$k = $k;\n")
	for _, s := range slots {
		fmt.Fprintf(b, "        this.%s = %s;\n", s.field, s.field)
	}
	b.WriteString("    }\n\n")

	b.WriteString("    @Override protected void run(long $passes, dev.perfls.internal.Blackhole $bh) throws Throwable {\n")
	b.WriteString("        final int $k = this.$k;\n")
	for _, s := range slots {
		fmt.Fprintf(b, "        final %s[] %s = this.%s;\n", s.elem, s.field, s.field)
	}
	callAt := func(index, indent string) string {
		var args []string
		for i := range m.ParamTypes {
			args = append(args, fmt.Sprintf("$p%d[%s]", i, index))
		}
		target := owner
		if !m.Static {
			target = "$r[" + index + "]"
		}
		call := fmt.Sprintf("%s.%s(%s)", target, m.Name, strings.Join(args, ", "))
		if m.ReturnType != "void" {
			return "$bh.consume(" + call + ")"
		}
		return call + ";\n" + indent + "$bh.step()"
	}
	// One call per pass (no generator, or one tuple) runs without the inner
	// loop, whose bookkeeping would be most of the cost of a tiny method.
	// The arguments are still read from their arrays on every call, after
	// the blackhole's volatile read, so the JIT cannot fold them.
	b.WriteString("        if ($k == 1) {\n")
	b.WriteString("            for (long $pass = 0; $pass < $passes; $pass++) {\n")
	fmt.Fprintf(b, "                %s;\n", callAt("0", "                "))
	b.WriteString("            }\n            return;\n        }\n")
	b.WriteString("        for (long $pass = 0; $pass < $passes; $pass++) {\n")
	b.WriteString("            for (int $i = 0; $i < $k; $i++) {\n")
	fmt.Fprintf(b, "                %s;\n", callAt("$i", "                "))
	b.WriteString("            }\n        }\n    }\n")
	return nil
}
