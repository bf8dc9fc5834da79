package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/perfls/perfls/analysis/changepoint"
	"github.com/perfls/perfls/analysis/changepoint/cpsim"
)

// changepointBench prints precision, recall and F1 of change-point
// detection on synthetic series with injected steps (analysis/changepoint/
// cpsim), and the time to append one point to a 1,000-point series.
func changepointBench(args []string) error {
	fl := flag.NewFlagSet("changepoint", flag.ExitOnError)
	seed := fl.Uint64("seed", 1, "random seed")
	series := fl.Int("series", 200, "series per setting")
	aaSeries := fl.Int("aa-series", 1000, "series per A/A setting (no step)")
	if err := fl.Parse(args); err != nil {
		return err
	}
	cfg := changepoint.DefaultConfig()
	fmt.Printf("== changepoint: E-divisive + t-test (window %d, p ≤ %g and ≤ %g/n), %d series per setting, seed %d, match within ±%d points\n",
		cfg.WindowLen, cfg.MaxPValue, cfg.SeriesAlpha, *series, *seed, cpsim.DefaultSetting.Tolerance)
	hard := cpsim.DefaultSetting
	hard.MinStep, hard.MaxStep, hard.Noise = 0.02, 0.10, 0.03
	for _, c := range []struct {
		label string
		s     cpsim.Setting
	}{{"steps 5–30 %, noise 2 %", cpsim.DefaultSetting}, {"steps 2–10 %, noise 3 %", hard}} {
		c.s.Series = *series
		r, err := cpsim.Evaluate(*seed, c.s, cfg)
		if err != nil {
			return err
		}
		fmt.Printf("%-24s %d points: %4d steps, %4d detected, %4d matched: precision %.3f, recall %.3f, F1 %.3f\n",
			c.label, c.s.Points, r.True, r.Detected, r.Matched, r.Precision(), r.Recall(), r.F1())
	}
	// A/A: no step at all. The t-test's p is taken at the split that
	// maximises the statistic, so p ≤ MaxPValue alone (Otava's rule) does
	// not count the search over positions and the share of series flagged
	// grows with their length; SeriesAlpha bounds it.
	otava := cfg
	otava.SeriesAlpha = 0
	magnitude := cfg
	magnitude.MinMagnitude = 0.05
	for _, c := range []struct {
		label string
		cfg   changepoint.Config
	}{{"Otava's rule (p ≤ 0.001)", otava}, {fmt.Sprintf("series α %g (default)", cfg.SeriesAlpha), cfg}, {"default, min. magnitude 0.05", magnitude}} {
		for _, points := range []int{33, 100, 300} {
			s := cpsim.DefaultSetting
			s.MaxSteps, s.Series, s.Points = 0, *aaSeries, points
			r, err := cpsim.Evaluate(*seed, s, c.cfg)
			if err != nil {
				return err
			}
			fmt.Printf("A/A (no step), noise 2 %%, %-29s %3d points: %4d of %d series flagged (%.1f %%), %d detections\n",
				c.label+",", points, r.FalseSeries, s.Series, 100*float64(r.FalseSeries)/float64(s.Series), r.Detected)
		}
	}
	rng := rand.New(rand.NewPCG(*seed, 1))
	xs := make([]float64, 1100)
	for i := range xs {
		xs[i] = 100 * (1 + 0.02*rng.NormFloat64())
		if i >= 400 {
			xs[i] *= 1.15
		}
	}
	d, err := changepoint.New(cfg)
	if err != nil {
		return err
	}
	d.Append(xs[:1000]...)
	start := time.Now()
	for _, x := range xs[1000:] {
		d.Append(x)
	}
	fmt.Printf("append to a 1,000-point series: %.3f ms a point (mean of 100; go test -bench Append ./analysis/changepoint)\n",
		float64(time.Since(start))/1e6/100)
	return nil
}
