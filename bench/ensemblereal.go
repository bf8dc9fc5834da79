package main

// go run ./bench ensemble-real: seed 001's ensemble (perfls ensemble's store
// form) on real results, the figure of record of issue 39 item 1. A small
// method is measured out of process with the built perfls (perfls measure,
// 5 forks × 10 samples by default, as perfls measures; a fresh cache directory) in five environments of
// this machine — JDK 17 and JDK 25, each with G1 and the parallel
// collector, and JDK 17 with a 256 MB heap — as a history of 10 results;
// then each of 16 cases measures one new result in a copy of that cache
// directory and runs perfls ensemble --method on it, once per vote. Each
// faulty case's ground truth is fixed before its new result is measured,
// by a separate A/B run: 10 forks of the old and 10 of the new code,
// alternating, in the case's environment, and a Welch test on fork means
// (docs/regressions.md, "The figure of record").

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/perfls/perfls/analysis/ensemble/ensemblesim"
	"github.com/perfls/perfls/analysis/stats"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/engine"
)

// realCode is a variant of the measured class: work(n) runs n·steps/10
// steps of a dependent loop and allocates one long[longs] that escapes
// (16 + 8·longs bytes: 1,040 for 128).
type realCode struct{ steps, longs int }

var (
	codeBase    = realCode{10, 128}
	codeAlloc15 = realCode{10, 193} // 1,560 B a call: ×1.5
	codeAlloc3  = realCode{10, 388} // 3,120 B a call: ×3
	codeTime13  = realCode{13, 128} // 1.3 n steps
	codeTime2   = realCode{20, 128} // 2 n steps
)

func (c realCode) source() string {
	return fmt.Sprintf(`package p;
public class W {
    public static Object sink;
    public static long work(int n) {
        long s = 0;
        for (int i = 0; i < n * %d / 10; i++) s += i ^ (s >>> 3);
        sink = new long[%d];
        return s;
    }
    public static Iterable<Object[]> gen(int n) { return java.util.Collections.singletonList(new Object[] {n}); }
}
`, c.steps, c.longs)
}

// realEnv is how a result is measured: the JDK and perfls measure's flags.
type realEnv struct {
	name  string
	jdk25 bool // JAVA_HOME is the JDK 25 home; else the default java (JDK 17)
	flags []string
}

var (
	parallel    = "--jvm-arg=-XX:+UseParallelGC"
	serial      = "--jvm-arg=-XX:+UseSerialGC"
	env17G1     = realEnv{"jdk17 G1", false, nil}
	env17Par    = realEnv{"jdk17 Parallel", false, []string{parallel}}
	env25G1     = realEnv{"jdk25 G1", true, nil}
	env25Par    = realEnv{"jdk25 Parallel", true, []string{parallel}}
	env17Heap   = realEnv{"jdk17 G1 heap256", false, []string{"--heap", "256"}}
	env17Serial = realEnv{"jdk17 Serial", false, []string{serial}}
	env25Serial = realEnv{"jdk25 Serial", true, []string{serial}}
	env25Heap   = realEnv{"jdk25 G1 heap256", true, []string{"--heap", "256"}}
	env17ParH   = realEnv{"jdk17 Parallel heap256", false, []string{parallel, "--heap", "256"}}
)

// realHistory: two results per environment, interleaved so that the
// machine's load over time is no environment's.
var realHistory = []realEnv{env17G1, env17Par, env25G1, env25Par, env17Heap, env17G1, env17Par, env25G1, env25Par, env17Heap}

// realCase is one new result: its environment and its code. A fault-free
// case (code unchanged) expects nothing by construction; a faulty one's
// expected counters come from its A/B run.
type realCase struct {
	name string
	env  realEnv
	code realCode
}

func (c realCase) faulty() bool { return c.code != codeBase }

