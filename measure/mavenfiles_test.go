package measure

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	fx "github.com/perfls/perfls/internal/fixture"
	"github.com/perfls/perfls/internal/input"
)

// fakeRepo is a Maven local repository written by a test.
type fakeRepo struct {
	t   *testing.T
	dir string
}

func newFakeRepo(t *testing.T) fakeRepo {
	return fakeRepo{t, filepath.Join(t.TempDir(), "repo")}
}

// gav splits "g:a:v".
func gav(t testing.TB, coords string) (g, a, v string) {
	p := strings.Split(coords, ":")
	if len(p) != 3 {
		t.Fatalf("bad coordinates %q", coords)
	}
	return p[0], p[1], p[2]
}

// path is the file of g:a:v[-classifier].ext.
func (r fakeRepo) path(coords, classifier, ext string) string {
	g, a, v := gav(r.t, coords)
	name := a + "-" + v
	if classifier != "" {
		name += "-" + classifier
	}
	return filepath.Join(r.dir, filepath.FromSlash(strings.ReplaceAll(g, ".", "/")), a, v, name+"."+ext)
}

func (r fakeRepo) jar(coords string) string { return r.path(coords, "", "jar") }

// add writes coords' pom (body after the coordinates) and, with jar, its jar.
func (r fakeRepo) add(coords, body string, jar bool) {
	g, a, v := gav(r.t, coords)
	r.pom(coords, "<project><modelVersion>4.0.0</modelVersion><groupId>"+g+"</groupId><artifactId>"+a+
		"</artifactId><version>"+v+"</version>"+body+"</project>\n")
	if jar {
		r.file(r.jar(coords), "PK\x05\x06")
	}
}

// pom writes coords' pom as given.
func (r fakeRepo) pom(coords, text string) { r.file(r.path(coords, "", "pom"), text) }

func (r fakeRepo) file(p, text string) {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// dep is a <dependency> element of coords with extra elements.
func dep(coords string, extra ...string) string {
	p := strings.SplitN(coords, ":", 3)
	s := "<dependency><groupId>" + p[0] + "</groupId><artifactId>" + p[1] + "</artifactId>"
	if len(p) == 3 && p[2] != "" {
		s += "<version>" + p[2] + "</version>"
	}
	return s + strings.Join(extra, "") + "</dependency>"
}

func deps(ds ...string) string { return "<dependencies>" + strings.Join(ds, "") + "</dependencies>" }

// project writes a pom.xml for the project in dir.
func project(coords, body string) string {
	p := strings.Split(coords, ":")
	return "<project><modelVersion>4.0.0</modelVersion><groupId>" + p[0] + "</groupId><artifactId>" + p[1] +
		"</artifactId><version>" + p[2] + "</version>" + body + "</project>\n"
}

// classpathFromFiles runs MavenClasspathFromFiles and fails on err.
func classpathFromFiles(t *testing.T, root, repo string) ([]string, []string) {
	t.Helper()
	cp, missing, err := MavenClasspathFromFiles(root, repo)
	if err != nil {
		t.Fatalf("MavenClasspathFromFiles: %v", err)
	}
	return cp, missing
}

func wantEntries(t *testing.T, cp []string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !slices.Contains(cp, w) {
			t.Errorf("classpath lacks %s:\n  %s", w, strings.Join(cp, "\n  "))
		}
	}
}

func wantNoEntries(t *testing.T, cp []string, notWant ...string) {
	t.Helper()
	for _, w := range notWant {
		if slices.Contains(cp, w) {
			t.Errorf("classpath has %s:\n  %s", w, strings.Join(cp, "\n  "))
		}
	}
}

// wantMissing checks that one line of missing contains every part.
func wantMissing(t *testing.T, missing []string, parts ...string) {
	t.Helper()
	for _, m := range missing {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(m, p)
		}
		if ok {
			return
		}
	}
	t.Errorf("no missing line says %q:\n  %s", parts, strings.Join(missing, "\n  "))
}

