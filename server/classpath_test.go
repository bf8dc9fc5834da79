package server_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/perfls/perfls/internal/fixture"
	"github.com/perfls/perfls/internal/lsptest"
	"github.com/perfls/perfls/server"
)

const cpLib = `package org.acme.xml;

/** Builds documents. */
public class Builder {
    public Object build(java.io.File file) { return null; }

    public Object build(String text, int... flags) { return null; }

    public static Builder create() { return new Builder(); }

    public static Iterable<Object[]> inputs(int n) { return null; }
}
`

const cpMain = `package demo;

import org.acme.xml.Builder;

public class Main {
    @SPL({"SELF[Builder#inputs](1) <= Builder#buildd[Builder#inputs](1)",
          "SELF[Builder#inputs](1) <= Builder#create[Builder#inputs](1)",
          "SELF[Builder#inputs](1) <= org.acme.xml.Builder#build(String, int[])[Builder#inputs](1)",
          "SELF[Builder#inputs](1) <= org.acme.xml.Builder#"})
    public static int m(int[] a) { return 0; }
}
`

// openJarProject opens cpMain in a project whose perfls.json has the
// classpath classpath (JSON), holding lib/acme-xml-1.0.jar built from cpLib
// (with its -sources.jar when withSources), in a server with a cache
// directory of the test's own, which it returns.
func openJarProject(t *testing.T, classpath string, withSources bool) (*lsptest.Client, protocol.DocumentURI, string) {
	t.Helper()
	cacheDir := fixture.Isolate(t)
	dir := fixture.Project(t, map[string]string{
		"perfls.json":        `{"classpath": ` + classpath + `}`,
		"src/demo/Main.java": cpMain,
	})
	fixture.Jar(t, filepath.Join(dir, "lib", "acme-xml-1.0.jar"), map[string]string{"org/acme/xml/Builder.java": cpLib}, withSources)
	fc := lsptest.Start(t, server.Options{CacheDir: cacheDir})
	fc.Initialize(t, dir, nil, protocol.ClientCapabilities{})
	return fc, fc.Open(t, filepath.Join(dir, "src/demo/Main.java"), cpMain), cacheDir
}

// TestClasspathInTheEditor: a project whose perfls.json puts a jar (with a
// -sources.jar beside it) on the classpath; once the classpath is read in
// the background, lint reports an unknown method of the jar's class, hover
// shows a jar method's declaration, jar and source line, completion after
// "Class#" lists the jar class's methods, and go-to-definition opens the
// source extracted into the cache directory.
func TestClasspathInTheEditor(t *testing.T) {
	fc, u, cacheDir := openJarProject(t, `["lib/acme-xml-1.0.jar"]`, true)
	diags := fc.AwaitMatch(t, u, "the jar's unknown method", func(ds []protocol.Diagnostic) bool {
		for _, d := range ds {
			if strings.Contains(d.Message, `org.acme.xml.Builder has no method "buildd"; did you mean build?`) {
				return true
			}
		}
		return false
	})
	for _, d := range diags {
		if d.Severity == protocol.DiagnosticSeverityError && !strings.Contains(d.Message, "buildd") && !strings.Contains(d.Message, `after "#"`) {
			t.Errorf("unexpected error: %s", d.Message)
		}
	}

	md := fc.Hover(t, u, fixture.Position(t, cpMain, "Builder#create", 0, 9))
	for _, want := range []string{"static Builder create()", "declared in `org.acme.xml.Builder` from `acme-xml-1.0.jar`", "org/acme/xml/Builder.java:9 (acme-xml-1.0-sources.jar)"} {
		if !strings.Contains(md, want) {
			t.Errorf("hover lacks %q:\n%s", want, md)
		}
	}
	md = fc.Hover(t, u, fixture.Position(t, cpMain, "Builder#build(String", 0, 9))
	if !strings.Contains(md, "Object build(String text, int... flags)") || !strings.Contains(md, "Builder.java:7") {
		t.Errorf("hover on the overload:\n%s", md)
	}

	list := fc.Completion(t, u, fixture.Position(t, cpMain, `Builder#"`, 0, 8))
	var labels []string
	for _, it := range list.Items {
		labels = append(labels, it.Label)
	}
	for _, want := range []string{"build", "create", "inputs", "toString"} {
		has := false
		for _, l := range labels {
			has = has || l == want
		}
		if has == (want == "toString") { // Object's methods are left out
			t.Errorf("completion after Builder#: %v (want %s: %v)", labels, want, want != "toString")
		}
	}
	// Packages and classes of the jar after a dot.
	for _, c := range []struct{ before, want string }{{"org.acme.", "xml"}, {"org.acme.xml.", "Builder"}} {
		text := strings.Replace(cpMain, "org.acme.xml.Builder#\"", c.before+"\"", 1)
		fc.Replace(t, u, 2, text)
		list := fc.Completion(t, u, fixture.Position(t, text, c.before+"\"", 0, len(c.before)))
		found := false
		for _, it := range list.Items {
			found = found || it.Label == c.want
		}
		if !found {
			t.Errorf("completion after %s lacks %s: %+v", c.before, c.want, list.Items)
		}
	}
	fc.Replace(t, u, 3, cpMain)

	var locs []protocol.Location
	fc.Call(t, protocol.MethodTextDocumentDefinition, &protocol.DefinitionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: fixture.Position(t, cpMain, "Builder#create", 0, 9)}}, &locs)
	if len(locs) != 1 {
		t.Fatalf("definition: %+v", locs)
	}
	p := uri.URI(locs[0].URI).Filename()
	if !strings.HasPrefix(p, filepath.Join(cacheDir, "sources")) || !strings.HasSuffix(p, "org/acme/xml/Builder.java") || locs[0].Range.Start != fixture.Position(t, cpLib, "create()", 0, 0) {
		t.Errorf("definition: %s %+v", p, locs[0].Range)
	}
	if st, err := os.Stat(p); err != nil || st.Mode().Perm()&0o222 != 0 {
		t.Errorf("extracted source: %v %v", st, err)
	}
}

