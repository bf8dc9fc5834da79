package classfile

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// dropPerfls is the drop rule of the tests: annotations named like
// perfls's, whatever their package.
func dropPerfls(desc string) bool {
	name := strings.TrimSuffix(strings.TrimPrefix(desc, "L"), ";")
	name = name[strings.LastIndexAny(name, "/$")+1:]
	switch name {
	case "SPL", "SPLs", "Workload", "Workloads", "Generator", "Param", "ParamNum", "ParamDesc", "SeeAlso":
		return true
	}
	return false
}

// annotationTypes are perfls-like annotations in a package of their own
// (matched by simple name), one of them kept in the class file only
// (RuntimeInvisibleAnnotations), and Tag, an annotation of another tool.
var annotationTypes = map[string]string{
	"ann/SPL.java": `package ann; import java.lang.annotation.*;
		@Retention(RetentionPolicy.RUNTIME) @Repeatable(SPLs.class) public @interface SPL { String[] value(); }`,
	"ann/SPLs.java":      `package ann; import java.lang.annotation.*; @Retention(RetentionPolicy.RUNTIME) public @interface SPLs { SPL[] value(); }`,
	"ann/Workload.java":  `package ann; import java.lang.annotation.*; @Retention(RetentionPolicy.RUNTIME) public @interface Workload { String value(); }`,
	"ann/Generator.java": `package ann; import java.lang.annotation.*; @Retention(RetentionPolicy.RUNTIME) public @interface Generator { String value(); }`,
	"ann/SeeAlso.java":   `package ann; import java.lang.annotation.*; @Retention(RetentionPolicy.CLASS) public @interface SeeAlso { String[] value(); }`,
	"ann/Param.java": `package ann; import java.lang.annotation.*;
		@Retention(RetentionPolicy.RUNTIME) public @interface Param { String value() default ""; double min() default 0; double max() default 1e9; }`,
	"ann/Tag.java": `package ann; import java.lang.annotation.*; @Retention(RetentionPolicy.RUNTIME) public @interface Tag { String value(); }`,
}

// measured is a class as perfls users write them: formulas, a workload
// binding, a documented generator, other annotations and code constants.
const measured = `package PKG;
import ann.*;
@Tag("class")
public class A {
	static final int LIMIT = 7;
	@SPL("A#f <= 1.2 * A#g")
	@SeeAlso("A#g")
	@Tag("kept")
	public static int f(int n) {
		int s = 0;
		for (int i = 0; i < n; i++) s += "abc".length() * LIMIT;
		return s;
	}
	@Workload("A#gen")
	public static int g(int n) { return n * 2; }
	@Generator("inputs")
	public static Iterable<Object[]> gen(@Param(value = "n", min = 1, max = 100) int n) {
		return java.util.List.of(new Object[][] {{n}});
	}
}
`

