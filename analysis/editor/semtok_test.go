package editor

import (
	"fmt"
	"strings"
	"testing"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/textpos"
)

func parseJava(t testing.TB, path, src string) *javasrc.File {
	t.Helper()
	f, err := javasrc.Parse(path, []byte(src))
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	return f
}

// renderTokens writes each token as line:char:text:type, reading the text
// back from the document through the UTF-16 positions.
func renderTokens(f *javasrc.File, ts []Token) string {
	var b []string
	for _, tk := range ts {
		start := f.Mapper.Offset(textpos.Position{Line: int(tk.Line), Character: int(tk.Char)})
		end := f.Mapper.Offset(textpos.Position{Line: int(tk.Line), Character: int(tk.Char + tk.Length)})
		s := fmt.Sprintf("%d:%d:%s:%s", tk.Line, tk.Char, f.Src[start:end], TokenTypes[tk.Type])
		if tk.Modifiers&1 != 0 {
			s += "*"
		}
		b = append(b, s)
	}
	return strings.Join(b, " ")
}

const semSrc = `package p;
import dev.perfls.SPL;
class A {
    /* é𝄞 */ @SPL("for n in {10} SELF[gen](n) <= m@v1[gen](n)")
    void m() {}
    @SPL(value = {"SELF[g](1) < " +
        "x.Y#z[g](1)"}, methods = {"f=p.A#m"})
    void n() {}
    @dev.perfls.Workload("p.Gens#gen")
    void w() {}
}
`

func TestTokens(t *testing.T) {
	f := parseJava(t, "A.java", semSrc)
	got := renderTokens(f, Tokens(f))
	want := strings.Join([]string{
		// é is one UTF-16 unit, 𝄞 two: the formula starts at column 20
		"3:20:for:keyword", "3:24:n:variable*", "3:26:in:keyword", "3:30:10:number", "3:34:SELF:keyword", "3:39:gen:function",
		"3:44:n:variable", "3:47:<=:operator", "3:50:m:method", "3:51:@v1:macro", "3:55:gen:function", "3:60:n:variable",
		"5:19:SELF:keyword", "5:24:g:function", "5:27:1:number", "5:30:<:operator",
		"6:9:x:namespace", "6:11:Y:class", "6:13:z:method", "6:15:g:function", "6:18:1:number",
		"6:36:f:method*", "6:37:=:operator", "6:38:p:namespace", "6:40:A:class", "6:42:m:method",
		"8:26:p:namespace", "8:28:Gens:class", "8:33:gen:function",
	}, " ")
	if got != want {
		t.Errorf("tokens\n got %s\nwant %s", got, want)
	}
}

func TestEncodeAndRange(t *testing.T) {
	ts := []Token{{Line: 2, Char: 5, Length: 3, Type: 1}, {Line: 2, Char: 10, Length: 1, Type: 2, Modifiers: 1}, {Line: 4, Char: 1, Length: 2, Type: 3}}
	got := fmt.Sprint(Encode(ts))
	if want := "[2 5 3 1 0 0 5 1 2 1 2 1 2 3 0]"; got != want {
		t.Errorf("Encode = %s, want %s", got, want)
	}
	r := textpos.Range{Start: textpos.Position{Line: 2, Character: 9}, End: textpos.Position{Line: 4, Character: 0}}
	if got := InRange(ts, r); len(got) != 1 || got[0].Char != 10 {
		t.Errorf("InRange = %v, want the token at 2:10 only", got)
	}
	if got := Encode(nil); len(got) != 0 {
		t.Errorf("Encode(nil) = %v", got)
	}
}

