package javasrc

import (
	"math/rand"
	"reflect"
	"strings"
	"testing"
)

// After any sequence of edits, the incrementally reparsed model equals the
// model of a fresh parse of the same text.
func TestDocUpdateMatchesFreshParse(t *testing.T) {
	text := genJava(400)
	d := NewDoc("Gen.java")
	defer d.Close()
	if _, err := d.Update([]byte(text)); err != nil {
		t.Fatal(err)
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
	mid := strings.Index(src[len(src)/2:], "return") + len(src)/2
	edited := src[:mid] + " " + src[mid:]
	d := NewDoc("Gen.java")
	defer d.Close()
	if _, err := d.Update([]byte(src)); err != nil {
		b.Fatal(err)
	}
	texts := [][]byte{[]byte(edited), []byte(src)}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := d.Update(texts[i%2]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDocEditAnnotation: a one-character edit inside an @SPL formula
// of a 5,000-line file: reparsed from the old tree, the model extracted anew.
func BenchmarkDocEditAnnotation(b *testing.B) {
	src := genJava(5000)
	mid := strings.Index(src[len(src)/2:], "SELF(n)") + len(src)/2
	edited := src[:mid] + " " + src[mid:]
	d := NewDoc("Gen.java")
	defer d.Close()
	if _, err := d.Update([]byte(src)); err != nil {
		b.Fatal(err)
	}
	texts := [][]byte{[]byte(edited), []byte(src)}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := d.Update(texts[i%2]); err != nil {
			b.Fatal(err)
		}
	}
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
		d := NewDoc("Gen.java")
		defer d.Close()
		if _, err := d.Update([]byte(base)); err != nil {
			t.Fatal(err)
		}
		got, err := d.Update([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		want, err := Parse("Gen.java", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("incremental model differs from a fresh parse after replacing [%d,%d) by %q", pos, end, ins)
		}
	})
}
