package classfile

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// compile compiles Java sources with javac (-parameters and flags) and
// returns the class files by binary name.
func compile(t *testing.T, sources map[string]string, flags ...string) map[string][]byte {
	t.Helper()
	if _, err := exec.LookPath("javac"); err != nil {
		t.Skip("no javac")
	}
	dir := t.TempDir()
	var files []string
	for name, src := range sources {
		p := filepath.Join(dir, "src", name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	out := filepath.Join(dir, "out")
	cmd := exec.Command("javac", append(append([]string{"-parameters", "-d", out}, flags...), files...)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, b)
	}
	classes := map[string][]byte{}
	filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".class") {
			rel, _ := filepath.Rel(out, p)
			b, _ := os.ReadFile(p)
			classes[strings.ReplaceAll(strings.TrimSuffix(filepath.ToSlash(rel), ".class"), "/", ".")] = b
		}
		return nil
	})
	return classes
}

const shapes = `package p.q;
import java.util.*;
public class Shapes<T extends Comparable<T>> implements Comparable<Shapes<T>>, java.io.Serializable {
	public static int area(int w, int h) { return w * h; }
	public <E> List<E> wrap(E e, String... more) { return null; }
	public long[][] grid(Map.Entry<String, T> e, char c) { return null; }
	private void hidden() {}
	public int compareTo(Shapes<T> o) { return 0; }
	Runnable r = new Runnable() { public void run() {} };
	public static class Inner { public void in(Inner i) {} }
	protected interface Face { double f(float x); }
	static { System.out.println("ü"); }
}
`

func TestParseJavacOutput(t *testing.T) {
	cs := compile(t, map[string]string{"p/q/Shapes.java": shapes})
	c, err := Parse(cs["p.q.Shapes"])
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "p.q.Shapes" || c.Super != "java.lang.Object" || c.SourceFile != "Shapes.java" || c.Access&AccPublic == 0 {
		t.Errorf("class: %+v", c)
	}
	if want := []string{"java.lang.Comparable", "java.io.Serializable"}; !reflect.DeepEqual(c.Interfaces, want) {
		t.Errorf("interfaces %v, want %v", c.Interfaces, want)
	}
	if want := []string{"p.q.Shapes$Face", "p.q.Shapes$Inner"}; !sameSet(c.Nested, want) {
		t.Errorf("nested %v, want %v", c.Nested, want)
	}
	got := map[string]Method{}
	for _, m := range c.Methods {
		if !m.Hidden() {
			got[m.Name+"("+strings.Join(m.Params, ",")+")"] = m
		}
	}
	for sig, check := range map[string]func(Method) bool{
		"area(int,int)": func(m Method) bool {
			return m.Static() && m.Return == "int" && reflect.DeepEqual(m.ParamNames, []string{"w", "h"})
		},
		"wrap(java.lang.Object,java.lang.String[])": func(m Method) bool { return m.Varargs() && m.Return == "java.util.List" },
		"grid(java.util.Map.Entry,char)":            func(m Method) bool { return m.Return == "long[][]" },
		"compareTo(p.q.Shapes)":                     func(m Method) bool { return !m.Static() },
		"<init>()":                                  func(m Method) bool { return m.Constructor() },
	} {
		m, ok := got[sig]
		if !ok {
			t.Errorf("no method %s in %v", sig, keys(got))
			continue
		}
		if !check(m) {
			t.Errorf("%s: %+v", sig, m)
		}
	}
	if _, ok := got["hidden()"]; ok {
		t.Error("private method not hidden")
	}
	if _, ok := got["compareTo(java.lang.Object)"]; ok {
		t.Error("bridge method not hidden")
	}
	inner, err := Parse(cs["p.q.Shapes$Inner"])
	if err != nil {
		t.Fatal(err)
	}
	if inner.Outer != "p.q.Shapes" || inner.Anonymous || inner.Access&AccStatic == 0 {
		t.Errorf("inner: %+v", inner)
	}
	face, _ := Parse(cs["p.q.Shapes$Face"])
	if face == nil || face.Access&(AccInterface|AccProtected) != AccInterface|AccProtected || !face.Methods[0].Abstract() {
		t.Errorf("face: %+v", face)
	}
	anon, err := Parse(cs["p.q.Shapes$1"])
	if err != nil || !anon.Anonymous {
		t.Errorf("anonymous: %+v, %v", anon, err)
	}
}

