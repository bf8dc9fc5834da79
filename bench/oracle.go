package main

// The bounds oracle's validation (issue 8 §5): the seed's experiment in
// miniature. For each pair of examples/oracle, calibrate on variant A, then
// classify fresh runs of A (unchanged: should pass) and of B (changed
// behaviour: should fail), and print accuracy, false-alarm and miss rates
// and MCC per pair and overall, beside the seed's best MCC (0.94). A policy
// sweep over the same stored runs shows how the run-verdict policy was
// tuned; the runs are saved to a JSON file so the sweep can be repeated
// without measuring (-oracle-runs FILE).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/analysis/oracle"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/measure"
)

type oraclePair struct {
	Name string
	A, B string // methods on oracle.Calls#calls(1000)
}

var oraclePairs = []oraclePair{
	{"caching (strong/soft refs)", "oracle.Caching#strong", "oracle.Caching#soft"},
	{"slow leak", "oracle.Leak#clean", "oracle.Leak#leaky"},
	{"class loading", "oracle.Plugins#reuse", "oracle.Plugins#reload"},
	{"producer/consumer", "oracle.Pipeline#balanced", "oracle.Pipeline#lagging"},
	{"more work per call", "oracle.Work#base", "oracle.Work#more"},
}

// oracleOptions are the validation's forks: a fixed warm-up (so every fork
// starts measuring after about as many calls), 60 samples of at least 5 ms,
// and a small heap so the collector's rhythm shows.
func oracleOptions(forks int) measure.Options {
	return measure.Options{Forks: forks, SamplesPerFork: 60, MinSampleTime: 5 * time.Millisecond,
		Warmup: 500 * time.Millisecond, MaxWarmup: 500 * time.Millisecond, HeapMB: 128}
}

// oracleData is every run of the validation, by pair: calibration runs of
// A, then test runs of A and of B.
type oracleData struct {
	Calib, TestA, TestB map[string][]oracle.Run
}

func oracleValidation(ctx context.Context, project, runsFile string, calib, tests int) error {
	data, err := loadOracleData(runsFile)
	if err != nil {
		return err
	}
	if data == nil {
		data, err = measureOracleData(ctx, project, calib, tests)
		if err != nil {
			return err
		}
		if runsFile != "" {
			b, _ := json.Marshal(data)
			if err := os.WriteFile(runsFile, b, 0o644); err != nil {
				return fmt.Errorf("save runs: %w", err)
			}
			fmt.Printf("(runs saved to %s: -oracle-runs %s repeats the analysis without measuring)\n", runsFile, runsFile)
		}
	} else {
		fmt.Printf("(runs read from %s, no measuring)\n", runsFile)
	}
	n := len(data.Calib[oraclePairs[0].Name])
	fmt.Printf("\n== bounds oracle validation: calibrate on A with %d forks, classify %d fresh forks of A and %d of B\n",
		n, len(data.TestA[oraclePairs[0].Name]), len(data.TestB[oraclePairs[0].Name]))
	def := oracle.Config{}
	fmt.Printf("policy: the default (%s)\n\n", describePolicy(def))
	if err := oracleTable(data, def, true); err != nil {
		return err
	}
	fmt.Println("\npolicy sweep over the same runs (overall; FA = false alarms on A, miss = B passed;")
	fmt.Println("spike: any point outside ±k·sd (more than the ratio); shift: more than the ratio outside ±k·sd; - = off):")
	fmt.Printf("  %-8s %-11s %-8s %-11s %6s %6s %6s %6s\n", "spike k", "spike ratio", "shift k", "shift ratio", "acc", "FA", "miss", "MCC")
	type row struct{ k, ratio, sk, sr float64 }
	var rows []row
	for _, k := range []float64{4, 8, 12, 20} {
		rows = append(rows, row{k, 0, 0, 0}, row{k, 0.1, 0, 0})
	}
	for _, k := range []float64{12, 20} {
		for _, sk := range []float64{3, 4, 5, 6} {
			for _, sr := range []float64{0.5, 0.8} {
				rows = append(rows, row{k, 0, sk, sr})
			}
		}
	}
	for _, r := range rows {
		cfg := oracle.Config{Policy: oracle.Policy{K: r.k, MaxViolationRatio: r.ratio, ShiftK: r.sk, ShiftRatio: r.sr}}
		c, err := oracleConfusion(data, cfg, nil)
		if err != nil {
			return err
		}
		sk, sr := "-", "-"
		if r.sk > 0 {
			sk, sr = fmt.Sprint(r.sk), fmt.Sprint(r.sr)
		}
		fmt.Printf("  %-8g %-11g %-8s %-11s %6.3f %6.3f %6.3f %6.3f\n", r.k, r.ratio, sk, sr, c.Accuracy(), falseAlarm(c), missRate(c), c.MCC())
	}
	return nil
}

