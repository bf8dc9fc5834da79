package jdk

// Finding the JDK and the best of its files to read classes from, by
// looking at files only: no java -version, no process.

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/perfls/perfls/analysis/workspace"
)

// Classes is one JDK's classes as lint and the editor look them up.
type Classes interface {
	workspace.External
	workspace.ExternalPackages
	workspace.ExternalNames
	// Path is the file read; String says what it is.
	Path() string
	String() string
	Close() error
}

// Home is a JDK installation directory and how it was found.
type Home struct {
	Dir string
	Via string // "the javaHome setting", "JAVA_HOME", "javac on PATH", "java on PATH"
}

func (h Home) String() string { return h.Dir + " (" + h.Via + ")" }

// Homes lists the JDK homes to try, in order: javaHome (the editor's
// setting) when not "", $JAVA_HOME, then the JDKs of javac and of java on
// PATH with symlinks resolved (/usr/bin/java → /usr/lib/jvm/…/bin/java).
// Repeats are left out.
func Homes(javaHome string) []Home {
	var out []Home
	add := func(dir, via string) {
		if dir == "" {
			return
		}
		dir = filepath.Clean(dir)
		for _, h := range out {
			if h.Dir == dir {
				return
			}
		}
		out = append(out, Home{dir, via})
	}
	add(javaHome, "the javaHome setting")
	add(os.Getenv("JAVA_HOME"), "JAVA_HOME")
	for _, tool := range []string{"javac", "java"} {
		if p, err := exec.LookPath(tool); err == nil {
			if real, err := filepath.EvalSymlinks(p); err == nil {
				add(filepath.Dir(filepath.Dir(real)), tool+" on PATH")
			}
		}
	}
	return out
}

// NotFoundError says that no JDK classes were found, and what was looked
// for where.
type NotFoundError struct {
	Homes    []Home
	Problems []string // files that exist but could not be read
}

func (e *NotFoundError) Error() string {
	if len(e.Homes) == 0 {
		return "no JDK found: JAVA_HOME is not set and neither javac nor java is on PATH"
	}
	dirs := make([]string, len(e.Homes))
	for i, h := range e.Homes {
		dirs[i] = h.String()
	}
	msg := "no src.zip, ct.sym or modules under " + strings.Join(dirs, ", ")
	if len(e.Problems) > 0 {
		msg += "; " + strings.Join(e.Problems, "; ")
	}
	return msg
}

// Load opens the classes of the first of Homes(javaHome) that has any
// (OpenHome). The error is a *NotFoundError when none has.
func Load(javaHome string) (Classes, error) {
	homes := Homes(javaHome)
	nf := &NotFoundError{Homes: homes}
	for _, h := range homes {
		c, err := OpenHome(h.Dir)
		if err == nil {
			return c, nil
		}
		var hnf *NotFoundError
		if errors.As(err, &hnf) {
			nf.Problems = append(nf.Problems, hnf.Problems...)
		} else {
			nf.Problems = append(nf.Problems, err.Error())
		}
	}
	return nil, nf
}

// Find returns the src.zip of the first of Homes("") that has one.
func Find() (string, error) {
	homes := Homes("")
	for _, h := range homes {
		for _, p := range srcZips(h.Dir) {
			if isFile(p) {
				return p, nil
			}
		}
	}
	if len(homes) == 0 {
		return "", fmt.Errorf("no JDK sources: %w", &NotFoundError{})
	}
	dirs := make([]string, len(homes))
	for i, h := range homes {
		dirs[i] = h.String()
	}
	return "", fmt.Errorf("no JDK sources: no src.zip under %s", strings.Join(dirs, ", "))
}

// srcZips are where a JDK home may keep its sources: lib/src.zip (JDK 9
// on), src.zip (JDK 8), beside the jre directory when home is JDK 8's JRE.
func srcZips(home string) []string {
	out := []string{filepath.Join(home, "lib", "src.zip"), filepath.Join(home, "src.zip")}
	if filepath.Base(home) == "jre" {
		out = append(out, filepath.Join(filepath.Dir(home), "src.zip"))
	}
	return out
}

func isFile(p string) bool {
	st, err := os.Stat(p) // follows links: a dangling one is no file
	return err == nil && st.Mode().IsRegular()
}

