package changepoint

import "sort"

// edivisive finds the change points of xs[s:e] (absolute indexes): the
// candidate maximising Q̂ over all current segments, kept while its t-test
// against its neighbours reaches p ≤ maxP.
func (d *Detector) edivisive(s, e int, maxP float64) []int {
	m := e - s
	if m < 3 {
		return nil
	}
	d.prefixDistances(s, e)
	var cps []int
	for {
		bounds := append(append([]int{s}, cps...), e)
		best, bestQ := -1, 0.0
		for i := 0; i+1 < len(bounds); i++ {
			if c, q := d.candidate(s, bounds[i], bounds[i+1]); c >= 0 && (best < 0 || q > bestQ) {
				best, bestQ = c, q
			}
		}
		if best < 0 {
			return cps
		}
		i := sort.SearchInts(cps, best)
		lo, hi := s, e
		if i > 0 {
			lo = cps[i-1]
		}
		if i < len(cps) {
			hi = cps[i]
		}
		if d.compare(lo, best, hi).PValue > maxP {
			return cps
		}
		cps = append(cps[:i], append([]int{best}, cps[i:]...)...)
	}
}

// prefixDistances fills d.dist with P[i][j] = Σ_{a<i, b<j} |x_{s+a} − x_{s+b}|
// for the window xs[s:e], so any block of pairwise distances is O(1).
func (d *Detector) prefixDistances(s, e int) {
	m := e - s
	w := m + 1
	d.distW = w
	if cap(d.dist) < w*w {
		d.dist = make([]float64, w*w)
	}
	d.dist = d.dist[:w*w]
	for j := 0; j < w; j++ {
		d.dist[j] = 0
	}
	xs := d.xs[s:e]
	for i := 1; i < w; i++ {
		row, prev := d.dist[i*w:(i+1)*w], d.dist[(i-1)*w:i*w]
		row[0] = 0
		var acc float64
		xi := xs[i-1]
		for j := 1; j < w; j++ {
			diff := xi - xs[j-1]
			if diff < 0 {
				diff = -diff
			}
			acc += diff
			row[j] = prev[j] + acc
		}
	}
}

// block is Σ |x_a − x_b| over a in [r0, r1), b in [c0, c1), window-relative.
func (d *Detector) block(w, r0, r1, c0, c1 int) float64 {
	p := d.dist
	return p[r1*w+c1] - p[r0*w+c1] - p[r1*w+c0] + p[r0*w+c0]
}

// candidate maximises Q̂(τ, κ) over a < τ < κ ≤ b for the segment
// xs[a:b] of the window starting at s:
//
//	Q̂ = 2/(n+m)·Σ|X−Y| − 2m/((n+m)(n−1))·Σ_{i<k}|X_i−X_k| − 2n/((n+m)(m−1))·Σ_{j<k}|Y_j−Y_k|
//
// with X = xs[a:τ] (n points) and Y = xs[τ:κ] (m points); the within-sample
// terms are 0 for a sample of one point. It returns -1 when the segment has
// fewer than 2 points.
func (d *Detector) candidate(s, a, b int) (int, float64) {
	w := d.distW
	ra, rb := a-s, b-s
	best, bestQ := -1, 0.0
	for tau := ra + 1; tau < rb; tau++ {
		n := float64(tau - ra)
		withinX := d.block(w, ra, tau, ra, tau) / 2
		for kappa := tau + 1; kappa <= rb; kappa++ {
			m := float64(kappa - tau)
			q := 2 / (n + m) * d.block(w, ra, tau, tau, kappa)
			if n > 1 {
				q -= 2 * m / ((n + m) * (n - 1)) * withinX
			}
			if m > 1 {
				q -= 2 * n / ((n + m) * (m - 1)) * d.block(w, tau, kappa, tau, kappa) / 2
			}
			if best < 0 || q > bestQ {
				best, bestQ = tau+s, q
			}
		}
	}
	return best, bestQ
}