// realCases are history h's 16 cases (h from 1): 4 replicas, 4
// environment-only changes (a collector, a JDK–collector pair or a heap
// limit the history lacks), 8 injected regressions (allocation ×1.5 and ×3,
// time ×1.3 and ×2, each on JDK 17 and JDK 25; with G1 in histories 1 and
// 3, the parallel collector in 2), interleaved so that no kind of case
// meets the machine's load of one period.
func realCases(h int) []realCase {
	j17, j25 := env17G1, env25G1
	if h%2 == 0 {
		j17, j25 = env17Par, env25Par
	}
	fault := func(what string, e realEnv, c realCode) realCase {
		return realCase{what + ", " + e.name, e, c}
	}
	return []realCase{
		{"replica " + env17G1.name, env17G1, codeBase},
		fault("alloc ×1.5", j17, codeAlloc15),
		{"env only: " + env17Serial.name, env17Serial, codeBase},
		fault("time ×1.3", j25, codeTime13),
		{"replica " + env25G1.name, env25G1, codeBase},
		fault("alloc ×3", j25, codeAlloc3),
		{"env only: " + env25Serial.name, env25Serial, codeBase},
		fault("time ×2", j17, codeTime2),
		{"replica " + env17Par.name, env17Par, codeBase},
		fault("alloc ×1.5", j25, codeAlloc15),
		{"env only: " + env25Heap.name, env25Heap, codeBase},
		fault("time ×1.3", j17, codeTime13),
		{"replica " + env25Par.name, env25Par, codeBase},
		fault("alloc ×3", j17, codeAlloc3),
		{"env only: " + env17ParH.name, env17ParH, codeBase},
		fault("time ×2", j25, codeTime2),
	}
}

// The ground truth's rule: a counter is expected when its fork means move
// by at least truthChange at two-sided p < truthAlpha (Welch's t on the
// A/B run's fork means, analysis/stats). samplingOnly are the counters
// that move only through the sampling, never expected: per-sample GC
// counts and times and the heap at a sample's end follow the allocation
// per unit of time, and a 1-ms sample rarely holds a collection. A flag
// on them is neither false nor required.
const (
	truthChange = 0.05
	truthAlpha  = 0.01
)

var samplingOnly = []string{"gc_count", "gc_ms", "heap_used_bytes"}

// timeCounters are the time per call.
var timeCounters = []string{"wall_ns_per_op", "cpu_ns_per_op", "process_cpu_ns_per_op"}

