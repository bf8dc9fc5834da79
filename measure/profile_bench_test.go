package measure

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/analysis/profile"
	"github.com/perfls/perfls/analysis/stats"
	"github.com/perfls/perfls/internal/profilecases"
)

// BenchmarkProfileOverhead measures the cost of recording: the same methods
// in perfls's real harness (timing forks), with and without ProfileJVMArgs,
// forks alternating. It reports each method's median over forks of the fork
// mean time per operation both ways (the median, because one JIT outcome
// can differ from the next by 40 % for some of these methods) and the
// overhead in percent. Run with
//
//	go test ./measure -run '^$' -bench ProfileOverhead -benchtime 1x
func BenchmarkProfileOverhead(b *testing.B) {
	if _, err := findJDK(context.Background()); err != nil {
		b.Skip(err)
	}
	cases := profilecases.Overhead
	const forks = 5
	for i := 0; i < b.N; i++ {
		for _, c := range cases {
			pp := profilingProject(b, c.Project)
			req := measured.Request{Method: resolveOne(b, pp.build, c.Method), Args: []measured.Arg{measured.IntArg(int64(c.Arg))}}
			if c.Gen != "" {
				req.Generator = resolveOne(b, pp.build, c.Gen+"(int)")
			}
			var plain, prof []float64
			for f := 0; f < forks; f++ {
				for _, profiled := range []bool{false, true} {
					opt := Options{Forks: 1}
					if profiled {
						opt.JVMArgs = pp.profileArgs(b)
					}
					res, err := Measure(context.Background(), pp.build, []measured.Request{req}, opt, nil)
					if err != nil || res[0].Err != nil {
						b.Fatalf("%s: %v %v", c.Method, err, res[0].Err)
					}
					m := stats.Summarize(res[0].Forks[0].NsPerOp).Mean
					if profiled {
						prof = append(prof, m)
					} else {
						plain = append(plain, m)
					}
				}
			}
			mp, mq := stats.Summarize(plain).Median, stats.Summarize(prof).Median
			name := c.Method[strings.LastIndexByte(c.Method, '.')+1:]
			b.ReportMetric(mp, name+"-ns/op")
			b.ReportMetric(mq, name+"-profiled-ns/op")
			b.ReportMetric(100*(mq/mp-1), name+"-overhead-%")
		}
	}
}

// BenchmarkProfileFreshJVM measures the time to a profile of a method of
// about 1 ms (profiling.Duplicates#countRepeats on 3,600 values) in a fresh JVM: start, warm-up,
// recorded iterations, reduction in the JVM, parsing and analysis in Go
// (ms-to-profile; ns/op also counts resolving the method, a JVM run of its
// own). Reported per configuration (warm-up ms / iterations × ms), with the
// reduction's share (ms-reduce). Run with
//
//	go test ./measure -run '^$' -bench ProfileFreshJVM -benchtime 3x
func BenchmarkProfileFreshJVM(b *testing.B) {
	if _, err := findJDK(context.Background()); err != nil {
		b.Skip(err)
	}
	pp := profilingProject(b, "profiling")
	c := profilecases.OneMs
	for _, cfg := range []struct{ warmup, iters, ms int }{{500, 20, 50}, {300, 10, 50}} {
		b.Run(fmt.Sprintf("%dms-%dx%dms", cfg.warmup, cfg.iters, cfg.ms), func(b *testing.B) {
			target := pp.target(b, c.Method)
			var reduce, total time.Duration
			for i := 0; i < b.N; i++ {
				s, out, took := profileRun(b, pp, c, "summary", pp.profileArgs(b), cfg.warmup, cfg.iters, cfg.ms)
				start := time.Now()
				p, err := profile.New(s, pp.decls, target)
				if err != nil {
					b.Fatal(err)
				}
				p.Report(profile.Thresholds{})
				total += took + time.Since(start)
				for _, l := range strings.Split(out, "\n") {
					if v, ok := strings.CutPrefix(l, "perfls-driver-reducems "); ok {
						ms, _ := strconv.Atoi(v)
						reduce += time.Duration(ms) * time.Millisecond
					}
				}
			}
			b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms-to-profile")
			b.ReportMetric(float64(reduce.Milliseconds())/float64(b.N), "ms-reduce")
		})
	}
}

// BenchmarkProfileInRunningJVM measures the time to a profile in a JVM that
// is already running and warm (as the warm worker would be): from starting
// the recording (ProfileMarks.startRecording) through 10 × 50 ms of
// recorded iterations to the reduced summary (ms-in-jvm), for the same
// ~1 ms method. Run with
//
//	go test ./measure -run '^$' -bench ProfileInRunningJVM -benchtime 3x
func BenchmarkProfileInRunningJVM(b *testing.B) {
	if _, err := findJDK(context.Background()); err != nil {
		b.Skip(err)
	}
	pp := profilingProject(b, "profiling")
	c := profilecases.OneMs
	var total time.Duration
	for i := 0; i < b.N; i++ {
		_, out, _ := profileRun(b, pp, c, "self="+pp.settings, []string{"-XX:+UnlockDiagnosticVMOptions", "-XX:+DebugNonSafepoints"}, 500, 10, 50)
		for _, l := range strings.Split(out, "\n") {
			if v, ok := strings.CutPrefix(l, "perfls-driver-profilems "); ok {
				ms, _ := strconv.Atoi(v)
				total += time.Duration(ms) * time.Millisecond
			}
		}
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms-in-jvm")
}
