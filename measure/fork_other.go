//go:build !unix

package measure

import (
	"os"
	"os/exec"
)

// On systems without process groups perfls kills the JVM process only.

func inOwnProcessGroup(cmd *exec.Cmd) {}

func killProcessGroup(pid int) error {
	if pid <= 0 {
		return nil
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return nil
	}
	_ = p.Kill()
	return nil
}

func requestThreadDump(pid int) bool { return false }
