// Package vscode holds the VS Code extension (TypeScript, built with npm).
// This Go test runs the extension's own build and tests, so `go test ./...`
// covers them: `npm ci` (unless node_modules is what it would install),
// `npm run compile`, then `npm test` — unit tests with the vscode module
// stubbed, and an integration test that drives the real `perfls serve` over
// stdio with the extension's settings. Skipped where npm is not installed.
package vscode

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestExtensionBuildsAndPassesItsTests(t *testing.T) {
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("npm not installed: the VS Code extension's build and tests are skipped (install Node.js 20+ with npm to run them)")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed: the VS Code extension's build and tests are skipped")
	}
	// node:test with --test-reporter and before/after hooks needs Node.js 18.15+.
	if v, err := exec.Command(node, "-p", "process.versions.node").Output(); err != nil {
		t.Fatalf("node -p process.versions.node: %v", err)
	} else if major, _, _ := strings.Cut(strings.TrimSpace(string(v)), "."); atoi(major) < 18 {
		t.Skipf("Node.js %s is too old for the extension's tests (20+ recommended)", strings.TrimSpace(string(v)))
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "perfls")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/perfls").CombinedOutput(); err != nil {
		t.Fatalf("build perfls: %v\n%s", err, out)
	}
	env := append(os.Environ(),
		"PERFLS_BIN="+bin,
		"PERFLS_CACHE_DIR="+filepath.Join(tmp, "cache"),
		"XDG_RUNTIME_DIR="+filepath.Join(tmp, "run"),
		"npm_config_fund=false", "npm_config_audit=false", "npm_config_update_notifier=false",
	)
	if err := os.MkdirAll(filepath.Join(tmp, "run"), 0o700); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(ctx, npm, args...)
		cmd.Env = env
		cmd.WaitDelay = 10 * time.Second // a test's stray child keeping the pipes open must not hang us
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("npm %s: %v\n%s", strings.Join(args, " "), err, tail(out.String(), 200))
		}
		return out.String()
	}
	if why := upToDate("."); why != "" {
		t.Logf("npm ci: %s", why)
		run("ci", "--no-progress")
	} else {
		t.Log("node_modules matches package-lock.json: npm ci skipped")
	}
	run("run", "compile")
	out := run("test")
	// node's test runner closes with "# pass N", "# fail N", …: show them.
	summary := regexp.MustCompile(`^# (tests|pass|fail|skipped|cancelled) \d+$`)
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		if l := sc.Text(); summary.MatchString(l) || strings.HasPrefix(l, "not ok") {
			lines = append(lines, l)
		}
	}
	t.Logf("npm test:\n%s", strings.Join(lines, "\n"))
	if !regexp.MustCompile(`(?m)^# pass [1-9]\d*$`).MatchString(out) || !regexp.MustCompile(`(?m)^# fail 0$`).MatchString(out) {
		t.Fatalf("npm test passed no test or failed one:\n%s", tail(out, 200))
	}
	if regexp.MustCompile(`(?m)^# skipped [1-9]`).MatchString(out) {
		t.Errorf("npm test skipped tests although perfls was built:\n%s", tail(out, 200))
	}
}

// upToDate says why dir's node_modules may not be what npm ci would
// install from package-lock.json, or "" when it is: npm's own record of
// what it installed (node_modules/.package-lock.json) holds the lock's
// packages, leaving out only optional ones (other platforms' builds), and
// the lock was made from package.json's dependencies. npm ci takes 20–30 s
// of the test; a fresh clone has no node_modules and always runs it.
func upToDate(dir string) string {
	type pkg struct {
		Version         string            `json:"version"`
		Resolved        string            `json:"resolved"`
		Integrity       string            `json:"integrity"`
		Optional        bool              `json:"optional"`
		Dependencies    map[string]string `json:"dependencies"`
		DevDependencies map[string]string `json:"devDependencies"`
	}
	read := func(name string, v any) error {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err == nil {
			err = json.Unmarshal(b, v)
		}
		return err
	}
	var manifest pkg
	var lock, installed struct {
		Packages map[string]pkg `json:"packages"`
	}
	for name, v := range map[string]any{"package.json": &manifest, "package-lock.json": &lock, "node_modules/.package-lock.json": &installed} {
		if err := read(name, v); err != nil {
			return err.Error()
		}
	}
	root := lock.Packages[""]
	if !reflect.DeepEqual(root.Dependencies, manifest.Dependencies) || !reflect.DeepEqual(root.DevDependencies, manifest.DevDependencies) {
		return "package-lock.json was not made from package.json's dependencies"
	}
	for path, p := range lock.Packages {
		if path == "" {
			continue
		}
		q, ok := installed.Packages[path]
		switch {
		case !ok && !p.Optional:
			return path + " is not installed"
		case ok && (q.Version != p.Version || q.Integrity != p.Integrity || q.Resolved != p.Resolved):
			return path + " is installed at another version"
		}
	}
	for path := range installed.Packages {
		if _, ok := lock.Packages[path]; !ok {
			return path + " is installed but not in the lock"
		}
	}
	return ""
}

// atoi is the number s spells, or 0.
func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0
	}
	return n
}

// tail keeps the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
