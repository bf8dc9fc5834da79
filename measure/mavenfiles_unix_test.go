//go:build unix

package measure

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	fx "github.com/perfls/perfls/internal/fixture"
)

// TestMavenFilesFIFO: a FIFO named pom.xml (or settings.xml, or a .pom in
// the repository, or reached through a symlink) is never opened: opening
// it would block until a writer comes.
func TestMavenFilesFIFO(t *testing.T) {
	mkfifo := func(p string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
	// The root pom.
	dir := t.TempDir()
	mkfifo(filepath.Join(dir, "pom.xml"))
	if _, _, err := MavenClasspathFromFiles(dir, t.TempDir()); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("FIFO pom.xml: err %v, want 'not a regular file'", err)
	}
	// A symlink to a FIFO.
	dir = t.TempDir()
	mkfifo(filepath.Join(dir, "fifo"))
	if err := os.Symlink(filepath.Join(dir, "fifo"), filepath.Join(dir, "pom.xml")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := MavenClasspathFromFiles(dir, t.TempDir()); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("symlink to a FIFO: err %v, want 'not a regular file'", err)
	}
	// A module's pom, the parent at ../pom.xml, and a dependency's .pom.
	repo := newFakeRepo(t)
	repo.file(repo.jar("g:dep:1"), "PK")
	mkfifo(repo.path("g:dep:1", "", "pom"))
	dir = t.TempDir()
	fx.WriteFiles(t, dir, map[string]string{
		"app/pom.xml": `<project><parent><groupId>g</groupId><artifactId>p</artifactId><version>1</version></parent><artifactId>app</artifactId>` +
			`<packaging>pom</packaging><modules><module>m</module></modules>` + deps(dep("g:dep:1")) + `</project>`,
	})
	mkfifo(filepath.Join(dir, "pom.xml"))
	mkfifo(filepath.Join(dir, "app", "m", "pom.xml"))
	cp, missing := classpathFromFiles(t, filepath.Join(dir, "app"), repo.dir)
	wantEntries(t, cp, repo.jar("g:dep:1"))
	wantMissing(t, missing, filepath.Join(dir, "app", "m", "pom.xml"), "not a regular file")
	wantMissing(t, missing, "g:dep:jar:1", "not a regular file")
	wantMissing(t, missing, "g:p:pom:1", "the parent of") // not on disk (a FIFO), not in the repository

	// The user's settings.xml.
	home := t.TempDir()
	mkfifo(filepath.Join(home, ".m2", "settings.xml"))
	if got, err := mavenLocalRepositoryIn(home); err == nil || got != filepath.Join(home, ".m2", "repository") {
		t.Errorf("FIFO settings.xml: %q, %v; want the default and an error", got, err)
	}
}
