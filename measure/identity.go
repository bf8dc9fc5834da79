package measure

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
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
	return fmt.Sprintf("%s (%d bytes, %s) -Xmx%dm %s", java, st.Size(), st.ModTime().UTC().Format("2006-01-02T15:04:05Z"),
		opt.HeapMB, strings.Join(opt.JVMArgs, " ")), nil
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