func TestMavenFilesParentPropertiesAndBOM(t *testing.T) {
	repo := newFakeRepo(t)
	// A BOM whose versions come from its own parent's property, and which
	// imports a second BOM.
	repo.add("org.bom:bom-parent:1", "<packaging>pom</packaging><properties><lib.version>2.5</lib.version></properties>", false)
	repo.pom("org.bom:bom:1", `<project><parent><groupId>org.bom</groupId><artifactId>bom-parent</artifactId><version>1</version></parent>
  <artifactId>bom</artifactId><packaging>pom</packaging>
  <dependencyManagement><dependencies>`+dep("org.lib:lib:${lib.version}")+dep("org.bom:bom2:1", "<type>pom</type><scope>import</scope>")+`</dependencies></dependencyManagement></project>`)
	repo.add("org.bom:bom2:1", `<packaging>pom</packaging><dependencyManagement><dependencies>`+dep("org.other:other:7")+`</dependencies></dependencyManagement>`, false)
	repo.add("org.lib:lib:2.5", "", true)
	repo.add("org.other:other:7", "", true)
	repo.add("org.acme:from-parent:1.0", "", true)
	repo.add("org.acme:versioned:3.1", "", true)

	dir := t.TempDir()
	fx.WriteFiles(t, dir, map[string]string{
		// The parent on disk (default relativePath ../pom.xml): properties,
		// an imported BOM and a dependency every child inherits.
		"pom.xml": project("org.acme:parent:1.0", `<packaging>pom</packaging><modules><module>app</module></modules>
  <properties><acme.version>3.1</acme.version></properties>
  <dependencyManagement><dependencies>`+dep("org.bom:bom:1", "<type>pom</type><scope>import</scope>")+`</dependencies></dependencyManagement>`+
			deps(dep("org.acme:from-parent:${project.version}", "<scope>test</scope>"))),
		"app/pom.xml": `<project><modelVersion>4.0.0</modelVersion>
  <parent><groupId>org.acme</groupId><artifactId>parent</artifactId><version>1.0</version></parent>
  <artifactId>app</artifactId>` + deps(
			dep("org.lib:lib"), dep("org.other:other"), dep("org.acme:versioned:${acme.version}")) + `</project>`,
	})
	// The whole build, and the module alone: the same jars.
	for _, root := range []string{dir, filepath.Join(dir, "app")} {
		cp, missing := classpathFromFiles(t, root, repo.dir)
		wantEntries(t, cp, repo.jar("org.lib:lib:2.5"), repo.jar("org.other:other:7"), repo.jar("org.acme:from-parent:1.0"), repo.jar("org.acme:versioned:3.1"))
		if len(missing) > 0 {
			t.Errorf("%s: missing %q", root, missing)
		}
	}
}

func TestMavenFilesParentFromRepositoryAndRelativePath(t *testing.T) {
	repo := newFakeRepo(t)
	repo.add("org.corp:corp-parent:5", `<packaging>pom</packaging><properties><x.version>1.1</x.version></properties>
  <dependencyManagement><dependencies>`+dep("org.x:x:${x.version}")+`</dependencies></dependencyManagement>`, false)
	repo.add("org.x:x:1.1", "", true)
	repo.add("org.x:x:9", "", true)
	dir := t.TempDir()
	fx.WriteFiles(t, dir, map[string]string{
		// ../pom.xml is another project's pom: not the parent named, so the
		// repository's is read.
		"pom.xml": project("org.unrelated:thing:1", ""),
		"a/pom.xml": `<project><parent><groupId>org.corp</groupId><artifactId>corp-parent</artifactId><version>5</version></parent>
  <groupId>org.corp</groupId><artifactId>a</artifactId>` + deps(dep("org.x:x")) + `</project>`,
		// An explicit relativePath to a directory.
		"b/pom.xml": `<project><parent><groupId>org.corp</groupId><artifactId>local-parent</artifactId><version>1</version><relativePath>../parents/local</relativePath></parent>
  <artifactId>b</artifactId>` + deps(dep("org.x:x:${x.version}")) + `</project>`,
		"parents/local/pom.xml": project("org.corp:local-parent:1", "<packaging>pom</packaging><properties><x.version>9</x.version></properties>"),
	})
	cp, missing := classpathFromFiles(t, filepath.Join(dir, "a"), repo.dir)
	wantEntries(t, cp, repo.jar("org.x:x:1.1"))
	if len(missing) > 0 {
		t.Errorf("missing %q", missing)
	}
	cp, _ = classpathFromFiles(t, filepath.Join(dir, "b"), repo.dir)
	if want := []string{repo.jar("org.x:x:9")}; !slices.Equal(cp, want) {
		t.Errorf("classpath %q, want %q (x.version from ../parents/local/pom.xml)", cp, want)
	}
}

