package server_test

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/perfls/perfls/internal/lsptest"
	"github.com/perfls/perfls/server"
)

// A binary file opened as Java gets one diagnostic and is not parsed
// (parsing 400 KB of random bytes blocked every request for 40 s); the
// server goes on answering about other documents.
func TestBinaryDocumentIsNotParsed(t *testing.T) {
	dir := t.TempDir()
	fc := lsptest.Start(t, server.Options{})
	fc.Initialize(t, dir, nil, protocol.ClientCapabilities{})

	bin := make([]byte, 400<<10)
	rand.New(rand.NewSource(1)).Read(bin)
	u := fc.Open(t, filepath.Join(dir, "X.java"), string(bin))
	diags := fc.LastDiagnostics(u)
	if len(diags) != 1 || diags[0].Message != "binary file: not parsed" || diags[0].Severity != protocol.DiagnosticSeverityError {
		t.Fatalf("diagnostics of the binary file: %+v", diags)
	}

	demo := fc.Open(t, filepath.Join(dir, "Demo.java"), javaSource)
	if h := fc.Hover(t, demo, protocol.Position{Line: 7, Character: 23}); h == "" {
		t.Error("no hover on a method after the binary file")
	}
	fc.Call(t, protocol.MethodShutdown, nil, nil)
	fc.Notify(t, protocol.MethodExit, nil)
}

func valueSet(n int) string {
	var sb strings.Builder
	for i := 1; i <= n; i++ {
		if i > 1 {
			sb.WriteByte(',')
		}
		sb.WriteString(strconv.Itoa(i))
	}
	return sb.String()
}

// A formula with more instances than check expands is reported in the
// editor, and formula text over the parser's limit is reported, not
// parsed (a 10.9 MB formula took the server past 1.4 GB).
func TestHugeFormulas(t *testing.T) {
	dir := t.TempDir()
	fc := lsptest.Start(t, server.Options{})
	fc.Initialize(t, dir, nil, protocol.ClientCapabilities{})
	for _, c := range []struct {
		name, text, code string
	}{
		{"Many.spl", "m := p.F#m\nfor n in {" + valueSet(100001) + "} m(n) <= m(n)\n", "too-many-instances"},
		{"Huge.spl", "m := p.F#m\nfor n in {" + valueSet(200000) + "} m(n) <= m(n)\n", "too-large"},
		{"Many.java", "package p;\nclass F {\n    @SPL(\"for n in {" + valueSet(100001) + "} SELF(n) <= SELF(n)\")\n    static int m(int n) { return n; }\n}\n", "too-many-instances"},
	} {
		u := fc.Open(t, filepath.Join(dir, c.name), c.text)
		var got []string
		for _, d := range fc.LastDiagnostics(u) {
			got = append(got, fmt.Sprint(d.Code))
		}
		if len(got) != 1 || got[0] != c.code {
			t.Errorf("%s: diagnostic codes %v, want [%s]", c.name, got, c.code)
		}
	}
	fc.Call(t, protocol.MethodShutdown, nil, nil)
	fc.Notify(t, protocol.MethodExit, nil)
}
