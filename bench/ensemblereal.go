package main

// go run ./bench ensemble-real: seed 001's ensemble (perfls ensemble's store
// form) on real results. A small method is measured out of process with the
// built perfls (perfls measure, 3 forks × 10 samples, a fresh cache
// directory) in four environments of this machine — JDK 17 with G1 and the
// default heap, JDK 17 with 256 MB, JDK 17 with the parallel collector,
// JDK 25 — as the history; then each case measures one new run in a copy
// of that cache directory and runs perfls ensemble --method on it, once per
// vote, and scores the flagged counters against the case's ground truth
// (docs/regressions.md, "The store form on real results").

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/perfls/perfls/analysis/ensemble/ensemblesim"
)

// realVariant is the measured class: work(n) runs factor·n steps of a
// dependent loop and allocates one long[longs] that escapes (1,040 bytes
// for 128 longs).
func realVariant(factor, longs int) string {
	return fmt.Sprintf(`package p;
public class W {
    public static Object sink;
    public static long work(int n) {
        long s = 0;
        for (int i = 0; i < n * %d; i++) s += i ^ (s >>> 3);
        sink = new long[%d];
        return s;
    }
    public static Iterable<Object[]> gen(int n) { return java.util.Collections.singletonList(new Object[] {n}); }
}
`, factor, longs)
}

// realEnv is how a run is measured: the JDK and perfls measure's flags.
type realEnv struct {
	name     string
	javaHome string // "" = the default java (JDK 17)
	flags    []string
}

const jdk25 = "/usr/lib/jvm/temurin-25-jdk-amd64"

var (
	envG1       = realEnv{"jdk17 G1", "", nil}
	envHeap     = realEnv{"jdk17 --heap 256", "", []string{"--heap", "256"}}
	envParallel = realEnv{"jdk17 ParallelGC", "", []string{"--jvm-arg=-XX:+UseParallelGC"}}
	env25       = realEnv{"jdk25 G1", jdk25, nil}
	envSerial   = realEnv{"jdk17 SerialGC", "", []string{"--jvm-arg=-XX:+UseSerialGC"}}
	env25Par    = realEnv{"jdk25 ParallelGC", jdk25, []string{"--jvm-arg=-XX:+UseParallelGC"}}
)

// realCase is one new run: its environment, its code and its ground truth,
// fixed before the first run from what the change does by construction.
// expected: the counters the change moves by construction; tolerated: those
// it moves only through the sampling (per-sample GC counts and the heap at a
// sample's end follow the allocation per unit of time, and a 1-ms sample
// holds rarely a collection), neither counted false when flagged nor missed
// when not. Every other flag is false.
type realCase struct {
	name                string
	env                 realEnv
	factor, longs       int
	expected, tolerated []string
}

var sampling = []string{"gc_count", "gc_ms", "heap_used_bytes"}

var realCases = []realCase{
	{"replica jdk17 G1", envG1, 1, 128, nil, nil},
	{"replica jdk25", env25, 1, 128, nil, nil},
	// Tripling the array was expected to leave the time alone (zeroing 2 KB
	// more); it makes the call about 60 % slower (perfls measure, 3 forks ×
	// 10 samples, alternating: long[128] 19.4 and 17.5 µs, long[384] 30.3
	// and 29.9 µs), a side effect, which the seed counts as expected (L159).
	{"alloc ×3, jdk17 G1", envG1, 1, 384, []string{"alloc_bytes_per_op", "wall_ns_per_op", "cpu_ns_per_op", "process_cpu_ns_per_op"}, sampling},
	{"cpu ×2, jdk17 G1", envG1, 2, 128, []string{"wall_ns_per_op", "cpu_ns_per_op", "process_cpu_ns_per_op"}, sampling},
	{"cpu ×2, jdk25", env25, 2, 128, []string{"wall_ns_per_op", "cpu_ns_per_op", "process_cpu_ns_per_op"}, sampling},
	{"env only: SerialGC", envSerial, 1, 128, nil, nil},
	{"env only: jdk25 Parallel", env25Par, 1, 128, nil, nil},
}

