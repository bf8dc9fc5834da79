package cache

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/perfls/perfls/analysis/classfile"
)

// fingerprintVersion is the first line of every fingerprint's digest:
// when what is hashed changes, every stored key misses once instead of a
// key computed one way answering for code hashed another. 2: perfls's
// annotations left out, constants by value, lines counted per method.
const fingerprintVersion = 2

// perflsAnnotations are the simple names of perfls's annotations, matched
// whatever their package (DESIGN §3). They are left out of the fingerprint:
// no running code reads them (the harness reads none, and perfls reads
// them from the source), and what they decide — the formula, the workload,
// the arguments — is judged on the raw data or is a part of the key.
var perflsAnnotations = map[string]bool{
	"SPL": true, "SPLs": true, "Workload": true, "Workloads": true, "Generator": true,
	"Param": true, "ParamNum": true, "ParamDesc": true, "SeeAlso": true,
}

// perflsAnnotation tells the descriptor of a perfls annotation type:
// "Ldev/perfls/SPL;", "Lorg/spl/SPL;", "Lp/Outer$Workload;".
func perflsAnnotation(desc string) bool {
	name := strings.TrimSuffix(strings.TrimPrefix(desc, "L"), ";")
	return perflsAnnotations[name[strings.LastIndexAny(name, "/$")+1:]]
}

// Fingerprint hashes the compiled code a measurement depends on: the class
// files of the given root classes and, transitively, of every project class
// their kept parts refer to. Classes outside classDirs (the JDK, jars)
// are not followed: the JVM's version and the classpath's jars are part of
// the cache key separately.
//
// The granularity is the class: editing any method of a reachable class
// changes the fingerprint, while edits to classes the measured code cannot
// reach keep it. Each class counts by its canonical form
// (classfile.CanonicalForm) without perfls's annotations, so editing a
// formula, a workload binding or a parameter's documentation changes
// nothing, while code, its constants (by value, so a string a formula and
// the code share still counts) and other tools' annotations do. It returns
// the hex digest and the binary names it covered.
func Fingerprint(classDirs []string, roots []string) (string, []string, error) {
	seen := map[string]bool{}
	queue := append([]string(nil), roots...)
	var covered []string
	sums := map[string][sha256.Size]byte{}
	canon := classfile.Canonicalizer{Drop: perflsAnnotation}
	var buf []byte
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		if seen[name] || strings.HasPrefix(name, "java.") { // java.* loads from the JDK only
			continue
		}
		seen[name] = true
		rel := filepath.FromSlash(strings.ReplaceAll(name, ".", "/")) + ".class"
		var b []byte
		var path string
		found := false
		for _, dir := range classDirs {
			path = filepath.Join(dir, rel)
			var err error
			if b, err = readInto(buf, path); err == nil {
				buf, found = b, true
				break
			}
			if !errors.Is(err, fs.ErrNotExist) {
				return "", nil, fmt.Errorf("fingerprint %s: %w", name, err)
			}
		}
		if !found {
			continue // not a project class
		}
		c, err := canon.Form(b)
		if err != nil {
			return "", nil, fmt.Errorf("fingerprint %s: %w", path, err)
		}
		sums[name] = sha256.Sum256(c.Form)
		covered = append(covered, name)
		queue = append(queue, c.Classes...)
	}
	sort.Strings(covered)
	h := sha256.New()
	fmt.Fprintf(h, "perfls fingerprint %d\n", fingerprintVersion)
	for _, name := range covered {
		fmt.Fprintf(h, "%s %x\n", name, sums[name])
	}
	return hex.EncodeToString(h.Sum(nil)), covered, nil
}

// readInto reads the file at path into buf's memory when it is large
// enough: the fingerprint reads hundreds of class files on every check.
func readInto(buf []byte, path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if size := int(st.Size()); cap(buf) < size {
		buf = make([]byte, size)
	} else {
		buf = buf[:size]
	}
	if _, err := io.ReadFull(f, buf); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return buf, nil
}
