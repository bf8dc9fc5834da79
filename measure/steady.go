package measure

import (
	"fmt"
	"time"

	"github.com/perfls/perfls/analysis/measured"
)

// A fork's figures are trusted when it reached a steady state before its
// samples and stayed there while they were taken. The harness decides the
// first (JitWatch.java: JIT compilation quiet, enough calls for the last
// compiler tier, and per-call time no longer falling); the second is checked
// here on the samples themselves.

// openConditions says what each of Fork.WarmupOpen's conditions means.
var openConditions = map[string]string{
	"calls": "too few calls for the JIT's last tier",
	"jit":   "the JIT still compiling or other threads busy",
	"trend": "time per call still falling",
	"heap":  "the heap still growing",
}

// Capped says which of forks did not reach a steady state before their
// warm-up hit its cap (WarmupSettled 0): how many, why ("; the heap still
// growing in 2": the conditions that held their warm-up open, with the
// number of forks; empty when unknown) and what to do about it.
func Capped(forks []measured.Fork) (n int, why, remedy string) {
	open := map[string]int{}
	for _, f := range forks {
		if f.WarmupSettled == 0 {
			n++
			for _, c := range f.WarmupOpen {
				open[c]++
			}
		}
	}
	for _, c := range []string{"calls", "jit", "trend", "heap"} {
		if open[c] > 0 {
			why += fmt.Sprintf("; %s in %d", openConditions[c], open[c])
		}
	}
	remedy = "raise --max-warmup"
	if open["heap"] > 0 {
		// G1 grows a default heap for seconds under heavy allocation,
		// and every growth brings untouched pages; a fixed heap
		// cannot grow (docs/measurement.md, rule 5).
		remedy += ", or fix the heap's size (--heap MB, or -Xms equal to -Xmx in jvmArgs)"
	}
	return n, why, remedy
}

// Settled returns the forks whose warm-up did not hit its cap: settled,
// or of a JVM that does not report compilation (WarmupSettled −1), whose
// warm-up lasted its minimum.
func Settled(forks []measured.Fork) []measured.Fork {
	var out []measured.Fork
	for _, f := range forks {
		if f.WarmupSettled != 0 {
			out = append(out, f)
		}
	}
	return out
}

// SteadyStateWarnings says what makes a result's figures less trustworthy:
// forks whose warm-up hit its cap before a steady state (figures may be
// high), and what DriftWarnings says. what names the measurement for the
// user; maxWarmup is the cap the forks ran with.
func SteadyStateWarnings(what string, forks []measured.Fork, maxWarmup time.Duration) []string {
	var out []string
	if capped, why, remedy := Capped(forks); capped > 0 {
		out = append(out, fmt.Sprintf("%s: %d of %d forks did not reach a steady state within %s (the warm-up cap%s): figures may be high; %s", what, capped, len(forks), maxWarmup, why, remedy))
	}
	return append(out, DriftWarnings(what, forks)...)
}

// DriftWarnings says which forks drifted while measured, and whether the
// samples ran on processors of unequal speed (UnequalProcessorWarning).
func DriftWarnings(what string, forks []measured.Fork) []string {
	var out []string
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
