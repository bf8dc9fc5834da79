package regression

import (
	"errors"
	"math/rand"
	"testing"

	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/analysis/verdict"
)

// side is forks of samples around mean with 1 % noise.
func side(rng *rand.Rand, forks, samples int, mean float64) verdict.Side {
	var s verdict.Side
	for range forks {
		run := make([]float64, samples)
		for i := range run {
			run[i] = mean * (1 + 0.01*rng.NormFloat64())
		}
		s.Runs = append(s.Runs, run)
	}
	return s
}

// 30 % slower is slower, 30 % faster faster, the same time same; two forks
// a side of ±20 % noise are undecided and ask for more forks; a failed
// side is undecided and failed, with both errors.
func TestDecideChange(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	opt := verdict.Options{Alpha: verdict.DefaultAlpha}
	base := side(rng, 5, 20, 100)
	for _, tc := range []struct {
		head    verdict.Side
		verdict string
		more    bool
	}{
		{side(rng, 5, 20, 130), report.Slower, false},
		{side(rng, 5, 20, 70), report.Faster, false},
		{side(rng, 5, 20, 100), report.Same, false},
	} {
		var c report.DiffChange
		more := DecideChange(&c, tc.head, base, opt)
		if c.Verdict != tc.verdict || more != tc.more || c.Failed || c.Ratio <= 0 || c.Low > c.Ratio || c.High < c.Ratio {
			t.Errorf("want %s: %+v, more %v", tc.verdict, c, more)
		}
	}
	var c report.DiffChange
	noisyHead := verdict.Side{Runs: [][]float64{{100, 130, 90}, {80, 120, 110}}}
	noisyBase := verdict.Side{Runs: [][]float64{{95, 125, 100}, {90, 105, 115}}}
	if more := DecideChange(&c, noisyHead, noisyBase, opt); c.Verdict != report.Undecided || !more || c.Failed || c.Reason == "" {
		t.Errorf("two noisy forks a side: %+v, more %v; want undecided, more forks", c, more)
	}
	c = report.DiffChange{}
	if more := DecideChange(&c, verdict.Side{Err: errors.New("head threw")}, verdict.Side{Err: errors.New("base threw")}, opt); more ||
		c.Verdict != report.Undecided || !c.Failed || c.Reason != "base threw\nhead threw" {
		t.Errorf("failed sides: %+v, more %v", c, more)
	}
}

// A side's figures: the mean of the fork means, its interval, the fewest
// samples of a fork; none for a failed or empty side.
func TestFigures(t *testing.T) {
	f := Figures(verdict.Side{Runs: [][]float64{{1, 3}, {3, 5, 7}, {}}}, true)
	if f == nil || f.Forks != 3 || f.Samples != 0 || f.MeanNs != 3.5 || !f.Cached || f.LowNs >= 3.5 || f.HighNs <= 3.5 {
		t.Errorf("figures %+v", f)
	}
	if f := Figures(verdict.Side{Runs: [][]float64{{1, 3}, {3, 5}}}, false); f.Samples != 2 || f.MeanNs != 3 {
		t.Errorf("figures %+v", f)
	}
	if Figures(verdict.Side{Err: errors.New("x"), Runs: [][]float64{{1}}}, false) != nil || Figures(verdict.Side{}, false) != nil {
		t.Error("figures of a failed or empty side")
	}
}

// Only a slow-down with environment differences becomes "environment
// differs", its reason naming them.
func TestEnvironmentVerdict(t *testing.T) {
	c := report.DiffChange{Verdict: report.Slower}
	EnvironmentVerdict(&c, []string{"memory MiB 8192 → 24105", "cores 2 → 4"})
	if c.Verdict != report.EnvironmentDiffers || c.Reason != "the base was measured in another environment: memory MiB 8192 → 24105, cores 2 → 4" {
		t.Errorf("%+v", c)
	}
	for _, tc := range []struct {
		verdict string
		diffs   []string
	}{{report.Slower, nil}, {report.Faster, []string{"cores 2 → 4"}}, {report.Same, []string{"cores 2 → 4"}}} {
		c := report.DiffChange{Verdict: tc.verdict}
		if EnvironmentVerdict(&c, tc.diffs); c.Verdict != tc.verdict || c.Reason != "" {
			t.Errorf("%s with %v became %+v", tc.verdict, tc.diffs, c)
		}
	}
}