func ensembleRealBench(args []string) error {
	fl := flag.NewFlagSet("ensemble-real", flag.ExitOnError)
	work := fl.String("work", "", "keep the project, the perfls binary and the cache directories here (default: a temporary directory, removed)")
	forks := fl.Int("forks", 5, "forks per result (perfls's default)")
	samples := fl.Int("samples", 10, "samples per fork")
	abForks := fl.Int("ab-forks", 10, "forks of each side of a faulty case's A/B run (the ground truth)")
	histories := fl.Int("histories", 3, "fresh histories, each with its cases")
	ncases := fl.Int("cases", 16, "cases per history (the first N of the 16; fewer for a smoke run)")
	jdk := fl.String("jdk25", "", "JAVA_HOME of a JDK 25 (default: $JDK25_HOME, /tmp/jdk25/home, or one under /usr/lib/jvm; bench/jdk-trixie.sh DIR makes one)")
	reuse := fl.Bool("reuse", false, "score the runs kept in -work DIR again (with a rebuilt perfls) without measuring")
	aa := fl.Bool("aa", false, "also run each fault-free case's A/A (the old code on both sides): how often the ground truth's rule calls an unchanged counter moved (with -reuse: measured where -work DIR has none)")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if *ncases < 1 || *ncases > 16 || *histories < 1 || *abForks < 2 {
		return fmt.Errorf("ensemble-real: want 1 ≤ -cases ≤ 16, -histories ≥ 1 and -ab-forks ≥ 2")
	}
	home, err := findJDK25(*jdk)
	if err != nil {
		return err
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
	r := realRunner{bin: bin, jdk25: home, forks: *forks, samples: *samples, abForks: *abForks, reuse: *reuse, aa: *aa}
	fmt.Printf("== ensemble-real: %d histories of %d results, %d cases each, %d forks × %d samples a result, A/B %d + %d forks (p.W#work(20000), JDK 25 %s); load %s",
		*histories, len(realHistory), *ncases, *forks, *samples, *abForks, *abForks, home, loadAverage())
	var rows []realRow
	for h := 1; h <= *histories; h++ {
		dir := filepath.Join(tmp, fmt.Sprintf("history-%d", h))
		hist := filepath.Join(dir, "history-cache")
		if !r.reuse {
			if err := os.RemoveAll(dir); err != nil {
				return err
			}
		}
		for i, e := range realHistory {
			t := time.Now()
			if err := r.measure(hist, filepath.Join(dir, "proj-old"), e, codeBase); err != nil {
				return err
			}
			if !r.reuse {
				fmt.Printf("history %d, result %d: %-22s measured in %.0f s\n", h, i+1, e.name, time.Since(t).Seconds())
			}
		}
		for i, c := range realCases(h)[:*ncases] {
			t := time.Now()
			caseDir := filepath.Join(dir, fmt.Sprintf("case-%d", i+1))
			truth, err := r.groundTruth(c, hist, caseDir)
			if err != nil {
				return fmt.Errorf("history %d, %s: %w", h, c.name, err)
			}
			row, err := r.check(c, truth, hist, caseDir)
			if err != nil {
				return fmt.Errorf("history %d, %s: %w", h, c.name, err)
			}
			row.history = h
			rows = append(rows, row)
			fmt.Printf("history %d, case %2d: %-34s A/B, measured and checked in %.0f s (load %s)\n", h, i+1, c.name, time.Since(t).Seconds(), loadAverages())
		}
	}
	printRealRows(rows)
	fmt.Printf("total %.0f s (/proc/loadavg: %s)\n", time.Since(start).Seconds(), strings.TrimSpace(loadAverage()))
	return nil
}

// findJDK25 is the JAVA_HOME of a JDK 25: given, or $JDK25_HOME,
// /tmp/jdk25/home (bench/jdk-trixie.sh's default place), or a JDK 25
// under /usr/lib/jvm; told by its release file.
func findJDK25(given string) (string, error) {
	candidates := []string{given}
	if given == "" {
		candidates = []string{os.Getenv("JDK25_HOME"), "/tmp/jdk25/home"}
		more, _ := filepath.Glob("/usr/lib/jvm/*25*")
		candidates = append(candidates, more...)
	}
	var tried []string
	for _, c := range candidates {
		if c == "" {
			continue
		}
		tried = append(tried, c)
		rel, err := os.ReadFile(filepath.Join(c, "release"))
		if err != nil || !strings.Contains(string(rel), `JAVA_VERSION="25`) {
			continue
		}
		if _, err := os.Stat(filepath.Join(c, "bin", "java")); err == nil {
			return c, nil
		}
	}
	return "", fmt.Errorf("no JDK 25 for the history (tried %s): make one with `bash bench/jdk-trixie.sh DIR` (Debian trixie's OpenJDK 25 with its own glibc) and pass -jdk25 DIR/home",
		strings.Join(tried, ", "))
}

// realVotes are the votes of perfls ensemble each case is checked with.
var realVotes = []string{"single", "bagging", "stacking"}

// realRunner measures the variants of the project's class with the built
// perfls.
type realRunner struct {
	bin, jdk25 string
	forks      int
	samples    int
	abForks    int
	reuse      bool // measure nothing: the cache directories hold the runs
	aa         bool // an A/A run for each fault-free case (groundTruth)
}

// measure measures code in environment e with forks forks into cacheDir;
// proj is the project directory the code is written to (one per code, so
// that alternating runs rebuild nothing).
func (r realRunner) measure(cacheDir, proj string, e realEnv, code realCode) error {
	return r.measureForks(cacheDir, proj, e, code, r.forks)
}

func (r realRunner) measureForks(cacheDir, proj string, e realEnv, code realCode, forks int) error {
	if r.reuse {
		return nil
	}
	src := filepath.Join(proj, "src", "p", "W.java")
	if err := os.MkdirAll(filepath.Dir(src), 0o755); err != nil {
		return err
	}
	if old, err := os.ReadFile(src); err != nil || string(old) != code.source() {
		if err := os.WriteFile(src, []byte(code.source()), 0o644); err != nil {
			return err
		}
	}
	a := append([]string{"measure", "--project", proj, "--method", "p.W#work", "--workload", "p.W#gen", "--args", "20000",
		"--forks", fmt.Sprint(forks), "--samples", fmt.Sprint(r.samples), "--warmup", "100ms", "--max-warmup", "500ms", "--fresh", "--format", "json"}, e.flags...)
	cmd := exec.Command(r.bin, a...)
	cmd.Env = realCmdEnv(cacheDir, r.javaHome(e))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("perfls %s (%s): %v\n%s", strings.Join(a, " "), e.name, err, stderr.String())
	}
	return nil
}

