//go:build unix

package server_test

import (
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/perfls/perfls/internal/fixture"
	"github.com/perfls/perfls/internal/lsptest"
	"github.com/perfls/perfls/server"
)

// A FIFO named X.java in a workspace folder, and a link to it, are skipped
// by the index and never opened: opening one for reading would wait for a
// writer for good. The document opened, saved and changed on disk at that
// path leaves nothing blocked, and the session ends.
func TestFIFOInTheWorkspaceIsSkipped(t *testing.T) {
	ws := fixture.Project(t, map[string]string{"pom.xml": "<project/>", "src/p/A.java": "package p;\npublic class A {}\n"})
	fifo := filepath.Join(ws, "src/p/X.java")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	link := filepath.Join(ws, "src/p/L.java")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	// The watchdog: a read blocked on the FIFO is released by a writer
	// opening it, and the test fails instead of hanging.
	var blocked atomic.Bool
	watchdog := time.AfterFunc(2*lsptest.Timeout, func() {
		blocked.Store(true)
		if f, err := os.OpenFile(fifo, os.O_RDWR, 0); err == nil {
			f.Close()
		}
	})
	defer func() {
		watchdog.Stop()
		if blocked.Load() {
			t.Error("something blocked on the FIFO")
		}
	}()

	fc, ss := lsptest.StartSession(t, server.Options{})
	fc.Initialize(t, ws, nil, protocol.ClientCapabilities{})
	u := fc.Open(t, fifo, javaSource)
	fc.Await(t, "the index of the folder", func() bool {
		_, files := server.Indexed(ss)
		return slices.Contains(files, filepath.Join(ws, "src/p/A.java"))
	})
	fc.Notify(t, protocol.MethodTextDocumentDidSave, &protocol.DidSaveTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
	fc.Notify(t, protocol.MethodWorkspaceDidChangeWatchedFiles, &protocol.DidChangeWatchedFilesParams{Changes: []*protocol.FileEvent{
		{URI: uri.File(link), Type: protocol.FileChangeTypeChanged}}})
	if h := fc.Hover(t, u, protocol.Position{Line: 7, Character: 23}); h == "" {
		t.Error("no hover after the FIFO's save")
	}
	if _, files := server.Indexed(ss); !slices.Equal(files, []string{filepath.Join(ws, "src/p/A.java")}) {
		t.Errorf("indexed %q, want only A.java", files)
	}
	fc.Call(t, protocol.MethodShutdown, nil, nil)
	fc.Notify(t, protocol.MethodExit, nil)
	if !ss.WaitFor(lsptest.Timeout) {
		t.Error("the session did not end")
	}
}
