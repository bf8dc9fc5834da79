package engine

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/perfls/perfls/internal/fixture"
)

// gitProject makes a git repository in a new directory with one commit per
// element of commits (files written over the previous commit's, "" removes
// a file) and returns the directory and the commits' hashes, oldest first.
func gitProject(t testing.TB, commits ...map[string]string) (string, []string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q", "-b", "main")
	var hashes []string
	for i, files := range commits {
		for rel, text := range files {
			if text == "" {
				os.Remove(dir + "/" + rel)
				delete(files, rel)
			}
		}
		fixture.WriteFiles(t, dir, files)
		gitIn(t, dir, "add", "-A")
		gitIn(t, dir, "commit", "-q", "--allow-empty", "-m", "commit "+string(rune('a'+i%26)))
		hashes = append(hashes, gitIn(t, dir, "rev-parse", "HEAD"))
	}
	return dir, hashes
}

// gitIn runs git in dir as a fixed author and returns its output.
func gitIn(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=perfls", "GIT_AUTHOR_EMAIL=t@perfls", "GIT_COMMITTER_NAME=perfls",
		"GIT_COMMITTER_EMAIL=t@perfls", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}
