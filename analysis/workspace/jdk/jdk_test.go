package jdk

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/perfls/perfls/internal/fixture"
)

func writeZip(t *testing.T, files map[string]string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "src.zip")
	fixture.Zip(t, p, files)
	return p
}

func TestSrcZip(t *testing.T) {
	p := writeZip(t, map[string]string{
		"java.base/java/lang/Object.java":       "package java.lang; public class Object { public native int hashCode(); }",
		"java.base/java/util/Collection.java":   "package java.util; public interface Collection<E> extends Iterable<E> { boolean contains(Object o); }",
		"java.base/java/lang/Iterable.java":     "package java.lang; public interface Iterable<T> { }",
		"java.base/java/util/AbstractList.java": "package java.util; public abstract class AbstractList<E> implements List<E>, java.io.Serializable, Missing { public abstract E get(int i); }",
		"java.base/java/util/List.java":         "package java.util; public interface List<E> extends Collection<E> { }",
		"java.base/java/io/Serializable.java":   "package java.io; public interface Serializable { }",
		"java.desktop/javax/swing/JList.java":   "package javax.swing; public class JList { }",
		"java.base/java/util/Map.java":          "package java.util; public interface Map<K, V> { interface Entry<K, V> { K getKey(); } }",
		"java.base/java/util/Arrays.java":       "package java.util; import java.util.function.*; public class Arrays { public static void sort(int[] a) {} public static <T> void sort(T[] a, Comparator<? super T> c) {} }",
	})
	z, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	// javax.inject is not the JDK's: it comes in a jar.
	if !z.Covers("java.util.X") || !z.Covers("javax.swing.X") || z.Covers("org.x.Y") || z.Covers("javax.inject.Inject") {
		t.Error("Covers")
	}
	if got := z.ClassesWithPrefix("java.util.A", 0); !reflect.DeepEqual(got, []string{"java.util.AbstractList", "java.util.Arrays"}) {
		t.Errorf("ClassesWithPrefix: %v", got)
	}
	if pkg, origin, cs := z.Package("java.util.Lisst"); pkg != "java.util" || origin != "the JDK" || len(cs) != 5 {
		t.Errorf("Package: %q %q %v", pkg, origin, cs)
	}
	a, err := z.Class("java.util.Arrays")
	if err != nil || a == nil {
		t.Fatalf("Arrays: %v %v", a, err)
	}
	if a.Name != "java.util.Arrays" || !a.Complete || !reflect.DeepEqual(a.Supers, []string{"java.lang.Object"}) {
		t.Errorf("Arrays: %+v", a)
	}
	if len(a.Methods) != 2 || !reflect.DeepEqual(a.Methods[1].Params, []string{"Object[]", "Comparator"}) || !a.Methods[1].Static {
		t.Errorf("Arrays methods: %+v", a.Methods)
	}
	for _, name := range []string{"java.util.Map$Entry", "java.util.Map.Entry"} {
		e, err := z.Class(name)
		if err != nil || e == nil || e.Name != "java.util.Map$Entry" || len(e.Methods) != 1 || !e.Methods[0].Abstract {
			t.Errorf("%s: %+v %v", name, e, err)
		}
	}
	al, _ := z.Class("java.util.AbstractList")
	if al == nil || al.Complete || !reflect.DeepEqual(al.Supers, []string{"java.util.List", "java.io.Serializable"}) {
		t.Errorf("AbstractList (Missing is unresolvable): %+v", al)
	}
	c, _ := z.Class("java.util.Collection")
	if c == nil || !reflect.DeepEqual(c.Supers, []string{"java.lang.Iterable"}) {
		t.Errorf("Collection: %+v", c)
	}
	if x, err := z.Class("java.util.Nope"); x != nil || err != nil {
		t.Errorf("Nope: %+v %v", x, err)
	}
	if _, err := Open(filepath.Join(t.TempDir(), "none.zip")); err == nil {
		t.Error("opening a missing archive succeeded")
	}
}

// The real JDK, when its sources are installed.
func TestRealJDK(t *testing.T) {
	p, err := Find()
	if err != nil {
		t.Skip(err)
	}
	z, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	al, err := z.Class("java.util.ArrayList")
	if err != nil || al == nil || !al.Complete {
		t.Fatalf("ArrayList: %+v %v", al, err)
	}
	found := false
	for _, m := range al.Methods {
		found = found || m.Name == "contains"
	}
	if !found {
		t.Error("ArrayList has no contains")
	}
}