func (r realRunner) javaHome(e realEnv) string {
	if e.jdk25 {
		return r.jdk25
	}
	return ""
}

// realTruth is a case's ground truth: per counter, the A/B run's change of
// the fork means and Welch's two-sided p; expected, the counters that
// moved ≥ truthChange at p < truthAlpha (none for a fault-free case).
type realTruth struct {
	Counters []truthCounter `json:"counters"`
	Expected []string       `json:"expected"`
	Note     string         `json:"note,omitempty"`
	// AA: a fault-free case's A/A run (-aa), which fixes nothing.
	AA *realTruth `json:"aa,omitempty"`
}

type truthCounter struct {
	Counter string  `json:"counter"`
	OldMean float64 `json:"old_mean"`
	NewMean float64 `json:"new_mean"`
	Change  float64 `json:"-"` // new/old − 1; ±Inf from 0
	// ChangeJSON is Change in truth.json: null when infinite (JSON has
	// no infinity).
	ChangeJSON *float64 `json:"change"`
	P          float64  `json:"p"`
	Expected   bool     `json:"expected"`
	Excluded   bool     `json:"excluded,omitempty"` // samplingOnly
}

// copyCache makes dir a copy of the history's cache directory hist (its
// results, and the harness and builds each JDK otherwise makes anew, about
// 30 s each).
func (r realRunner) copyCache(hist, dir string) error {
	if r.reuse {
		return nil
	}
	os.RemoveAll(dir)
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	if out, err := exec.Command("cp", "-a", hist, dir).CombinedOutput(); err != nil {
		return fmt.Errorf("copy the history's cache %s: %v\n%s", hist, err, out)
	}
	return nil
}

// groundTruth fixes case c's expected counters before its new result is
// measured: for a faulty case, abForks single-fork results of the old and
// of the new code, alternating (old first), in c's environment, kept in
// dir/ab-cache (a copy of the history's cache hist, whose results are
// left out); written to dir/truth.json. A fault-free case expects nothing;
// with -aa it also gets the same run with the old code on both sides
// (dir/aa-cache, dir/aa.json): what the rule would call moved there is
// the ground truth's own false alarms.
func (r realRunner) groundTruth(c realCase, hist, dir string) (realTruth, error) {
	if !c.faulty() {
		t := realTruth{Expected: []string{}, Note: "fault-free: the code is unchanged, nothing expected by construction"}
		if r.aa {
			aa, err := r.abTruth(c.env, codeBase, hist, dir, "aa")
			if err != nil {
				return t, err
			}
			t.AA = &aa
		}
		return t, nil
	}
	return r.abTruth(c.env, c.code, hist, dir, "ab")
}

