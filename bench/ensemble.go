package main

import (
	"encoding/csv"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/perfls/perfls/analysis/ensemble"
	"github.com/perfls/perfls/analysis/ensemble/ensemblesim"
)

// runPure runs the parts that need no Java project (statistics over
// generated data) and exits; other parts return to main.
func runPure(what string, args []string) {
	part := map[string]func([]string) error{"ensemble": ensembleBench, "ensemble-real": ensembleRealBench, "changepoint": changepointBench, "signals": signalsBench, "scale": scaleBench}[what]
	if part == nil {
		return
	}
	if err := part(args); err != nil {
		fmt.Fprintf(os.Stderr, "bench %s: %v\n", what, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// ensembleBench prints the miniature of seed 001's Table IV
// (analysis/ensemble/ensemblesim) beside the seed's averages, and how the
// averages move with the simulated noise. -csv DIR writes one generated case
// as CSV and .env files for perfls ensemble.
func ensembleBench(args []string) error {
	fl := flag.NewFlagSet("ensemble", flag.ExitOnError)
	seed := fl.Uint64("seed", 1, "random seed")
	reps := fl.Int("reps", 10, "cases per scenario and fault")
	csvDir := fl.String("csv", "", "write one generated case (history/ and new/) to this directory and stop")
	sweep := fl.Bool("noise", true, "also print the average F under other simulated noise levels")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if *csvDir != "" {
		return writeExample(*csvDir, *seed)
	}
	cfg := ensemble.DefaultConfig()
	cases, err := ensemblesim.Evaluate(*seed, *reps, cfg, ensemblesim.DefaultNoise)
	if err != nil {
		return err
	}
	fmt.Printf("== ensemble: seed 001's evaluation in miniature (%d cases per scenario, seed %d; support %.1f, confidence %.1f, Δ > %.1f)\n",
		*reps, *seed, cfg.MinSupport, cfg.MinConfidence, cfg.DeltaThreshold)
	fmt.Println("(ten-lab rows: recall relative to the true regressions any approach found, as the seed's enterprise cases, L161–L163)")
	fmt.Printf("%-26s %-7s | %-16s | %-16s | %-16s\n", "scenario", "seed", "single P  R  F", "bagging P  R  F", "stacking P  R  F")
	pr := func(s ensemblesim.Score) string { return fmt.Sprintf("%.2f %.2f %.2f", s.Precision, s.Recall, s.F) }
	for _, r := range ensemblesim.Table(cases) {
		fmt.Printf("%-26s %-7s | %-16s | %-16s | %-16s\n", r.Scenario, r.Seed, pr(r.Single), pr(r.Bagging), pr(r.Stacking))
	}
	fmt.Println("seed 001 Table IV (L169–L180), the same columns:")
	for _, sc := range ensemblesim.Scenarios {
		t := ensemblesim.SeedCases[sc.Seed]
		fmt.Printf("%-26s %-7s | %-16s | %-16s | %-16s\n", "", sc.Seed, pr(t[0]), pr(t[1]), pr(t[2]))
	}
	t := ensemblesim.SeedTable
	fmt.Printf("%-26s %-7s | %-16s | %-16s | %-16s\n", "", "Avg.", pr(t[0]), pr(t[1]), pr(t[2]))
	rc := ensemblesim.SeedRecomputed(false)
	fmt.Printf("%-26s %-7s | %-16s | %-16s | %-16s\n", "(E_1's F from its P and R)", "Avg.", pr(rc[0]), pr(rc[1]), pr(rc[2]))
	rows := ensemblesim.Table(cases)
	fa, sf := ensemblesim.FaultyAverage(rows), ensemblesim.SeedRecomputed(true)
	fmt.Printf("%-26s %-7s | %-16s | %-16s | %-16s\n", "faulty cases (5)", "ours", pr(fa[0]), pr(fa[1]), pr(fa[2]))
	fmt.Printf("%-26s %-7s | %-16s | %-16s | %-16s\n", "", "seed", pr(sf[0]), pr(sf[1]), pr(sf[2]))
	alarms := ensemblesim.FalseAlarms(cases)
	fmt.Println("no-fault cases, share of cases with a false alarm (single / bagging / stacking):")
	for _, k := range []string{"D_4", "E_3"} {
		a := alarms[k]
		fmt.Printf("  %-5s %.2f / %.2f / %.2f\n", k, a[0], a[1], a[2])
	}
	fmt.Println("  generator:", ensemblesim.Settings(*seed, *reps, ensemblesim.DefaultNoise))
	for _, share := range []int{3, 5} {
		sc := ensemblesim.E3Lab(share)
		cs, err := ensemblesim.EvaluateScenarios([]ensemblesim.Scenario{sc}, *seed, *reps, cfg, ensemblesim.DefaultNoise)
		if err != nil {
			return err
		}
		r := ensemblesim.TableOf([]ensemblesim.Scenario{sc}, cs)[0]
		fmt.Printf("%-26s %-7s | %-16s | %-16s | %-16s  (the deviation shared by the lab's earlier runs, no load spread)\n", sc.Name, "E_3", pr(r.Single), pr(r.Bagging), pr(r.Stacking))
	}
	fmt.Println("errors per case: false flags that follow a moved counter (corr), come only from other labs' models (env)")
	fmt.Println("or from a same-lab/pooled model (lab: run-to-run noise; in E_3 also its harmless faster generator), and missed expected counters (miss):")
	fmt.Printf("%-26s | %-23s | %-23s | %-23s\n", "scenario", "single corr env lab miss", "bagging corr env lab miss", "stacking corr env lab miss")
	for _, r := range ensemblesim.Table(cases) {
		er := func(e ensemblesim.Errors) string {
			k := float64(max(1, r.Cases))
			return fmt.Sprintf("%4.1f %4.1f %4.1f %4.1f", float64(e.Correlated)/k, float64(e.Environment)/k, float64(e.SameLab)/k, float64(e.Missed)/k)
		}
		fmt.Printf("%-26s | %-23s | %-23s | %-23s\n", r.Scenario, er(r.Errors[0]), er(r.Errors[1]), er(r.Errors[2]))
	}
	if !*sweep {
		return nil
	}
	fmt.Println("average F by simulated noise (per interval, per run):")
	for _, n := range []ensemblesim.Noise{{Interval: 0.01, Run: 0}, {Interval: 0.005, Run: 0.005}, ensemblesim.DefaultNoise, {Interval: 0.02, Run: 0.01}, {Interval: 0.01, Run: 0.02}} {
		cs, err := ensemblesim.Evaluate(*seed, *reps, cfg, n)
		if err != nil {
			return err
		}
		rows := ensemblesim.Table(cs)
		a := rows[len(rows)-1]
		fmt.Printf("  %4.1f %% / %4.1f %%: single %.2f, bagging %.2f, stacking %.2f\n", 100*n.Interval, 100*n.Run, a.Single.F, a.Bagging.F, a.Stacking.F)
	}
	return nil
}

func writeExample(dir string, seed uint64) error {
	history, current, expected := ensemblesim.Example(seed)
	for _, r := range history {
		if err := writeRun(filepath.Join(dir, "history"), r); err != nil {
			return err
		}
	}
	if err := writeRun(filepath.Join(dir, "new"), current); err != nil {
		return err
	}
	fmt.Printf("wrote %d prior runs and one new run (fault: busy loop, expected %v) to %s\n", len(history), expected, dir)
	return nil
}

func writeRun(dir string, r ensemble.Run) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, r.Name+".csv"))
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	w.Write(append([]string{"time_s"}, r.Counters...))
	for t, row := range r.Intervals {
		rec := []string{strconv.Itoa(60 * t)}
		for _, v := range row {
			rec = append(rec, strconv.FormatFloat(v, 'g', -1, 64))
		}
		w.Write(rec)
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	var keys []string
	for k := range r.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	env := ""
	for _, k := range keys {
		env += k + "=" + r.Env[k] + "\n"
	}
	return os.WriteFile(filepath.Join(dir, r.Name+".env"), []byte(env), 0o644)
}
