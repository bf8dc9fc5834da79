package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/internal/profilecases"
	"github.com/perfls/perfls/measure"
)

// The profile part (issue #20): perfls profile as a user runs it (the
// built binary, out of process, --fresh) on examples/profiling's programs
// and the cases written for the findings (issue 35, bench/java/src/findings),
// each seeded one with its cause marked "// cause: <kind>" on its line, and
// on the clean methods of examples/quickstart, examples/oracle and
// bench/java/src/findings, optionally with a CPU hog beside it; the
// overhead of a profiled fork against a timing fork with the same options;
// and the time to a profile of a method of about 1 ms.
//
//	go run ./bench profile [-profile-rounds 3]
//	go run ./bench profile-time         (the time to a profile only)
//	go run ./bench profile-validation [-profile-rounds 10] [-hog] [-only TEXT]   (the validation only)

// profileFinding is what the validation reads of perfls profile's JSON.
type profileFinding struct {
	Kind, File string
	Line       int
	Evidence   map[string]any
}

// profileDoc is what the validation reads of perfls profile's JSON.
type profileDoc struct {
	Findings         []profileFinding
	IterationNsPerOp []float64 `json:"iteration_ns_per_op"`
	Notes            []string
}

// validationFlags are the validation's flags.
type validationFlags struct {
	rounds int
	hog    bool   // one core kept busy beside the run
	only   string // only cases whose method contains it
}

// profileBench runs the parts named: "time", "validation", "overhead"
// (all three when none is named).
func profileBench(ctx context.Context, vf validationFlags, only string) error {
	tmp, bin, err := tempPerfls(ctx, "perfls-bench-profile-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	cacheDir := filepath.Join(tmp, "cache")
	for _, part := range []struct {
		name string
		run  func() error
	}{
		{"time", func() error { return timeToProfile(ctx, bin, cacheDir) }},
		{"validation", func() error { return profileValidation(ctx, bin, cacheDir, vf) }},
		{"overhead", func() error { return profileOverhead(ctx, cacheDir) }},
	} {
		if only != "" && only != part.name {
			continue
		}
		if err := part.run(); err != nil {
			return err
		}
	}
	return nil
}

// perflsProfile runs perfls profile --format json on c and returns its
// report and the command's wall time.
func perflsProfile(ctx context.Context, bin, cacheDir string, c profilecases.Case, extra ...string) (*profileDoc, time.Duration, error) {
	args := append([]string{"profile", "--project", c.ProjectDir(), "--method", c.Method,
		"--workload", c.Gen, "--args", fmt.Sprint(c.Arg), "--format", "json"}, extra...)
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "PERFLS_CACHE_DIR="+cacheDir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	if err != nil {
		return nil, took, fmt.Errorf("perfls %s: %v\n%s", strings.Join(args, " "), err, lastLinesOf(stderr.String(), 10))
	}
	var doc profileDoc
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		return nil, took, fmt.Errorf("perfls profile %s: %v", c.Method, err)
	}
	return &doc, took, nil
}

// startHog keeps one core busy (a Go busy loop on its own OS thread) until
// the returned stop is called: a CPU hog beside the validation.
func startHog(ctx context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { // owned by startHog's caller through stop
		defer close(done)
		runtime.LockOSThread()
		x := uint64(1)
		for ctx.Err() == nil {
			for i := 0; i < 1_000_000; i++ {
				x = x*6364136223846793005 + 1442695040888963407
			}
		}
		hogSink = x
	}()
	return func() { cancel(); <-done }
}

var hogSink uint64

