package ensemble

import (
	"fmt"
	"math"

	"github.com/perfls/perfls/analysis/stats"
)

// Phase1 is the seed's counter normalisation (reference §2.2, seed L78–L80):
// keep only the portion of a run that covers the test's expected Duration
// (time units from the first row; 0 keeps every row), then split it into
// equal intervals of Interval time units, each the vector of its rows'
// medians (0: every row is already one interval).
type Phase1 struct{ Duration, Interval float64 }

// Apply crops the rows to the expected duration and groups them into
// intervals.
func (p Phase1) Apply(times []float64, rows [][]float64) ([][]float64, error) {
	times, rows, err := Crop(times, rows, p.Duration)
	if err != nil {
		return nil, err
	}
	return Intervals(times, rows, p.Interval)
}

// Crop keeps the rows sampled less than duration time units after the first
// row (the seed drops the data outside the expected duration of a test,
// L80); a duration of 0 keeps every row.
func Crop(times []float64, rows [][]float64, duration float64) ([]float64, [][]float64, error) {
	if len(times) != len(rows) {
		return nil, nil, fmt.Errorf("%d times for %d rows", len(times), len(rows))
	}
	if duration < 0 || math.IsNaN(duration) || math.IsInf(duration, 0) {
		return nil, nil, fmt.Errorf("expected duration %v: must be a finite number ≥ 0", duration)
	}
	for i := 1; i < len(times); i++ {
		if times[i] < times[i-1] {
			return nil, nil, fmt.Errorf("row %d: time %v is before the previous row's %v", i+1, times[i], times[i-1])
		}
	}
	if duration == 0 || len(times) == 0 {
		return times, rows, nil
	}
	n := 0
	for n < len(times) && times[n]-times[0] < duration {
		n++
	}
	return times[:n], rows[:n], nil
}

// Intervals is Phase 1 (reference §2.2): rows sampled at times are grouped
// into intervals of width time units from the first time, and each interval
// becomes the vector of the medians of its rows (stats.Median, the lower
// middle value). A width of 0 keeps each row as one interval, for data that
// is already one row per interval. Times must not decrease.
func Intervals(times []float64, rows [][]float64, width float64) ([][]float64, error) {
	if len(times) != len(rows) {
		return nil, fmt.Errorf("%d times for %d rows", len(times), len(rows))
	}
	if width < 0 || math.IsNaN(width) || math.IsInf(width, 0) {
		return nil, fmt.Errorf("interval width %v: must be a finite number ≥ 0", width)
	}
	if width == 0 || len(rows) == 0 {
		return rows, nil
	}
	var out [][]float64
	var group [][]float64
	flush := func() {
		if len(group) == 0 {
			return
		}
		med := make([]float64, len(group[0]))
		col := make([]float64, len(group))
		for c := range med {
			for i, r := range group {
				col[i] = r[c]
			}
			med[c] = stats.Median(col)
		}
		out = append(out, med)
		group = group[:0]
	}
	cur := 0.0
	for i, t := range times {
		if i > 0 && t < times[i-1] {
			return nil, fmt.Errorf("row %d: time %v is before the previous row's %v", i+1, t, times[i-1])
		}
		if k := math.Floor((t - times[0]) / width); k != cur {
			flush()
			cur = k
		}
		group = append(group, rows[i])
	}
	flush()
	return out, nil
}