func describePolicy(cfg oracle.Config) string {
	p := oracle.DefaultPolicy()
	if cfg.Policy.K > 0 {
		p = cfg.Policy
	}
	return fmt.Sprintf("a metric fails when more than %g%% of its smoothed points lie outside mean ± %g·sd (a spike) or more than %g%% outside mean ± %g·sd (a sustained shift); a run fails when any metric fails",
		100*p.MaxViolationRatio, p.K, 100*p.ShiftRatio, p.ShiftK)
}

func oracleTable(data *oracleData, cfg oracle.Config, perMetric bool) error {
	fmt.Printf("%-27s %5s %5s %5s %5s %7s %7s %7s %7s  %s\n", "pair", "TP", "FN", "TN", "FP", "acc", "FA", "miss", "MCC", "metrics failing B (A)")
	var all oracle.Confusion
	for _, p := range oraclePairs {
		metrics := map[string][2]int{}
		c, err := oracleConfusion(&oracleData{
			Calib: map[string][]oracle.Run{p.Name: data.Calib[p.Name]},
			TestA: map[string][]oracle.Run{p.Name: data.TestA[p.Name]},
			TestB: map[string][]oracle.Run{p.Name: data.TestB[p.Name]},
		}, cfg, metrics)
		if err != nil {
			return err
		}
		all.TP, all.FN, all.TN, all.FP = all.TP+c.TP, all.FN+c.FN, all.TN+c.TN, all.FP+c.FP
		fmt.Printf("%-27s %5d %5d %5d %5d %7.3f %7.3f %7.3f %7.3f  %s\n", p.Name, c.TP, c.FN, c.TN, c.FP,
			c.Accuracy(), falseAlarm(c), missRate(c), c.MCC(), metricCounts(metrics))
	}
	fmt.Printf("%-27s %5d %5d %5d %5d %7.3f %7.3f %7.3f %7.3f\n", "overall", all.TP, all.FN, all.TN, all.FP,
		all.Accuracy(), falseAlarm(all), missRate(all), all.MCC())
	fmt.Printf("%-27s %5d %5d %5d %5d %7.3f %7.3f %7.3f %7.3f  (Table 5.14, simple k=20, OR over metrics)\n", "seed's best", 1554, 50, 1550, 46, 0.97, 0.029, 0.031, 0.94)
	return nil
}

// oracleConfusion classifies every test run; "regressed" is positive:
// a B run that fails is a TP, an A run that fails a FP (false alarm).
// metrics, when not nil, counts per metric how many B runs (index 0) and
// A runs (index 1) it failed.
func oracleConfusion(data *oracleData, cfg oracle.Config, metrics map[string][2]int) (oracle.Confusion, error) {
	var c oracle.Confusion
	names := make([]string, 0, len(data.Calib))
	for name := range data.Calib {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		m, err := oracle.Calibrate(data.Calib[name], cfg)
		if err != nil {
			return c, fmt.Errorf("%s: %w", name, err)
		}
		for side, runs := range [][]oracle.Run{data.TestB[name], data.TestA[name]} {
			for _, r := range runs {
				res := oracle.Classify(m, r)
				failed := res.Verdict == oracle.Fail
				switch {
				case side == 0 && failed:
					c.TP++
				case side == 0:
					c.FN++
				case failed:
					c.FP++
				default:
					c.TN++
				}
				if metrics != nil {
					for _, f := range res.Metrics {
						if f.Failed {
							v := metrics[f.Metric]
							v[side]++
							metrics[f.Metric] = v
						}
					}
				}
			}
		}
	}
	return c, nil
}

func metricCounts(m map[string][2]int) string {
	var names []string
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	s := ""
	for _, n := range names {
		if s != "" {
			s += ", "
		}
		s += fmt.Sprintf("%s %d (%d)", n, m[n][0], m[n][1])
	}
	return s
}

