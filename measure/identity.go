package measure

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
)

// The identities below are parts of the cache key (DESIGN §7): a stored
// measurement answers a request only when the same harness ran it on the
// same JVM with the same flags on the same machine.

var harnessVersion = sync.OnceValue(func() string {
	h := sha256.New()
	fmt.Fprintf(h, "protocol %d\n", protocolVersion)
	src := LibrarySources()
	var paths []string
	fs.WalkDir(src, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			paths = append(paths, p)
		}
		return nil
	})
	sort.Strings(paths)
	for _, p := range paths {
		b, _ := fs.ReadFile(src, p)
		fmt.Fprintf(h, "%s %d\n", p, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
})

// HarnessVersion identifies how samples are taken: it changes with the line
// protocol and with the embedded Java library that runs the harness.
func HarnessVersion() string { return harnessVersion() }

// JVMIdentity names the JVM a measurement with opt runs on and the flags that
// shape it: the java executable (resolved, with its size and modification
// time, so an upgraded JDK is a different JVM), heap size and extra flags.
// It starts no process.
func JVMIdentity(opt Options) (string, error) {
	opt = opt.Defaults()
	java := opt.Java
	if java == "" {
		var err error
		if java, err = findTool("java"); err != nil {
			return "", err
		}
	}
	if real, err := filepath.EvalSymlinks(java); err == nil {
		java = real
	}
	st, err := os.Stat(java)
	if err != nil {
		return "", fmt.Errorf("JVM identity: %w", err)
	}
	heap := "default heap"
	if opt.HeapMB > 0 {
		heap = fmt.Sprintf("-Xmx%dm", opt.HeapMB)
	}
	if opt.CPUs != "" {
		// Processors differ in speed (pin.go): a pinned run is its own JVM.
		cpus, err := ParseCPUs(opt.CPUs)
		if err != nil {
			return "", err
		}
		heap += " cpus=" + FormatCPUs(cpus)
	}
	return strings.TrimSpace(fmt.Sprintf("%s (%d bytes, %s) %s %s", java, st.Size(), st.ModTime().UTC().Format("2006-01-02T15:04:05Z"),
		heap, strings.Join(opt.JVMArgs, " "))), nil
}

// MachineIdentity names the machine: processor model, cores, OS and
// architecture.
func MachineIdentity() string {
	model := cpuModel()
	if model == "" {
		model = "unknown cpu"
	}
	return fmt.Sprintf("%s, %d cores, %s/%s", model, runtime.NumCPU(), runtime.GOOS, runtime.GOARCH)
}

// HarnessSettings names the options that shape every sample's value — the
// harness version, the warm-up rules and the sample length — so that a
// stored measurement answers, and history mixes with, only runs taken the
// same way. Forks and samples per fork only say how many; they are not in it.
func HarnessSettings(opt Options) string {
	opt = opt.Defaults()
	return fmt.Sprintf("%s warmup=%s..%s quiet=%s sample≥%s", HarnessVersion(), opt.Warmup, opt.MaxWarmup, opt.WarmupQuiet, opt.MinSampleTime)
}

// ClasspathDigest is a digest of the content of the jars and class
// directories on a classpath, in order: a dependency that changes (a jar
// replaced by another version, a class folder rebuilt) changes it. The
// content hash of each file is kept while its size and modification time
// stay the same, so a classpath of large jars is read once per process.
// A missing entry counts as missing, not as an error (javac and the JVM
// ignore it too). Where the entries are does not count, only what they
// hold: a clone of the project in another directory, or on another
// machine, with another cache directory for perfls's library, has the
// same digest, so results measured there are reused here.
func ClasspathDigest(entries []string) (string, error) {
	h := sha256.New()
	for _, e := range entries {
		info, err := os.Stat(e)
		switch {
		case err != nil:
			fmt.Fprintf(h, "missing %s\n", filepath.Base(e))
		case info.IsDir():
			fmt.Fprintf(h, "dir\n")
			err := filepath.WalkDir(e, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				sum, err := fileDigest(p)
				if err != nil {
					return err
				}
				rel, _ := filepath.Rel(e, p)
				fmt.Fprintf(h, "%s %s\n", filepath.ToSlash(rel), sum)
				return nil
			})
			if err != nil {
				return "", fmt.Errorf("classpath digest %s: %w", e, err)
			}
		default:
			sum, err := fileDigest(e)
			if err != nil {
				return "", fmt.Errorf("classpath digest: %w", err)
			}
			fmt.Fprintf(h, "file %s\n", sum)
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:16]), nil
}

// fileDigests caches content hashes by path, with the size and
// modification time they were taken at: one entry per file, so a
// long-running daemon does not collect stale ones.
var fileDigests sync.Map // path → fileStamp

type fileStamp struct {
	size  int64
	mtime int64
	sum   string
}

func fileDigest(path string) (string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	stamp := fileStamp{size: info.Size(), mtime: info.ModTime().UnixNano()}
	if v, ok := fileDigests.Load(path); ok {
		if old := v.(fileStamp); old.size == stamp.size && old.mtime == stamp.mtime {
			return old.sum, nil
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	stamp.sum = hex.EncodeToString(h.Sum(nil)[:16])
	fileDigests.Store(path, stamp)
	return stamp.sum, nil
}