// OpenHome opens the classes of the JDK installed in dir, from the first
// of: its src.zip (declarations with parameter names, and the source for
// hover and go-to-definition); its lib/ct.sym when that holds the JDK's
// own release (Temurin 25's does); its runtime image lib/modules; the
// newest release lib/ct.sym holds (JDK 17's stops at 16 and leaves its own
// release to the runtime image); JDK 8's
// jre/lib/rt.jar. A file that cannot be read is passed over and named in
// the *NotFoundError returned when none can be.
func OpenHome(dir string) (Classes, error) {
	nf := &NotFoundError{Homes: []Home{{Dir: dir, Via: "given"}}}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		nf.Problems = append(nf.Problems, fmt.Sprintf("%s is not a directory", dir))
		return nil, nf
	}
	problem := func(err error) { nf.Problems = append(nf.Problems, err.Error()) }
	for _, p := range srcZips(dir) {
		if isFile(p) {
			z, err := Open(p)
			if err == nil {
				return z, nil
			}
			problem(err)
		}
	}
	own := homeRelease(dir)
	ctSym := filepath.Join(dir, "lib", "ct.sym")
	var releases []int
	if isFile(ctSym) {
		var current int
		var err error
		if releases, current, err = CtSymReleases(ctSym); err != nil {
			problem(err)
		}
		if own == 0 {
			// No release file: the section javac leaves to the runtime
			// image is the JDK's own, else the newest one is.
			own = current
			if own == 0 && len(releases) > 0 {
				own = releases[len(releases)-1]
			}
		}
		if slices.Contains(releases, own) {
			d, err := OpenCtSym(ctSym, own)
			if err == nil {
				return d, nil
			}
			problem(err)
		}
	}
	if modules := filepath.Join(dir, "lib", "modules"); isFile(modules) {
		d, err := OpenModules(modules)
		if err == nil {
			// A class file of it must be readable (not compressed in a way
			// perfls cannot read), or it is of no use.
			if _, err = d.Class("java.lang.Object"); err != nil {
				d.Close()
			}
		}
		if err == nil {
			return d, nil
		}
		problem(err)
	}
	if len(releases) > 0 {
		newest := releases[len(releases)-1]
		d, err := OpenCtSym(ctSym, newest)
		if err == nil {
			if own > newest {
				d.what += fmt.Sprintf("; the JDK is %d: classes and methods new in %d are missing", own, own)
			}
			return d, nil
		}
		problem(err)
	}
	for _, p := range []string{filepath.Join(dir, "jre", "lib", "rt.jar"), filepath.Join(dir, "lib", "rt.jar")} {
		if isFile(p) {
			d, err := OpenRtJar(p)
			if err == nil {
				return d, nil
			}
			problem(err)
		}
	}
	return nil, nf
}

// OpenPath opens what a user names: a JDK home directory (OpenHome), or by
// its name a src.zip, a ct.sym (its newest release), a runtime image
// (modules) or an rt.jar.
func OpenPath(p string) (Classes, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return OpenHome(p)
	}
	switch filepath.Base(p) {
	case "ct.sym":
		releases, _, err := CtSymReleases(p)
		if err != nil {
			return nil, err
		}
		if len(releases) == 0 {
			return nil, fmt.Errorf("%s holds no classes", p)
		}
		return OpenCtSym(p, releases[len(releases)-1])
	case "modules":
		return OpenModules(p)
	case "rt.jar":
		return OpenRtJar(p)
	}
	return Open(p)
}

// homeRelease reads the feature release (17, 8) from the JDK's release
// file (JAVA_VERSION="17.0.15", "1.8.0_392"); 0 when it cannot tell.
func homeRelease(dir string) int {
	f, err := os.Open(filepath.Join(dir, "release"))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		v, ok := strings.CutPrefix(sc.Text(), "JAVA_VERSION=")
		if !ok {
			continue
		}
		v = strings.Trim(v, `"`)
		v = strings.TrimPrefix(v, "1.") // 1.8.0 is 8
		if digits := strings.FieldsFunc(v, func(r rune) bool { return r < '0' || r > '9' }); len(digits) > 0 {
			n, _ := strconv.Atoi(digits[0])
			return n
		}
		return 0
	}
	return 0
}
