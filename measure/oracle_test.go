package measure

import (
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/measured"
)

// Version 2 sample lines carry the JVM state the oracle follows; the
// series come out by metric name, and a v1 line still parses without them.
func TestProtocolVersion2OracleFields(t *testing.T) {
	w := newProtoWriter(10)
	w.Write([]byte("perfls-hello 2 7\nperfls-env java.version 17\nperfls-warmup 10 1000 1 5\n" +
		"perfls-sample 2000 1800 100 400 1 3 1048576 250 900\n" +
		"perfls-sample 3000 2800 100 400 0 0 2097152 251 901\n" +
		"perfls-sample 3000 2800 100 400 0 x 2097152 251 901\n" +
		"perfls-end\n"))
	st := w.state()
	if st.version != 2 || len(st.samples) != 2 || len(st.bad) != 1 {
		t.Fatalf("state %+v", st)
	}
	f := buildFork(&forkRun{proto: st, wall: time.Second})
	s := f.Series()
	want := map[string][]float64{
		measured.MetricNsPerOp: {20, 30}, measured.MetricCPUNsPerOp: {18, 28}, measured.MetricAllocPerOp: {4, 4}, measured.MetricGCCount: {1, 0},
		measured.MetricGCMs: {3, 0}, measured.MetricHeapUsed: {1048576, 2097152}, measured.MetricJITMs: {250, 251}, measured.MetricClasses: {900, 901},
	}
	if len(s) != len(want) {
		t.Errorf("series %v", s)
	}
	for k, v := range want {
		if got := s[k]; len(got) != 2 || got[0] != v[0] || got[1] != v[1] {
			t.Errorf("%s = %v, want %v", k, got, v)
		}
	}
	// A version-1 line: the oracle fields are absent, not zero.
	w = newProtoWriter(10)
	w.Write([]byte("perfls-hello 1 7\nperfls-sample 2000 -1 100 -1 0\nperfls-end\n"))
	f = buildFork(&forkRun{proto: w.state()})
	if f.HeapUsed != nil || f.JITMs != nil || f.GCMs != nil || f.Classes != nil {
		t.Errorf("v1 fork has oracle fields: %+v", f)
	}
	if s := f.Series(); len(s) != 2 || s[measured.MetricCPUNsPerOp] != nil {
		t.Errorf("v1 series %v", s)
	}
}

func TestOracleEnvKeepsIdentityAndDropsCrashPaths(t *testing.T) {
	env := measured.Environment{JavaVersion: "17.0.9", VMName: "OpenJDK", JVMArgs: []string{"-Xmx512m", "-XX:ErrorFile=/tmp/x/hs_err_pid%p.log", "-XX:+UseSerialGC"}, Cores: 2}
	m := OracleEnv(env, Options{}, 42)
	if m["jvm.args"] != "-Xmx512m -XX:+UseSerialGC" || m["pid"] != "42" || m["cores"] != "2" || m["harness"] != HarnessVersion() ||
		m["heap_mb"] != "0" || m["min_sample"] != "1ms" {
		t.Errorf("env %v", m)
	}
}

func TestOracleMetaRoundTrip(t *testing.T) {
	opt := Options{SamplesPerFork: 12, MinSampleTime: 5 * time.Millisecond, Warmup: time.Second, HeapMB: 128, JVMArgs: []string{"-Da=b c", "-XX:+UseG1GC"}}
	got := Options{Forks: 4}.WithOracleMeta(OracleMeta(opt))
	if got.Forks != 4 || got.SamplesPerFork != 12 || got.MinSampleTime != 5*time.Millisecond || got.Warmup != time.Second ||
		got.MaxWarmup != DefaultMaxWarmup || got.HeapMB != 128 || len(got.JVMArgs) != 2 || got.JVMArgs[0] != "-Da=b c" {
		t.Errorf("round trip: %+v", got)
	}
	if got := (Options{Forks: 2}).WithOracleMeta(nil); got.Forks != 2 || got.SamplesPerFork != 0 {
		t.Errorf("no meta: %+v", got)
	}
}

// Version 3 sample lines add the process's CPU time during the sample; a
// fork with one sample lacking it (-1, a JVM without the meter) has none.
func TestProtocolVersion3ProcessCPU(t *testing.T) {
	w := newProtoWriter(10)
	w.Write([]byte("perfls-hello 3 7\n" +
		"perfls-sample 2000 1800 100 400 1 3 1048576 250 900 2500\n" +
		"perfls-sample 3000 2800 100 400 0 0 2097152 251 901 0\n" +
		"perfls-end\n"))
	f := buildFork(&forkRun{proto: w.state()})
	if len(f.ProcCPUNsPerOp) != 2 || f.ProcCPUNsPerOp[0] != 25 || f.ProcCPUNsPerOp[1] != 0 {
		t.Errorf("process CPU per op %v, want [25 0]", f.ProcCPUNsPerOp)
	}
	w = newProtoWriter(10)
	w.Write([]byte("perfls-hello 3 7\n" +
		"perfls-sample 2000 1800 100 400 1 3 1048576 250 900 -1\n" +
		"perfls-sample 3000 2800 100 400 0 0 2097152 251 901 100\n" +
		"perfls-end\n"))
	if f := buildFork(&forkRun{proto: w.state()}); f.ProcCPUNsPerOp != nil {
		t.Errorf("process CPU per op %v, want absent", f.ProcCPUNsPerOp)
	}
}
