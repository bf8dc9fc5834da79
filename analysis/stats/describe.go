package stats

import (
	"math"
	"math/rand/v2"
	"slices"
)

// Described is a one-pass description of a side's runs: the pooled summary
// and each run's mean and variance. Comparisons of large measurements (10
// forks × 20,000 samples) are dominated by reading the samples, so Describe
// reads them twice at most: once for the moments and extremes, once to
// select the median.
type Described struct {
	Pooled  Summary
	RunN    []int
	RunMean []float64
	RunVar  []float64 // unbiased; 0 for runs of fewer than 2 samples
}

// Describe computes a Described; it does not modify runs. Small inputs are
// sorted for the median; large ones take one pass: bounds for the median
// come from a random sample of 1,024 values (Floyd–Rivest), and the pass
// accumulates the moments while counting the values below the bounds and
// keeping those between them. When the bounds miss the median (rare), a
// second pass selects it exactly; the result is exact either way.
func Describe(runs [][]float64) Described {
	d := Described{RunN: make([]int, len(runs)), RunMean: make([]float64, len(runs)), RunVar: make([]float64, len(runs))}
	n := 0
	var shift float64
	for _, r := range runs {
		if n == 0 && len(r) > 0 {
			shift = r[0]
		}
		n += len(r)
	}
	if n == 0 {
		return d
	}
	k := (n+1)/2 - 1
	a, b := medianBounds(runs, n, k)
	p := &d.Pooled
	p.N = n
	p.Min, p.Max = shift, shift
	var tot, totSq float64 // Σ(x−shift), Σ(x−shift)² over all runs
	below := 0
	var kept []float64
	if n > 4*medianSample {
		kept = make([]float64, 0, n/8)
	} else {
		kept = make([]float64, 0, n)
	}
	for i, r := range runs {
		rs := scanRun(r, shift, a, b, p.Min, p.Max, kept)
		kept, below = rs.kept, below+rs.below
		p.Min, p.Max = rs.lo, rs.hi
		rn := float64(len(r))
		d.RunN[i] = len(r)
		tot += rs.sum
		totSq += rs.sumSq
		if len(r) == 0 {
			d.RunMean[i] = math.NaN()
			continue
		}
		d.RunMean[i] = shift + rs.sum/rn
		if len(r) > 1 {
			d.RunVar[i] = math.Max(0, (rs.sumSq-rs.sum*rs.sum/rn)/(rn-1))
		}
	}
	if math.IsInf(a, -1) {
		below = 0
	}
	fn := float64(n)
	p.Mean = shift + tot/fn
	if n > 1 {
		p.Variance = math.Max(0, (totSq-tot*tot/fn)/(fn-1))
	}
	if k >= below && k < below+len(kept) {
		p.Median = quickselect(kept, k-below)
	} else {
		all := make([]float64, 0, n)
		for _, r := range runs {
			all = append(all, r...)
		}
		p.Median = quickselect(all, k)
	}
	return d
}

// medianSample is the size of the sample Describe takes bounds for the
// median from.
const medianSample = 1024

// medianBounds returns bounds [a, b] that hold the k-th smallest of the n
// values of runs with high probability, from a random sample; for small
// inputs a = −Inf and b = +Inf keep everything.
func medianBounds(runs [][]float64, n, k int) (a, b float64) {
	const m = medianSample
	if n <= 4*m {
		return math.Inf(-1), math.Inf(1)
	}
	rng := rand.New(rand.NewPCG(uint64(n), 0x5eed))
	sample := make([]float64, m)
	for i := range sample {
		sample[i] = at(runs, rng.IntN(n))
	}
	slices.Sort(sample)
	pos := float64(k) * m / float64(n)
	w := 4*math.Sqrt(m*0.25) + 2 // ±4 SD of the sampled rank
	return sample[max(0, int(pos-w))], sample[min(m-1, int(pos+w))]
}

