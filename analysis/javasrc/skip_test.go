package javasrc

import (
	"bytes"
	"math/rand"
	"strings"
	"testing"
)

func randomBytes(n int, seed int64) []byte {
	b := make([]byte, n)
	rand.New(rand.NewSource(seed)).Read(b)
	return b
}

func TestExamine(t *testing.T) {
	java := []byte("package p;\nclass A { /** café */ void m() {} }\n")
	latin1 := []byte("package p;\n// Jos\xe9, \xa9 2003\nclass A {}\n") // ISO-8859-1
	cases := []struct {
		name   string
		size   int64
		head   []byte
		binary bool
		large  bool
		at     int
	}{
		{"java", int64(len(java)), java, false, false, 0},
		{"latin1", int64(len(latin1)), latin1, false, false, 0},
		{"empty", 0, nil, false, false, 0},
		{"nul", 12, []byte("class A {}\x00x"), true, false, 10},
		{"utf16", 4, []byte{0xfe, 0xff, 0, 'c'}, true, false, 2},
		{"invalid and control", 6, []byte("a\xff\x01bcd"), true, false, 1},
		{"random", 1 << 20, randomBytes(SniffBytes, 1), true, false, -1},
		{"decoded by an editor", 8, []byte("ab\ufffd\x03cd"), true, false, 2},
		{"replacement character", 6, []byte("ab\ufffdcd"), false, false, 0},
		{"large", MaxSourceBytes + 1, java, false, true, 0},
		// A multi-byte character cut by the end of the examined prefix.
		{"cut", SniffBytes + 10, append(bytes.Repeat([]byte("a"), SniffBytes-1), 0xc3), false, false, 0},
		{"cut and control", SniffBytes + 10, append(append(bytes.Repeat([]byte("a"), SniffBytes-2), 0x02), 0xc3), false, false, 0},
	}
	for _, c := range cases {
		got := Examine(c.size, c.head)
		switch {
		case !c.binary && !c.large:
			if got != nil {
				t.Errorf("%s: skipped: %+v", c.name, got)
			}
		case got == nil:
			t.Errorf("%s: not skipped", c.name)
		case c.binary:
			if !got.Binary || got.Message != "binary file: not parsed" {
				t.Errorf("%s: %+v, want binary", c.name, got)
			}
			if c.at >= 0 && got.Span.Start != c.at {
				t.Errorf("%s: at %d, want %d", c.name, got.Span.Start, c.at)
			}
		default:
			if got.Binary || got.Message != "4.2 MB: larger than the 4 MiB limit, not parsed" {
				t.Errorf("%s: %+v, want too large", c.name, got)
			}
		}
	}
}

// A binary file named .java is not parsed (tree-sitter's error recovery
// takes minutes on a megabyte of random bytes): its model is empty and
// says why.
func TestParseSkipsBinaryAndLarge(t *testing.T) {
	f, err := Parse("X.java", randomBytes(1<<20, 2))
	if err != nil {
		t.Fatal(err)
	}
	if f.Skipped == nil || !f.Skipped.Binary || len(f.Types)+len(f.Methods)+len(f.SyntaxErrors) != 0 {
		t.Fatalf("binary: skipped %+v, %d types, %d methods, %d syntax errors", f.Skipped, len(f.Types), len(f.Methods), len(f.SyntaxErrors))
	}

	var sb strings.Builder
	sb.WriteString("class Big {\n")
	for sb.Len() <= MaxSourceBytes {
		sb.WriteString("    int f;\n")
	}
	sb.WriteString("}\n")
	f, err = Parse("Big.java", []byte(sb.String()))
	if err != nil {
		t.Fatal(err)
	}
	if f.Skipped == nil || f.Skipped.Binary || len(f.Types) != 0 {
		t.Fatalf("large: skipped %+v, %d types", f.Skipped, len(f.Types))
	}
}

// A document that becomes binary is not parsed, and parses again when it
// is text again.
func TestDocSkipsBinary(t *testing.T) {
	d := NewDoc("X.java")
	defer d.Close()
	src := "package p;\nclass A { void m() {} }\n"
	if f, err := d.Update([]byte(src)); err != nil || f.Skipped != nil || len(f.Methods) != 1 {
		t.Fatalf("text: %v, %+v", err, f)
	}
	f, err := d.Update(append([]byte(src), randomBytes(64<<10, 3)...))
	if err != nil || f.Skipped == nil || !f.Skipped.Binary || len(f.Methods) != 0 {
		t.Fatalf("binary: %v, %+v", err, f)
	}
	if f, err := d.Update([]byte(src)); err != nil || f.Skipped != nil || len(f.Methods) != 1 {
		t.Fatalf("text again: %v, %+v", err, f)
	}
}