// abTruth runs (or, with -reuse, reads) the alternating run of codeBase
// and code in env, in dir/NAME-cache, and applies the ground truth's rule
// to its fork means; written to dir/NAME.json (truth.json for "ab").
func (r realRunner) abTruth(env realEnv, code realCode, hist, dir, name string) (realTruth, error) {
	ab := filepath.Join(dir, name+"-cache")
	_, err := os.Stat(ab)
	measure := !r.reuse || (name == "aa" && errors.Is(err, os.ErrNotExist))
	if measure {
		rr := r
		rr.reuse = false
		if err := rr.copyCache(hist, ab); err != nil {
			return realTruth{}, err
		}
		for i := 0; i < r.abForks; i++ {
			if err := rr.measureForks(ab, filepath.Join(dir, "proj-old"), env, codeBase, 1); err != nil {
				return realTruth{}, err
			}
			if err := rr.measureForks(ab, filepath.Join(dir, "proj-new"), env, code, 1); err != nil {
				return realTruth{}, err
			}
		}
	}
	old, nw, err := abForkMeans(ab, r.abForks)
	if err != nil {
		return realTruth{}, err
	}
	t := realTruth{Expected: []string{}}
	for _, name := range slices.Sorted(maps.Keys(old)) {
		o, n := old[name], nw[name]
		if len(n) != len(o) {
			continue
		}
		so, sn := stats.Summarize(o), stats.Summarize(n)
		tc := truthCounter{Counter: name, OldMean: so.Mean, NewMean: sn.Mean, P: 1}
		switch {
		case so.Mean != 0:
			tc.Change = sn.Mean/so.Mean - 1
		case sn.Mean > 0:
			tc.Change = math.Inf(1)
		case sn.Mean < 0:
			tc.Change = math.Inf(-1)
		}
		if w, err := stats.Welch(sn, so); err == nil {
			tc.P = w.PTwoSided
		}
		if !math.IsInf(tc.Change, 0) {
			tc.ChangeJSON = &tc.Change
		}
		tc.Excluded = slices.Contains(samplingOnly, name)
		tc.Expected = !tc.Excluded && math.Abs(tc.Change) >= truthChange && tc.P < truthAlpha
		if tc.Expected {
			t.Expected = append(t.Expected, name)
		}
		t.Counters = append(t.Counters, tc)
	}
	if len(t.Counters) == 0 {
		return t, fmt.Errorf("A/B run in %s: no counter in both sides", ab)
	}
	file := name + ".json"
	if name == "ab" {
		file = "truth.json"
	}
	b, err := json.MarshalIndent(t, "", "  ")
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, file), b, 0o644)
	}
	return t, err
}

// abForkMeans reads the A/B run's results from its store (oldest first,
// after the history's: old, new, old, …) as the store form reads them (engine.StoredRun: each
// fork's first sample left out, JIT and class counts as increases) and
// returns each counter's fork means, per side.
func abForkMeans(cacheDir string, n int) (old, nw map[string][]float64, err error) {
	ctx := context.Background()
	store, _, err := cache.OpenStore(ctx, cacheDir)
	if err != nil {
		return nil, nil, fmt.Errorf("open the A/B store %s: %w", cacheDir, err)
	}
	defer store.Close()
	ms, err := store.MeasurementsOf(ctx, "p.W#work")
	if err != nil {
		return nil, nil, fmt.Errorf("read the A/B store %s: %w", cacheDir, err)
	}
	if len(ms) != len(realHistory)+2*n {
		return nil, nil, fmt.Errorf("the A/B store %s holds %d results, want the history's %d and %d", cacheDir, len(ms), len(realHistory), 2*n)
	}
	ms = ms[len(realHistory):]
	old, nw = map[string][]float64{}, map[string][]float64{}
	for i, m := range ms {
		run, err := engine.StoredRun(m)
		if err != nil {
			return nil, nil, err
		}
		side := old
		if i%2 == 1 {
			side = nw
		}
		t := 0
		for _, k := range run.Forks {
			for c, name := range run.Counters {
				var sum float64
				for _, iv := range run.Intervals[t : t+k] {
					sum += iv[c]
				}
				side[name] = append(side[name], sum/float64(k))
			}
			t += k
		}
	}
	return old, nw, nil
}

