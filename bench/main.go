// Command bench prints the measurement figures of issue 4 for perfls's
// harness: the harness floor, accuracy against a hand-written
// System.nanoTime loop, speed (time to a preliminary figure and to a ±2 %
// confidence interval) and stability (pairs of independent measurements).
//
// Run it from the repository root:
//
//	go run ./bench floor
//	go run ./bench accuracy
//	go run ./bench speed
//	go run ./bench stability [-pairs 20]
//	go run ./bench all
//	go run ./bench oracle [-calibration-forks 30] [-test-forks 10] [-oracle-runs FILE]   (not part of all)
//	go run ./bench aa [-runs 40] [-looks one|added|both]   (not part of all: perfls check out of process, ~1 min a run)
//	go run ./bench aa-suite [-runs 20]   (not part of all: 20 A/A formulas in one check, with and without Holm; aasuite.go, ~2 min a run)
//	go run ./bench jmh -jmh-src DIR | -jmh-jars CORE:ANNPROCESS [-jmh-args "..."]   (not part of all, ~10 min)
//	go run ./bench profile [-profile-rounds N]   (not part of all: perfls profile out of process, profile.go, ~5 min a round)
//	go run ./bench profile-time   (not part of all: the time to a first profile, quick and forked, out of process, ~2 min)
//	go run ./bench profile-validation [-profile-rounds N] [-hog] [-only TEXT]   (not part of all: profile's validation only; -hog keeps one core busy beside it)
//	go run ./bench ensemble [-seed N] [-reps N] [-csv DIR] | changepoint [-seed N] [-series N]   (not part of all; no JVM: generated data, ensemble.go ~1 min, changepoint.go ~5 s)
//	go run ./bench ensemble-real [-work DIR] [-reuse] [-jdk25 HOME] [-histories 3] [-cases 16] [-ab-forks 10]   (not part of all: perfls measure and perfls ensemble --method out of process with JDK 17 and 25 (bench/jdk-trixie.sh makes a JDK 25), ensemblereal.go, ~1 h)
//	go run ./bench team   (not part of all: perfls check from two clones sharing a PostgreSQL store, team.go, ~3 min)
//	go run ./bench queue [-pairs N]   (not part of all: enqueue → start of N jobs on a local database, queue.go)
//	go run ./bench throughput [-jobs N]   (not part of all: N independent jobs done by 1, then 2 perfls worker processes, throughput.go, ~5 min)
//	go run ./bench model [-forks 3] [-samples 10]   (not part of all: model extraction and prediction error, model.go, ~5 min)
//	go run ./bench signals [-runs 5] [-case TEXT]   (not part of all: the time from SIGINT/SIGTERM to the exit of perfls commands reading FIFOs, stdin, /dev/zero, parsing, computing, measuring, serving; signals.go, ~2 min)
//
// Each part takes a few minutes at most on two cores. It only prints
// figures; nothing is asserted (the machine may be shared and noisy).
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/analysis/methodspec"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/measure"
)

// oneMicro is the chain length that takes about 1 µs (about 1.4 ns per
// step on the machine the README's figures come from).
const oneMicro = 800

type env struct {
	build *measure.Build
	dir   string
	// jvmRun is the wall time of a fork that does almost nothing: JVM start,
	// harness, exit.
	jvmRun time.Duration
}

