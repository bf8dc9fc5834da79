package measure

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/analysis/stats"
)

// Processors of one machine can differ in speed: hybrid cores (performance
// and efficiency), SMT siblings of a busy core, or a virtual machine's
// vCPUs on a busy host. A measuring thread tends to stay on the processor it
// started on for a fork's whole life, so the forks of one method fall into
// groups as far apart as the processors are (docs/measurement.md, "Unequal
// processors"). Options.CPUs pins each fork's measuring thread to chosen
// processors; every sample records the processor it ran on
// (Fork.Processors), and UnequalProcessorWarnings says when they differed.

// ParseCPUs reads a processor list as taskset(1) and cpuset(7) write it:
// numbers and ranges separated by commas ("0", "0,2", "0-3,6"). The result is
// sorted and without duplicates.
func ParseCPUs(s string) ([]int, error) {
	var cpus []int
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		b := a
		if err == nil && isRange {
			b, err = strconv.Atoi(hi)
		}
		if err != nil || a < 0 || b < a || b >= 1<<14 {
			return nil, fmt.Errorf("processor list %q: %q is not a processor number or range (write e.g. 0 or 0,2 or 0-3)", s, part)
		}
		for c := a; c <= b; c++ {
			cpus = append(cpus, c)
		}
	}
	slices.Sort(cpus)
	return slices.Compact(cpus), nil
}

// CheckCPUs parses a processor list and checks that this process may run on
// each of its processors, so that a fork can be pinned to them.
func CheckCPUs(s string) ([]int, error) {
	cpus, err := ParseCPUs(s)
	if err != nil {
		return nil, err
	}
	allowed, err := allowedCPUs()
	if err != nil {
		return nil, fmt.Errorf("processor list %q: %w", s, err)
	}
	for _, c := range cpus {
		if !slices.Contains(allowed, c) {
			return nil, fmt.Errorf("processor list %q: processor %d is not one this process may use (%s)", s, c, FormatCPUs(allowed))
		}
	}
	return cpus, nil
}

// FormatCPUs writes a processor list with ranges: [0 1 2 5] is "0-2,5".
func FormatCPUs(cpus []int) string {
	var b strings.Builder
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		if j > i {
			fmt.Fprintf(&b, "%d-%d", cpus[i], cpus[j])
		} else {
			fmt.Fprintf(&b, "%d", cpus[i])
		}
		i = j + 1
	}
	return b.String()
}

// Thresholds of UnequalProcessorWarning: processors differ when the median
// time per operation of the samples on one is at least unequalRatio times
// that on another and a Mann-Whitney test finds the two apart at
// unequalAlpha. Only processors with minProcessorSamples samples count.
const (
	unequalRatio        = 1.15
	unequalAlpha        = 0.01
	minProcessorSamples = 5
)

// UnequalProcessorWarning says when a result's samples ran on processors
// of unequal speed: the fastest and the slowest processor (by median time
// per operation) and how far apart they are, with the remedy. Samples
// during which the thread moved, or on an unknown processor, are left out.
// The samples of one fork are not independent, so the test only screens;
// the ratio is what the user reads. "" when the processors agree or cannot
// be told apart.
func UnequalProcessorWarning(what string, forks []measured.Fork) string {
	by := map[int64][]float64{}
	for _, f := range forks {
		if len(f.Processors) != len(f.NsPerOp) {
			continue
		}
		for i, p := range f.Processors {
			if p >= 0 {
				by[p] = append(by[p], f.NsPerOp[i])
			}
		}
	}
	var fast, slow int64 = -1, -1
	med := map[int64]float64{}
	for p, xs := range by {
		if len(xs) < minProcessorSamples {
			continue
		}
		med[p] = stats.Median(xs)
		if fast < 0 || med[p] < med[fast] || med[p] == med[fast] && p < fast {
			fast = p
		}
		if slow < 0 || med[p] > med[slow] || med[p] == med[slow] && p < slow {
			slow = p
		}
	}
	if fast < 0 || fast == slow || !(med[fast] > 0) || med[slow]/med[fast] < unequalRatio {
		return ""
	}
	mw, err := stats.MannWhitney(by[slow], by[fast])
	if err != nil || mw.PTwoSided >= unequalAlpha {
		return ""
	}
	return fmt.Sprintf("%s: the samples on processor %d (%d) took %.2f× the time of those on processor %d (%d): "+
		"this machine's processors differ in speed (hybrid cores, a busy SMT sibling, or a virtual machine's host), or its speed changed between the forks that ran on each; "+
		"each fork's figure depends on where and when it ran: pin the forks to one processor or to processors of one kind (--cpus %d, or the setting cpus), and measure on a quiet machine",
		what, slow, len(by[slow]), med[slow]/med[fast], fast, len(by[fast]), fast)
}
