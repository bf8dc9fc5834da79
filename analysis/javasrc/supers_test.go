package javasrc

import (
	"reflect"
	"testing"
)

func TestSupersAndAbstract(t *testing.T) {
	src := `package p;
import java.util.*;
abstract class A<T> extends java.util.AbstractList<T> implements List<T>, java.io.Serializable {
    abstract int size();
    native void n();
    void body() {}
    Object anon = new Comparable<String>() { public int compareTo(String s) { return 0; } };
}
interface I extends Comparable<I>, Runnable { void run(); default void d() {} static void s() {} }
enum E implements Runnable { X; public void run() {} }
record R(int a) implements Cloneable {}
`
	f, err := Parse("A.java", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"p.A":   {"java.util.AbstractList", "List", "java.io.Serializable"},
		"p.A$1": {"Comparable"},
		"p.I":   {"Comparable", "Runnable"},
		"p.E":   {"Runnable"},
		"p.R":   {"Cloneable"},
	}
	for name, w := range want {
		ty := f.TypeByName(name)
		if ty == nil {
			t.Fatalf("no type %s", name)
		}
		if !reflect.DeepEqual(ty.Supers, w) {
			t.Errorf("%s: supers %q, want %q", name, ty.Supers, w)
		}
	}
	abstract := map[string]bool{"size": true, "n": false, "body": false, "compareTo": false, "run": true, "d": false, "s": false}
	for _, m := range f.Methods {
		if w, ok := abstract[m.Name]; ok && m.Type.Name != "E" && m.Abstract != w {
			t.Errorf("%s.%s: Abstract=%v, want %v", m.Type.QualifiedName, m.Name, m.Abstract, w)
		}
	}
}