func TestMavenFilesTransitive(t *testing.T) {
	repo := newFakeRepo(t)
	// a → b → c; b's test and provided dependencies, and its optional one,
	// are not transitive; a excludes d.
	repo.add("g:a:1", deps(dep("g:b:1"), dep("g:d:1")), true)
	repo.add("g:b:1", deps(dep("g:c:1"), dep("g:t:1", "<scope>test</scope>"), dep("g:p:1", "<scope>provided</scope>"),
		dep("g:opt:1", "<optional>true</optional>"), dep("g:rt:1", "<scope>runtime</scope>")), true)
	repo.add("g:c:1", "", true)
	repo.add("g:d:1", deps(dep("g:under-d:1")), true)
	repo.add("g:under-d:1", "", true)
	for _, c := range []string{"g:t:1", "g:p:1", "g:opt:1", "g:rt:1"} {
		repo.add(c, "", true)
	}
	// Nearest wins: x:1 direct beats x:2 deeper; at equal depth, the first
	// declared (y:1 under e) beats y:2 (under f).
	repo.add("g:x:1", "", true)
	repo.add("g:x:2", "", true)
	repo.add("g:e:1", deps(dep("g:x:2"), dep("g:y:1")), true)
	repo.add("g:f:1", deps(dep("g:y:2")), true)
	repo.add("g:y:1", "", true)
	repo.add("g:y:2", "", true)
	// The project's dependency management overrides a transitive version.
	repo.add("g:h:1", deps(dep("g:managed:1")), true)
	repo.add("g:managed:1", "", true)
	repo.add("g:managed:3", "", true)
	// A wildcard exclusion drops all of k's dependencies.
	repo.add("g:k:1", deps(dep("g:k-dep:1")), true)
	repo.add("g:k-dep:1", "", true)
	// A test-scoped direct dependency and its compile dependencies are on
	// the (test) classpath; a war is not, nor what it bundles.
	repo.add("g:junit-like:1", deps(dep("g:matcher:1")), true)
	repo.add("g:matcher:1", "", true)
	repo.add("g:webapp:1", deps(dep("g:in-war:1")), false)
	repo.file(repo.path("g:webapp:1", "", "war"), "PK")
	repo.add("g:in-war:1", "", true)
	// A classifier, and a test-jar.
	repo.file(repo.path("g:natives:1", "linux", "jar"), "PK")
	repo.add("g:natives:1", "", false)
	repo.file(repo.path("g:testkit:1", "tests", "jar"), "PK")
	repo.add("g:testkit:1", "", false)

	dir := t.TempDir()
	fx.WriteFiles(t, dir, map[string]string{"pom.xml": project("g:app:1",
		`<dependencyManagement><dependencies>`+dep("g:managed:3")+`</dependencies></dependencyManagement>`+
			deps(dep("g:a:1", "<exclusions><exclusion><groupId>g</groupId><artifactId>d</artifactId></exclusion></exclusions>"),
				dep("g:x:1"), dep("g:e:1"), dep("g:f:1"), dep("g:h:1"),
				dep("g:k:1", "<exclusions><exclusion><groupId>*</groupId><artifactId>*</artifactId></exclusion></exclusions>"),
				dep("g:junit-like:1", "<scope>test</scope>"), dep("g:webapp:1", "<type>war</type>"),
				dep("g:natives:1", "<classifier>linux</classifier>"), dep("g:testkit:1", "<type>test-jar</type>", "<scope>test</scope>")))})
	cp, missing := classpathFromFiles(t, dir, repo.dir)
	wantEntries(t, cp, repo.jar("g:a:1"), repo.jar("g:b:1"), repo.jar("g:c:1"), repo.jar("g:rt:1"),
		repo.jar("g:x:1"), repo.jar("g:e:1"), repo.jar("g:f:1"), repo.jar("g:y:1"),
		repo.jar("g:h:1"), repo.jar("g:managed:3"), repo.jar("g:k:1"),
		repo.jar("g:junit-like:1"), repo.jar("g:matcher:1"),
		repo.path("g:natives:1", "linux", "jar"), repo.path("g:testkit:1", "tests", "jar"))
	wantNoEntries(t, cp, repo.jar("g:t:1"), repo.jar("g:p:1"), repo.jar("g:opt:1"), // not transitive
		repo.jar("g:d:1"), repo.jar("g:under-d:1"), repo.jar("g:k-dep:1"), // excluded
		repo.jar("g:x:2"), repo.jar("g:y:2"), repo.jar("g:managed:1"), // mediated away
		repo.jar("g:in-war:1"))
	for _, e := range cp {
		if strings.HasSuffix(e, ".war") || strings.HasSuffix(e, ".pom") {
			t.Errorf("classpath has %s: not a jar", e)
		}
	}
	if len(missing) > 0 {
		t.Errorf("missing %q", missing)
	}
}