func falseAlarm(c oracle.Confusion) float64 { return float64(c.FP) / float64(max(c.FP+c.TN, 1)) }
func missRate(c oracle.Confusion) float64   { return float64(c.FN) / float64(max(c.FN+c.TP, 1)) }

func loadOracleData(file string) (*oracleData, error) {
	if file == "" {
		return nil, nil
	}
	b, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var d oracleData
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	return &d, nil
}

// measureOracleData measures every pair: calibration forks of A, then the
// test forks of A and B interleaved (A, B, A, B, ...), so slow drifts of the
// shared machine touch both alike.
func measureOracleData(ctx context.Context, project string, calib, tests int) (*oracleData, error) {
	e, err := setup(ctx, project)
	if err != nil {
		return nil, err
	}
	data := &oracleData{Calib: map[string][]oracle.Run{}, TestA: map[string][]oracle.Run{}, TestB: map[string][]oracle.Run{}}
	for _, p := range oraclePairs {
		start := time.Now()
		a, err := e.request(ctx, p.A, "oracle.Calls#calls", 1000)
		if err != nil {
			return nil, err
		}
		b, err := e.request(ctx, p.B, "oracle.Calls#calls", 1000)
		if err != nil {
			return nil, err
		}
		opt := oracleOptions(calib)
		res, err := measure.Measure(ctx, e.build, []measured.Request{a}, opt, nil)
		if err != nil {
			return nil, err
		}
		if res[0].Err != nil {
			return nil, res[0].Err
		}
		data.Calib[p.Name] = oracleRuns(res[0], opt)
		opt = oracleOptions(tests)
		res, err = measure.Measure(ctx, e.build, []measured.Request{a, b}, opt, nil)
		if err != nil {
			return nil, err
		}
		if err := errors.Join(res[0].Err, res[1].Err); err != nil {
			return nil, err
		}
		data.TestA[p.Name], data.TestB[p.Name] = oracleRuns(res[0], opt), oracleRuns(res[1], opt)
		fmt.Printf("measured %-27s %d + %d + %d forks in %.0f s\n", p.Name, calib, tests, tests, time.Since(start).Seconds())
	}
	return data, nil
}

func oracleRuns(r measured.Result, opt measure.Options) []oracle.Run {
	var out []oracle.Run
	for i, f := range r.Forks {
		out = append(out, oracle.Run{ID: fmt.Sprint(i), Series: f.Series(), Env: measure.OracleEnv(r.Env, opt, f.PID)})
	}
	return out
}

// calibrationTime measures what `perfls calibrate` does for N forks of a
// workload of about 1 ms per operation with perfls's default options (30
// samples of at least 1 ms per fork): the forks, building the model and
// storing runs and model in a cache.
func calibrationTime(ctx context.Context, project string, forks int) error {
	e, err := setup(ctx, project)
	if err != nil {
		return err
	}
	req, err := e.request(ctx, "oracle.Work#spin", "", 300_000)
	if err != nil {
		return err
	}
	opt := measure.Options{Forks: forks}
	start := time.Now()
	res, err := measure.Measure(ctx, e.build, []measured.Request{req}, opt, nil)
	if err != nil {
		return err
	}
	if res[0].Err != nil {
		return res[0].Err
	}
	elapsed := time.Since(start)
	dir, err := os.MkdirTemp("", "perfls-oracle-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	store, _, err := cache.OpenStore(ctx, dir)
	if err != nil {
		return err
	}
	defer store.Close()
	var runs []*cache.OracleRun
	for _, r := range oracleRuns(res[0], opt) {
		runs = append(runs, &cache.OracleRun{Run: r})
	}
	t := time.Now()
	if _, err := store.Calibrate(ctx, cache.OracleKey{Method: req.Method.String(), Args: "300000"}, runs, oracle.Config{}, nil); err != nil {
		return err
	}
	model := time.Since(t)
	s := measured.Summarize(res[0].Forks)
	fmt.Printf("== calibration time: N = %d forks × %d samples of oracle.Work#spin(300000) at %.2f ms/op\n", forks, s.SamplesPerFork, s.MeanNsPerOp/1e6)
	fmt.Printf("forks %.1f s (%.2f s per fork), model + store %.0f ms, total %.1f s\n",
		elapsed.Seconds(), elapsed.Seconds()/float64(forks), float64(model.Microseconds())/1000, time.Since(start).Seconds())
	return nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