// runScan is what one pass over a run found: sums of the shifted values
// and of their squares, the extremes so far, how many values lie below the
// median bounds, and the values kept between them.
type runScan struct {
	sum, sumSq float64
	lo, hi     float64
	below      int
	kept       []float64
}

// scanRun reads one run, two values at a time (two independent sums keep
// the pipeline busy), for Describe.
func scanRun(r []float64, shift, a, b, lo, hi float64, kept []float64) runScan {
	var s0, s1, q0, q1 float64
	var b0, b1 int
	j := 0
	for ; j+1 < len(r); j += 2 {
		x, z := r[j], r[j+1]
		y0, y1 := x-shift, z-shift
		s0 += y0
		s1 += y1
		q0 += y0 * y0
		q1 += y1 * y1
		if x < lo {
			lo = x
		}
		if z < lo {
			lo = z
		}
		if x > hi {
			hi = x
		}
		if z > hi {
			hi = z
		}
		// x < a without a branch: the sign bit of x − a.
		b0 += int(math.Float64bits(x-a) >> 63)
		b1 += int(math.Float64bits(z-a) >> 63)
		if x >= a && x <= b {
			kept = append(kept, x)
		}
		if z >= a && z <= b {
			kept = append(kept, z)
		}
	}
	if j < len(r) {
		x := r[j]
		y := x - shift
		s0 += y
		q0 += y * y
		lo, hi = min(lo, x), max(hi, x)
		b0 += int(math.Float64bits(x-a) >> 63)
		if x >= a && x <= b {
			kept = append(kept, x)
		}
	}
	return runScan{sum: s0 + s1, sumSq: q0 + q1, lo: lo, hi: hi, below: b0 + b1, kept: kept}
}

// at returns the j-th value of the concatenated runs.
func at(runs [][]float64, j int) float64 {
	for _, r := range runs {
		if j < len(r) {
			return r[j]
		}
		j -= len(r)
	}
	return math.NaN()
}

// quickselect returns the k-th smallest of xs, reordering xs (Hoare's
// selection with median-of-three pivots; expected O(len(xs))).
func quickselect(xs []float64, k int) float64 {
	lo, hi := 0, len(xs)-1
	for hi > lo {
		if hi-lo < 16 {
			slices.Sort(xs[lo : hi+1])
			return xs[k]
		}
		mid := lo + (hi-lo)/2
		a, b, c := xs[lo], xs[mid], xs[hi]
		pivot := max(min(a, b), min(max(a, b), c))
		i, j := lo, hi
		for i <= j {
			for xs[i] < pivot {
				i++
			}
			for xs[j] > pivot {
				j--
			}
			if i <= j {
				xs[i], xs[j] = xs[j], xs[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return xs[k]
		}
	}
	return xs[k]
}

// Runs turns the description into the parametric RunSummary without reading
// the samples again when every run has the same length (otherwise runs are
// truncated to the shortest, as SummarizeRuns does).
func (d Described) Runs(runs [][]float64, history [][]float64) (RunSummary, error) {
	o := -1
	equal := true
	for _, n := range d.RunN {
		if n < 2 {
			continue
		}
		if o >= 0 && n != o {
			equal = false
		}
		if o < 0 || n < o {
			o = n
		}
	}
	if !equal || o < 0 || len(history) > 0 {
		return SummarizeRuns(runs, history)
	}
	rs := RunSummary{O: o}
	var s2 float64
	for i, n := range d.RunN {
		if n < 2 {
			continue
		}
		rs.RunMeans = append(rs.RunMeans, d.RunMean[i])
		s2 += d.RunVar[i]
	}
	rs.R = len(rs.RunMeans)
	rs.S2 = s2 / float64(rs.R)
	rs.Mean, rs.R2 = meanVar(rs.RunMeans)
	rs.R2DF = float64(rs.R - 1)
	if rs.R < 2 {
		rs.R2 = math.NaN()
	}
	return rs, nil
}
