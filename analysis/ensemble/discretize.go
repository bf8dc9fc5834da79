package ensemble

import (
	"math"
	"sort"
)

// Bins is one counter's equal-width discretisation (seed 001 Phase 2,
// reference §2.3): K bins of Width from Min, fixed over the training runs.
// Values of a later run outside [Min, Max] fall into two extra bins, Below
// and Above(), so a value no training run produced is never mistaken for an
// edge bin that some training run did produce.
type Bins struct {
	Min, Max, Width float64
	K               int
}

// Below is the bin of a value smaller than every training value.
const Below = -1

// Above is the bin of a value larger than every training value.
func (b Bins) Above() int { return b.K }

// BinCount is the seed's k = max(1, 2·log(u)) for u unique values, with the
// natural logarithm (R's log, the authors' toolchain: arules is an R package)
// rounded to the nearest integer: u = 1000 gives 14 bins.
func BinCount(u int) int {
	if u < 2 {
		return 1
	}
	return max(1, int(math.Round(2*math.Log(float64(u)))))
}

// NewBins fixes the bins of one counter from all its training values (the
// runs concatenated, the seed's T_A). values must be finite and non-empty.
func NewBins(values []float64) Bins {
	s := append([]float64(nil), values...)
	sort.Float64s(s)
	u := 0
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			u++
		}
	}
	b := Bins{Min: s[0], Max: s[len(s)-1], K: BinCount(u)}
	b.Width = (b.Max - b.Min) / float64(b.K)
	return b
}

// Index is the bin of x: 0..K-1 inside the training range, Below or Above()
// outside it.
func (b Bins) Index(x float64) int {
	switch {
	case x < b.Min:
		return Below
	case x > b.Max:
		return b.Above()
	case b.Width == 0:
		return 0
	}
	return min(int((x-b.Min)/b.Width), b.K-1)
}

// Range is the half-open interval of values bin i holds, for reports.
func (b Bins) Range(i int) (lo, hi float64) {
	switch {
	case i == Below:
		return math.Inf(-1), b.Min
	case i >= b.K:
		return b.Max, math.Inf(1)
	}
	return b.Min + float64(i)*b.Width, b.Min + float64(i+1)*b.Width
}