func TestMavenFilesMissing(t *testing.T) {
	repo := newFakeRepo(t)
	repo.add("g:no-jar:1", "", false)
	repo.file(repo.jar("g:no-pom:1"), "PK")
	repo.add("g:broken-dep:1", deps(dep("g:bad:1")), true)
	repo.pom("g:bad:1", "<project><groupId>g</groupId><artifactId>bad</artifactId><version>1</version><dependencies>")
	repo.file(repo.jar("g:bad:1"), "PK")
	dir := t.TempDir()
	fx.WriteFiles(t, dir, map[string]string{"pom.xml": project("g:app:1", deps(
		dep("g:no-jar:1"), dep("g:no-pom:1"), dep("g:nowhere:1"),
		dep("g:range:[1.0,2.0)"), dep("g:latest:LATEST"), dep("g:prop:${undefined.version}"), dep("g:noversion"),
		dep("g:broken-dep:1"), dep("g:evil:../../../../etc"),
		dep("g:sys:1", "<scope>system</scope><systemPath>/etc/passwd</systemPath>")))})
	cp, missing := classpathFromFiles(t, dir, repo.dir)
	wantMissing(t, missing, "g:no-jar:jar:1", "no "+repo.jar("g:no-jar:1"))
	wantMissing(t, missing, "g:no-pom:jar:1", "pom is not in the local repository")
	wantMissing(t, missing, "g:nowhere:jar:1", "no "+repo.jar("g:nowhere:1"))
	wantMissing(t, missing, "g:range:jar:[1.0,2.0)", "range")
	wantMissing(t, missing, "g:latest:jar:LATEST", "range")
	wantMissing(t, missing, "g:prop:jar:${undefined.version}", "property")
	wantMissing(t, missing, "g:noversion:jar:", "no version")
	wantMissing(t, missing, "g:bad:jar:1", "XML")
	wantMissing(t, missing, "g:evil", "cannot be part of a repository path")
	wantMissing(t, missing, "g:sys:jar:1", "outside the project")
	// What is there is still used: the jar without a pom, the jar whose
	// pom is malformed.
	wantEntries(t, cp, repo.jar("g:no-pom:1"), repo.jar("g:broken-dep:1"), repo.jar("g:bad:1"))
	wantNoEntries(t, cp, "/etc/passwd")
	if len(cp) != 3 {
		t.Errorf("classpath %q, want the three jars present", cp)
	}
	for _, m := range missing {
		if strings.Contains(m, "etc/passwd") && !strings.Contains(m, "outside the project") {
			t.Errorf("unexpected %q", m)
		}
	}
}

func TestMavenFilesModules(t *testing.T) {
	repo := newFakeRepo(t)
	repo.add("org.lib:lib:1", deps(dep("org.lib:lib-dep:1")), true)
	repo.add("org.lib:lib-dep:1", "", true)
	repo.add("m:installed:1.0", "", true)
	dir := t.TempDir()
	parent := `<parent><groupId>m</groupId><artifactId>root</artifactId><version>1.0</version></parent>`
	fx.WriteFiles(t, dir, map[string]string{
		"pom.xml": project("m:root:1.0", `<packaging>pom</packaging><modules><module>core</module><module>app</module><module>nested</module></modules>`),
		// core depends on a library: its users get it transitively.
		"core/pom.xml":                            "<project>" + parent + "<artifactId>core</artifactId>" + deps(dep("org.lib:lib:1")) + "</project>",
		"core/target/classes/m/Core.class":        "",
		"core/target/test-classes/m/Kit.class":    "",
		"app/pom.xml":                             "<project>" + parent + "<artifactId>app</artifactId>" + deps(dep("m:core:${project.version}"), dep("m:core:${project.version}", "<type>test-jar</type><scope>test</scope>"), dep("m:nested-b:1.0")) + "</project>",
		"nested/pom.xml":                          "<project>" + parent + "<artifactId>nested</artifactId><packaging>pom</packaging><modules><module>b</module><module>c</module></modules></project>",
		"nested/b/pom.xml":                        "<project><parent><groupId>m</groupId><artifactId>nested</artifactId><version>1.0</version></parent><artifactId>nested-b</artifactId></project>",
		"nested/c/pom.xml":                        "<project><parent><groupId>m</groupId><artifactId>nested</artifactId><version>1.0</version></parent><artifactId>nested-c</artifactId>" + deps(dep("m:app:1.0"), dep("m:installed:1.0")) + "</project>",
		"nested/b/target/classes/m/B.class":       "",
		"app/src/main/java/m/App.java":            "package m; class App {}",
		"nested/b/src/main/java/m/b/NestedB.java": "package m.b; class NestedB {}",
	})
	cp, missing := classpathFromFiles(t, dir, repo.dir)
	wantEntries(t, cp, filepath.Join(dir, "core/target/classes"), filepath.Join(dir, "core/target/test-classes"),
		filepath.Join(dir, "nested/b/target/classes"), repo.jar("org.lib:lib:1"), repo.jar("org.lib:lib-dep:1"))
	// app is not compiled: nested-c's dependency on it is reported.
	wantMissing(t, missing, "m:app:jar:1.0", "a module of this build", "not compiled yet", "m:nested-c:1.0")
	// A module of the build installed in the repository is not in the
	// reactor here (a different module): read from the repository.
	wantEntries(t, cp, repo.jar("m:installed:1.0"))

	// Opened at one module, its siblings are still found through the
	// parent's <modules>.
	cp, missing = classpathFromFiles(t, filepath.Join(dir, "app"), repo.dir)
	wantEntries(t, cp, filepath.Join(dir, "core/target/classes"), filepath.Join(dir, "nested/b/target/classes"), repo.jar("org.lib:lib-dep:1"))
	if len(missing) > 0 {
		t.Errorf("missing %q", missing)
	}
}

