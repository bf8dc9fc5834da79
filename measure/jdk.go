package measure

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/perfls/perfls/internal/trust"
)

// jdk is a located JDK.
type jdk struct {
	javac   string // absolute path of javac
	java    string // absolute path of java next to it (or on PATH)
	version string // javac's version, e.g. "17.0.15"
	major   int
}

// errNoJDK explains how to get a JDK perfls can use.
var errNoJDK = errors.New("perfls needs a JDK >= 11: install one and put javac on PATH or set JAVA_HOME")

// findTool locates a JDK tool: $JAVA_HOME/bin first, else PATH.
func findTool(name string) (string, error) {
	if home := os.Getenv("JAVA_HOME"); home != "" {
		p := filepath.Join(home, "bin", name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("%s not found: %w", name, errNoJDK)
	}
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	return p, nil
}

var jdkCache struct {
	sync.Mutex
	byPath map[string]jdkEntry
}

type jdkEntry struct {
	mtime time.Time
	jdk   *jdk
}

// findJDK locates javac and java and reads javac's version (cached while the
// javac file does not change).
func findJDK(ctx context.Context) (*jdk, error) {
	javac, err := findTool("javac")
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(javac)
	if err != nil {
		return nil, fmt.Errorf("javac: %w", err)
	}
	jdkCache.Lock()
	e, ok := jdkCache.byPath[javac]
	jdkCache.Unlock()
	if ok && e.mtime.Equal(st.ModTime()) {
		return e.jdk, nil
	}
	// java: next to the javac that was found (same JDK), else JAVA_HOME/PATH.
	java := filepath.Join(filepath.Dir(javac), "java")
	if _, err := os.Stat(java); err != nil {
		if java, err = findTool("java"); err != nil {
			return nil, err
		}
	}
	// The JDK's release file tells its version without starting a JVM
	// (javac -version took 0.5–1.3 s of every command on a busy machine).
	out := releaseVersion(javac)
	if out == "" {
		if out, err = runTool(ctx, javac, []string{"-version"}, "", 1<<16); err != nil {
			return nil, fmt.Errorf("%s -version: %w", javac, err)
		}
	}
	version, major := parseJavacVersion(out)
	if major == 0 {
		return nil, fmt.Errorf("cannot read the version of %s from %q: %w", javac, strings.TrimSpace(out), errNoJDK)
	}
	if major < 11 {
		return nil, fmt.Errorf("%s is version %s: %w", javac, version, errNoJDK)
	}
	j := &jdk{javac: javac, java: java, version: version, major: major}
	jdkCache.Lock()
	if jdkCache.byPath == nil {
		jdkCache.byPath = map[string]jdkEntry{}
	}
	jdkCache.byPath[javac] = jdkEntry{mtime: st.ModTime(), jdk: j}
	jdkCache.Unlock()
	return j, nil
}

// releaseVersion reads JAVA_VERSION from the release file of the JDK that
// javac (symbolic links followed) belongs to, which every JDK since 9
// has, as javac -version would print it ("javac 17.0.15"); "" when there
// is none.
func releaseVersion(javac string) string {
	real, err := filepath.EvalSymlinks(javac)
	if err != nil {
		return ""
	}
	data, err := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(real)), "release"))
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "JAVA_VERSION="); ok {
			if v = strings.Trim(v, `"`); v != "" {
				return "javac " + v
			}
		}
	}
	return ""
}

var javacVersionRE = regexp.MustCompile(`javac\s+(\d+)(?:\.(\d+))?[^\s]*`)

// parseJavacVersion reads "javac 17.0.15" (or "javac 1.8.0_292") and returns
// the version string and the feature release number.
func parseJavacVersion(out string) (string, int) {
	m := javacVersionRE.FindStringSubmatch(out)
	if m == nil {
		return "", 0
	}
	version := strings.TrimPrefix(m[0], "javac")
	version = strings.TrimSpace(version)
	major, _ := strconv.Atoi(m[1])
	if major == 1 && m[2] != "" {
		major, _ = strconv.Atoi(m[2])
	}
	return version, major
}

// runTool runs a JDK tool in its own process group (killed as a whole when ctx
// ends) and returns its combined output, keeping at most limit bytes (the
// tail).
func runTool(ctx context.Context, path string, args []string, dir string, limit int) (string, error) {
	cmd, err := trust.Command(ctx, path, args...)
	if err != nil {
		return "", err
	}
	cmd.Dir = dir
	out := &tailBuffer{max: limit}
	cmd.Stdout = out
	cmd.Stderr = out
	inOwnProcessGroup(cmd)
	cmd.Cancel = func() error { return killProcessGroup(cmd.Process.Pid) }
	cmd.WaitDelay = 2 * time.Second
	err = cmd.Run()
	if cmd.Process != nil {
		_ = killProcessGroup(cmd.Process.Pid) // strays, if any
	}
	if ctx.Err() != nil {
		return out.String(), ctx.Err()
	}
	return out.String(), err
}

// tailBuffer is an io.Writer that keeps the last max bytes written.
type tailBuffer struct {
	mu      sync.Mutex
	max     int
	buf     []byte
	dropped int64
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if len(p) > t.max {
		t.dropped += int64(len(p) - t.max)
		p = p[len(p)-t.max:]
	}
	if over := len(t.buf) + len(p) - t.max; over > 0 {
		t.dropped += int64(over)
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	t.buf = append(t.buf, p...)
	return n, nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// releaseFor returns the Java release javac (of j) must compile for so that
// the JVM java can load the classes: java's feature release when it is
// older than javac's, else 0 (javac's own). An unknown version counts as
// javac's.
func (j *jdk) releaseFor(java string) int {
	if java == "" || java == j.java {
		return 0
	}
	if v := javaFeature(java); v > 0 && v < j.major {
		return v
	}
	return 0
}

// ForkRelease returns the Java release the project and harness classes are
// compiled for when measuring with opt: the feature release of opt.Java when
// it is older than the compiling JDK (e.g. an editor's javaHome of JDK 11
// with perfls running on JDK 17), else 0.
func ForkRelease(ctx context.Context, opt Options) (int, error) {
	j, err := findJDK(ctx)
	if err != nil {
		return 0, err
	}
	return j.releaseFor(opt.Java), nil
}

var javaVersionRE = regexp.MustCompile(`(?m)^JAVA_VERSION="(?:1\.)?(\d+)`)

// javaFeature reads the feature release of the JDK or JRE that java belongs
// to from its release file (<home>/release, JAVA_VERSION="11.0.2"); 0 when
// there is none. It is read on every call (a small file, once per
// measurement), so a JDK upgraded in place is seen.
func javaFeature(java string) int {
	if real, err := filepath.EvalSymlinks(java); err == nil {
		java = real
	}
	data, err := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(java)), "release"))
	if err != nil {
		return 0
	}
	m := javaVersionRE.FindSubmatch(data)
	if m == nil {
		return 0
	}
	v, _ := strconv.Atoi(string(m[1]))
	return v
}