func main() {
	fl := flag.NewFlagSet("bench", flag.ExitOnError)
	project := fl.String("project", "bench/java", "the benchmark's Java project")
	pairs := fl.Int("pairs", 20, "stability: pairs of measurements")
	forks := fl.Int("forks", measure.DefaultForks, "forks per measurement (perfls's default)")
	samples := fl.Int("samples", 30, "samples per fork (perfls's default)")
	oracleFile := fl.String("oracle-runs", "", "oracle: save the measured runs to this JSON file, or read them from it when it exists")
	calibForks := fl.Int("calibration-forks", 30, "oracle: calibration forks per pair")
	testForks := fl.Int("test-forks", 10, "oracle: fresh forks of each variant per pair")
	aaRuns := fl.Int("runs", 40, "aa, aa-suite: checks per setting")
	aaLooks := fl.String("looks", "both", "aa: one (--max-forks = --forks), added (the default --max-forks) or both")
	jmhSrc := fl.String("jmh-src", "", "jmh: a checkout of github.com/openjdk/jmh, built here with javac")
	jmhJars := fl.String("jmh-jars", "", "jmh: JMH's core and annotation-processor jars (instead of -jmh-src)")
	jmhArgs := fl.String("jmh-args", "-f 5 -wi 5 -w 1s -i 5 -r 1s", "jmh: JMH's run options")
	profileRounds := fl.Int("profile-rounds", 1, "profile: rounds of the validation")
	hog := fl.Bool("hog", false, "profile-validation: keep one core busy with a Go busy loop during the validation")
	only := fl.String("only", "", "profile-validation: only the cases whose method contains this text")
	jobs := fl.Int("jobs", 12, "throughput: independent measurement jobs per configuration")
	modelCase := fl.String("case", "", "model: only the cases whose method contains this text")
	modelData := fl.String("model-data", "", "model: write every case's fitted points, model and check fork means to this JSON file")
	jvmArgs := fl.String("jvm-args", "", "model: extra JVM flags of every fork, space-separated (e.g. -XX:OptoLoopAlignment=64)")
	checksWithFit := fl.Bool("checks-with-fit", false, "model: measure the checks while the model is extracted, their forks in turns with the fit values' (the model never sees them)")
	cpus := fl.String("cpus", "", "model: pin every fork's measuring thread to these processors (perfls --cpus)")
	heap := fl.Int("heap", 0, "model: every fork's heap fixed at this many MB (perfls --heap; 0: the JVM's default)")
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: go run ./bench floor|accuracy|speed|stability|all|oracle|aa|jmh|profile|profile-time|profile-validation|model [flags]")
		os.Exit(2)
	}
	what := os.Args[1]
	runPure(what, os.Args[2:]) // ensemble, changepoint: no Java project needed
	if err := fl.Parse(os.Args[2:]); err != nil {
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	e, err := setup(ctx, *project)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	opt := measure.Options{Forks: *forks, SamplesPerFork: *samples, JVMArgs: strings.Fields(*jvmArgs), CPUs: *cpus, HeapMB: *heap}
	parts := map[string]func(context.Context, *env, measure.Options) error{
		"floor":    floor,
		"accuracy": accuracy,
		"speed":    speed,
		"stability": func(ctx context.Context, e *env, opt measure.Options) error {
			return stability(ctx, e, opt, *pairs)
		},
		"jmh": func(ctx context.Context, e *env, opt measure.Options) error {
			return jmhCompare(ctx, *jmhSrc, *jmhJars, *jmhArgs)
		},
		"profile": func(ctx context.Context, e *env, opt measure.Options) error {
			return profileBench(ctx, validationFlags{rounds: *profileRounds, hog: *hog, only: *only}, "")
		},
		"profile-time": func(ctx context.Context, e *env, opt measure.Options) error {
			return profileBench(ctx, validationFlags{}, "time")
		},
		"profile-validation": func(ctx context.Context, e *env, opt measure.Options) error {
			return profileBench(ctx, validationFlags{rounds: *profileRounds, hog: *hog, only: *only}, "validation")
		},
		"team":       func(ctx context.Context, e *env, opt measure.Options) error { return team(ctx) },
		"queue":      func(ctx context.Context, e *env, opt measure.Options) error { return queueOverhead(ctx, *pairs) },
		"throughput": func(ctx context.Context, e *env, opt measure.Options) error { return throughput(ctx, *jobs) },
		"model": func(ctx context.Context, e *env, opt measure.Options) error {
			return modelBench(ctx, opt, *modelCase, *modelData, *checksWithFit)
		},
		"aa": func(ctx context.Context, e *env, opt measure.Options) error {
			return aa(ctx, *aaRuns, []int{3, 5}, *aaLooks)
		},
		"aa-suite": func(ctx context.Context, e *env, opt measure.Options) error {
			return aaSuite(ctx, *aaRuns)
		},
		"oracle": func(ctx context.Context, e *env, opt measure.Options) error {
			if *oracleFile == "" || !fileExists(*oracleFile) {
				if err := calibrationTime(ctx, "examples/oracle", *calibForks); err != nil {
					return err
				}
			}
			return oracleValidation(ctx, "examples/oracle", *oracleFile, *calibForks, *testForks)
		},
	}
	order := []string{"floor", "accuracy", "speed", "stability"}
	if what != "all" {
		if parts[what] == nil {
			fmt.Fprintf(os.Stderr, "bench: unknown part %q\n", what)
			os.Exit(2)
		}
		order = []string{what}
	}
	printEnvironment(ctx, e)
	for _, p := range order {
		start := time.Now()
		if err := parts[p](ctx, e, opt); err != nil {
			fmt.Fprintf(os.Stderr, "bench %s: %v\n", p, err)
			os.Exit(1)
		}
		fmt.Printf("(%s took %.0f s)\n\n", p, time.Since(start).Seconds())
	}
}

