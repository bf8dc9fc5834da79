//go:build linux

package measure

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// pinThread binds thread tid of process pid (a fork) to cpus:
// sched_setaffinity on its thread id, after checking that it is one of
// pid's threads. Only that thread is bound; the JVM's compiler and GC
// threads keep every processor, so the JVM's ergonomics (which read the
// process's processors at start) are those of an unpinned run.
func pinThread(pid, tid int, cpus []int) error {
	if _, err := os.Stat(fmt.Sprintf("/proc/%d/task/%d", pid, tid)); err != nil {
		return fmt.Errorf("the fork (pid %d) named thread %d as its measuring thread, which is not one of its threads", pid, tid)
	}
	var set unix.CPUSet
	for _, c := range cpus {
		set.Set(c)
	}
	if err := unix.SchedSetaffinity(tid, &set); err != nil {
		return fmt.Errorf("pin the measuring thread %d to processors %s: %w", tid, FormatCPUs(cpus), err)
	}
	return nil
}

// allowedCPUs lists the processors this process may run on.
func allowedCPUs() ([]int, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil, fmt.Errorf("read this process's processors: %w", err)
	}
	var cpus []int
	for c := 0; c < 1024; c++ { // CPU_SETSIZE
		if set.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	return cpus, nil
}
