package measure

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Environment describes where a fork ran.
type Environment struct {
	JavaVersion, JavaVendor, VMName string
	VMVersion                       string
	JVMArgs                         []string // as the JVM reports them (RuntimeMXBean)
	OS, Arch                        string   // as the JVM reports them (os.name, os.arch)
	CPUModel                        string
	Cores                           int    // processors available to the JVM
	GC                              string // the collectors in use, e.g. "G1 Young Generation, G1 Old Generation"
	MaxHeapMB                       int    // the heap's limit (Runtime.maxMemory), MiB
}

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
		out, err := exec.CommandContext(ctx, "sysctl", "-n", "machdep.cpu.brand_string").Output()
		if err == nil {
			return strings.TrimSpace(string(out))
		}
	}
	return ""
}

func environmentOf(st protoState) Environment {
	e := Environment{
		JavaVersion: st.env["java.version"],
		JavaVendor:  st.env["java.vendor"],
		VMName:      st.env["java.vm.name"],
		VMVersion:   st.env["java.vm.version"],
		JVMArgs:     append([]string(nil), st.jvmArgs...),
		OS:          st.env["os.name"],
		Arch:        st.env["os.arch"],
		CPUModel:    cpuModel(),
		GC:          st.env["gc"],
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