func setup(ctx context.Context, dir string) (*env, error) {
	p, err := measure.FindProject(dir)
	if err != nil {
		return nil, err
	}
	c, err := cache.Dir()
	if err != nil {
		return nil, err
	}
	b, err := measure.Compile(ctx, p, c)
	if err != nil {
		return nil, err
	}
	return &env{build: b, dir: p.Dir}, nil
}

func printEnvironment(ctx context.Context, e *env) {
	r, err := e.measure(ctx, measure.Options{Forks: 1, SamplesPerFork: 2, Warmup: time.Millisecond, MaxWarmup: time.Millisecond}, "bench.Work#empty", "")
	if err != nil {
		return
	}
	e.jvmRun = r.Forks[0].Wall
	v := r.Env
	fmt.Printf("environment: %s %s (%s), %s/%s, %s, %d cores\n\n", v.VMName, v.JavaVersion, v.JavaVendor, v.OS, v.Arch, v.CPUModel, v.Cores)
}

// request resolves method (and the generator, if any) into a request with args.
func (e *env) request(ctx context.Context, method, gen string, args ...int64) (measured.Request, error) {
	specs := []methodspec.Spec{spec(method)}
	if gen != "" {
		specs = append(specs, spec(gen))
	}
	rs, errs := measure.Resolve(ctx, e.build, specs)
	if err := errors.Join(errs...); err != nil {
		return measured.Request{}, err
	}
	r := measured.Request{Method: rs[0]}
	if gen != "" {
		r.Generator = rs[1]
	}
	for _, a := range args {
		r.Args = append(r.Args, measured.IntArg(a))
	}
	return r, nil
}

func (e *env) measure(ctx context.Context, opt measure.Options, method, gen string, args ...int64) (measured.Result, error) {
	req, err := e.request(ctx, method, gen, args...)
	if err != nil {
		return measured.Result{}, err
	}
	return e.measureReqs(ctx, opt, req)
}

func (e *env) measureReqs(ctx context.Context, opt measure.Options, req measured.Request) (measured.Result, error) {
	res, err := measure.Measure(ctx, e.build, []measured.Request{req}, opt, nil)
	if err != nil {
		return measured.Result{}, err
	}
	if res[0].Err != nil {
		return measured.Result{}, res[0].Err
	}
	return res[0], nil
}

func spec(s string) methodspec.Spec {
	cls, name, _ := strings.Cut(s, "#")
	return methodspec.Spec{Class: cls, Name: name}
}

func floor(ctx context.Context, e *env, opt measure.Options) error {
	fmt.Printf("== harness floor (%d forks × %d samples; targets: empty ≤ 2 ns/op, x + 1 ≤ 3 ns/op)\n", opt.Forks, opt.SamplesPerFork)
	for _, c := range []struct {
		label, method string
		args          []int64
	}{{"empty method", "bench.Work#empty", nil}, {"return x + 1", "bench.Work#inc", []int64{5}}} {
		r, err := e.measure(ctx, opt, c.method, "", c.args...)
		if err != nil {
			return err
		}
		s := measured.Summarize(r.Forks)
		fmt.Printf("%-14s mean %6.3f ns/op  95%% CI [%.3f, %.3f]  median %6.3f ns/op  cpu %6.3f ns/op\n",
			c.label, s.MeanNsPerOp, s.CI95[0], s.CI95[1], s.MedianNsPerOp, s.MeanCPUNsPerOp)
	}
	return nil
}

// chainLengths give about 10 ns to about 10 ms per operation.
var chainLengths = []int64{8, 80, 800, 8000, 80000, 800000, 8000000}