// realHistory: two or three runs per environment, interleaved so that the
// machine's load over time is no environment's.
var realHistory = []realEnv{envG1, envHeap, envParallel, env25, envG1, envHeap, envParallel, env25, envG1}

func ensembleRealBench(args []string) error {
	fl := flag.NewFlagSet("ensemble-real", flag.ExitOnError)
	work := fl.String("work", "", "keep the project, the perfls binary and the cache directories here (default: a temporary directory, removed)")
	forks := fl.Int("forks", 3, "forks per run")
	samples := fl.Int("samples", 10, "samples per fork")
	reuse := fl.Bool("reuse", false, "check the runs kept in -work DIR again (with a rebuilt perfls) without measuring")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(jdk25, "bin", "java")); err != nil {
		return fmt.Errorf("JDK 25 for the history: %w", err)
	}
	start := time.Now()
	tmp := *work
	if *reuse && tmp == "" {
		return fmt.Errorf("-reuse needs -work DIR of an earlier run")
	}
	if tmp == "" {
		d, err := os.MkdirTemp("", "ensemble-real")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		tmp = d
	}
	bin := filepath.Join(tmp, "perfls")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/perfls").CombinedOutput(); err != nil {
		return fmt.Errorf("build perfls: %v\n%s", err, out)
	}
	proj := filepath.Join(tmp, "proj")
	r := realRunner{bin: bin, proj: proj, src: filepath.Join(proj, "src", "p", "W.java"), forks: *forks, samples: *samples, reuse: *reuse}
	if err := os.MkdirAll(filepath.Dir(r.src), 0o755); err != nil {
		return err
	}
	hist := filepath.Join(tmp, "history-cache")
	fmt.Printf("== ensemble-real: %d history runs, %d cases, %d forks × %d samples each (p.W#work, 20,000 steps, 1,040 B a call)\n",
		len(realHistory), len(realCases), *forks, *samples)
	for i, e := range realHistory {
		t := time.Now()
		if err := r.measure(hist, e, 1, 128); err != nil {
			return err
		}
		fmt.Printf("history %d: %-18s measured in %.0f s\n", i+1, e.name, time.Since(t).Seconds())
	}
	var rows []realRow
	for i, c := range realCases {
		t := time.Now()
		row, err := r.check(c, hist, filepath.Join(tmp, fmt.Sprintf("case-%d-cache", i+1)))
		if err != nil {
			return err
		}
		rows = append(rows, row)
		fmt.Printf("case %d: %-24s measured and checked in %.0f s\n", i+1, c.name, time.Since(t).Seconds())
	}
	if err := os.WriteFile(r.src, []byte(realVariant(1, 128)), 0o644); err != nil {
		return err
	}
	printRealRows(rows)
	fmt.Printf("total %.0f s (/proc/loadavg: %s)\n", time.Since(start).Seconds(), strings.TrimSpace(loadAverage()))
	return nil
}

// realVotes are the votes of perfls ensemble each case is checked with.
var realVotes = []string{"single", "bagging", "stacking"}

// realRunner measures the variants of the project's class with the built
// perfls.
type realRunner struct {
	bin, proj string
	src       string // the class's source file
	forks     int
	samples   int
	reuse     bool // measure nothing: the cache directories hold the runs
}

// measure measures the variant (factor, longs) in environment e into
// cacheDir.
func (r realRunner) measure(cacheDir string, e realEnv, factor, longs int) error {
	if r.reuse {
		return nil
	}
	if err := os.WriteFile(r.src, []byte(realVariant(factor, longs)), 0o644); err != nil {
		return err
	}
	a := append([]string{"measure", "--project", r.proj, "--method", "p.W#work", "--workload", "p.W#gen", "--args", "20000",
		"--forks", fmt.Sprint(r.forks), "--samples", fmt.Sprint(r.samples), "--warmup", "100ms", "--max-warmup", "500ms", "--fresh", "--format", "json"}, e.flags...)
	cmd := exec.Command(r.bin, a...)
	cmd.Env = realCmdEnv(cacheDir, e.javaHome)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("perfls %s (%s): %v\n%s", strings.Join(a, " "), e.name, err, stderr.String())
	}
	return nil
}