func TestCanonicalFormIgnoresDroppedAnnotationsOnly(t *testing.T) {
	edits := []struct {
		name     string
		old, new string
		same     bool
	}{
		{"unchanged", "", "", true},
		{"formula text", "1.2 *", "1.3 *", true},
		{"a second formula on its own line", `@SPL("A#f <= 1.2 * A#g")`, "@SPL(\"A#f <= 1.2 * A#g\")\n\t@SPL(\"A#g <= A#f\")", true},
		{"a first formula on another method", `@Workload("A#gen")`, `@SPL("A#g <= A#f") @Workload("A#gen")`, true},
		{"workload text", `@Workload("A#gen")`, `@Workload("A#gen(int)")`, true},
		{"param min", "min = 1,", "min = 2,", true},
		{"generator description", `"inputs"`, `"sizes"`, true},
		{"see-also (class retention)", `@SeeAlso("A#g")`, `@SeeAlso({"A#g", "A#gen"})`, true},
		{"method body", "n * 2", "n * 3", false},
		{"string constant of the code", `"abc"`, `"abcd"`, false},
		{"int constant inlined in the code", "LIMIT = 7", "LIMIT = 8", false},
		{"another tool's annotation on a method", `@Tag("kept")`, `@Tag("changed")`, false},
		{"another tool's annotation on the class", `@Tag("class")`, `@Tag("klass")`, false},
		{"generator body", "{{n}}", "{{n + 1}}", false},
	}
	// One javac run: each edit in a package of its own, v00, v01, …; the
	// package is renamed back to v00 in the bytes (same length) to compare.
	sources := map[string]string{}
	for path, src := range annotationTypes {
		sources[path] = src
	}
	for i, e := range edits {
		src := measured
		if e.old != "" {
			if !strings.Contains(src, e.old) {
				t.Fatalf("%s: %q not in the source", e.name, e.old)
			}
			src = strings.Replace(src, e.old, e.new, 1)
		}
		sources[fmt.Sprintf("v%02d/A.java", i)] = strings.Replace(src, "PKG", fmt.Sprintf("v%02d", i), 1)
	}
	classes := compile(t, sources)
	form := func(i int, drop func(string) bool) Canonical {
		t.Helper()
		data := bytes.ReplaceAll(classes[fmt.Sprintf("v%02d.A", i)], []byte(fmt.Sprintf("v%02d/", i)), []byte("v00/"))
		c, err := CanonicalForm(data, drop)
		if err != nil || c.Opaque != "" {
			t.Fatalf("%s: %v %q", edits[i].name, err, c.Opaque)
		}
		return c
	}
	base := form(0, dropPerfls)
	for i, e := range edits {
		got := form(i, dropPerfls)
		if same := bytes.Equal(got.Form, base.Form); same != e.same {
			t.Errorf("%s: same form = %v, want %v", e.name, same, e.same)
		}
		if e.name == "formula text" && bytes.Equal(form(i, nil).Form, form(0, nil).Form) {
			t.Errorf("%s: without a drop rule the annotation counts, yet the forms are equal", e.name)
		}
	}
	for _, want := range []string{"ann.Tag", "java.lang.String", "java.util.List", "java.lang.Iterable"} {
		if !slices.Contains(base.Classes, want) {
			t.Errorf("classes %v lack %s", base.Classes, want)
		}
	}
	for _, dropped := range []string{"ann.SPL", "ann.Workload", "ann.Param", "ann.SeeAlso", "ann.Generator"} {
		if slices.Contains(base.Classes, dropped) {
			t.Errorf("classes %v name %s, which only a dropped annotation uses", base.Classes, dropped)
		}
	}
}

