package server_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/perfls/perfls/internal/fixture"
	"github.com/perfls/perfls/internal/lsptest"
	"github.com/perfls/perfls/server"
)

const jdkNames = `package demo;

public class Names extends java.util.AbstractList<String> {
    public String get(int i) { return null; }
    public int size() { return 0; }
    public static Iterable<Object[]> gen(int n) { return null; }

    @SPL({"SELF[gen](1) <= demo.Names#sublist[gen](1)",
          "SELF[gen](1) <= java.util.ArrayList#trimToSize[gen](1)"})
    public static int m(int[] a) { return 0; }
}
`

// jdkNotices lists the messages shown about JDK classes not found, with
// their types.
func jdkNotices(fc *lsptest.Client) []protocol.ShowMessageParams {
	var out []protocol.ShowMessageParams
	for _, params := range fc.Received(protocol.MethodWindowShowMessage) {
		var p protocol.ShowMessageParams
		json.Unmarshal(params, &p)
		if strings.Contains(p.Message, "JDK classes not found") {
			out = append(out, p)
		}
	}
	return out
}

func hasMessage(ds []protocol.Diagnostic, sub string) bool {
	for _, d := range ds {
		if strings.Contains(d.Message, sub) {
			return true
		}
	}
	return false
}

// TestJDKInTheEditor: the editor reads the JDK of its javaHome setting,
// from the JDK's class data when it has no src.zip; without a JDK it says
// so once a session, at Info level, and names what it looked for.
func TestJDKInTheEditor(t *testing.T) {
	home := fixture.JDKHomeWith(t, "ct.sym")
	cacheDir := fixture.Isolate(t)
	t.Setenv("JAVA_HOME", "")
	t.Setenv("PATH", t.TempDir()) // no javac, no java: no JDK but the setting's
	dir := fixture.Project(t, map[string]string{"perfls.json": `{}`, "src/demo/Names.java": jdkNames})
	path := filepath.Join(dir, "src", "demo", "Names.java")
	sublist := `demo.Names has no method "sublist"`

	fc := lsptest.Start(t, server.Options{CacheDir: cacheDir})
	fc.Initialize(t, dir, nil, protocol.ClientCapabilities{})
	u := fc.Open(t, path, jdkNames)
	fc.Await(t, "the notice", func() bool { return len(jdkNotices(fc)) > 0 })
	n := jdkNotices(fc)
	want := "no JDK found: JAVA_HOME is not set and neither javac nor java is on PATH"
	if len(n) != 1 || n[0].Type != protocol.MessageTypeInfo || !strings.Contains(n[0].Message, want) || !strings.Contains(n[0].Message, "javaHome") {
		t.Errorf("notice: %+v", n)
	}
	if hasMessage(fc.LastDiagnostics(u), sublist) {
		t.Error("without a JDK the method name was checked")
	}

	// The setting: the JDK's ct.sym is read, the document linted again.
	fc.Notify(t, protocol.MethodWorkspaceDidChangeConfiguration, &protocol.DidChangeConfigurationParams{Settings: map[string]any{"javaHome": home}})
	fc.AwaitMatch(t, u, "the unknown method through the JDK's class", func(ds []protocol.Diagnostic) bool { return hasMessage(ds, sublist) })
	md := fc.Hover(t, u, fixture.Position(t, jdkNames, "ArrayList#trimToSize", 0, 12))
	for _, w := range []string{"void trimToSize()", "declared in `java.util.ArrayList` (the JDK)"} {
		if !strings.Contains(md, w) {
			t.Errorf("hover lacks %q:\n%s", w, md)
		}
	}

	// A javaHome without a JDK: unchecked again, logged, not shown again.
	fc.Notify(t, protocol.MethodWorkspaceDidChangeConfiguration, &protocol.DidChangeConfigurationParams{Settings: map[string]any{"javaHome": t.TempDir()}})
	fc.AwaitMatch(t, u, "the method name unchecked again", func(ds []protocol.Diagnostic) bool { return !hasMessage(ds, sublist) })
	if n := jdkNotices(fc); len(n) != 1 {
		t.Errorf("shown %d times in a session: %+v", len(n), n)
	}

	// The setting at initialize.
	fc2 := lsptest.Start(t, server.Options{CacheDir: cacheDir})
	fc2.Initialize(t, dir, map[string]any{"javaHome": home}, protocol.ClientCapabilities{})
	u2 := fc2.Open(t, path, jdkNames)
	fc2.AwaitMatch(t, u2, "checked from the start", func(ds []protocol.Diagnostic) bool { return hasMessage(ds, sublist) })
	if n := jdkNotices(fc2); len(n) != 0 {
		t.Errorf("a notice with a JDK: %+v", n)
	}
}