// realRow is one case's verdicts and scores, per vote.
type realRow struct {
	c realCase
	// scores[0] scores the seed's votes (every flag), scores[1] perfls's
	// verdict (the flags less those marked as environment differences).
	scores   [2][3]ensemblesim.Score
	verdicts [3]realVerdict
}

// check measures case c's new run in dir, a copy of the history's cache
// directory hist, and scores perfls ensemble's verdict of it by each vote.
func (r realRunner) check(c realCase, hist, dir string) (realRow, error) {
	if !r.reuse {
		os.RemoveAll(dir)
		if out, err := exec.Command("cp", "-a", hist, dir).CombinedOutput(); err != nil {
			return realRow{}, fmt.Errorf("copy the history's cache: %v\n%s", err, out)
		}
	}
	if err := r.measure(dir, c.env, c.factor, c.longs); err != nil {
		return realRow{}, err
	}
	row := realRow{c: c}
	for m, vote := range realVotes {
		v, err := realEnsemble(r.bin, dir, r.proj, vote)
		if err != nil {
			return realRow{}, fmt.Errorf("%s: %w", c.name, err)
		}
		row.verdicts[m] = v
		expected := slices.DeleteFunc(slices.Clone(c.expected), func(x string) bool { return !slices.Contains(v.counters, x) })
		for k, flags := range [][]string{v.flagged, v.regressions()} {
			row.scores[k][m] = ensemblesim.Measure(withoutAny(flags, c.tolerated), expected)
		}
	}
	return row, nil
}

// printRealRows prints the scores of every case and their averages by
// vote, beside the seed's, then each case's flagged counters.
func printRealRows(rows []realRow) {
	var sum [2][3]ensemblesim.Score
	for _, r := range rows {
		for k := range sum {
			for m, sc := range r.scores[k] {
				sum[k][m] = ensemblesim.Score{Precision: sum[k][m].Precision + sc.Precision, Recall: sum[k][m].Recall + sc.Recall, F: sum[k][m].F + sc.F}
			}
		}
	}
	pr := func(s ensemblesim.Score) string { return fmt.Sprintf("%.2f %.2f %.2f", s.Precision, s.Recall, s.F) }
	n := float64(len(rows))
	avg := func(s ensemblesim.Score) ensemblesim.Score {
		return ensemblesim.Score{Precision: s.Precision / n, Recall: s.Recall / n, F: s.F / n}
	}
	for k, title := range []string{"the seed's votes (every flag)", "perfls's verdict (the flags less those where the environment differs)"} {
		fmt.Printf("\n%s\n%-26s | %-16s | %-16s | %-16s\n", title, "case", "single P  R  F", "bagging P  R  F", "stacking P  R  F")
		for _, r := range rows {
			fmt.Printf("%-26s | %-16s | %-16s | %-16s\n", r.c.name, pr(r.scores[k][0]), pr(r.scores[k][1]), pr(r.scores[k][2]))
		}
		fmt.Printf("%-26s | %-16s | %-16s | %-16s\n", "average", pr(avg(sum[k][0])), pr(avg(sum[k][1])), pr(avg(sum[k][2])))
	}
	t := ensemblesim.SeedTable
	fmt.Printf("%-26s | %-16s | %-16s | %-16s\n", "seed 001 Table IV average", pr(t[0]), pr(t[1]), pr(t[2]))
	fmt.Println("\nflagged counters (expected ones marked *, tolerated ~, environment differs !, decided by the historical range ^), undecided ones after ?:")
	for _, r := range rows {
		left := withoutAny(r.c.expected, r.verdicts[2].counters)
		fmt.Printf("%s (expected %v, of which not among the checked counters %v):\n", r.c.name, r.c.expected, left)
		for m, vote := range realVotes {
			v := r.verdicts[m]
			var marked []string
			for _, f := range v.flagged {
				mark := f
				switch {
				case slices.Contains(r.c.expected, f):
					mark += "*"
				case slices.Contains(r.c.tolerated, f):
					mark += "~"
				}
				if slices.Contains(v.environment, f) {
					mark += "!"
				}
				if slices.Contains(v.byRange, f) {
					mark += "^"
				}
				marked = append(marked, mark)
			}
			fmt.Printf("  %-8s %v ? %v\n", vote, marked, v.undecided)
		}
		for _, c := range r.verdicts[2].byRange {
			fmt.Printf("    ^ %s\n", r.verdicts[2].rangeText[c])
		}
	}
}