func TestHighlighterReuses(t *testing.T) {
	f := parseJava(t, "A.java", semSrc)
	h := new(Highlighter)
	want := renderTokens(f, Tokens(f))
	for i := 0; i < 2; i++ {
		if got := renderTokens(f, h.Tokens(f)); got != want {
			t.Fatalf("call %d: got %s, want %s", i, got, want)
		}
	}
	// an edit that shifts the formulas keeps their highlights but moves them
	g := parseJava(t, "A.java", strings.Replace(semSrc, "class A {", "class A {\n", 1))
	if got, want := renderTokens(g, h.Tokens(g)), renderTokens(g, Tokens(g)); got != want || got == renderTokens(f, Tokens(f)) {
		t.Fatalf("after an edit: got %s, want %s", got, want)
	}
}

func TestTokensEdit(t *testing.T) {
	tok := func(vs ...uint32) []uint32 { return vs }
	a := tok(0, 1, 2, 3, 0, 1, 4, 2, 5, 0, 0, 3, 1, 1, 0)
	cases := []struct {
		name       string
		prev, next []uint32
	}{
		{"same", a, a},
		{"one number in the middle", a, tok(0, 1, 2, 3, 0, 1, 5, 2, 5, 0, 0, 3, 1, 1, 0)},
		{"a token inserted", a, tok(0, 1, 2, 3, 0, 0, 2, 1, 7, 0, 1, 4, 2, 5, 0, 0, 3, 1, 1, 0)},
		{"a token removed", a, tok(0, 1, 2, 3, 0, 0, 3, 1, 1, 0)},
		{"from nothing", nil, a},
		{"to nothing", a, nil},
		{"equal tails across the token boundary", tok(1, 1, 1, 1, 1), tok(1, 1, 1, 1, 1, 1, 1, 1, 1, 1)},
	}
	for _, c := range cases {
		start, del, data := TokensEdit(c.prev, c.next)
		if start%5 != 0 || del%5 != 0 || len(data)%5 != 0 {
			t.Errorf("%s: edit %d %d %v not on token boundaries", c.name, start, del, data)
		}
		got := append(append(append([]uint32{}, c.prev[:start]...), data...), c.prev[start+del:]...)
		if fmt.Sprint(got) != fmt.Sprint(c.next) {
			t.Errorf("%s: applying %d %d %v gives %v, want %v", c.name, start, del, data, got, c.next)
		}
		if c.name == "one number in the middle" && (start != 5 || del != 5) {
			t.Errorf("%s: edit %d %d, want the second token only", c.name, start, del)
		}
	}
}

// A .spl file's whole text is SPL: its tokens are placed in the file, and
// the same text is not classified again.
func TestSPLFileTokens(t *testing.T) {
	text := "w := p.Q#gen\nfor n in {10}\n  SELF@v1[w](n) <= p.Q#m[w](n)\n"
	h := new(Highlighter)
	ts := h.SPLFileTokens(textpos.NewMapper(text))
	var got []string
	lines := strings.Split(text, "\n")
	for _, tk := range ts {
		got = append(got, fmt.Sprintf("%d:%d %s %s", tk.Line+1, tk.Char+1, lines[tk.Line][tk.Char:tk.Char+tk.Length], TokenTypes[tk.Type]))
	}
	want := "1:1 w method,1:3 := operator,1:6 p namespace,1:8 Q class,1:10 gen method,2:1 for keyword,2:5 n variable,2:7 in keyword,2:11 10 number," +
		"3:3 SELF keyword,3:7 @v1 macro,3:11 w function,3:14 n variable,3:17 <= operator,3:20 p namespace,3:22 Q class,3:24 m method,3:26 w function,3:29 n variable"
	if g := strings.Join(got, ","); g != want {
		t.Errorf("tokens\n got: %s\nwant: %s", g, want)
	}
	if again := h.SPLFileTokens(textpos.NewMapper(text)); &again[0] != &ts[0] {
		t.Error("the same text was classified again")
	}
	if ts := h.SPLFileTokens(textpos.NewMapper("")); ts == nil || len(ts) != 0 {
		t.Errorf("an empty file: %v", ts)
	}
}
