//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/perfls/perfls/internal/fixture"
)

// No forked JVM outlives the perfls that started it, however perfls ends:
// kill -9 (no chance to clean up) or SIGHUP (a closed terminal). Issue #16,
// item 1. Linux only: the JVM is found through /proc.
func TestNoJVMOutlivesItsPerfls(t *testing.T) {
	if testing.Short() {
		t.Skip("forks JVMs")
	}
	bin := perflsBinary(t)
	dir := fixture.Project(t, map[string]string{"p/Spin.java": fixture.SpinJava})
	// One cache: the project and its harness are compiled once, by the
	// first perfls; the later ones start from a cache a killed perfls left,
	// as a user's would be.
	cacheDir := fixture.CacheDir(t)
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGHUP, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command(bin, "measure", "--project", dir, "--method", "p.Spin#forever", "--args", "1",
				"--forks", "1", "--fork-timeout", "10m")
			cmd.Env = append(os.Environ(), "PERFLS_CACHE_DIR="+cacheDir, "XDG_RUNTIME_DIR="+t.TempDir())
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			jvm := 0
			for i := 0; i < 1200 && jvm == 0; i++ { // the compile comes first
				time.Sleep(100 * time.Millisecond)
				jvm = fixture.ForkOf(cmd.Process.Pid)
			}
			if jvm == 0 {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("no forked JVM appeared\n%s", out.String())
			}
			cmd.Process.Signal(sig)
			err := cmd.Wait()
			if sig != syscall.SIGKILL {
				if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 128+int(sig) {
					t.Errorf("perfls after %v: %v, want exit status %d\n%s", sig, err, 128+int(sig), out.String())
				}
			}
			for i := 0; i < 600 && fixture.Alive(jvm); i++ {
				time.Sleep(100 * time.Millisecond)
			}
			if fixture.Alive(jvm) {
				syscall.Kill(jvm, syscall.SIGKILL)
				t.Fatalf("the forked JVM %d outlived perfls (%v)", jvm, sig)
			}
		})
	}
}
