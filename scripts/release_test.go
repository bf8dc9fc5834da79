package scripts

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/internal/fixture"
)

const testVersion = "v0.0.1-test"

// The Go version the install instructions name is go.mod's minimum, and no
// other (the README once said 1.25 while go.mod said 1.26.0, which Go 1.25
// with GOTOOLCHAIN=local refuses).
func TestDocumentedGoVersion(t *testing.T) {
	mod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\d+\.\d+)(\.\d+)?$`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod has no go line")
	}
	minimum := string(m[1])
	mentions := regexp.MustCompile(`\bGo (\d+\.\d+)`)
	for _, f := range []string{"../README.md", "../docs/install.md", "../editors/vscode/README.md", "../editors/vscode/src/serverPath.ts"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		found := mentions.FindAllSubmatch(b, -1)
		if len(found) == 0 {
			t.Errorf("%s names no Go version; it should say Go %s (go.mod)", f, minimum)
		}
		for _, v := range found {
			if string(v[1]) != minimum {
				t.Errorf("%s says %q; go.mod's minimum is Go %s", f, v[0], minimum)
			}
		}
	}
}

// The linux/amd64 release archive, as scripts/release.sh builds it from the
// commit checked out: SHA256SUMS matches it; its entries are the binary and
// a README, dated the commit's time and owned by 0:0; unpacked onto a PATH
// that holds only it and the JDK (no Go), perfls prints the version and
// commit and checks the quickstart.
func TestReleaseArchiveRunsWithoutGo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a release and forks JVMs")
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skipf("the test builds the linux/amd64 archive natively; this is %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	javac := lookJDK(t)
	commit := strings.TrimSpace(output(t, "", nil, "git", "rev-parse", "HEAD"))
	epoch, err := strconv.ParseInt(strings.TrimSpace(output(t, "", nil, "git", "log", "-1", "--format=%ct", "HEAD")), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	// The local toolchain: the pinned one may need downloading.
	output(t, "", []string{"RELEASE_GO=local"}, "bash", "release.sh", "--targets", "linux/amd64", "--out", out, testVersion)

	name := "perfls_" + strings.TrimPrefix(testVersion, "v") + "_linux_amd64"
	archive := filepath.Join(out, name+".tar.gz")
	data, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	sums, err := os.ReadFile(filepath.Join(out, "SHA256SUMS"))
	if want := hex.EncodeToString(sum[:]) + "  " + name + ".tar.gz\n"; err != nil || string(sums) != want {
		t.Errorf("SHA256SUMS: %v\n%s\nwant\n%s", err, sums, want)
	}

	bin := t.TempDir()
	entries := unpack(t, data, bin, time.Unix(epoch, 0))
	if want := []string{name + "/", name + "/README.md", name + "/perfls"}; fmt.Sprint(entries) != fmt.Sprint(want) {
		t.Errorf("archive entries %q, want %q (plus LICENSE when the tree has one)", entries, want)
	}

	fixture.Isolate(t)
	path := filepath.Join(bin, name) + string(os.PathListSeparator) + filepath.Dir(javac)
	for _, dir := range filepath.SplitList(path) {
		if _, err := os.Stat(filepath.Join(dir, "go")); err == nil {
			t.Fatalf("%s holds go: the PATH is meant to have none", dir)
		}
	}
	env := []string{"PATH=" + path}
	perfls := filepath.Join(bin, name, "perfls")
	if v := output(t, "", env, perfls, "--version"); !strings.Contains(v, testVersion+" "+commit[:12]) {
		t.Errorf("perfls --version: %q, want %s and the commit %s", v, testVersion, commit[:12])
	}

	project := t.TempDir()
	copyDir(t, "../examples/quickstart", project)
	code, stdout, stderr := run(t, project, env, perfls, "check", "--format", "json", "--forks", "2", "--samples", "5",
		"--warmup", "20ms", "--max-warmup", "2s", "--max-forks", "2", ".")
	var doc report.CheckDocument
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("perfls check: exit %d, no JSON (%v)\n%s\n%s", code, err, stdout, stderr)
	}
	s := doc.Summary
	if want, ok := map[string]int{"passed": 0, "violated": 1}[s.Result]; !ok || code != want || s.Failed != 0 || s.Satisfied+s.Violated+s.Undecided == 0 {
		t.Errorf("perfls check: exit %d, summary %+v\n%s", code, s, stderr)
	}
	t.Logf("perfls check of the quickstart with the archive's binary: exit %d, %d satisfied, %d violated, %d undecided", code, s.Satisfied, s.Violated, s.Undecided)
}

// go install github.com/perfls/perfls/cmd/perfls@VERSION, as the install
// page says, with GOTOOLCHAIN=local: the commit checked out is served as
// VERSION by a module proxy on disk (its dependencies come from the module
// cache's download directory), and the binary reports the version.
func TestGoInstallAtVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds perfls from a module download")
	}
	goEnv := func(key string) string { return strings.TrimSpace(output(t, "", nil, "go", "env", key)) }
	modcache, upstream := goEnv("GOMODCACHE"), goEnv("GOPROXY")
	proxy := t.TempDir()
	dir := filepath.Join(proxy, "github.com", "perfls", "perfls", "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	fixture.WriteFiles(t, dir, map[string]string{
		"list":                testVersion + "\n",
		testVersion + ".info": `{"Version":"` + testVersion + `","Time":"` + time.Now().UTC().Format(time.RFC3339) + `"}`,
		testVersion + ".mod":  string(mod),
	})
	// From the root: in scripts/ git archive would archive scripts/ alone.
	output(t, "..", nil, "git", "archive", "--format=zip", "--prefix=github.com/perfls/perfls@"+testVersion+"/", "-o", filepath.Join(dir, testVersion+".zip"), "HEAD")

	gobin, cache := t.TempDir(), t.TempDir()
	env := []string{
		"GOTOOLCHAIN=local", "GOBIN=" + gobin, "GOWORK=off",
		"GOFLAGS=-trimpath",   // the module cache differs: without it nothing built before would be reused
		"GOMODCACHE=" + cache, // not the user's: this version is not a real one
		"GOPROXY=file://" + proxy + ",file://" + filepath.Join(modcache, "cache", "download") + "," + upstream,
		"GONOSUMDB=github.com/perfls/perfls",
	}
	t.Cleanup(func() { // its files are read-only, which TempDir's clean-up cannot remove
		cmd := exec.Command("go", "clean", "-modcache")
		cmd.Env = append(os.Environ(), "GOMODCACHE="+cache)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Logf("go clean -modcache: %v\n%s", err, out)
		}
	})
	output(t, t.TempDir(), env, "go", "install", "github.com/perfls/perfls/cmd/perfls@"+testVersion)
	v := output(t, "", nil, filepath.Join(gobin, "perfls"), "--version")
	if !strings.Contains(v, testVersion) {
		t.Errorf("perfls --version after go install @%s: %q", testVersion, v)
	}
	t.Logf("after go install @%s: %s", testVersion, strings.TrimSpace(v))
}

func lookJDK(t *testing.T) string {
	t.Helper()
	javac, err := exec.LookPath("javac")
	if err != nil {
		t.Skip("no javac: perfls check needs a JDK")
	}
	real, err := filepath.EvalSymlinks(javac)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(real), "java")); err != nil {
		t.Skipf("%s has no java beside it", real)
	}
	return real
}

// run is fixture.Command with 20 minutes to finish.
func run(t *testing.T, dir string, env []string, name string, args ...string) (int, string, string) {
	t.Helper()
	return fixture.Command(t, dir, env, 20*time.Minute, name, args...)
}

// output is run's stdout, failing the test unless the command succeeds.
func output(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	code, stdout, stderr := run(t, dir, env, name, args...)
	if code != 0 {
		t.Fatalf("%s %s: exit %d\n%s%s", name, strings.Join(args, " "), code, stdout, stderr)
	}
	return stdout
}

// unpack writes the gzipped tar data into dir and returns its entries'
// names in order; every entry must be dated stamp and owned by 0:0.
func unpack(t *testing.T, data []byte, dir string, stamp time.Time) []string {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
		if !h.ModTime.Equal(stamp) || h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" {
			t.Errorf("%s: time %v, owner %d:%d %q:%q; want %v (the commit's) and 0:0", h.Name, h.ModTime, h.Uid, h.Gid, h.Uname, h.Gname, stamp)
		}
		p := filepath.Join(dir, filepath.FromSlash(h.Name))
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(p, 0o755)
		case tar.TypeReg:
			var b []byte
			if b, err = io.ReadAll(tr); err == nil {
				err = os.WriteFile(p, b, os.FileMode(h.Mode))
			}
		default:
			t.Errorf("%s: entry type %c", h.Name, h.Typeflag)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return names
}

// copyDir copies the regular files under src into dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		files[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	fixture.WriteFiles(t, dst, files)
}
