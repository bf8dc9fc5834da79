package measure

import (
	"slices"
	"strings"
	"testing"

	"github.com/perfls/perfls/analysis/measured"
)

func TestParseAndFormatCPUs(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []int
		text string
	}{
		{"0", []int{0}, "0"},
		{"3,1", []int{1, 3}, "1,3"},
		{"0-2, 5", []int{0, 1, 2, 5}, "0-2,5"},
		{"2-3,3,0", []int{0, 2, 3}, "0,2-3"},
	} {
		got, err := ParseCPUs(c.in)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("ParseCPUs(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
		if s := FormatCPUs(got); s != c.text {
			t.Errorf("FormatCPUs(%v) = %q, want %q", got, s, c.text)
		}
	}
	for _, bad := range []string{"", "a", "-1", "3-1", "1,,2", "0-", "99999"} {
		if _, err := ParseCPUs(bad); err == nil || !strings.Contains(err.Error(), "processor list") {
			t.Errorf("ParseCPUs(%q): err %v, want a processor-list error", bad, err)
		}
	}
}

// forksOn builds forks whose samples ran on the given processors, each
// processor's samples at its own time per operation (with a little spread).
func forksOn(perCPU map[int64]float64, procs ...[]int64) []measured.Fork {
	var forks []measured.Fork
	for _, ps := range procs {
		var f measured.Fork
		for i, p := range ps {
			base := perCPU[p]
			if base == 0 {
				base = 100
			}
			f.NsPerOp = append(f.NsPerOp, base*(1+0.01*float64(i%5)))
			f.Processors = append(f.Processors, p)
		}
		forks = append(forks, f)
	}
	return forks
}

func rep(p int64, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = p
	}
	return out
}

func TestUnequalProcessorWarning(t *testing.T) {
	slow := map[int64]float64{0: 150, 1: 260}
	w := UnequalProcessorWarning("m", forksOn(slow, rep(0, 10), rep(1, 10), rep(0, 10)))
	if !strings.Contains(w, "processor 1 (10) took 1.7") || !strings.Contains(w, "processor 0 (20)") || !strings.Contains(w, "--cpus 0") {
		t.Errorf("two processors 1.7× apart: warning %q", w)
	}
	settled := forksOn(slow, rep(0, 10), rep(1, 10))
	for i := range settled {
		settled[i].WarmupSettled = 1
	}
	if w := SteadyStateWarnings("m", settled, 0); len(w) != 1 || !strings.Contains(w[0], "differ in speed") {
		t.Errorf("SteadyStateWarnings = %q, want the processor warning", w)
	}
	for name, forks := range map[string][]measured.Fork{
		"equal speed":        forksOn(map[int64]float64{0: 150, 1: 155}, rep(0, 10), rep(1, 10)),
		"one processor":      forksOn(slow, rep(1, 10), rep(1, 10)),
		"too few samples":    forksOn(slow, rep(0, 10), append(rep(0, 6), rep(1, 4)...)),
		"moved or unknown":   forksOn(slow, rep(0, 10), rep(-2, 10), rep(-1, 10)),
		"no processors read": {{NsPerOp: []float64{1, 2, 3, 4, 5, 6}}, {NsPerOp: []float64{9, 9, 9, 9, 9, 9}}},
	} {
		if w := UnequalProcessorWarning("m", forks); w != "" {
			t.Errorf("%s: warning %q, want none", name, w)
		}
	}
}