func accuracy(ctx context.Context, e *env, opt measure.Options) error {
	fmt.Printf("== accuracy: dependent multiply-add chain of n steps (%d forks × %d samples) vs a hand-written System.nanoTime loop\n", opt.Forks, opt.SamplesPerFork)
	// Both chains in one call: forks run round-robin across all requests,
	// so a drift of the machine (frequency, neighbours) over the minutes
	// this takes touches every workload alike instead of skewing one group
	// against the other.
	var reqs []measured.Request
	var nanoArgs []string
	for _, n := range chainLengths {
		r, err := e.request(ctx, "bench.Work#chain", "bench.Work#chainArgs", n)
		if err != nil {
			return err
		}
		reqs = append(reqs, r)
		nanoArgs = append(nanoArgs, strconv.FormatInt(n, 10))
	}
	for _, n := range serialLengths {
		r, err := e.request(ctx, "bench.Work#serialChain", "bench.Work#serialArgs", n)
		if err != nil {
			return err
		}
		reqs = append(reqs, r)
		nanoArgs = append(nanoArgs, fmt.Sprintf("serial:%d", n))
	}
	all, err := measure.Measure(ctx, e.build, reqs, opt, nil)
	if err != nil {
		return err
	}
	res, serialRes := all[:len(chainLengths)], all[len(chainLengths):]
	nanoByName, err := nanoLoop(ctx, e, nanoArgs)
	if err != nil {
		return err
	}
	nano := map[int64]float64{}
	for _, n := range chainLengths {
		nano[n] = nanoByName[strconv.FormatInt(n, 10)]
	}
	var ns, perfls, perflsMed, perflsCPU, base []float64
	var walls, warmups []time.Duration
	for i, r := range res {
		if r.Err != nil {
			return r.Err
		}
		s := measured.Summarize(r.Forks)
		ns = append(ns, float64(chainLengths[i]))
		perfls = append(perfls, s.MeanNsPerOp)
		perflsMed = append(perflsMed, s.MedianNsPerOp)
		perflsCPU = append(perflsCPU, s.MeanCPUNsPerOp)
		base = append(base, nano[chainLengths[i]])
		var wall, wu time.Duration
		for _, f := range r.Forks {
			wall += f.Wall
			wu += f.Warmup
		}
		walls = append(walls, wall/time.Duration(len(r.Forks)))
		warmups = append(warmups, wu/time.Duration(len(r.Forks)))
	}
	last := len(ns) - 1
	fmt.Printf("%9s  %11s %11s %11s %9s %10s  %11s %9s %10s  %9s  %s\n", "n", "perfls mean", "median", "cpu mean", "ns/step",
		"vs longest", "nanoTime", "ns/step", "vs longest", "med/nano", "fork wall (warm-up)")
	for i := range ns {
		fmt.Printf("%9.0f  %11s %11s %11s %9.4f %+9.2f%%  %11s %9.4f %+9.2f%%  %9.3f  %.1f s (%.2f s)\n", ns[i],
			fmtNs(perfls[i]), fmtNs(perflsMed[i]), fmtNs(perflsCPU[i]),
			perflsMed[i]/ns[i], 100*((perflsMed[i]/ns[i])/(perflsMed[last]/ns[last])-1),
			fmtNs(base[i]), base[i]/ns[i], 100*((base[i]/ns[i])/(base[last]/ns[last])-1),
			perflsMed[i]/base[i], walls[i].Seconds(), warmups[i].Seconds())
	}
	a, b := fitLine(ns[2:], perflsMed[2:])
	na, nb := fitLine(ns[2:], base[2:])
	fmt.Printf("fit t = a + b·n over n ≥ %.0f (relative least squares): perfls medians a = %.2f ns, b = %.4f ns/step; nanoTime loop a = %.2f ns, b = %.4f ns/step\n",
		ns[2], a, b, na, nb)
	fmt.Printf("largest deviation from the fit, n ≥ %.0f: perfls %.2f%%, nanoTime loop %.2f%%\n", ns[2], maxDev(ns[2:], perflsMed[2:], a, b), maxDev(ns[2:], base[2:], na, nb))
	return serialAccuracy(opt, b, serialRes, nanoByName)
}

// serialLengths are the serial chain's lengths: the call alone, then about
// 10 to 200 ns per operation, where independent chains overlap.
var serialLengths = []int64{0, 8, 16, 32, 64, 128, 800}

