package classpath_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/analysis/workspace/classpath"
	"github.com/perfls/perfls/analysis/workspace/jdk"
	"github.com/perfls/perfls/internal/fixture"
)

const lintMain = `package demo;

import org.acme.xml.*;
import org.acme.xml.Builder;

public class Main {
    public static Iterable<Object[]> gen(int n) { return null; }

    @SPL("%s")
    public static int m(int[] a) { return 0; }

    static class Sub extends Base { } // through the wildcard import
}
`

// fakeSrcZip writes a src.zip with the few JDK classes the tests reach.
func fakeSrcZip(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "src.zip")
	fixture.Zip(t, p, map[string]string{
		"java.base/java/lang/Object.java":   "package java.lang; public class Object { public native int hashCode(); public String toString() { return null; } }",
		"java.base/java/lang/Runnable.java": "package java.lang; public interface Runnable { void run(); }",
		"java.base/java/lang/String.java":   "package java.lang; public final class String { }",
		"java.base/java/io/File.java":       "package java.io; public class File { }",
	})
	return p
}

// TestLintAgainstJar: references into a jar on the classpath are checked
// like the workspace's and the JDK's; packages the classpath does not have
// stay unchecked.
func TestLintAgainstJar(t *testing.T) {
	jar := classpath.AcmeJar(t, false)
	// The JDK's sources, for Runnable and Object above the jar's classes:
	// without them nothing is certain to be missing.
	z, err := jdk.Open(fakeSrcZip(t))
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	ext := workspace.Externals{z, classpath.New([]string{jar})}
	for _, tc := range []struct{ formula, code, msg string }{
		{`SELF[gen](1) <= org.acme.xml.Builder#create[gen](1)`, "", ""},
		{`SELF[gen](1) <= Builder#build(File)[gen](1)`, "", ""},
		{`SELF[gen](1) <= Builder#build(String, int[])[gen](1)`, "", ""},
		{`SELF[gen](1) <= Builder#depth[gen](1)`, "", ""},            // inherited from Base
		{`SELF[gen](1) <= Builder.Options#validate[gen](1)`, "", ""}, // nested, through the import
		{`SELF[gen](1) <= org.acme.xml.Doc#text[gen](1)`, "", ""},    // wildcard import not needed
		{`SELF[gen](1) <= Doc#text[gen](1)`, "", ""},                 // through the wildcard import
		{`SELF[gen](1) <= org.other.Thing#whatever[gen](1)`, "", ""}, // not on the classpath: unchecked
		{`SELF[gen](1) <= Builder#hashCode[gen](1)`, "", ""},         // from java.lang.Object, not indexed here
		{`SELF[gen](1) <= org.acme.xml.Builder#buildd[gen](1)`, workspace.CodeUnknownMethod, `org.acme.xml.Builder has no method "buildd"; did you mean build?`},
		{`SELF[gen](1) <= Builder#build[gen](1)`, workspace.CodeAmbiguousOverload, `candidates: build(File); build(String, int[])`},
		{`SELF[gen](1) <= Builder#build(int)[gen](1)`, workspace.CodeNoOverload, `has no overload build(int)`},
		{`SELF[gen](1) <= Builder#secret[gen](1)`, workspace.CodeUnknownMethod, `has no method "secret"`},
		{`SELF[gen](1) <= org.acme.xml.NoSuchClass#x[gen](1)`, workspace.CodeUnknownClass, `unknown class org.acme.xml.NoSuchClass: package org.acme.xml on the classpath (acme-xml-1.0.jar) has no such class`},
		{`SELF[gen](1) <= org.acme.xml.Buildr#build[gen](1)`, workspace.CodeUnknownClass, `has no such class; did you mean org.acme.xml.Builder?`},
		{`SELF[gen](1) <= SELF[org.acme.xml.Builder#creat](1)`, workspace.CodeUnknownMethod, `has no generator method "creat"; did you mean create?`},
		{`SELF[gen](1) <= demo.Main.Sub#depth[gen](1)`, "", ""}, // a workspace class extending the jar's
		{`SELF[gen](1) <= demo.Main.Sub#dept[gen](1)`, workspace.CodeUnknownMethod, `demo.Main.Sub has no method "dept"`},
	} {
		t.Run(tc.formula, func(t *testing.T) {
			src := fmt.Sprintf(lintMain, tc.formula)
			f, err := javasrc.Parse(filepath.Join("/p", "demo", "Main.java"), []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			formulas, _ := workspace.JavaFormulas(f)
			diags := workspace.NewIndex([]*javasrc.File{f}).Lint(formulas, workspace.LintOptions{External: ext})
			var errs []string
			for _, d := range diags {
				if d.Severity == workspace.Error {
					errs = append(errs, d.Code+": "+d.Message)
				}
			}
			switch {
			case tc.code == "" && len(errs) > 0:
				t.Errorf("want no error, got %q", errs)
			case tc.code != "" && (len(errs) != 1 || !strings.HasPrefix(errs[0], tc.code+": ") || !strings.Contains(errs[0], tc.msg)):
				t.Errorf("want %s %q, got %q", tc.code, tc.msg, errs)
			}
		})
	}
}
