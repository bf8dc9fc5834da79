package stats

import (
	"errors"

	"gonum.org/v1/gonum/stat/distuv"
)

// BlockANOVA is the treatment F test of a randomized complete block design
// (two-way analysis of variance without replication): data[i][j] is block
// i's value under treatment j. It asks whether the treatments' levels
// differ once each block's own level is removed, with F on (k − 1,
// (b − 1)(k − 1)) degrees of freedom, as statsmodels' anova_lm of
// y ~ C(block) + C(treatment) gives it (testdata/gen_blocks.py). It needs
// at least 2 blocks and 2 treatments, the same number in every block.
func BlockANOVA(data [][]float64) (f, p float64, err error) {
	b := len(data)
	if b < 2 {
		return 0, 0, errors.New("block ANOVA: need at least 2 blocks")
	}
	k := len(data[0])
	if k < 2 {
		return 0, 0, errors.New("block ANOVA: need at least 2 treatments")
	}
	rowMean := make([]float64, b)
	colMean := make([]float64, k)
	var grand float64
	for i, row := range data {
		if len(row) != k {
			return 0, 0, errors.New("block ANOVA: blocks of unequal size")
		}
		for j, v := range row {
			rowMean[i] += v / float64(k)
			colMean[j] += v / float64(b)
			grand += v / float64(b*k)
		}
	}
	var ssTreat, ssResid float64
	for j := range colMean {
		d := colMean[j] - grand
		ssTreat += float64(b) * d * d
	}
	for i, row := range data {
		for j, v := range row {
			r := v - rowMean[i] - colMean[j] + grand
			ssResid += r * r
		}
	}
	df1, df2 := float64(k-1), float64((b-1)*(k-1))
	if ssResid == 0 {
		if ssTreat == 0 {
			return 0, 1, nil
		}
		return 0, 0, errors.New("block ANOVA: no residual variation")
	}
	f = (ssTreat / df1) / (ssResid / df2)
	return f, distuv.F{D1: df1, D2: df2}.Survival(f), nil
}
