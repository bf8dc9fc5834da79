package server_test

import (
	"os"
	"path/filepath"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/perfls/perfls/internal/fixture"
	"github.com/perfls/perfls/internal/lsptest"
	"github.com/perfls/perfls/server"
)

// In a multi-root workspace a lens command runs in the folder that holds
// its file, also for a folder added after initialize.
func TestWorkspaceFoldersChooseTheProject(t *testing.T) {
	a := fixture.Project(t, map[string]string{"Demo.java": lensSource})
	b := fixture.Project(t, map[string]string{"Demo.java": lensSource})
	c := fixture.Project(t, map[string]string{"Demo.java": lensSource})
	checker := &fakeActions{}
	fc := lsptest.Start(t, server.Options{Actions: checker})
	var res protocol.InitializeResult
	fc.Call(t, protocol.MethodInitialize, &protocol.InitializeParams{
		WorkspaceFolders: []protocol.WorkspaceFolder{{URI: string(uri.File(a)), Name: "a"}, {URI: string(uri.File(b)), Name: "b"}},
	}, &res)
	fc.Notify(t, protocol.MethodInitialized, &protocol.InitializedParams{})
	if w := res.Capabilities.Workspace; w == nil || w.WorkspaceFolders == nil || !w.WorkspaceFolders.Supported {
		t.Fatalf("workspace folders not announced: %+v", res.Capabilities.Workspace)
	}
	fc.Notify(t, protocol.MethodWorkspaceDidChangeWorkspaceFolders, &protocol.DidChangeWorkspaceFoldersParams{Event: protocol.WorkspaceFoldersChangeEvent{
		Added:   []protocol.WorkspaceFolder{{URI: string(uri.File(c)), Name: "c"}},
		Removed: []protocol.WorkspaceFolder{{URI: string(uri.File(a)), Name: "a"}},
	}})
	for i, dir := range []string{b, c} {
		path := filepath.Join(dir, "Demo.java")
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		u := fc.Open(t, path, string(src))
		var reply any
		fc.Call(t, protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{
			Command: server.CommandCheck, Arguments: []any{server.MethodArgs{URI: u, Class: "demo.Demo", Method: "fast", Params: []string{"int[]"}}},
		}, &reply)
		fc.Await(t, "the check", func() bool { return len(checker.checkRequests()) == i+1 })
		if got := checker.checkRequests()[i].Root; got != dir {
			t.Errorf("check of %s ran in %q, want its folder %q", path, got, dir)
		}
	}
}