// realVerdict is what perfls ensemble said about a case: the flags of the
// seed's vote, those of them it marked as environment differences, and the
// counters it left undecided.
type realVerdict struct {
	flagged, environment, undecided []string
	// byRange: the flags the historical range decided (counters out of
	// every rule's reach); rangeText its evidence per counter.
	byRange   []string
	rangeText map[string]string
	// counters the check had: a counter the store form leaves out (process
	// CPU with a clock coarser than a sample) is not expected of it.
	counters []string
}

// regressions are the flags not marked as environment differences: perfls's
// verdict for the user.
func (v realVerdict) regressions() []string { return withoutAny(v.flagged, v.environment) }

// realEnsemble runs perfls ensemble's store form on the newest result in
// cacheDir with vote.
func realEnsemble(bin, cacheDir, proj, vote string) (realVerdict, error) {
	cmd := exec.Command(bin, "ensemble", "--method", "p.W#work", "--workload", "p.W#gen", "--args", "20000", "--project", proj, "--vote", vote, "--format", "json")
	cmd.Env = realCmdEnv(cacheDir, "")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var v realVerdict
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 1) {
		return v, fmt.Errorf("perfls ensemble --vote %s: %v\n%s", vote, err, stderr.String())
	}
	var rep struct {
		Flagged []struct {
			Counter            string
			EnvironmentDiffers bool `json:"environment_differs"`
			Range              *struct {
				Against        string
				Outside        string
				Change         *float64
				P              float64
				Low, High      float64
				NewLow         float64 `json:"new_low"`
				NewHigh        float64 `json:"new_high"`
				Results, Forks int
			}
		}
		Undecided []struct{ Counter string }
		Counters  []string
		Models    []struct{}
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		return v, fmt.Errorf("perfls ensemble --format json: %w", err)
	}
	if len(rep.Models) != len(realHistory) {
		return v, fmt.Errorf("perfls ensemble used %d prior runs, want the %d of the history", len(rep.Models), len(realHistory))
	}
	v.flagged, v.counters = []string{}, rep.Counters
	for _, f := range rep.Flagged {
		v.flagged = append(v.flagged, f.Counter)
		if f.EnvironmentDiffers {
			v.environment = append(v.environment, f.Counter)
		}
		if g := f.Range; g != nil {
			v.byRange = append(v.byRange, f.Counter)
			change := 0.0
			if g.Change != nil {
				change = *g.Change
			}
			if v.rangeText == nil {
				v.rangeText = map[string]string{}
			}
			v.rangeText[f.Counter] = fmt.Sprintf("%s %.4g–%.4g %s %.4g–%.4g (%d forks, %s), mean %+.0f %%, p = %.2g",
				f.Counter, g.NewLow, g.NewHigh, g.Outside, g.Low, g.High, g.Forks, g.Against, 100*change, g.P)
		}
	}
	for _, u := range rep.Undecided {
		v.undecided = append(v.undecided, u.Counter)
	}
	if (len(v.regressions()) > 0) != (err != nil) {
		return v, fmt.Errorf("perfls ensemble --vote %s: exit status %v with regressions %v", vote, err, v.regressions())
	}
	return v, nil
}

// realCmdEnv is the environment of a perfls process: its cache directory,
// no shared store, and the JDK (javaHome first on the path) or the default.
func realCmdEnv(cacheDir, javaHome string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PERFLS_CACHE_DIR=") && !strings.HasPrefix(kv, "PERFLS_STORE=") && !strings.HasPrefix(kv, "JAVA_HOME=") {
			env = append(env, kv)
		}
	}
	env = append(env, "PERFLS_CACHE_DIR="+cacheDir)
	if javaHome != "" {
		env = append(env, "JAVA_HOME="+javaHome)
	}
	return env
}

func withoutAny(xs, drop []string) []string {
	var out []string
	for _, x := range xs {
		if !slices.Contains(drop, x) {
			out = append(out, x)
		}
	}
	return out
}