// realRow is one case's ground truth, verdicts and scores, per vote.
type realRow struct {
	history int
	c       realCase
	truth   realTruth
	// expected: the truth's expected counters the check had (a counter
	// the store form leaves out, process CPU on a clock coarser than a
	// sample, is not expected of it).
	expected []string
	// scores[0] scores the seed's votes (every flag), scores[1] perfls's
	// verdict (the flags less those marked as environment differences).
	scores   [2][3]ensemblesim.Score
	verdicts [3]realVerdict
}

// check measures case c's new result in dir/cache, a copy of the
// history's cache directory hist, and scores perfls ensemble's verdict of
// it by each vote against truth.
func (r realRunner) check(c realCase, truth realTruth, hist, dir string) (realRow, error) {
	cacheDir := filepath.Join(dir, "cache")
	if err := r.copyCache(hist, cacheDir); err != nil {
		return realRow{}, err
	}
	if err := r.measure(cacheDir, filepath.Join(dir, "proj-new"), c.env, c.code); err != nil {
		return realRow{}, err
	}
	row := realRow{c: c, truth: truth}
	for m, vote := range realVotes {
		v, err := realEnsemble(r.bin, cacheDir, filepath.Join(dir, "proj-new"), vote)
		if err != nil {
			return realRow{}, err
		}
		row.verdicts[m] = v
		row.expected = slices.DeleteFunc(slices.Clone(truth.Expected), func(x string) bool { return !slices.Contains(v.counters, x) })
		for k, flags := range [][]string{v.flagged, v.regressions()} {
			row.scores[k][m] = ensemblesim.Measure(withoutAny(flags, samplingOnly), row.expected)
		}
	}
	return row, nil
}