func TestMavenFilesSystemScope(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "out.jar")
	writeFile(t, outside, "PK")
	fx.WriteFiles(t, dir, map[string]string{
		"lib/vendor.jar": "PK",
		"pom.xml": project("g:app:1", deps(
			dep("v:vendor:1", "<scope>system</scope><systemPath>${project.basedir}/lib/vendor.jar</systemPath>"),
			dep("v:out:1", "<scope>system</scope><systemPath>"+outside+"</systemPath>"),
			dep("v:link:1", "<scope>system</scope><systemPath>${basedir}/lib/link.jar</systemPath>"))),
	})
	if err := os.Symlink(outside, filepath.Join(dir, "lib", "link.jar")); err != nil {
		t.Fatal(err)
	}
	cp, missing := classpathFromFiles(t, dir, t.TempDir())
	if want := []string{filepath.Join(dir, "lib/vendor.jar")}; !slices.Equal(cp, want) {
		t.Errorf("classpath %q, want %q", cp, want)
	}
	wantMissing(t, missing, "v:out:jar:1", "outside the project")
	wantMissing(t, missing, "v:link:jar:1", "outside the project") // a symlink out is outside
}

func TestMavenFilesRelocation(t *testing.T) {
	repo := newFakeRepo(t)
	repo.add("old:lib:1", `<distributionManagement><relocation><groupId>new</groupId></relocation></distributionManagement>`, false)
	repo.add("new:lib:1", deps(dep("new:lib-dep:1")), true)
	repo.add("new:lib-dep:1", "", true)
	// A relocation loop ends.
	repo.add("loop:a:1", `<distributionManagement><relocation><artifactId>b</artifactId></relocation></distributionManagement>`, false)
	repo.add("loop:b:1", `<distributionManagement><relocation><artifactId>a</artifactId></relocation></distributionManagement>`, false)
	dir := t.TempDir()
	fx.WriteFiles(t, dir, map[string]string{"pom.xml": project("g:app:1", deps(dep("old:lib:1"), dep("loop:a:1")))})
	cp, missing := classpathFromFiles(t, dir, repo.dir)
	wantEntries(t, cp, repo.jar("new:lib:1"), repo.jar("new:lib-dep:1"))
	wantMissing(t, missing, "loop:")
}

func TestMavenFilesHostile(t *testing.T) {
	repo := newFakeRepo(t)
	// Parents in a cycle in the repository, BOMs importing each other, a
	// property that doubles at each level, a pom larger than the limit.
	repo.pom("cyc:p1:1", `<project><parent><groupId>cyc</groupId><artifactId>p2</artifactId><version>1</version></parent><artifactId>p1</artifactId></project>`)
	repo.pom("cyc:p2:1", `<project><parent><groupId>cyc</groupId><artifactId>p1</artifactId><version>1</version></parent><artifactId>p2</artifactId></project>`)
	repo.add("cyc:child:1", `<parent><groupId>cyc</groupId><artifactId>p1</artifactId><version>1</version></parent>`, true)
	repo.add("bom:one:1", `<packaging>pom</packaging><dependencyManagement><dependencies>`+dep("bom:two:1", "<type>pom</type><scope>import</scope>")+dep("x:x:1")+`</dependencies></dependencyManagement>`, false)
	repo.add("bom:two:1", `<packaging>pom</packaging><dependencyManagement><dependencies>`+dep("bom:one:1", "<type>pom</type><scope>import</scope>")+`</dependencies></dependencyManagement>`, false)
	repo.add("x:x:1", "", true)
	var props strings.Builder
	props.WriteString("<properties><p0>ab</p0>")
	for i := 1; i <= 40; i++ {
		props.WriteString("<p" + strconv.Itoa(i) + ">${p" + strconv.Itoa(i-1) + "}${p" + strconv.Itoa(i-1) + "}</p" + strconv.Itoa(i) + ">")
	}
	props.WriteString("</properties>")
	repo.add("big:huge:1", "<description>"+strings.Repeat("x", int(input.POM.Max))+"</description>", true)

	dir := t.TempDir()
	fx.WriteFiles(t, dir, map[string]string{
		"pom.xml": project("g:app:1", `<packaging>pom</packaging><modules><module>m1</module><module>m2</module><module>malformed</module><module>absent</module><module>m1</module></modules>`+
			props.String()+`<dependencyManagement><dependencies>`+dep("bom:one:1", "<type>pom</type><scope>import</scope>")+`</dependencies></dependencyManagement>`+
			deps(dep("cyc:child:1"), dep("x:x"), dep("bomb:bomb:${p40}"), dep("big:huge:1"))),
		// Two modules that name each other as parent by relativePath.
		"m1/pom.xml":        `<project><parent><groupId>g</groupId><artifactId>m2</artifactId><version>1</version><relativePath>../m2/pom.xml</relativePath></parent><artifactId>m1</artifactId></project>`,
		"m2/pom.xml":        `<project><parent><groupId>g</groupId><artifactId>m1</artifactId><version>1</version><relativePath>../m1/pom.xml</relativePath></parent><artifactId>m2</artifactId></project>`,
		"malformed/pom.xml": `<project><artifactId>oops</artifactId><dependencies><dependency></project>`,
	})
	cp, missing := classpathFromFiles(t, dir, repo.dir)
	wantEntries(t, cp, repo.jar("cyc:child:1"), repo.jar("x:x:1"))
	wantMissing(t, missing, "cyc:", "cycle")
	wantMissing(t, missing, "m1", "cycle")
	wantMissing(t, missing, "malformed/pom.xml", "XML")
	wantMissing(t, missing, "absent/pom.xml")
	wantMissing(t, missing, "bomb:bomb:jar:${p40}", "property")
	wantMissing(t, missing, "big:huge:jar:1", "larger than")
	wantEntries(t, cp, repo.jar("big:huge:1")) // its jar is there; its pom is not read

	// The root pom malformed: an error naming the file.
	bad := t.TempDir()
	writeFile(t, filepath.Join(bad, "pom.xml"), "<project><dependencies>")
	if _, _, err := MavenClasspathFromFiles(bad, repo.dir); err == nil || !strings.Contains(err.Error(), filepath.Join(bad, "pom.xml")) {
		t.Errorf("malformed root pom: err %v, want one naming the file", err)
	}
	// No pom at all.
	if _, _, err := MavenClasspathFromFiles(t.TempDir(), repo.dir); err == nil {
		t.Error("no pom.xml: no error")
	}
}