// kitchenSink uses every construct javac turns into an attribute, an
// operand or a constant kind: none may leave the class file opaque.
func kitchenSink() string {
	var consts, locals, sum strings.Builder
	for i := 0; i < 300; i++ { // past 255 constants (ldc_w) and 255 locals (wide)
		fmt.Fprintf(&consts, "\"c%d\", ", i)
		fmt.Fprintf(&locals, "int a%d = n + %d; ", i, i)
		fmt.Fprintf(&sum, " + a%d", i)
	}
	return `package k;
import java.lang.annotation.*;
import java.util.*;
import java.util.function.*;
@Retention(RetentionPolicy.RUNTIME) @Target({ElementType.TYPE_USE, ElementType.TYPE_PARAMETER}) @interface TypeTag { String value() default "x"; int[] ints() default {1, 2}; Class<?> type() default Object.class; ElementType kind() default ElementType.FIELD; }
@Retention(RetentionPolicy.CLASS) @interface Meta { TypeTag nested() default @TypeTag; }
sealed interface Shape permits Circle, Square { double area(); default String describe() { return "shape " + area(); } static Shape unit() { return new Square(1); } }
record Circle(@TypeTag double r) implements Shape { public double area() { return Math.PI * r * r; } }
record Square(double side) implements Shape { public double area() { return side * side; } }
enum Color { RED, GREEN, BLUE }
@Meta
public class Sink<@TypeTag T extends Comparable<T>> implements Comparator<T> {
	static final long BIG = 1234567890123L;
	static final double RATE = 2.5;
	static final String[] NAMES = {` + consts.String() + `};
	private @TypeTag("field") List<T> items = new ArrayList<>();
	volatile int counter;
	public int compare(T a, T b) { return a.compareTo(b); }
	public int wide(int n) { ` + locals.String() + ` return 0` + sum.String() + `; }
	public synchronized long mix(int n, Color c) throws java.io.IOException {
		long s = BIG;
		switch (n) { case 0: s += 1; break; case 1: s += 2; break; case 2: s += 3; break; case 3: s -= 4; break; }
		switch (n) { case 10: s += 1; break; case 1000: s += 2; break; case 100000: s += 3; break; }
		switch (c) { case RED: s++; break; case GREEN: s--; break; default: s = -s; }
		int[][] grid = new int[n][3];
		Object o = grid;
		if (o instanceof int[][] g2 && g2.length > 0) s += g2[0].length;
		try { s += Long.parseLong("" + n); } catch (NumberFormatException e) { throw new java.io.IOException(e); } finally { counter++; }
		@TypeTag("local") String local = "v" + n + RATE;
		Function<String, Integer> f = String::length;
		Supplier<Integer> g = () -> local.length() + counter;
		Runnable r = new Runnable() { public void run() { counter += f.apply(local); } };
		class Local { int twice() { return g.get() * 2; } }
		r.run();
		synchronized (this) { s += new Local().twice(); }
		for (Shape sh : List.of(new Circle(RATE), Shape.unit())) s += (long) sh.area();
		return s + items.size() + NAMES.length;
	}
	static class Nested { private int secret = 3; }
	int peek() { return new Nested().secret; }
}
`
}

func TestCanonicalFormReadsAllOfJavac(t *testing.T) {
	classes := compile(t, map[string]string{"k/Sink.java": kitchenSink()}, "-g")
	if len(classes) < 8 {
		t.Fatalf("javac gave %d classes", len(classes))
	}
	for name, data := range classes {
		c, err := CanonicalForm(data, dropPerfls)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if c.Opaque != "" {
			t.Errorf("%s: opaque: %s", name, c.Opaque)
		}
		if bytes.Equal(c.Form, data) {
			t.Errorf("%s: the form is the file", name)
		}
	}
	c, _ := CanonicalForm(classes["k.Sink"], dropPerfls)
	for _, want := range []string{"k.Sink$Nested", "k.Circle", "k.Shape", "k.Color", "k.TypeTag", "java.lang.NumberFormatException", "java.io.IOException"} {
		if !slices.Contains(c.Classes, want) {
			t.Errorf("classes of k.Sink lack %s: %v", want, c.Classes)
		}
	}
}

// pooled builds `class a/B { static Object m() { return "hello"; } }` with
// its constant pool in the order given (a permutation of poolEntries).
func pooled(order []int) []byte {
	type entry struct {
		tag  uint8
		text string
		ref  int // index into poolEntries of what it names
	}
	entries := []entry{{tagUtf8, "a/B", 0}, {tagClass, "", 0}, {tagUtf8, "java/lang/Object", 0}, {tagClass, "", 2},
		{tagUtf8, "m", 0}, {tagUtf8, "()Ljava/lang/Object;", 0}, {tagUtf8, "Code", 0}, {tagUtf8, "hello", 0}, {tagString, "", 7}}
	at := make([]uint16, len(entries)) // pool index of each entry
	for pos, e := range order {
		at[e] = uint16(pos + 1)
	}
	var b bytes.Buffer
	w := func(v any) { binary.Write(&b, binary.BigEndian, v) }
	w(uint32(0xCAFEBABE))
	w(uint32(52))
	w(uint16(len(entries) + 1))
	for _, e := range order {
		w(entries[e].tag)
		if entries[e].tag == tagUtf8 {
			w(uint16(len(entries[e].text)))
			b.WriteString(entries[e].text)
		} else {
			w(at[entries[e].ref])
		}
	}
	w(uint16(AccPublic))
	w(at[1])
	w(at[3])
	w(uint16(0)) // interfaces
	w(uint16(0)) // fields
	w(uint16(1)) // methods
	w(uint16(AccStatic))
	w(at[4])
	w(at[5])
	w(uint16(1)) // Code
	w(at[6])
	w(uint32(2 + 2 + 4 + 3 + 2 + 2))
	w(uint16(1)) // max_stack
	w(uint16(0)) // max_locals
	w(uint32(3))
	w([]byte{0x12, byte(at[8]), 0xb0}) // ldc "hello"; areturn
	w(uint16(0))                       // exception table
	w(uint16(0))                       // attributes
	w(uint16(0))                       // class attributes
	return b.Bytes()
}

