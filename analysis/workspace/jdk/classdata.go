package jdk

// The JDK's classes read from its class data when it has no src.zip
// (Debian's JDK packages leave lib/src.zip a dangling link unless the
// -source package is installed): lib/ct.sym, the signature files javac's
// --release reads; lib/modules, the runtime image the JVM runs; JDK 8's
// jre/lib/rt.jar. Class files give classes, methods (names, descriptors,
// static, varargs) and supertypes: enough for lint's method-name checks
// and its suggestions, and for hover to show a declaration (without
// parameter names or source).

import (
	"archive/zip"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/analysis/workspace/classpath"
)

// ClassData looks up JDK classes in class files. It is safe for concurrent
// use.
type ClassData struct {
	path  string // the file read
	what  string // "ct.sym, release 16", "runtime image", "rt.jar"
	idx   *classpath.Index
	close func() error
}

// Path is the file the classes are read from.
func (d *ClassData) Path() string { return d.path }

// String says what is read: "/jdk/lib/ct.sym (release 16)".
func (d *ClassData) String() string { return d.path + " (" + d.what + ")" }

// Classes is the number of classes it holds.
func (d *ClassData) Classes() int { return d.idx.Len() }

// Close releases the file.
func (d *ClassData) Close() error { return d.close() }

// Covers implements workspace.External as SrcZip does.
func (d *ClassData) Covers(class string) bool { return covers(class, d.idx.HasPackage) }

// Class implements workspace.External.
func (d *ClassData) Class(name string) (*workspace.ExternalClass, error) {
	name = classfileCanonical(name)
	for _, pkg := range packagesOf(name) {
		if d.idx.HasPackage(pkg) {
			return d.idx.Class(name)
		}
	}
	return nil, nil
}

// Package implements workspace.ExternalPackages.
func (d *ClassData) Package(class string) (pkg, origin string, classes []string) {
	for _, p := range packagesOf(classfileCanonical(class)) {
		if d.idx.HasPackage(p) {
			return p, "the JDK", append([]string(nil), d.idx.ClassNames(p)...)
		}
	}
	return "", "", nil
}

// ClassesWithPrefix implements workspace.ExternalNames.
func (d *ClassData) ClassesWithPrefix(prefix string, limit int) []string {
	return workspace.SortedPrefix(d.idx.PrefixClasses(prefix), prefix, limit)
}

// covers is the JDK lookups' Covers: every java.* class, and the other
// packages of Platform that the JDK has (javax.inject, javax.servlet and
// the like come in jars).
func covers(class string, hasPackage func(pkg string) bool) bool {
	if strings.HasPrefix(class, "java.") {
		return true
	}
	if !Platform(class) {
		return false
	}
	for _, pkg := range packagesOf(classfileCanonical(class)) {
		if hasPackage(pkg) {
			return true
		}
	}
	return false
}

// platformPrefixes start the names of the packages a JDK lookup may
// answer for: java and javax, and the others the JDK exports (the XML
// APIs org.w3c.dom and org.xml.sax, org.ietf.jgss, org.omg up to JDK 10,
// jdk.jfr and the other jdk.* APIs).
var platformPrefixes = []string{"java.", "javax.", "org.w3c.", "org.xml.", "org.ietf.", "org.omg.", "jdk."}

// Platform tells a class name (binary or canonical) in a package the JDK
// may provide; the JDK's internals (jdk.internal, sun, com.sun) are not.
func Platform(class string) bool {
	if strings.HasPrefix(class, "jdk.internal.") {
		return false
	}
	for _, p := range platformPrefixes {
		if strings.HasPrefix(class, p) {
			return true
		}
	}
	return false
}

// coveredName tells the internal names ("java/util/List") of the classes
// covers may accept; the rest is left out of the tables.
func coveredName(internal string) bool { return Platform(strings.ReplaceAll(internal, "/", ".")) }

// packagesOf lists the packages a canonical class name may be in, longest
// first: "a.b.C.D" may be D nested in C of a.b, or D of package a.b.C.
func packagesOf(name string) []string {
	var out []string
	for i := strings.LastIndexByte(name, '.'); i > 0; i = strings.LastIndexByte(name[:i], '.') {
		out = append(out, name[:i])
	}
	return out
}

func classfileCanonical(name string) string { return strings.ReplaceAll(name, "$", ".") }