func TestMavenLocalRepository(t *testing.T) {
	home := t.TempDir()
	if got, err := mavenLocalRepositoryIn(home); err != nil || got != filepath.Join(home, ".m2", "repository") {
		t.Errorf("no settings: %q, %v; want ~/.m2/repository", got, err)
	}
	writeFile(t, filepath.Join(home, ".m2", "settings.xml"), `<?xml version="1.0" encoding="UTF-8"?>
<settings xmlns="http://maven.apache.org/SETTINGS/1.0.0"><localRepository>${user.home}/other-repo</localRepository></settings>`)
	if got, err := mavenLocalRepositoryIn(home); err != nil || got != filepath.Join(home, "other-repo") {
		t.Errorf("settings: %q, %v; want ~/other-repo", got, err)
	}
	writeFile(t, filepath.Join(home, ".m2", "settings.xml"), `<settings><localRepository>`)
	if got, err := mavenLocalRepositoryIn(home); err == nil || got != filepath.Join(home, ".m2", "repository") {
		t.Errorf("malformed settings: %q, %v; want the default and an error", got, err)
	}
}

func TestGradleClasspathFromFilesProblem(t *testing.T) {
	dir := t.TempDir()
	if p := GradleClasspathFromFilesProblem(dir); p != "" {
		t.Errorf("not a Gradle build: %q", p)
	}
	writeFile(t, filepath.Join(dir, "build.gradle.kts"), "plugins { java }")
	p := GradleClasspathFromFilesProblem(dir)
	for _, s := range []string{"build.gradle.kts", "trusted", ConfigFile} {
		if !strings.Contains(p, s) {
			t.Errorf("notice does not say %q: %s", s, p)
		}
	}
}

// TestMavenFilesDebianRepository reads Debian's packaged Maven repository
// (apt-get install maven junit4), where junit's pom depends on hamcrest
// with the version "debian" and hamcrest-core is relocated to hamcrest.
func TestMavenFilesDebianRepository(t *testing.T) {
	const repo = fx.DebianMavenRepo
	if _, err := os.Stat(filepath.Join(repo, "junit/junit/4.13.2/junit-4.13.2.pom")); err != nil {
		t.Skipf("%s has no junit 4.13.2 (apt-get install junit4): %v", repo, err)
	}
	dir := t.TempDir()
	fx.WriteFiles(t, dir, map[string]string{"pom.xml": project("g:app:1", deps(
		dep("junit:junit:4.13.2", "<scope>test</scope>"), dep("org.hamcrest:hamcrest-core:debian", "<scope>test</scope>")))})
	cp, missing := classpathFromFiles(t, dir, repo)
	junit := filepath.Join(repo, "junit/junit/4.13.2/junit-4.13.2.jar")
	hamcrest := filepath.Join(repo, "org/hamcrest/hamcrest/debian/hamcrest-debian.jar")
	if want := []string{junit, hamcrest}; !slices.Equal(cp, want) {
		t.Errorf("classpath %q, want %q", cp, want)
	}
	if len(missing) > 0 {
		t.Errorf("missing %q", missing)
	}
}

