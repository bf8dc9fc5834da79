package javasrc

import (
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/perfls/perfls/internal/benchtime"
)

// After any sequence of edits, the incrementally reparsed model equals the
// model of a fresh parse of the same text.
func TestDocUpdateMatchesFreshParse(t *testing.T) {
	t.Run("whole", func(t *testing.T) { checkDocEdits(t, false) })
	// The first version modelled from two halves (as a large file's is),
	// its whole tree parsed meanwhile for the edits.
	t.Run("split", func(t *testing.T) { checkDocEdits(t, true) })
}

func checkDocEdits(t *testing.T, split bool) {
	text := genJava(400)
	d := NewDoc("Gen.java")
	defer d.Close()
	if split {
		old := splitMinBytes
		splitMinBytes = 0
		defer func() { splitMinBytes = old }()
	}
	first, err := d.Update([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if split {
		if d.pending == nil {
			t.Fatalf("the first version was not split")
		}
		want := parseWhole(t, text)
		want.Path = first.Path
		sameModel(t, "first version", first, want)
	}
	moved := 0
	rng := rand.New(rand.NewSource(1))
	inserts := []string{"x", "\n", "é", "😀", "}", "{", "\"", "(", " + \"a\"", "/*", "*/", "@SPL(\"SELF[g](1) <= m[g](1)\")\n", " new Object() ", "1"}
	safe := []string{"x", "é", "ß", "a + ", "b +\n\t"}
	for i := 0; i < 220; i++ {
		pos := rng.Intn(len(text) + 1)
		if i < 120 { // first typing inside method bodies, where the model is moved
			k := strings.Index(text[pos:], "return ")
			if k < 0 {
				continue
			}
			pos += k + len("return ")
			ins := safe[rng.Intn(len(safe))]
			if i%3 == 2 && strings.HasPrefix(text[pos:], "x") {
				text = text[:pos] + text[pos+1:] // and deleting
			} else {
				text = text[:pos] + ins + text[pos:]
			}
		} else {
			for pos < len(text) && (text[pos]&0xC0) == 0x80 { // stay on a character boundary
				pos++
			}
			switch rng.Intn(3) {
			case 0, 1:
				text = text[:pos] + inserts[rng.Intn(len(inserts))] + text[pos:]
			default:
				end := min(len(text), pos+rng.Intn(20))
				for end < len(text) && (text[end]&0xC0) == 0x80 {
					end++
				}
				text = text[:pos] + text[end:]
			}
		}
		got, err := d.Update([]byte(text))
		if err != nil {
			t.Fatalf("edit %d: %v", i, err)
		}
		want, err := Parse("Gen.java", []byte(text))
		if err != nil {
			t.Fatalf("edit %d: fresh parse: %v", i, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("edit %d: incremental model differs from a fresh parse (%d vs %d methods, %d vs %d syntax errors, moved=%v)",
				i, len(got.Methods), len(want.Methods), len(got.SyntaxErrors), len(want.SyntaxErrors), d.moved > moved)
		}
		moved = d.moved
	}
	if d.moved < 100 {
		t.Errorf("only %d of 220 edits moved the model: the fast path is not exercised", d.moved)
	}
	if d.locals < 100 {
		t.Errorf("only %d of 220 edits parsed one method alone: the local parse is not exercised", d.locals)
	}
}

func TestDocClosed(t *testing.T) {
	d := NewDoc("A.java")
	d.Close()
	if _, err := d.Update([]byte("class A {}")); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Update after Close: %v", err)
	}
}

func TestEditBetween(t *testing.T) {
	e := editBetween([]byte("ab\ncd\nef"), []byte("ab\ncXd\nef"))
	if e.StartIndex != 4 || e.OldEndIndex != 4 || e.NewEndIndex != 5 || e.StartPoint.Row != 1 || e.StartPoint.Column != 1 || e.NewEndPoint.Column != 2 {
		t.Errorf("insert: %+v", e)
	}
	e = editBetween([]byte("aaa"), []byte("aa"))
	if e.StartIndex != 2 || e.OldEndIndex != 3 || e.NewEndIndex != 2 {
		t.Errorf("delete from a run: %+v", e)
	}
}

// BenchmarkDocEdit: a one-character edit inside a method body in the
// middle of a 5,000-line file, reparsed from the old tree, the model moved.
func BenchmarkDocEdit(b *testing.B) {
	src := genJava(5000)
	benchUpdates(b, []string{src}, insertMid(src, "return", " "), src)
}

// BenchmarkDocEditAnnotation: a one-character edit inside an @SPL formula
// of a 5,000-line file: reparsed from the old tree, the model extracted anew.
func BenchmarkDocEditAnnotation(b *testing.B) {
	src := genJava(5000)
	benchUpdates(b, []string{src}, insertMid(src, "SELF(n)", " "), src)
}

// FuzzDocEdit: after an edit (at a position, deleting some bytes,
// inserting a string), the incremental model equals a fresh parse.
func FuzzDocEdit(f *testing.F) {
	base := genJava(60)
	ret := strings.Index(base, "return ") + len("return ")
	f.Add(uint16(ret), uint8(0), "x")
	f.Add(uint16(ret), uint8(1), "é")
	f.Add(uint16(ret), uint8(0), "a +\n")
	f.Add(uint16(ret), uint8(0), "new Object() {}; ")
	f.Add(uint16(10), uint8(3), "}")
	f.Add(uint16(len(base)/2), uint8(0), "\"")
	f.Add(uint16(strings.Index(base, "@SPL")+6), uint8(2), "SELF")
	f.Fuzz(func(t *testing.T, at uint16, del uint8, ins string) {
		pos := min(int(at), len(base))
		end := min(pos+int(del), len(base))
		text := base[:pos] + ins + base[end:]
		// Also as a large file: split in parts, bodies left out.
		for _, minBytes := range []int{splitMinBytes, 0} {
			old := splitMinBytes
			splitMinBytes = minBytes
			d := NewDoc("Gen.java")
			_, err := d.Update([]byte(base))
			var got, want *File
			if err == nil {
				got, err = d.Update([]byte(text))
			}
			if err == nil {
				want, err = Parse("Gen.java", []byte(text))
			}
			d.Close()
			splitMinBytes = old
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("incremental model differs from a fresh parse after replacing [%d,%d) by %q (files from %d bytes split)", pos, end, ins, minBytes)
			}
		}
	})
}

// memberSrc has annotations whose edits the Doc handles by re-extracting
// one method: String constants, numeric constants (which force a full
// extraction), problems, interpretation=, @SPLs and generator docs.
const memberSrc = `package m;

import java.util.List;

class Limits { static final int MAX = 1000; static final String G = "m.Gen#ints(int)"; }

public class Member {
    static final String PREFIX = "for n in {1, 2} ";
    static final String BAD = "x" + 1.5;
    static final int LIMIT = 10;

    @SPL(value = PREFIX + "SELF(n) <= 2 * java.util.Arrays#sort(n)", interpretation = "quick")
    @Workload(Limits.G)
    public void first(int[] a) { a.clone(); }

    @SPL({"w := m.Gen#ints(int)", "SELF[w](1) <= m.Other#run[w](1)"})
    void second() {}

    @SPLs({@SPL("SELF(1) <= m.A#b(1)"), @SPL(formula = "x " + BAD)})
    int third(List<String> xs) { return xs.size(); }

    public static Iterable<Object[]> ints(@Param(value = "size", min = 0, max = LIMIT) int size) { return null; }

    @SPL("SELF(1) <= m.A#c(1)" + "\u0041")
    <T extends Comparable<T>> void fourth(T t, String... rest) {
        Runnable r = () -> {};
    }

    @Generator("makes \"data\"")
    static Object gen(@ParamNum(min = 1, max = Limits.MAX) int n) { return null; }
}
`

// Edits inside annotations re-extract the method alone, and the model
// equals a fresh parse after each one (also after edits that break the
// annotation or go through the slow paths).
func TestDocAnnotationEditsMatchFreshParse(t *testing.T) {
	text := memberSrc
	d := NewDoc("Member.java")
	defer d.Close()
	if _, err := d.Update([]byte(text)); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(3))
	inserts := []string{"x", " ", "1", "é", "\\n", "\\u0042", "(n)", " + PREFIX", " + LIMIT", "\"", "\\", "{", "}", ")", "@SPL(\"a\")"}
	for i := 0; i < 400; i++ {
		// Mostly typing inside an annotation's string, sometimes anything
		// inside its parentheses.
		var ats, strs []int
		for k := 0; k < len(text); k++ {
			if text[k] == '@' {
				if p := strings.IndexByte(text[k:], '('); p > 0 && p < 12 {
					ats = append(ats, k+p+1)
					if q := strings.IndexByte(text[k+p:], '"'); q > 0 && q < 30 {
						strs = append(strs, k+p+q+1)
					}
				}
			}
		}
		safe := rng.Intn(10) < 7 && len(strs) > 0
		var pos int
		if safe {
			pos = strs[rng.Intn(len(strs))]
			pos += rng.Intn(max(1, strings.IndexByte(text[pos:], '"')))
		} else {
			pos = min(ats[rng.Intn(len(ats))]+rng.Intn(12), len(text))
		}
		for pos < len(text) && (text[pos]&0xC0) == 0x80 {
			pos++
		}
		switch {
		case safe:
			text = text[:pos] + []string{"x", " ", "1", "é", "\\n", "(n)", "\\u0042"}[rng.Intn(7)] + text[pos:]
		case rng.Intn(4) == 0:
			end := min(len(text), pos+1+rng.Intn(3))
			for end < len(text) && (text[end]&0xC0) == 0x80 {
				end++
			}
			text = text[:pos] + text[end:]
		default:
			text = text[:pos] + inserts[rng.Intn(len(inserts))] + text[pos:]
		}
		if i%20 == 19 {
			text = memberSrc // start over before the text drifts too far
		}
		got, err := d.Update([]byte(text))
		if err != nil {
			t.Fatalf("edit %d: %v", i, err)
		}
		want, err := Parse("Member.java", []byte(text))
		if err != nil {
			t.Fatalf("edit %d: fresh parse: %v", i, err)
		}
		if !reflect.DeepEqual(got, want) {
			for k := range want.Methods {
				if k < len(got.Methods) && !reflect.DeepEqual(got.Methods[k], want.Methods[k]) {
					t.Logf("method %d differs:\n got %+v\nwant %+v", k, got.Methods[k], want.Methods[k])
				}
			}
			t.Fatalf("edit %d: incremental model differs from a fresh parse (problems %v vs %v)\n%s", i, got.Problems, want.Problems, text)
		}
	}
	if d.member < 80 || d.locals < 80 {
		t.Errorf("of 400 edits, %d re-extracted one method, %d parsed it alone: the fast paths are not exercised", d.member, d.locals)
	}
	// A body edit moves the model, interpretation= included.
	if _, err := d.Update([]byte(memberSrc)); err != nil {
		t.Fatal(err)
	}
	moved := d.moved
	text = strings.Replace(memberSrc, "a.clone();", "a.clone(); a.clone();", 1)
	got, err := d.Update([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	want, err := Parse("Member.java", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) || d.moved != moved+1 {
		t.Fatalf("body edit: moved %d→%d, equal %v", moved, d.moved, reflect.DeepEqual(got, want))
	}
	if got.Methods[0].SPL[0].Interpretation == nil || got.Methods[0].SPL[0].Interpretation.Text != "quick" {
		t.Errorf("interpretation lost after a body edit: %+v", got.Methods[0].SPL[0])
	}
	t.Logf("%d of 400 edits re-extracted one method", d.member)
}

// BenchmarkDocEditBodyError: typing in a 5,000-line file while a method
// body has a syntax error ("int x = ;" then "int x = 1 "): each version is
// modelled with the bodies left out (lazy.go), from the incremental tree.
func BenchmarkDocEditBodyError(b *testing.B) {
	src := genJava(5000)
	broken := insertMid(src, "return copy;", "int x = ; ")
	benchUpdates(b, []string{src, broken}, insertMid(src, "return copy;", "int x = 1 "), broken)
}

// BenchmarkDocEditDeclError: the same with the error among the
// declarations ("int = ;"): the lazy parse fails, and the file is parsed
// afresh and whole, with the repair pass.
func BenchmarkDocEditDeclError(b *testing.B) {
	src := genJava(5000)
	const at = "    public static int[] sort"
	broken := insertMid(src, at, "    int = ;\n")
	benchUpdates(b, []string{src, broken}, insertMid(src, at, "    int = 1;\n"), broken)
}

// insertMid inserts text before the first needle in the second half of src.
func insertMid(src, needle, text string) string {
	mid := strings.Index(src[len(src)/2:], needle) + len(src)/2
	return src[:mid] + text + src[mid:]
}

// benchUpdates brings a new Doc through the versions first, untimed, then
// times Update alternating between a and c.
func benchUpdates(b *testing.B, first []string, a, c string) {
	d := NewDoc("Gen.java")
	defer d.Close()
	for _, v := range first {
		if _, err := d.Update([]byte(v)); err != nil {
			b.Fatal(err)
		}
	}
	texts := [][]byte{[]byte(a), []byte(c)}
	benchtime.Run(b, func(i int) {
		if _, err := d.Update(texts[i%2]); err != nil {
			b.Fatal(err)
		}
	})
}

// Typing in methods of each kind of body parses the method alone where it
// has a header of its own (class, interface, record, nested class) and
// not where it has none (an anonymous class), and the model equals a
// fresh parse either way.
func TestDocLocalParseMatchesFreshParse(t *testing.T) {
	src := `package p;

import java.util.List;

public class Outer {
    @SPL("SELF[g](1) <= m[g](1)")
    static int a(int x) { return x; }

    static class Inner<T extends Comparable<T>> implements Runnable {
        public void run() { int y = 1; }
        @SPL("SELF[g](2) <= m[g](2)")
        T pick(List<T> xs) { return xs.get(0); }
    }

    interface Shape { default double area() { return 0.0; } }

    record Pair(int l, int r) { int sum() { return l + r; } }

    Runnable r = new Runnable() { public void run() { int z = 2; } };
}
`
	edits := []struct {
		after string
		local bool
	}{
		{"return x", true}, {"SELF[g](1", true}, {"int y = 1", true}, {"SELF[g](2", true}, {"xs.get(0", true},
		{"return 0.0", true}, {"l + r", true}, {"int z = 2", false},
	}
	for _, e := range edits {
		d := NewDoc("Outer.java")
		if _, err := d.Update([]byte(src)); err != nil {
			t.Fatal(err)
		}
		at := strings.Index(src, e.after) + len(e.after)
		for i, text := range []string{src[:at] + "0" + src[at:], src[:at] + " " + src[at:], src} {
			got, err := d.Update([]byte(text))
			if err != nil {
				t.Fatal(err)
			}
			want := parseWhole(t, text)
			want.Path = got.Path
			sameModel(t, e.after, got, want)
			if i == 0 && (d.locals == 1) != e.local {
				t.Errorf("edit after %q: parsed alone %v, want %v", e.after, d.locals == 1, e.local)
			}
		}
		d.Close()
	}
}