func TestMethodDescriptor(t *testing.T) {
	for _, tc := range []struct {
		desc   string
		params []string
		ret    string
	}{
		{"()V", []string{}, "void"},
		{"(IJ[[DLjava/lang/String;)Z", []string{"int", "long", "double[][]", "java.lang.String"}, "boolean"},
		{"(Ljava/util/Map$Entry;)[Lp/A$$B;", []string{"java.util.Map.Entry"}, "p.A$$B[]"},
	} {
		p, r, err := MethodDescriptor(tc.desc)
		if err != nil || !reflect.DeepEqual(p, tc.params) || r != tc.ret {
			t.Errorf("%s: %v %q %v, want %v %q", tc.desc, p, r, err, tc.params, tc.ret)
		}
	}
	for _, bad := range []string{"", "V", "(", "(I", "(L;)V", "(Q)V", "()", "()II", "(Ljava/lang/String)V", "([)V"} {
		if _, _, err := MethodDescriptor(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestParseRejectsDamage(t *testing.T) {
	good := minimalClass()
	if _, err := Parse(good); err != nil {
		t.Fatalf("minimal class: %v", err)
	}
	if _, err := Parse([]byte("PK\x03\x04")); err == nil || !strings.Contains(err.Error(), "magic") {
		t.Errorf("zip bytes: %v", err)
	}
	for n := 0; n < len(good); n++ {
		if _, err := Parse(good[:n]); err == nil {
			t.Errorf("truncated at %d: no error", n)
		}
	}
}

// minimalClass builds, without javac, the class file of
// `public class a.B { public static int m(long[] x) }` with a SourceFile
// attribute: a seed for the fuzzer and for tests without a JDK.
func minimalClass() []byte {
	var b bytes.Buffer
	w := func(v any) { binary.Write(&b, binary.BigEndian, v) }
	utf := func(s string) { w(uint8(tagUtf8)); w(uint16(len(s))); b.WriteString(s) }
	w(uint32(0xCAFEBABE))
	w(uint16(0))
	w(uint16(52))
	w(uint16(9)) // pool: 1..8
	utf("a/B")   // 1
	w(uint8(tagClass))
	w(uint16(1))            // 2
	utf("java/lang/Object") // 3
	w(uint8(tagClass))
	w(uint16(3))      // 4
	utf("m")          // 5
	utf("([J)I")      // 6
	utf("SourceFile") // 7
	utf("B.java")     // 8
	w(uint16(AccPublic))
	w(uint16(2))
	w(uint16(4))
	w(uint16(0)) // interfaces
	w(uint16(0)) // fields
	w(uint16(1)) // methods
	w(uint16(AccPublic | AccStatic | AccAbstract))
	w(uint16(5))
	w(uint16(6))
	w(uint16(0))
	w(uint16(1)) // class attributes
	w(uint16(7))
	w(uint32(2))
	w(uint16(8))
	return b.Bytes()
}

func TestMinimalClass(t *testing.T) {
	c, err := Parse(minimalClass())
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "a.B" || c.SourceFile != "B.java" || len(c.Methods) != 1 || c.Methods[0].Params[0] != "long[]" || c.Methods[0].Return != "int" {
		t.Errorf("%+v", c)
	}
}

// FuzzParse: a damaged class file is an error, never a panic. The seed
// corpus in testdata/fuzz/FuzzParse holds inputs an earlier run found
// interesting (go test -fuzz FuzzParse).
func FuzzParse(f *testing.F) {
	f.Add(minimalClass())
	f.Add([]byte{0xCA, 0xFE, 0xBA, 0xBE, 0, 0, 0, 52, 0xFF, 0xFF})
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data)
		if err == nil && c.Name == "" {
			t.Error("parsed a class without a name")
		}
	})
}

func sameSet(a, b []string) bool {
	m := map[string]int{}
	for _, x := range a {
		m[x]++
	}
	for _, x := range b {
		m[x]--
	}
	for _, v := range m {
		if v != 0 {
			return false
		}
	}
	return len(a) == len(b)
}

func keys(m map[string]Method) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