// TestMavenFilesAgreesWithMaven runs `mvn dependency:build-classpath` on a
// multi-module fixture (parent properties, BOM import, transitive,
// exclusion, optional, nearest wins, a managed transitive version, junit
// and its relocated hamcrest from Debian's repository) and compares the
// jars with MavenClasspathFromFiles' on the same local repository. No module
// depends on another: Maven 3.8 resolves a sibling from target/classes only
// when the compile phase runs in the same session, and Debian's repository
// has no compiler plugin (TestMavenFilesModules covers that rule).
func TestMavenFilesAgreesWithMaven(t *testing.T) {
	m := fx.NewMaven(t)
	repo := fakeRepo{t, m.LocalRepo}
	repo.add("org.bom:bom:1", `<packaging>pom</packaging><dependencyManagement><dependencies>`+dep("org.lib:lib:2")+`</dependencies></dependencyManagement>`, false)
	repo.add("org.lib:lib:2", deps(dep("org.lib:a:1"), dep("org.lib:opt:1", "<optional>true</optional>"), dep("org.lib:gone:1"), dep("org.lib:tst:1", "<scope>test</scope>")), true)
	repo.add("org.lib:lib:1", deps(dep("org.lib:old-dep:1")), true)
	repo.add("org.lib:a:1", deps(dep("org.lib:near:2")), true)
	repo.add("org.lib:near:1", "", true)
	repo.add("org.lib:near:2", "", true)
	repo.add("org.lib:managed:1", "", true)
	repo.add("org.lib:managed:5", "", true)
	repo.add("org.lib:uses-managed:1", deps(dep("org.lib:managed:1")), true)
	repo.add("org.lib:wide:1", deps(dep("org.lib:w1:1"), dep("org.lib:w2:1")), true)
	for _, c := range []string{"org.lib:opt:1", "org.lib:gone:1", "org.lib:tst:1", "org.lib:old-dep:1", "org.lib:w1:1", "org.lib:w2:1"} {
		repo.add(c, "", true)
	}
	dir := t.TempDir()
	parent := `<parent><groupId>m</groupId><artifactId>root</artifactId><version>1</version></parent>`
	fx.WriteFiles(t, dir, map[string]string{
		"pom.xml": project("m:root:1", `<packaging>pom</packaging><modules><module>core</module><module>app</module></modules>
  <properties><maven.compiler.source>11</maven.compiler.source><maven.compiler.target>11</maven.compiler.target><near.version>1</near.version></properties>
  <dependencyManagement><dependencies>`+dep("org.bom:bom:1", "<type>pom</type><scope>import</scope>")+dep("org.lib:managed:5")+`</dependencies></dependencyManagement>`+
			deps(dep("junit:junit:4.13.2", "<scope>test</scope>"))),
		"core/pom.xml": "<project><modelVersion>4.0.0</modelVersion>" + parent + "<artifactId>core</artifactId>" + deps(
			dep("org.lib:lib", "<exclusions><exclusion><groupId>org.lib</groupId><artifactId>gone</artifactId></exclusion></exclusions>"),
			dep("org.lib:near:${near.version}"), dep("org.lib:uses-managed:1"), m.Dependency) + "</project>",
		"app/pom.xml": "<project><modelVersion>4.0.0</modelVersion>" + parent + "<artifactId>app</artifactId>" + deps(
			dep("org.lib:lib:1", "<scope>provided</scope>"),
			dep("org.lib:wide:1", "<exclusions><exclusion><groupId>*</groupId><artifactId>w2</artifactId></exclusion></exclusions>"),
			dep("org.hamcrest:hamcrest-core:debian", "<scope>test</scope>")) + "</project>",
	})
	cmd := exec.Command("mvn", append([]string{"-s", m.Settings}, mavenArgs(false)...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mvn: %v\n%s", err, lastLines(string(out), 30))
	}
	mvn := parseMavenOutput(string(out)).entries
	ours, missing := classpathFromFiles(t, dir, m.LocalRepo)
	sort.Strings(mvn)
	sorted := slices.Clone(ours)
	sort.Strings(sorted)
	if !slices.Equal(sorted, mvn) {
		t.Errorf("classpaths differ:\nmvn:   %s\nfiles: %s", strings.Join(mvn, "\n       "), strings.Join(sorted, "\n       "))
	}
	if len(missing) > 0 {
		t.Errorf("missing %q", missing)
	}
	t.Logf("mvn and the files agree on %d entries:\n  %s", len(mvn), strings.Join(mvn, "\n  "))
}

// debianMavenCore is a project depending on maven-core and the dependency
// plugin: a real graph of Debian's repository (parents, BOM imports,
// properties, relocations; 77 jars).
func debianMavenCore(t testing.TB) string {
	if _, err := os.Stat(filepath.Join(fx.DebianMavenRepo, "org/apache/maven/maven-core/3.8.7")); err != nil {
		t.Skipf("%s has no maven-core 3.8.7 (apt-get install maven): %v", fx.DebianMavenRepo, err)
	}
	dir := t.TempDir()
	fx.WriteFiles(t, dir, map[string]string{"pom.xml": project("g:app:1", deps(
		dep("org.apache.maven:maven-core:3.8.7"), dep("org.apache.maven.plugins:maven-dependency-plugin:3.5.0")))})
	return dir
}

// TestMavenFilesAgreesWithMavenOnDebianGraph compares the classpath of
// maven-core 3.8.7 and maven-dependency-plugin 3.5.0 with mvn's, reading
// the local repository mvn filled from Debian's, and Debian's itself.
func TestMavenFilesAgreesWithMavenOnDebianGraph(t *testing.T) {
	m := fx.NewMaven(t)
	dir := debianMavenCore(t)
	cmd := exec.Command("mvn", append([]string{"-s", m.Settings}, mavenArgs(false)...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mvn: %v\n%s", err, lastLines(string(out), 30))
	}
	// Relative to the repository, so that both repositories compare.
	rel := func(list []string, base string) []string {
		var o []string
		for _, e := range list {
			r, err := filepath.Rel(base, e)
			if err != nil {
				t.Fatal(err)
			}
			o = append(o, r)
		}
		sort.Strings(o)
		return o
	}
	mvn := rel(parseMavenOutput(string(out)).entries, m.LocalRepo)
	for _, repo := range []string{m.LocalRepo, fx.DebianMavenRepo} {
		cp, missing := classpathFromFiles(t, dir, repo)
		if got := rel(cp, repo); !slices.Equal(got, mvn) {
			t.Errorf("%s: classpaths differ:\nmvn:   %s\nfiles: %s", repo, strings.Join(mvn, "\n       "), strings.Join(got, "\n       "))
		}
		if len(missing) > 0 {
			t.Errorf("%s: missing %q", repo, missing)
		}
	}
	t.Logf("mvn and the files agree on %d jars", len(mvn))
}

// TestMavenFilesEveryDebianPOM depends on every artifact of Debian's
// repository at once: every pom parses, nothing panics, and what is missing
// is only what is not there.
func TestMavenFilesEveryDebianPOM(t *testing.T) {
	if _, err := os.Stat(fx.DebianMavenRepo); err != nil {
		t.Skipf("no %s (apt-get install maven): %v", fx.DebianMavenRepo, err)
	}
	var ds []string
	err := filepath.WalkDir(fx.DebianMavenRepo, func(p string, d os.DirEntry, err error) error {
		if err != nil || !strings.HasSuffix(p, ".pom") {
			return err
		}
		rel, _ := filepath.Rel(fx.DebianMavenRepo, p)
		parts := strings.Split(filepath.ToSlash(rel), "/")
		if n := len(parts); n >= 4 {
			ds = append(ds, dep(strings.Join(parts[:n-3], ".")+":"+parts[n-3]+":"+parts[n-2]))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	fx.WriteFiles(t, dir, map[string]string{"pom.xml": project("g:app:1", deps(ds...))})
	cp, missing := classpathFromFiles(t, dir, fx.DebianMavenRepo)
	if len(cp) == 0 {
		t.Fatal("empty classpath")
	}
	for _, m := range missing {
		if !strings.Contains(m, "in the local repository") {
			t.Errorf("unexpected: %s", m)
		}
	}
	t.Logf("%d poms: %d classpath entries, %d missing (parents depended on as jars, packages not installed)", len(ds), len(cp), len(missing))
}

// BenchmarkMavenClasspathFromFiles reads maven-core's graph (77 jars) from
// Debian's repository.
func BenchmarkMavenClasspathFromFiles(b *testing.B) {
	dir := debianMavenCore(b)
	for b.Loop() {
		if _, _, err := MavenClasspathFromFiles(dir, fx.DebianMavenRepo); err != nil {
			b.Fatal(err)
		}
	}
}

// TestMavenFilesLongParentChain: 200 parents on disk, each at the previous
// one's ../pom.xml: read up to the limit, reported, no deep recursion.
func TestMavenFilesLongParentChain(t *testing.T) {
	const n = 200
	dir := t.TempDir()
	files := map[string]string{}
	for i := 0; i < n; i++ {
		body := "<project><groupId>g</groupId><artifactId>p" + strconv.Itoa(i) + "</artifactId><version>1</version>"
		if i < n-1 {
			body += "<parent><groupId>g</groupId><artifactId>p" + strconv.Itoa(i+1) + "</artifactId><version>1</version></parent>"
		}
		files[strings.Repeat("d/", n-1-i)+"pom.xml"] = body + "</project>"
	}
	fx.WriteFiles(t, dir, files)
	_, missing := classpathFromFiles(t, filepath.Join(dir, filepath.FromSlash(strings.Repeat("d/", n-1))), t.TempDir())
	wantMissing(t, missing, "more than 32 parents")
}