// loadSampler reads the 1-minute load average every 15 s until stopped and
// returns the readings.
func loadSampler(ctx context.Context) (stop func() []float64) {
	ctx, cancel := context.WithCancel(ctx)
	var loads []float64
	done := make(chan struct{})
	read := func() {
		if b, err := os.ReadFile("/proc/loadavg"); err == nil {
			var v float64
			if _, err := fmt.Sscan(string(b), &v); err == nil {
				loads = append(loads, v)
			}
		}
	}
	go func() { // owned by loadSampler's caller through stop
		defer close(done)
		t := time.NewTicker(15 * time.Second)
		defer t.Stop()
		for {
			read()
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return func() []float64 { cancel(); <-done; read(); return loads }
}

// caseTally is what the validation saw of one case over its runs.
type caseTally struct {
	c           profilecases.Case
	expected    string
	file        string
	line        int
	runs, hits  int
	other       []string  // findings other than the seeded cause
	growth      []float64 // ramp cases: the recorded iterations' growth, last fifth against first
	estimate    []float64 // ramp cases found: the control's estimate of the growth over the profile
	failed      []string  // perfls profile failed
	secondsUsed []float64
}

// profileValidation profiles every case rounds times (round after round,
// so that the machine's load varies over cases alike) and prints, per
// case, whether the seeded cause was found at its line and any other
// finding, then the table by kind, the load averages during the run and
// whether a CPU hog ran beside it.
func profileValidation(ctx context.Context, bin, cacheDir string, vf validationFlags) error {
	var tallies []*caseTally
	for _, c := range profilecases.Validation() {
		if vf.only != "" && !strings.Contains(c.Method, vf.only) {
			continue
		}
		t := &caseTally{c: c, expected: "none (clean)"}
		if c.Cause != "" {
			var err error
			if t.file, t.line, err = c.CauseLineIn(c.ProjectDir()); err != nil {
				return err
			}
			t.expected = fmt.Sprintf("%s at %s:%d", c.Cause, filepath.Base(t.file), t.line)
		}
		tallies = append(tallies, t)
	}
	rounds := max(vf.rounds, 1)
	started := time.Now()
	fmt.Printf("== profile validation: perfls profile --fresh on %d methods, %d round(s), CPU hog beside it: %v (started %s, load %s)\n",
		len(tallies), rounds, vf.hog, started.UTC().Format("2006-01-02 15:04 UTC"), loadAverages())
	stopLoads := loadSampler(ctx)
	if vf.hog {
		stop := startHog(ctx)
		defer stop()
	}
	for r := 1; r <= rounds; r++ {
		for _, t := range tallies {
			doc, took, err := perflsProfile(ctx, bin, cacheDir, t.c, "--fresh")
			if ctx.Err() != nil {
				return ctx.Err()
			}
			t.runs++
			t.secondsUsed = append(t.secondsUsed, took.Seconds())
			if err != nil {
				t.failed = append(t.failed, err.Error())
				fmt.Printf("round %d %-36s FAILED (%.0f s): %s\n", r, t.c.Method, took.Seconds(), firstLine(err.Error()))
				continue
			}
			hit := false
			var other []string
			for _, f := range doc.Findings {
				if t.c.Cause != "" && f.Kind == t.c.Cause && f.File == t.file && f.Line == t.line {
					hit = true
					if g, ok := f.Evidence["growth_over_run"].(float64); ok {
						t.estimate = append(t.estimate, g)
					}
					continue
				}
				other = append(other, fmt.Sprintf("%s at %s:%d", f.Kind, filepath.Base(f.File), f.Line))
			}
			if hit {
				t.hits++
			}
			t.other = append(t.other, other...)
			if t.c.Cause == "ramp" {
				t.growth = append(t.growth, fifthsGrowth(doc.IterationNsPerOp))
			}
			status := "clean"
			if t.c.Cause != "" {
				status = map[bool]string{true: "found", false: "MISSED"}[hit]
			}
			if t.c.Cause != "" && !hit {
				// Why it was missed: the notes of a cause not decided.
				for _, n := range doc.Notes {
					if strings.Contains(n, t.c.Cause) {
						status += " [note: " + n + "]"
					}
				}
			}
			if len(other) > 0 {
				status += ", other: " + strings.Join(other, "; ")
			}
			fmt.Printf("round %d %-36s %s (%.0f s, load %s)\n", r, t.c.Method, status, took.Seconds(), loadAverages())
		}
	}
	loads := stopLoads()
	printValidation(tallies, loads, started, vf)
	return nil
}

// printValidation prints the validation's tables.
func printValidation(tallies []*caseTally, loads []float64, started time.Time, vf validationFlags) {
	fmt.Printf("\n%-36s %-48s %-9s %s\n", "method", "expected", "found", "other findings (false)")
	type kindRow struct{ found, seededRuns int }
	kinds := map[string]*kindRow{}
	falseByKind := map[string]int{}
	var kindOrder []string
	runs, cleanRuns, cleanFalse, falses := 0, 0, 0, 0
	var times []float64
	for _, t := range tallies {
		runs += t.runs
		times = append(times, t.secondsUsed...)
		found := "—"
		if t.c.Cause != "" {
			found = fmt.Sprintf("%d/%d", t.hits, t.runs)
			k := kinds[t.c.Cause]
			if k == nil {
				k = &kindRow{}
				kinds[t.c.Cause] = k
				kindOrder = append(kindOrder, t.c.Cause)
			}
			k.found += t.hits
			k.seededRuns += t.runs
		} else {
			cleanRuns += t.runs
			cleanFalse += len(t.other)
		}
		for _, o := range t.other {
			kind, _, _ := strings.Cut(o, " at ")
			falseByKind[kind]++
			falses++
		}
		other := "none"
		if len(t.other) > 0 {
			other = strings.Join(t.other, "; ")
		}
		if len(t.failed) > 0 {
			other += fmt.Sprintf(" [%d runs failed: %s]", len(t.failed), firstLine(t.failed[0]))
		}
		if len(t.growth) > 0 {
			other += fmt.Sprintf(" [recorded iterations, last fifth against first: %s; the control's estimate over the profile's calls: %s]", fmtPercents(t.growth), fmtPercents(t.estimate))
		}
		fmt.Printf("%-36s %-48s %-9s %s\n", t.c.Method, t.expected, found, other)
	}
	fmt.Printf("\n%-26s %-22s %s\n", "kind", "seeded: found/runs", "false findings of the kind/all runs")
	for k := range falseByKind {
		if kinds[k] == nil {
			kindOrder = append(kindOrder, k)
		}
	}
	for _, k := range kindOrder {
		row := "—"
		if kr := kinds[k]; kr != nil {
			row = fmt.Sprintf("%d/%d", kr.found, kr.seededRuns)
		}
		fmt.Printf("%-26s %-22s %d/%d\n", k, row, falseByKind[k], runs)
	}
	sort.Float64s(loads)
	sort.Float64s(times)
	fmt.Printf("\nclean methods: %d false findings in %d runs; all methods: %d false findings in %d runs\n", cleanFalse, cleanRuns, falses, runs)
	if len(loads) > 0 {
		fmt.Printf("1-minute load average during the run (every 15 s, %d readings): min %.1f, median %.1f, max %.1f; CPU hog beside it: %v\n",
			len(loads), loads[0], loads[len(loads)/2], loads[len(loads)-1], vf.hog)
	}
	if len(times) > 0 {
		fmt.Printf("perfls profile --fresh wall time per method: median %.1f s, max %.1f s; the run took %s\n",
			times[len(times)/2], times[len(times)-1], time.Since(started).Round(time.Second))
	}
}

// fifthsGrowth is the growth of time per operation from the first fifth of
// the recorded iterations to the last (medians): how much the seeded ramp
// grew in that profile.
func fifthsGrowth(y []float64) float64 {
	k := len(y) / 5
	if k == 0 {
		return math.NaN()
	}
	med := func(v []float64) float64 {
		s := append([]float64(nil), v...)
		sort.Float64s(s)
		return s[len(s)/2]
	}
	return med(y[len(y)-k:])/med(y[:k]) - 1
}

func fmtPercents(v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprintf("%+.0f %%", 100*x)
	}
	return strings.Join(s, ", ")
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// timeToProfile times perfls profile on a method of about 1 ms
// (Duplicates#countRepeats on 3,600 values), out of process, each figure
// with the load averages before and after: the first run in an empty
// cache (perfls's library and the project compiled), then --fresh runs
// in-process, and through a running daemon: the first quick profile
// (--phase quick: the daemon starts its worker JVM), quick profiles in the
// warm worker, and profiled forks.
func timeToProfile(ctx context.Context, bin, cacheDir string) error {
	c := profilecases.OneMs
	fmt.Printf("== time to a profile of %s(%d) (about 1 ms per call)\n", c.Method, c.Arg)
	load := loadAverages()
	_, first, err := perflsProfile(ctx, bin, cacheDir, c)
	if err != nil {
		return err
	}
	fmt.Printf("first profile, empty cache (compiles perfls's library and the project): %.2f s (load %s → %s)\n", first.Seconds(), load, loadAverages())
	median := func(what string, n int, extra ...string) error {
		var ts []float64
		load := loadAverages()
		for i := 0; i < n; i++ {
			_, t, err := perflsProfile(ctx, bin, cacheDir, c, append([]string{"--fresh"}, extra...)...)
			if err != nil {
				return err
			}
			ts = append(ts, t.Seconds())
		}
		fmt.Printf("%s: %s (load %s → %s)\n", what, fmtRuns(ts), load, loadAverages())
		return nil
	}
	if err := median("forks, --fresh, no daemon", 3); err != nil {
		return err
	}
	daemon := func(verb string) error {
		cmd := exec.CommandContext(ctx, bin, "daemon", verb)
		cmd.Env = append(os.Environ(), "PERFLS_CACHE_DIR="+cacheDir)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("perfls daemon %s: %v\n%s", verb, err, out)
		}
		return nil
	}
	if err := daemon("start"); err != nil {
		return err
	}
	err = median("--phase quick through a new daemon (its worker JVM starts)", 1, "--phase", "quick")
	if err == nil {
		err = median("--phase quick in the daemon's warm worker", 3, "--phase", "quick")
	}
	if err == nil {
		err = median("forks, --fresh, through the daemon", 3)
	}
	if serr := daemon("stop"); err == nil {
		err = serr
	}
	return err
}

// fmtRuns formats run times: the median of three or more, and each run.
func fmtRuns(ts []float64) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = fmt.Sprintf("%.2f", t)
	}
	if len(ts) < 3 {
		return strings.Join(s, ", ") + " s"
	}
	sorted := append([]float64(nil), ts...)
	sort.Float64s(sorted)
	return fmt.Sprintf("median %.2f s of %d (%s)", sorted[len(sorted)/2], len(ts), strings.Join(s, ", "))
}

