//go:build unix

package measure

import (
	"errors"
	"os/exec"
	"syscall"
)

// inOwnProcessGroup makes the command the leader of a new process group, so
// that it and everything it starts can be killed together.
func inOwnProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killProcessGroup kills the process group led by pid. A group that is
// already gone is not an error.
func killProcessGroup(pid int) error {
	if pid <= 0 {
		return nil
	}
	err := syscall.Kill(-pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// requestThreadDump asks a HotSpot-like JVM to print all thread stacks to its
// standard output (SIGQUIT); it does not stop the JVM.
func requestThreadDump(pid int) bool {
	return pid > 0 && syscall.Kill(pid, syscall.SIGQUIT) == nil
}