// zipClassData indexes the class files of a zip: those add accepts, by
// the internal name it returns.
func zipClassData(path, what string, add func(entry string) (internal string, ok bool)) (*ClassData, error) {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	files := make(map[string]*zip.File, len(zr.File))
	idx := classpath.NewIndex(path, "", func(entry string) ([]byte, error) { return readZipEntry(files[entry]) })
	for _, f := range zr.File {
		if internal, ok := add(f.Name); ok && coveredName(internal) && idx.Add(internal, f.Name) {
			files[f.Name] = f
		}
	}
	return &ClassData{path: path, what: what, idx: idx, close: zr.Close}, nil
}

func readZipEntry(f *zip.File) ([]byte, error) {
	if f.UncompressedSize64 > maxClassSize {
		return nil, fmt.Errorf("%d bytes is too large for a class file", f.UncompressedSize64)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(io.LimitReader(rc, maxClassSize+1))
}

// OpenRtJar reads JDK 8's jre/lib/rt.jar.
func OpenRtJar(path string) (*ClassData, error) {
	return zipClassData(path, "rt.jar", func(entry string) (string, bool) {
		if strings.HasPrefix(entry, "META-INF/") {
			return "", false
		}
		return strings.CutSuffix(entry, ".class")
	})
}

// OpenModules reads a runtime image (lib/modules).
func OpenModules(path string) (*ClassData, error) {
	res := map[string]jimageResource{}
	var idx *classpath.Index
	var img *jimage
	idx = classpath.NewIndex(path, "", func(entry string) ([]byte, error) { return img.read(res[entry]) })
	img, err := openJimage(path, func(module, internal string, r jimageResource) {
		name := jimageName(module, internal)
		if coveredName(internal) && idx.Add(internal, name) {
			res[name] = r
		}
	})
	if err != nil {
		return nil, err
	}
	return &ClassData{path: path, what: "runtime image", idx: idx, close: img.Close}, nil
}

// releaseDigit is how ct.sym names a release: one base-36 digit, 7 … 9,
// A (10) … P (25).
func releaseDigit(release int) byte { return strings.ToUpper(strconv.FormatInt(int64(release), 36))[0] }

// CtSymReleases lists the releases whose classes a ct.sym holds, oldest
// first; current is the release whose section has only a system-modules
// file, 0 when none has: the JDK's own release in JDK 17's ct.sym (not in
// Temurin 25's), whose classes javac reads from the runtime image.
func CtSymReleases(path string) (releases []int, current int, err error) {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return nil, 0, fmt.Errorf("open %s: %w", path, err)
	}
	defer zr.Close()
	has := map[int]bool{}
	for _, f := range zr.File {
		section, rest, ok := strings.Cut(f.Name, "/")
		if !ok || strings.Contains(section, "-") {
			continue
		}
		switch {
		case rest == "system-modules":
			if r, err := strconv.ParseInt(section, 36, 32); err == nil {
				current = int(r)
			}
		case strings.HasSuffix(rest, ".sig"):
			for _, c := range section {
				if r, err := strconv.ParseInt(string(c), 36, 32); err == nil {
					has[int(r)] = true
				}
			}
		}
	}
	for r := range has {
		releases = append(releases, r)
	}
	sort.Ints(releases)
	return releases, current, nil
}

// OpenCtSym reads the classes of one release from a ct.sym: the .sig
// files of every section whose name holds the release's digit ("BCDEF"
// holds classes unchanged from 11 to 15), as javac --release does. A
// section is "7/java.base/java/lang/Object.sig" (JDK 10 on) or
// "8/java/lang/Object.sig" (JDK 9, no module directory); sections named
// with a "-" hold module descriptions and are skipped.
func OpenCtSym(path string, release int) (*ClassData, error) {
	if release < 1 || release >= 36 {
		return nil, fmt.Errorf("%s: release %d has no one-digit name in ct.sym", path, release)
	}
	digit := string(releaseDigit(release))
	d, err := zipClassData(path, "ct.sym, release "+strconv.Itoa(release), func(entry string) (string, bool) {
		section, rest, ok := strings.Cut(entry, "/")
		if !ok || strings.Contains(section, "-") || !strings.Contains(section, digit) {
			return "", false
		}
		rest, ok = strings.CutSuffix(rest, ".sig")
		if !ok {
			return "", false
		}
		// Module names have dots, package directories none.
		if mod, inner, ok := strings.Cut(rest, "/"); ok && strings.Contains(mod, ".") {
			rest = inner
		}
		return rest, true
	})
	if err != nil {
		return nil, err
	}
	if d.Classes() == 0 {
		d.Close()
		return nil, fmt.Errorf("%s holds no classes of release %d", path, release)
	}
	return d, nil
}