// serialAccuracy reports short chains whose calls depend on each other
// (Work.serialChain): the processor cannot overlap consecutive calls, and the
// call's own work (loading arguments, the blackhole) runs in the shadow of
// the chain's latency, so the cost is n steps of the latency the long chains
// measured (perStep). n = 0 shows the call alone, for reference.
func serialAccuracy(opt measure.Options, perStep float64, res []measured.Result, nano map[string]float64) error {
	fmt.Printf("\n== accuracy at 10–200 ns: serial chain (consecutive calls depend on each other), %d forks × %d samples\n", opt.Forks, opt.SamplesPerFork)
	nargs := make([]string, len(serialLengths))
	for i, n := range serialLengths {
		nargs[i] = fmt.Sprintf("serial:%d", n)
	}
	fmt.Printf("%5s  %11s %11s %25s  %11s  %9s %9s  %11s %9s %9s\n", "n", "median", "cpu mean", "95% CI of mean", "n × step", "ns/step", "vs step", "nanoTime", "ns/step", "vs step")
	worst, worstNano := 0.0, 0.0
	for i, n := range serialLengths {
		if res[i].Err != nil {
			return res[i].Err
		}
		s := measured.Summarize(res[i].Forks)
		nt := nano[nargs[i]]
		if n == 0 {
			fmt.Printf("%5d  %11s %11s [%10s, %10s]  %11s  %9s %9s  %11s\n", n, fmtNs(s.MedianNsPerOp), fmtNs(s.MeanCPUNsPerOp), fmtNs(s.CI95[0]), fmtNs(s.CI95[1]), "(call alone)", "", "", fmtNs(nt))
			continue
		}
		step, nstep := s.MedianNsPerOp/float64(n), nt/float64(n)
		worst, worstNano = math.Max(worst, math.Abs(step/perStep-1)), math.Max(worstNano, math.Abs(nstep/perStep-1))
		fmt.Printf("%5d  %11s %11s [%10s, %10s]  %11s  %9.4f %+8.2f%%  %11s %9.4f %+8.2f%%\n", n, fmtNs(s.MedianNsPerOp), fmtNs(s.MeanCPUNsPerOp), fmtNs(s.CI95[0]), fmtNs(s.CI95[1]),
			fmtNs(float64(n)*perStep), step, 100*(step/perStep-1), fmtNs(nt), nstep, 100*(nstep/perStep-1))
	}
	fmt.Printf("step = %.4f ns, the long chains' fit; largest deviation of ns/step from it, n ≥ %d: perfls medians %.2f%%, nanoTime loop %.2f%%\n",
		perStep, serialLengths[1], 100*worst, 100*worstNano)
	return nil
}

// nanoLoop runs bench.NanoLoop (the hand-written baseline) with args and
// returns ns/op per argument.
func nanoLoop(ctx context.Context, e *env, nargs []string) (map[string]float64, error) {
	java := "java"
	if h := os.Getenv("JAVA_HOME"); h != "" {
		java = filepath.Join(h, "bin", "java")
	}
	args := []string{"-Xms512m", "-Xmx512m", "-XX:+UseSerialGC", "-cp", strings.Join(e.build.Classpath, string(os.PathListSeparator)), "bench.NanoLoop"}
	cmd := exec.CommandContext(ctx, java, append(args, nargs...)...)
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("run the nanoTime loop: %w", err)
	}
	res := map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 2 {
			continue
		}
		v, err := strconv.ParseFloat(f[1], 64)
		if err != nil {
			return nil, fmt.Errorf("nanoTime loop output %q: %w", sc.Text(), err)
		}
		res[f[0]] = v
	}
	return res, nil
}

// maxDev is the largest |y − (a + b·x)| / y, in percent.
func maxDev(x, y []float64, a, b float64) float64 {
	m := 0.0
	for i := range x {
		m = math.Max(m, math.Abs(y[i]-(a+b*x[i]))/y[i])
	}
	return 100 * m
}

// fitLine fits y = a + b·x by least squares weighted by 1/y² (relative errors).
func fitLine(x, y []float64) (a, b float64) {
	var sw, sx, sy, sxx, sxy float64
	for i := range x {
		w := 1 / (y[i] * y[i])
		sw += w
		sx += w * x[i]
		sy += w * y[i]
		sxx += w * x[i] * x[i]
		sxy += w * x[i] * y[i]
	}
	b = (sw*sxy - sx*sy) / (sw*sxx - sx*sx)
	a = (sy - b*sx) / sw
	return a, b
}

