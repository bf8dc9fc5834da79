package server_test

import (
	"math/rand"
	"path/filepath"
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