// loadAverages are the machine's 1- and 5-minute load averages, "?" when
// unknown (no /proc).
func loadAverages() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 2 {
		return f[0] + "/" + f[1]
	}
	return "?"
}

// profileOverhead measures each overhead case in forks that alternate
// between a timing fork and a profiled fork with the same options (perfls
// profile's: 20 samples of ≥ 50 ms, serial collector, fixed 512 MB heap), and prints the median over forks of the fork mean time per
// operation both ways.
func profileOverhead(ctx context.Context, cacheDir string) error {
	const forks = 5
	opt := engine.ProfileOptions(engine.ProfileDefaults())
	prof, err := measure.ProfileJVMArgs(ctx, "", cacheDir)
	if err != nil {
		return err
	}
	fmt.Printf("== profiled fork against timing fork, same options, %d alternating forks each (median of fork means)\n", forks)
	fmt.Printf("%-36s %14s %14s %9s\n", "method", "timing fork", "profiled fork", "overhead")
	for _, c := range profilecases.Overhead {
		e, err := setup(ctx, filepath.Join("examples", c.Project))
		if err != nil {
			return err
		}
		req, err := e.request(ctx, c.Method, c.Gen, int64(c.Arg))
		if err != nil {
			return err
		}
		var plain, profiled []float64
		for f := 0; f < forks; f++ {
			for _, p := range []bool{false, true} {
				o := opt
				if p {
					o.Profile, o.JVMArgs = true, append(append([]string(nil), prof...), opt.JVMArgs...)
				}
				r, err := e.measureReqs(ctx, o, req)
				if err != nil {
					return err
				}
				if p && r.Forks[0].Profile == nil {
					return errors.New("a profiled fork without a profile")
				}
				m := measured.Summarize(r.Forks).MeanNsPerOp
				if p {
					profiled = append(profiled, m)
				} else {
					plain = append(plain, m)
				}
			}
		}
		sort.Float64s(plain)
		sort.Float64s(profiled)
		a, b := plain[forks/2], profiled[forks/2]
		fmt.Printf("%-36s %14s %14s %+8.1f %%\n", c.Method, fmtNs(a), fmtNs(b), 100*(b/a-1))
	}
	return nil
}