func speed(ctx context.Context, e *env, opt measure.Options) error {
	fmt.Printf("== speed: a ~1 µs method (chain of %d steps)\n", oneMicro)
	req, err := e.request(ctx, "bench.Work#chain", "bench.Work#chainArgs", oneMicro)
	if err != nil {
		return err
	}
	if err := speedPreliminary(ctx, e, req, opt); err != nil {
		return err
	}
	// Forks one at a time until the t-interval over fork means is within ±2 %:
	// with the default fork (≥ 300 ms warm-up, 30 samples), and with a
	// shorter one (≥ 150 ms warm-up, still until JIT compilation settles,
	// and 10 samples): the interval is over fork means, so what it needs is
	// more forks, not more samples per fork.
	for _, fo := range []measure.Options{
		{Forks: 1, SamplesPerFork: opt.SamplesPerFork},
		{Forks: 1, SamplesPerFork: 10, Warmup: 150 * time.Millisecond},
	} {
		if err := speedToTarget(ctx, e, req, fo.Defaults(), 0.02); err != nil {
			return err
		}
	}
	start := time.Now()
	r, err := e.measureReqs(ctx, opt, req)
	if err != nil {
		return err
	}
	s := measured.Summarize(r.Forks)
	perfls := time.Since(start)
	fmt.Printf("perfls defaults (%d forks × %d samples, warm-up ≥ 300 ms until JIT settles): %.1f s wall, mean %s/op ± %.2f%%\n",
		opt.Forks, opt.SamplesPerFork, perfls.Seconds(), fmtNs(s.MeanNsPerOp), 100*s.RelativeHalfWidth())
	fmt.Printf("JMH defaults (5 forks × (5 × 10 s warm-up + 5 × 10 s measurement)): ≥ %.0f s wall (%.0f× perfls's defaults)\n",
		500.0, 500/perfls.Seconds())
	fmt.Printf("SPL tool defaults (one JVM; warm-up 1,000 cycles or 5 s, measurement 2,000 cycles or 10 s, whichever first):\n"+
		"  a 1 µs cycle stops at 1,000 + 2,000 cycles = 3 ms plus one JVM run (~%.0f ms here for a trivial fork), but 1,000 calls are below\n"+
		"  HotSpot's C2 compile threshold (~10,000 invocations), so it measures interpreted/C1 code; with the 5 s + 10 s bounds\n"+
		"  it would take 15 s in one JVM, with no run-to-run variance.\n", ms(e.jvmRun))
	return nil
}

// speedPreliminary times preliminary figures: a new worker (JVM start
// included), then reuses of it, and a new request's resolution.
func speedPreliminary(ctx context.Context, e *env, req measured.Request, opt measure.Options) error {
	w := measure.NewWorker(ctx)
	defer w.Close()
	for i := 0; i < 4; i++ {
		start := time.Now()
		r, err := w.Measure(ctx, e.build, req, opt)
		if err != nil {
			return err
		}
		if r.Err != nil {
			return r.Err
		}
		s := measured.Summarize(r.Forks)
		what := "warm worker"
		if i == 0 {
			what = "new worker (JVM start included)"
		}
		fmt.Printf("preliminary figure after %5.0f ms (%s): %s/op ± %.1f%%\n", ms(time.Since(start)), what, fmtNs(s.MeanNsPerOp), 100*s.RelativeHalfWidth())
	}
	start := time.Now()
	if _, err := e.request(ctx, "bench.Work#chain", "bench.Work#chainArgs", oneMicro); err != nil {
		return err
	}
	fmt.Printf("(resolving the method, one short JVM, takes %.0f ms when the request is new)\n", ms(time.Since(start)))
	return nil
}