func TestCanonicalFormIgnoresPoolOrder(t *testing.T) {
	a, err := CanonicalForm(pooled([]int{0, 1, 2, 3, 4, 5, 6, 7, 8}), nil)
	if err != nil || a.Opaque != "" {
		t.Fatal(err, a.Opaque)
	}
	b, err := CanonicalForm(pooled([]int{8, 7, 6, 5, 4, 3, 2, 1, 0}), nil)
	if err != nil || b.Opaque != "" {
		t.Fatal(err, b.Opaque)
	}
	if !bytes.Equal(a.Form, b.Form) {
		t.Errorf("the same class with its pool in another order has another form")
	}
	if !slices.Contains(a.Classes, "a.B") || !slices.Contains(a.Classes, "java.lang.Object") {
		t.Errorf("classes %v", a.Classes)
	}
}

func TestCanonicalFormOpaqueWhenUnknown(t *testing.T) {
	// An attribute of another tool: its constants are unknown, so the
	// file counts whole.
	data := minimalClass()
	// The minimal class's last attribute is SourceFile (name #7, value #8);
	// rename it to a name that is in the pool but is no attribute.
	unknown := bytes.Replace(data, []byte{0, 1, 0, 7, 0, 0, 0, 2, 0, 8}, []byte{0, 1, 0, 5, 0, 0, 0, 2, 0, 8}, 1)
	if bytes.Equal(unknown, data) {
		t.Fatal("test set-up: attribute not found")
	}
	c, err := CanonicalForm(unknown, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Opaque == "" || !bytes.Equal(c.Form, unknown) {
		t.Errorf("opaque %q, form is the file: %v", c.Opaque, bytes.Equal(c.Form, unknown))
	}
	if !slices.Contains(c.Classes, "java.lang.Object") {
		t.Errorf("classes of an opaque file: %v", c.Classes)
	}
	// Bytecode with an opcode that does not exist.
	bad := pooled([]int{0, 1, 2, 3, 4, 5, 6, 7, 8})
	bad[bytes.LastIndex(bad, []byte{0xb0})] = 0xee
	if c, err := CanonicalForm(bad, nil); err != nil || !strings.Contains(c.Opaque, "opcode 0xee") {
		t.Errorf("unknown opcode: %v %q", err, c.Opaque)
	}
	if _, err := CanonicalForm([]byte("PK\x03\x04"), nil); err != ErrNotClass {
		t.Errorf("zip bytes: %v", err)
	}
	good := minimalClass()
	for n := 0; n < len(good); n++ {
		if c, err := CanonicalForm(good[:n], nil); err == nil && c.Opaque == "" {
			t.Errorf("truncated at %d: neither an error nor opaque", n)
		}
	}
}

// FuzzCanonicalForm: damaged bytes are an error or an opaque form, never
// a panic.
func FuzzCanonicalForm(f *testing.F) {
	f.Add(minimalClass())
	f.Add(pooled([]int{0, 1, 2, 3, 4, 5, 6, 7, 8}))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := CanonicalForm(data, dropPerfls)
		if err == nil && len(c.Form) == 0 {
			t.Error("empty form")
		}
	})
}
