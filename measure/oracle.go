package measure

import (
	"strconv"
	"strings"
	"time"

	"github.com/perfls/perfls/analysis/measured"
)

// OracleEnv is the meta-data of a fork for the bounds oracle: the JVM as it
// reported itself, the machine, the harness and the measuring options that
// shape per-sample figures (sample length, heap, samples per fork), plus the
// fork's volatile items (pid), which the oracle's environment filter drops.
// Runs with different meta-data cannot be compared.
func OracleEnv(env measured.Environment, opt Options, pid int) map[string]string {
	opt = opt.Defaults()
	m := map[string]string{
		"java.version":    env.JavaVersion,
		"java.vendor":     env.JavaVendor,
		"java.vm.name":    env.VMName,
		"java.vm.version": env.VMVersion,
		"os.name":         env.OS,
		"os.arch":         env.Arch,
		"cpu":             env.CPUModel,
		"cores":           strconv.Itoa(env.Cores),
		"jvm.args":        strings.Join(stableJVMArgs(env.JVMArgs), " "),
		"harness":         HarnessVersion(),
		"heap_mb":         strconv.Itoa(opt.HeapMB),
		"min_sample":      opt.MinSampleTime.String(),
	}
	if pid != 0 {
		m["pid"] = strconv.Itoa(pid)
	}
	return m
}

// stableJVMArgs drops the flags that name per-run paths (crash log files),
// which differ between caches and say nothing about how the JVM runs.
func stableJVMArgs(args []string) []string {
	var out []string
	for _, a := range args {
		if strings.HasPrefix(a, "-XX:ErrorFile=") {
			continue
		}
		out = append(out, a)
	}
	return out
}

// OracleMeta records the options that shape a calibration's runs (sample
// count and length, warm-up, heap, JVM flags), to be stored with the model
// (oracle.Model.Measure) so later runs are measured alike.
func OracleMeta(opt Options) map[string]string {
	opt = opt.Defaults()
	return map[string]string{
		"samples":    strconv.Itoa(opt.SamplesPerFork),
		"min_sample": opt.MinSampleTime.String(),
		"warmup":     opt.Warmup.String(),
		"max_warmup": opt.MaxWarmup.String(),
		"heap_mb":    strconv.Itoa(opt.HeapMB),
		"jvm_args":   strings.Join(opt.JVMArgs, "\x1f"),
	}
}

// WithOracleMeta returns o with the measuring options OracleMeta recorded;
// the others (forks, timeout, java) stay o's.
func (o Options) WithOracleMeta(meta map[string]string) Options {
	if v, err := strconv.Atoi(meta["samples"]); err == nil {
		o.SamplesPerFork = v
	}
	for k, d := range map[string]*time.Duration{"min_sample": &o.MinSampleTime, "warmup": &o.Warmup, "max_warmup": &o.MaxWarmup} {
		if v, err := time.ParseDuration(meta[k]); err == nil {
			*d = v
		}
	}
	if v, err := strconv.Atoi(meta["heap_mb"]); err == nil {
		o.HeapMB = v
	}
	if a := meta["jvm_args"]; a != "" {
		o.JVMArgs = strings.Split(a, "\x1f")
	}
	return o
}
