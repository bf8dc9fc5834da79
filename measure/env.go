package measure

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/internal/trust"
	"github.com/perfls/perfls/internal/version"
)

var cpuModelOnce struct {
	sync.Once
	model string
}

// cpuModel returns the processor's model name, "" when unknown.
func cpuModel() string {
	cpuModelOnce.Do(func() {
		cpuModelOnce.model = readCPUModel()
	})
	return cpuModelOnce.model
}

func readCPUModel() string {
	switch runtime.GOOS {
	case "linux":
		f, err := os.Open("/proc/cpuinfo")
		if err != nil {
			return ""
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			k, v, ok := strings.Cut(sc.Text(), ":")
			if !ok {
				continue
			}
			switch strings.TrimSpace(k) {
			case "model name", "Model", "cpu model", "Processor":
				if v = strings.TrimSpace(v); v != "" {
					return v
				}
			}
		}
	case "darwin":
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		cmd, err := trust.Command(ctx, "sysctl", "-n", "machdep.cpu.brand_string")
		if err != nil {
			return ""
		}
		if out, err := cmd.Output(); err == nil {
			return strings.TrimSpace(string(out))
		}
	}
	return ""
}

func environmentOf(st protoState) measured.Environment {
	e := measured.Environment{
		JavaVersion: st.env["java.version"],
		JavaVendor:  st.env["java.vendor"],
		VMName:      st.env["java.vm.name"],
		VMVersion:   st.env["java.vm.version"],
		JVMArgs:     append([]string(nil), st.jvmArgs...),
		OS:          st.env["os.name"],
		Arch:        st.env["os.arch"],
		CPUModel:    cpuModel(),
		GC:          st.env["gc"],
		MemoryMB:    memoryMB(),
		Perfls:      version.String(),
	}
	e.MaxHeapMB, _ = strconv.Atoi(st.env["heap.max.mb"])
	for _, c := range st.env["cores"] {
		if c < '0' || c > '9' {
			e.Cores = 0
			break
		}
		e.Cores = e.Cores*10 + int(c-'0')
	}
	return e
}

var memoryMB = sync.OnceValue(readMemoryMB)

// readMemoryMB reads the machine's physical memory (Linux: MemTotal in
// /proc/meminfo), 0 when unknown.
func readMemoryMB() int {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			f := strings.Fields(rest)
			if len(f) == 2 && f[1] == "kB" {
				kb, _ := strconv.Atoi(f[0])
				return kb / 1024
			}
		}
	}
	return 0
}

// ProjectCommit is the git commit of the work tree holding dir and whether
// the tree has changes (untracked files included): "" when dir is in no
// git work tree or git is missing.
func ProjectCommit(ctx context.Context, dir string) (commit string, dirty bool) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	git := func(args ...string) ([]byte, error) {
		cmd, err := trust.Command(ctx, "git", append([]string{"-C", dir}, args...)...)
		if err != nil {
			return nil, err
		}
		return cmd.Output()
	}
	head, err := git("rev-parse", "--verify", "--quiet", "HEAD")
	if err != nil {
		return "", false
	}
	status, err := git("status", "--porcelain")
	return strings.TrimSpace(string(head)), err != nil || len(bytes.TrimSpace(status)) > 0
}