// printRealRows prints each case's ground truth and scores, the averages
// by vote with a bootstrap interval, and the figures for perfls's
// verdict.
func printRealRows(rows []realRow) {
	fmt.Println("\nground truth (A/B run, fork means; expected: |change| ≥ 5 % at Welch p < 0.01; excluded as sampling-only: " + strings.Join(samplingOnly, ", ") + "):")
	for _, r := range rows {
		if r.c.faulty() {
			fmt.Printf("h%d %-30s %s\n", r.history, r.c.name, truthLine(r.truth))
		}
	}
	var aaCases, aaCounters, aaMoved int
	for _, r := range rows {
		if r.truth.AA == nil {
			continue
		}
		if aaCases == 0 {
			fmt.Println("A/A runs of the fault-free cases (the old code on both sides; the rule's own false alarms, not part of the truth):")
		}
		aaCases++
		for _, tc := range r.truth.AA.Counters {
			if !tc.Excluded {
				aaCounters++
			}
			if tc.Expected {
				aaMoved++
			}
		}
		fmt.Printf("h%d %-30s %s\n", r.history, r.c.name, truthLine(*r.truth.AA))
	}
	if aaCases > 0 {
		fmt.Printf("A/A: the rule calls %d of %d counters moved over %d cases\n", aaMoved, aaCounters, aaCases)
	}
	pr := func(s ensemblesim.Score) string { return fmt.Sprintf("%.2f %.2f %.2f", s.Precision, s.Recall, s.F) }
	for k, title := range []string{"the seed's votes (every flag)", "perfls's verdict (the flags less those where the environment differs)"} {
		fmt.Printf("\n%s; sampling-only counters neither false nor required\n%-34s | %-16s | %-16s | %-16s\n", title, "case", "single P  R  F", "bagging P  R  F", "stacking P  R  F")
		for _, r := range rows {
			fmt.Printf("h%d %-31s | %-16s | %-16s | %-16s\n", r.history, r.c.name, pr(r.scores[k][0]), pr(r.scores[k][1]), pr(r.scores[k][2]))
		}
		var cells []string
		for m := range realVotes {
			fs := make([]float64, len(rows))
			for i, r := range rows {
				fs[i] = r.scores[k][m].F
			}
			mean, lo, hi := bootstrapMean(fs, 10000)
			tlo, thi, _ := stats.TInterval(fs, 0.95)
			cells = append(cells, fmt.Sprintf("%s F %.2f [%.2f, %.2f] (t: [%.2f, %.2f])", realVotes[m], mean, lo, hi, tlo, thi))
		}
		fmt.Printf("average F over %d cases, 95 %% interval by a percentile bootstrap over cases (10,000 resamples; the t-interval beside it):\n  %s\n", len(rows), strings.Join(cells, "\n  "))
	}
	t := ensemblesim.SeedTable
	fmt.Printf("seed 001 Table IV average F: single %.2f, bagging %.2f, stacking %.2f\n", t[0].F, t[1].F, t[2].F)

	fmt.Println("\nthe issue's figures, perfls's verdict (exit status 1 = a regression reported):")
	for m, vote := range realVotes {
		var free, freeAny, freeHard, expected, found, timeExp, timeFound, undecided int
		var undecidedList []string
		for _, r := range rows {
			v := r.verdicts[m]
			reg := v.regressions()
			if !r.c.faulty() {
				free++
				if len(reg) > 0 {
					freeAny++
				}
				if len(withoutAny(reg, samplingOnly)) > 0 {
					freeHard++
				}
				continue
			}
			for _, e := range r.expected {
				expected++
				isTime := slices.Contains(timeCounters, e)
				if isTime {
					timeExp++
				}
				if slices.Contains(reg, e) {
					found++
					if isTime {
						timeFound++
					}
				}
				if slices.Contains(v.undecided, e) {
					undecided++
					undecidedList = append(undecidedList, fmt.Sprintf("h%d %s: %s", r.history, r.c.name, e))
				}
			}
		}
		fmt.Printf("  %-8s fault-free cases reporting a regression: %d of %d (%d on counters other than the sampling-only ones); expected counters reported: %d of %d (%.0f %%), time per call %d of %d; expected counters undecided: %d %v\n",
			vote, freeAny, free, freeHard, found, expected, 100*ratio(found, expected), timeFound, timeExp, undecided, undecidedList)
	}

	fmt.Println("\nflagged counters (expected ones marked *, sampling-only ~, environment differs !, decided by the historical range ^), undecided ones after ?:")
	for _, r := range rows {
		left := withoutAny(r.truth.Expected, r.verdicts[2].counters)
		fmt.Printf("h%d %s (expected %v, of which not among the checked counters %v):\n", r.history, r.c.name, r.truth.Expected, left)
		for m, vote := range realVotes {
			v := r.verdicts[m]
			var marked []string
			for _, f := range v.flagged {
				mark := f
				switch {
				case slices.Contains(r.expected, f):
					mark += "*"
				case slices.Contains(samplingOnly, f):
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

// truthLine is a ground truth's counters: change, p, expected (*) or
// sampling-only (~).
func truthLine(t realTruth) string {
	var parts []string
	for _, tc := range t.Counters {
		mark := ""
		switch {
		case tc.Expected:
			mark = "*"
		case tc.Excluded:
			mark = "~"
		}
		parts = append(parts, fmt.Sprintf("%s%s %+.1f %% p=%.2g", tc.Counter, mark, 100*tc.Change, tc.P))
	}
	return strings.Join(parts, "; ")
}

func ratio(a, b int) float64 {
	if b == 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}

// bootstrapMean is the mean of xs and its 95 % percentile-bootstrap
// interval over n resamples (a fixed seed: the same figures on a rescore).
func bootstrapMean(xs []float64, n int) (mean, lo, hi float64) {
	if len(xs) == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	rng := rand.New(rand.NewPCG(39, 1))
	means := make([]float64, n)
	for b := range means {
		var s float64
		for range xs {
			s += xs[rng.IntN(len(xs))]
		}
		means[b] = s / float64(len(xs))
	}
	sort.Float64s(means)
	return mean, means[int(0.025*float64(n))], means[int(math.Ceil(0.975*float64(n)))-1]
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
	var ee *exec.ExitError
	if err != nil && (!errors.As(err, &ee) || ee.ExitCode() != 1) {
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
		return v, fmt.Errorf("perfls ensemble used %d prior results, want the %d of the history", len(rep.Models), len(realHistory))
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
