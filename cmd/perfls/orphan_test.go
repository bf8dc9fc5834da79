//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
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
	dir := fixture.Project(t, map[string]string{"p/Spin.java": `package p;
public class Spin {
    public static int forever(int x) {
        while (true) {
            x = x * 31 + 7;
            if (x == 42 && System.nanoTime() < 0) {
                return x;
            }
        }
    }
}
`})
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGHUP, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command(bin, "measure", "--project", dir, "--method", "p.Spin#forever", "--args", "1",
				"--forks", "1", "--fork-timeout", "10m")
			cmd.Env = append(os.Environ(), "PERFLS_CACHE_DIR="+t.TempDir(), "XDG_RUNTIME_DIR="+t.TempDir())
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			jvm := 0
			for i := 0; i < 1200 && jvm == 0; i++ { // the compile comes first
				time.Sleep(100 * time.Millisecond)
				jvm = forkOf(cmd.Process.Pid)
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
			for i := 0; i < 600 && alive(jvm); i++ {
				time.Sleep(100 * time.Millisecond)
			}
			if alive(jvm) {
				syscall.Kill(jvm, syscall.SIGKILL)
				t.Fatalf("the forked JVM %d outlived perfls (%v)", jvm, sig)
			}
		})
	}
}

// forkOf returns the pid of a forked measuring JVM (a java child whose
// command line names a crash-log file, unlike the short-lived helper JVMs)
// of parent, or 0.
func forkOf(parent int) int {
	for pid, st := range processes() {
		if st.comm != "java" || st.ppid != parent {
			continue
		}
		if cl, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline")); bytes.Contains(cl, []byte("-XX:ErrorFile=")) {
			return pid
		}
	}
	return 0
}

// alive says whether pid runs; a zombie nobody has reaped yet is not alive.
func alive(pid int) bool {
	st, ok := readStat(pid)
	return ok && st.state != "Z"
}

// procStat is what /proc/PID/stat says of a process.
type procStat struct {
	comm, state string
	ppid        int
}

// readStat reads /proc/PID/stat: pid (comm) state ppid ...
func readStat(pid int) (procStat, bool) {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return procStat{}, false
	}
	s := string(stat)
	open, close := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || close < open {
		return procStat{}, false
	}
	f := strings.Fields(s[close+1:])
	if len(f) < 2 {
		return procStat{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	return procStat{comm: s[open+1 : close], state: f[0], ppid: ppid}, true
}

// processes are the running processes by pid.
func processes() map[int]procStat {
	out := map[int]procStat{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			if st, ok := readStat(pid); ok {
				out[pid] = st
			}
		}
	}
	return out
}
