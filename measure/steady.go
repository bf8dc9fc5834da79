package measure

import (
	"fmt"
	"time"

	"github.com/perfls/perfls/analysis/stats"
)

// A fork's figures are trusted when it reached a steady state before its
// samples and stayed there while they were taken. The harness decides the
// first (JitWatch.java: JIT compilation quiet, enough calls for the last
// compiler tier, and per-call time no longer falling); the second is checked
// here on the samples themselves.

// Drift thresholds: a fork drifts when the medians of its first and second
// halves of samples differ by more than DriftRatio and a Mann-Whitney test
// finds the halves different at level DriftAlpha. Both are needed: with
// hundreds of samples a 1 % change is significant, and a large ratio of a
// few noisy samples is not evidence.
const (
	DriftRatio = 0.10
	DriftAlpha = 0.01
	// minDriftSamples is the least number of samples per half the test is
	// run on.
	minDriftSamples = 5
)

// Drift compares the fork's second half of samples with its first: the
// ratio of their medians (second / first), and whether the fork drifted —
// its time per operation changed while it was measured (a garbage
// collection that moved the data, a deoptimisation, a late compilation).
func (f Fork) Drift() (ratio float64, drifted bool) {
	n := len(f.NsPerOp) / 2
	if n < minDriftSamples {
		return 1, false
	}
	first, second := f.NsPerOp[:n], f.NsPerOp[len(f.NsPerOp)-n:]
	m1, m2 := stats.Median(first), stats.Median(second)
	if !(m1 > 0) {
		return 1, false
	}
	ratio = m2 / m1
	if ratio < 1+DriftRatio && ratio > 1/(1+DriftRatio) {
		return ratio, false
	}
	mw, err := stats.MannWhitney(second, first)
	return ratio, err == nil && mw.PTwoSided < DriftAlpha
}

// openConditions says what each of Fork.WarmupOpen's conditions means.
var openConditions = map[string]string{
	"calls": "too few calls for the JIT's last tier",
	"jit":   "the JIT still compiling or other threads busy",
	"trend": "time per call still falling",
	"heap":  "the heap still growing",
}

// SteadyStateWarnings says what makes a result's figures less trustworthy:
// forks whose warm-up hit its cap before a steady state (figures may be
// high), forks that drifted while measured, and samples on processors of
// unequal speed (UnequalProcessorWarning). what names the measurement
// for the user; maxWarmup is the cap the forks ran with.
func SteadyStateWarnings(what string, forks []Fork, maxWarmup time.Duration) []string {
	var out []string
	capped := 0
	open := map[string]int{}
	for _, f := range forks {
		if f.WarmupSettled == 0 {
			capped++
			for _, c := range f.WarmupOpen {
				open[c]++
			}
		}
	}
	if capped > 0 {
		why := ""
		for _, c := range []string{"calls", "jit", "trend", "heap"} {
			if open[c] > 0 {
				why += fmt.Sprintf("; %s in %d", openConditions[c], open[c])
			}
		}
		remedy := "raise --max-warmup"
		if open["heap"] > 0 {
			// G1 grows a default heap for seconds under heavy allocation,
			// and every growth brings untouched pages; a fixed heap
			// cannot grow (docs/measurement.md, rule 5).
			remedy += ", or fix the heap's size (--heap MB, or -Xms equal to -Xmx in jvmArgs)"
		}
		out = append(out, fmt.Sprintf("%s: %d of %d forks did not reach a steady state within %s (the warm-up cap%s): figures may be high; %s", what, capped, len(forks), maxWarmup, why, remedy))
	}
	for i, f := range forks {
		if ratio, drifted := f.Drift(); drifted {
			out = append(out, fmt.Sprintf("%s: fork %d drifted while measured: its second half of samples took %.2f× the time of its first (a GC that moved data, a deoptimisation, a late compilation, or the machine's speed changing); the verdicts use fork means, so this fork's mean sits between its two levels", what, i+1, ratio))
		}
	}
	if w := UnequalProcessorWarning(what, forks); w != "" {
		out = append(out, w)
	}
	return out
}
