package measure

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The generated harness (one class per distinct Request) extends
// dev.perfls.internal.Bench, which drives warm-up, sampling and reporting.
// The class only holds what must be typed: the generator call, the
// extraction of typed per-call arguments (before timing) and the timed loop
// with direct calls. Its locals and fields start with '$' so that they never
// obscure a package name used in a qualified type name.

const splControllerClass = "dev.perfls.SPLController"

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
func harnessPackage(b *Build, req Request) string {
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

// javaStringLiteral quotes s as a Java string literal. Non-ASCII text is kept
// as is (sources are compiled as UTF-8); controls use octal escapes, which
// unlike \u escapes are not translated before lexing.
func javaStringLiteral(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\%03o`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// argLiteral renders one generator (or workload) argument as a Java
// expression of the parameter type typ.
func argLiteral(a Arg, typ string) (string, error) {
	if a.IsString {
		switch typ {
		case "java.lang.String", "java.lang.CharSequence", "java.lang.Object":
			return javaStringLiteral(a.Str), nil
		}
		return "", fmt.Errorf("string argument %s cannot be passed as %s", strconv.Quote(a.Str), typ)
	}
	v := a.Int
	n := strconv.FormatInt(v, 10) // -2147483648 and -9223372036854775808L are valid Java
	check := func(lo, hi int64, lit string) (string, error) {
		if v < lo || v > hi {
			return "", fmt.Errorf("argument %d does not fit in %s", v, typ)
		}
		return lit, nil
	}
	switch typ {
	case "int":
		return check(math.MinInt32, math.MaxInt32, n)
	case "java.lang.Integer":
		return check(math.MinInt32, math.MaxInt32, "java.lang.Integer.valueOf("+n+")")
	case "long":
		return n + "L", nil
	case "java.lang.Long":
		return "java.lang.Long.valueOf(" + n + "L)", nil
	case "short":
		return check(math.MinInt16, math.MaxInt16, "(short) "+n)
	case "java.lang.Short":
		return check(math.MinInt16, math.MaxInt16, "java.lang.Short.valueOf((short) "+n+")")
	case "byte":
		return check(math.MinInt8, math.MaxInt8, "(byte) "+n)
	case "java.lang.Byte":
		return check(math.MinInt8, math.MaxInt8, "java.lang.Byte.valueOf((byte) "+n+")")
	case "double":
		return check(-(1 << 53), 1<<53, n+".0")
	case "java.lang.Double":
		return check(-(1 << 53), 1<<53, "java.lang.Double.valueOf("+n+".0)")
	case "float":
		return check(-(1 << 24), 1<<24, n+".0f")
	case "java.lang.Float":
		return check(-(1 << 24), 1<<24, "java.lang.Float.valueOf("+n+".0f)")
	case "java.lang.Object", "java.lang.Number":
		if v >= math.MinInt32 && v <= math.MaxInt32 {
			return "java.lang.Integer.valueOf(" + n + ")", nil
		}
		return "java.lang.Long.valueOf(" + n + "L)", nil
	}
	return "", fmt.Errorf("integer argument %d cannot be passed as %s", v, typ)
}

// argList renders args for the parameter types params.
func argList(what string, args []Arg, params []string) (string, error) {
	if len(args) != len(params) {
		return "", fmt.Errorf("%s takes %d argument(s) (%s), got %d", what, len(params), strings.Join(params, ","), len(args))
	}
	out := make([]string, len(args))
	for i, a := range args {
		lit, err := argLiteral(a, params[i])
		if err != nil {
			return "", fmt.Errorf("%s, argument %d: %w", what, i+1, err)
		}
		out[i] = lit
	}
	return strings.Join(out, ", "), nil
}

// harnessSource generates the Java source of the harness class pkg.name for
// req.
func harnessSource(pkg, name string, req Request) (string, error) {
	m := req.Method
	if m.IsZero() {
		return "", fmt.Errorf("no method to measure")
	}
	var b strings.Builder
	b.WriteString("// Generated by perfls for " + strings.ReplaceAll(req.Key(), "\n", " ") + ". Do not edit.\n")
	if pkg != "" {
		b.WriteString("package " + pkg + ";\n")
	}
	b.WriteString("\n@SuppressWarnings({\"unchecked\", \"rawtypes\", \"deprecation\", \"removal\"})\n")
	fmt.Fprintf(&b, "public final class %s extends dev.perfls.internal.Bench {\n", name)
	owner := sourceClassName(m.Class)

	workloadLoop := req.Generator.IsZero() && len(m.ParamTypes) > 0 && m.ParamTypes[0] == splControllerClass
	switch {
	case workloadLoop:
		args, err := argList("workload "+m.String(), req.Args, m.ParamTypes[1:])
		if err != nil {
			return "", err
		}
		if args != "" {
			args = ", " + args
		}
		target := owner
		if !m.Static {
			target = "new " + owner + "()"
		}
		b.WriteString("    @Override protected boolean workloadLoop() { return true; }\n\n")
		b.WriteString("    @Override protected void workload(dev.perfls.SPLController $spl) throws Throwable {\n")
		fmt.Fprintf(&b, "        %s.%s($spl%s);\n", target, m.Name, args)
		b.WriteString("    }\n")
	default:
		if err := writeGenerate(&b, req); err != nil {
			return "", err
		}
		if err := writeCalls(&b, m, owner); err != nil {
			return "", err
		}
	}
	fmt.Fprintf(&b, "\n    public static void main(String[] args) {\n        dev.perfls.internal.Bench.main(new %s(), args);\n    }\n}\n", name)
	return b.String(), nil
}

// writeGenerate writes generate(): the generator call, or, without a
// generator, a single call whose arguments are the request's Args.
func writeGenerate(b *strings.Builder, req Request) error {
	m, g := req.Method, req.Generator
	b.WriteString("    @Override protected Object generate() throws Throwable {\n")
	if g.IsZero() {
		if !m.Static {
			return fmt.Errorf("instance method %s needs a generator that supplies the receiver as args[0]", m)
		}
		args, err := argList("method "+m.String(), req.Args, m.ParamTypes)
		if err != nil {
			return err
		}
		fmt.Fprintf(b, "        return java.util.Collections.singletonList(new Object[] {%s});\n", args)
	} else {
		if !g.Static {
			return fmt.Errorf("generator %s must be static", g)
		}
		if _, prim := javaPrimitives[g.ReturnType]; prim || g.ReturnType == "void" {
			return fmt.Errorf("generator %s returns %s; it must return an Iterable<Object[]>", g, g.ReturnType)
		}
		args, err := argList("generator "+g.String(), req.Args, g.ParamTypes)
		if err != nil {
			return err
		}
		fmt.Fprintf(b, "        return %s.%s(%s);\n", sourceClassName(g.Class), g.Name, args)
	}
	b.WriteString("    }\n\n")
	return nil
}

// writeCalls writes the typed argument fields, prepare() and the timed run().
func writeCalls(b *strings.Builder, m Resolved, owner string) error {
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
	var args []string
	for i := range m.ParamTypes {
		args = append(args, fmt.Sprintf("$p%d[$i]", i))
	}
	target := owner
	if !m.Static {
		target = "$r[$i]"
	}
	call := fmt.Sprintf("%s.%s(%s)", target, m.Name, strings.Join(args, ", "))
	if m.ReturnType != "void" {
		call = "$bh.consume(" + call + ")"
	} else {
		call += ";\n                $bh.step()"
	}
	b.WriteString("        for (long $pass = 0; $pass < $passes; $pass++) {\n")
	b.WriteString("            for (int $i = 0; $i < $k; $i++) {\n")
	fmt.Fprintf(b, "                %s;\n", call)
	b.WriteString("            }\n        }\n    }\n")
	return nil
}
