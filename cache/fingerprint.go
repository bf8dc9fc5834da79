package cache

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Fingerprint hashes the compiled code a measurement depends on: the class
// files of the given root classes and, transitively, of every project class
// their constant pools refer to. Classes outside classDirs (the JDK, jars)
// are not followed: the JVM's version and the classpath's jars are part of
// the cache key separately.
//
// The granularity is the class: editing any method of a reachable class
// changes the fingerprint, while edits to classes the measured code cannot
// reach keep it. It returns the hex digest and the binary names it covered.
func Fingerprint(classDirs []string, roots []string) (string, []string, error) {
	seen := map[string]bool{}
	queue := append([]string(nil), roots...)
	var covered []string
	files := map[string][]byte{}
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		if seen[name] {
			continue
		}
		seen[name] = true
		rel := filepath.FromSlash(strings.ReplaceAll(name, ".", "/")) + ".class"
		var b []byte
		var path string
		for _, dir := range classDirs {
			path = filepath.Join(dir, rel)
			var err error
			b, err = os.ReadFile(path)
			if err == nil {
				break
			}
			if !errors.Is(err, fs.ErrNotExist) {
				return "", nil, fmt.Errorf("fingerprint %s: %w", name, err)
			}
		}
		if b == nil {
			continue // not a project class
		}
		refs, err := classReferences(b)
		if err != nil {
			return "", nil, fmt.Errorf("fingerprint %s: %w", path, err)
		}
		files[name] = b
		covered = append(covered, name)
		queue = append(queue, refs...)
	}
	sort.Strings(covered)
	h := sha256.New()
	for _, name := range covered {
		sum := sha256.Sum256(files[name])
		fmt.Fprintf(h, "%s %x\n", name, sum)
	}
	return hex.EncodeToString(h.Sum(nil)), covered, nil
}

// classReferences lists the classes a class file names in its constant
// pool: CONSTANT_Class entries and the object types inside descriptors and
// signatures (a parameter type need not appear as a CONSTANT_Class).
// Names are returned in binary form with dots (pkg.Outer$Inner).
func classReferences(b []byte) ([]string, error) {
	r := bytes.NewReader(b)
	var header struct {
		Magic        uint32
		Minor, Major uint16
		Count        uint16
	}
	if err := binary.Read(r, binary.BigEndian, &header); err != nil {
		return nil, fmt.Errorf("truncated class file header")
	}
	if header.Magic != 0xCAFEBABE {
		return nil, fmt.Errorf("not a class file")
	}
	utf8 := map[uint16]string{}
	var classIdx []uint16
	for i := uint16(1); i < header.Count; i++ {
		tag, err := r.ReadByte()
		if err != nil {
			return nil, fmt.Errorf("truncated constant pool")
		}
		skip := 0
		switch tag {
		case 1: // Utf8
			var n uint16
			if err := binary.Read(r, binary.BigEndian, &n); err != nil {
				return nil, fmt.Errorf("truncated constant pool")
			}
			s := make([]byte, n)
			if _, err := io.ReadFull(r, s); err != nil {
				return nil, fmt.Errorf("truncated constant pool")
			}
			utf8[i] = string(s)
		case 7: // Class
			var idx uint16
			if err := binary.Read(r, binary.BigEndian, &idx); err != nil {
				return nil, fmt.Errorf("truncated constant pool")
			}
			classIdx = append(classIdx, idx)
		case 8, 16, 19, 20: // String, MethodType, Module, Package
			skip = 2
		case 15: // MethodHandle
			skip = 3
		case 3, 4, 9, 10, 11, 12, 17, 18: // Integer, Float, refs, NameAndType, (Invoke)Dynamic
			skip = 4
		case 5, 6: // Long, Double take two slots
			skip = 8
			i++
		default:
			return nil, fmt.Errorf("unknown constant pool tag %d", tag)
		}
		if skip > 0 {
			if _, err := r.Seek(int64(skip), 1); err != nil {
				return nil, fmt.Errorf("truncated constant pool")
			}
		}
	}
	var refs []string
	add := func(internal string) {
		internal = strings.TrimLeft(internal, "[")
		if strings.HasPrefix(internal, "L") && strings.HasSuffix(internal, ";") {
			internal = internal[1 : len(internal)-1]
		}
		if internal != "" && !strings.ContainsAny(internal, ";[<>()") {
			refs = append(refs, strings.ReplaceAll(internal, "/", "."))
		}
	}
	for _, idx := range classIdx {
		add(utf8[idx])
	}
	// Descriptors and generic signatures start with one of "([L<".
	for _, s := range utf8 {
		if s != "" && strings.ContainsRune("([L<", rune(s[0])) {
			descriptorClasses(s, add)
		}
	}
	return refs, nil
}

// descriptorClasses calls add for every class named in a field or method
// descriptor or a generic signature: "(ILp/Config;)Ljava/util/List;" names
// p/Config and java/util/List. Type variables ("TT;") are skipped; a false
// match can only add a class, which over-invalidates but never misses one.
func descriptorClasses(s string, add func(string)) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case 'L':
			j := i + 1
			for j < len(s) && s[j] != ';' && s[j] != '<' {
				j++
			}
			if name := s[i+1 : j]; !strings.ContainsAny(name, ":.") {
				add(name)
			}
			i = j
		case 'T':
			for i < len(s) && s[i] != ';' {
				i++
			}
		}
	}
}