// TestClasspathWithoutSources: without a -sources.jar, hover still shows
// the declaration from the class file, and go-to-definition finds nothing
// rather than a made-up place.
func TestClasspathWithoutSources(t *testing.T) {
	fc, u, _ := openJarProject(t, `["lib/*.jar"]`, false)
	pos := fixture.Position(t, cpMain, "Builder#create", 0, 9)
	fc.Await(t, "the classpath", func() bool { return strings.Contains(fc.Hover(t, u, pos), "acme-xml-1.0.jar") })
	if md := fc.Hover(t, u, pos); !strings.Contains(md, "static org.acme.xml.Builder create()") || strings.Contains(md, ".java:") {
		t.Errorf("hover without sources:\n%s", md)
	}
	var locs []protocol.Location
	fc.Call(t, protocol.MethodTextDocumentDefinition, &protocol.DefinitionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: pos}}, &locs)
	if len(locs) != 0 {
		t.Errorf("definition without sources: %+v", locs)
	}
}

// TestJDKMethodInTheEditor: a JDK method gets the same hover and
// go-to-definition as a jar's, from the JDK's src.zip ($JAVA_HOME/lib).
func TestJDKMethodInTheEditor(t *testing.T) {
	cacheDir := fixture.Isolate(t)
	home := t.TempDir()
	arrays := "package java.util;\n\npublic class Arrays {\n    public static void sort(int[] a) {}\n\n    public static void sort(long[] a) {}\n}\n"
	fixture.Zip(t, filepath.Join(home, "lib", "src.zip"), map[string]string{
		"java.base/java/lang/Object.java": "package java.lang;\npublic class Object { }\n",
		"java.base/java/util/Arrays.java": arrays,
	})
	t.Setenv("JAVA_HOME", home)
	main := strings.Replace(cpMain, "Builder#create[", "java.util.Arrays#sort(long[])[", 1)
	dir := fixture.Project(t, map[string]string{"perfls.json": `{"classpath": []}`, "src/demo/Main.java": main})
	fc := lsptest.Start(t, server.Options{CacheDir: cacheDir})
	fc.Initialize(t, dir, nil, protocol.ClientCapabilities{})
	u := fc.Open(t, filepath.Join(dir, "src/demo/Main.java"), main)
	pos := fixture.Position(t, main, "Arrays#sort", 0, 8)
	md := fc.Hover(t, u, pos)
	for _, want := range []string{"static void sort(long[] a)", "declared in `java.util.Arrays` (the JDK)", "java.base/java/util/Arrays.java:6 (src.zip)"} {
		if !strings.Contains(md, want) {
			t.Errorf("hover lacks %q:\n%s", want, md)
		}
	}
	var locs []protocol.Location
	fc.Call(t, protocol.MethodTextDocumentDefinition, &protocol.DefinitionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: pos}}, &locs)
	if len(locs) != 1 || !strings.HasSuffix(uri.URI(locs[0].URI).Filename(), "java.base/java/util/Arrays.java") || locs[0].Range.Start.Line != 5 {
		t.Errorf("definition: %+v", locs)
	}
}

// TestClasspathFollowsPerflsJSON: editing perfls.json (a watched file
// changed on disk) resolves the classpath again, and the open document is
// linted against the new one.
func TestClasspathFollowsPerflsJSON(t *testing.T) {
	fc, u, _ := openJarProject(t, `[]`, false)
	dir := filepath.Dir(filepath.Dir(filepath.Dir(uri.URI(u).Filename())))
	buildd := func(ds []protocol.Diagnostic) bool {
		for _, d := range ds {
			if strings.Contains(d.Message, `has no method "buildd"`) {
				return true
			}
		}
		return false
	}
	fc.AwaitMatch(t, u, "the first lint", func(ds []protocol.Diagnostic) bool { return len(ds) > 0 })
	if buildd(fc.LastDiagnostics(u)) {
		t.Fatal("a jar that is not on the classpath was checked")
	}
	cfg := filepath.Join(dir, "perfls.json")
	if err := os.WriteFile(cfg, []byte(`{"classpath": ["lib/acme-xml-1.0.jar"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	fc.Notify(t, protocol.MethodWorkspaceDidChangeWatchedFiles, &protocol.DidChangeWatchedFilesParams{
		Changes: []*protocol.FileEvent{{URI: uri.File(cfg), Type: protocol.FileChangeTypeChanged}}})
	fc.AwaitMatch(t, u, "the jar's unknown method", buildd)
}