// speedToTarget measures forks of fo one at a time until the interval over
// fork means is within ±target of the mean (at most 30), and says when the
// thread-CPU-time mean got there.
func speedToTarget(ctx context.Context, e *env, req measured.Request, fo measure.Options, target float64) error {
	fmt.Printf("forks of ≥ %s warm-up × %d samples:\n", fo.Warmup, fo.SamplesPerFork)
	start := time.Now()
	var forks []measured.Fork
	var s measured.Summary
	cpuAt, cpuForks := time.Duration(0), 0
	for len(forks) < 30 {
		r, err := e.measureReqs(ctx, fo, req)
		if err != nil {
			return err
		}
		forks = append(forks, r.Forks...)
		s = measured.Summarize(forks)
		if c := cpuSummary(forks); cpuAt == 0 && len(forks) >= 3 && c.RelativeHalfWidth() <= target {
			cpuAt, cpuForks = time.Since(start), len(forks)
		}
		if len(forks) >= 3 && s.RelativeHalfWidth() <= target {
			break
		}
	}
	fmt.Printf("  ±%.0f%% CI of the wall-time mean (over fork means): %.1f s wall, %d forks × %d samples, mean %s/op ± %.2f%%\n",
		100*target, time.Since(start).Seconds(), len(forks), fo.SamplesPerFork, fmtNs(s.MeanNsPerOp), 100*s.RelativeHalfWidth())
	if cpuAt > 0 {
		fmt.Printf("  ±%.0f%% CI of the thread-CPU-time mean (immune to preemption): reached after %.1f s, %d forks\n", 100*target, cpuAt.Seconds(), cpuForks)
	} else {
		fmt.Printf("  ±%.0f%% CI of the thread-CPU-time mean: not reached in %d forks (± %.2f%%)\n", 100*target, len(forks), 100*cpuSummary(forks).RelativeHalfWidth())
	}
	return nil
}

func stability(ctx context.Context, e *env, opt measure.Options, pairs int) error {
	fmt.Printf("== stability: %d pairs of independent measurements of the ~1 µs method (%d forks × %d samples each)\n", pairs, opt.Forks, opt.SamplesPerFork)
	req, err := e.request(ctx, "bench.Work#chain", "bench.Work#chainArgs", oneMicro)
	if err != nil {
		return err
	}
	var dMean, dMed, dCPU []float64
	rel := func(a, b float64) float64 { return math.Abs(a-b) / ((a + b) / 2) }
	for i := 0; i < pairs; i++ {
		var s, c [2]measured.Summary
		for j := range s {
			r, err := e.measureReqs(ctx, opt, req)
			if err != nil {
				return err
			}
			s[j] = measured.Summarize(r.Forks)
			c[j] = cpuSummary(r.Forks)
		}
		dm := rel(s[0].MeanNsPerOp, s[1].MeanNsPerOp)
		dd := rel(s[0].MedianNsPerOp, s[1].MedianNsPerOp)
		dMean, dMed, dCPU = append(dMean, dm), append(dMed, dd), append(dCPU, rel(c[0].MedianNsPerOp, c[1].MedianNsPerOp))
		fmt.Printf("pair %2d: means %s / %s (Δ %.2f%%), medians %s / %s (Δ %.2f%%)\n", i+1,
			fmtNs(s[0].MeanNsPerOp), fmtNs(s[1].MeanNsPerOp), 100*dm, fmtNs(s[0].MedianNsPerOp), fmtNs(s[1].MedianNsPerOp), 100*dd)
	}
	for _, c := range []struct {
		label string
		d     []float64
	}{{"means", dMean}, {"medians", dMed}, {"CPU-time medians", dCPU}} {
		q := quantiles(c.d)
		fmt.Printf("relative difference of %-16s over %d pairs: median %.2f%%, quartiles %.2f%% – %.2f%%, max %.2f%%\n",
			c.label, len(c.d), 100*q[1], 100*q[0], 100*q[2], 100*q[3])
	}
	return nil
}

// cpuSummary summarises the forks' thread CPU time per operation instead of
// their wall time.
func cpuSummary(forks []measured.Fork) measured.Summary {
	var cf []measured.Fork
	for _, f := range forks {
		cf = append(cf, measured.Fork{NsPerOp: f.CPUNsPerOp})
	}
	return measured.Summarize(cf)
}

// quantiles returns the 25th, 50th and 75th percentiles and the maximum.
func quantiles(xs []float64) [4]float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	at := func(p float64) float64 {
		pos := p * float64(len(s)-1)
		i := int(pos)
		if i+1 >= len(s) {
			return s[len(s)-1]
		}
		return s[i] + (pos-float64(i))*(s[i+1]-s[i])
	}
	return [4]float64{at(0.25), at(0.5), at(0.75), s[len(s)-1]}
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

func fmtNs(ns float64) string {
	switch {
	case math.IsNaN(ns):
		return "n/a"
	case ns >= 1e6:
		return fmt.Sprintf("%.4g ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.4g µs", ns/1e3)
	default:
		return fmt.Sprintf("%.4g ns", ns)
	}
}
