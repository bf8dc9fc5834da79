package verdict

import (
	"fmt"

	"github.com/perfls/perfls/analysis/spl"
)

// Input is one comparison of a formula instance, ready to decide: the
// comparison node in the instance's body, its text with the bound values,
// and its two measured sides.
type Input struct {
	Node        *spl.Comparison
	Text        string
	Left, Right Side
}

// DecideInstance decides each comparison of one formula instance (Compare)
// and the instance from them by Kleene's three-valued logic over body. The
// caller fills in the formula, line and instance label. The instance is
// Failed when it is undecided because a comparison could not be decided for
// an error (a side's reference or measurement failed), as opposed to a lack
// of evidence (too few forks, too much noise): check exits 2 on the first and
// not on the second.
func DecideInstance(body spl.Expr, cs []Input, opt Options) InstanceResult {
	outcomes := make(map[*spl.Comparison]Outcome, len(cs))
	var ir InstanceResult
	failed := false
	for _, c := range cs {
		cv := Compare(c.Node.Op, c.Left, c.Right, c.Node.Interval, opt)
		outcomes[c.Node] = cv.Outcome
		failed = failed || cv.Failed
		ir.Comparisons = append(ir.Comparisons, ComparisonResult{
			Text: c.Text, Outcome: cv.Outcome, Evidence: cv.Evidence, Reason: cv.Reason, Failed: cv.Failed, PReject: cv.PReject,
		})
	}
	ir.Outcome = Combine(body, func(c *spl.Comparison) Outcome { return outcomes[c] })
	ir.Failed = ir.Outcome == Undecided && failed
	return ir
}

// Looks is how many times a check that starts with forks forks per
// measurement and adds as many again while instances are undecided for lack
// of evidence, up to maxForks, may decide: 1 + ⌈(maxForks − forks)/forks⌉.
// Each look tests at α/Looks (Bonferroni), so the chance of any false
// verdict over all looks stays within α.
func Looks(forks, maxForks int) int {
	if forks < 1 || maxForks <= forks {
		return 1
	}
	return 1 + (maxForks-forks+forks-1)/forks
}

// Counts are the instances of some results by outcome; Undecided counts
// those undecided for lack of evidence, Failed those undecided because of an
// error.
type Counts struct {
	Satisfied, Violated, Undecided, Failed int
}

// Count counts the instances of results.
func Count(results []MethodResult) Counts {
	var c Counts
	for _, m := range results {
		for _, in := range m.Instances {
			c.Add(in)
		}
	}
	return c
}

// Add counts one instance.
func (c *Counts) Add(in InstanceResult) {
	switch {
	case in.Failed:
		c.Failed++
	case in.Outcome == Satisfied:
		c.Satisfied++
	case in.Outcome == Violated:
		c.Violated++
	default:
		c.Undecided++
	}
}

// Overall is the outcome of all instances together (their conjunction):
// violated when one is, satisfied when all are, else undecided.
func (c Counts) Overall() Outcome {
	switch {
	case c.Violated > 0:
		return Violated
	case c.Undecided == 0 && c.Failed == 0:
		return Satisfied
	}
	return Undecided
}

// String reads "3 satisfied, 1 violated, 0 undecided", with ", 2 failed"
// when instances could not be decided because of errors.
func (c Counts) String() string {
	s := fmt.Sprintf("%d satisfied, %d violated, %d undecided", c.Satisfied, c.Violated, c.Undecided)
	if c.Failed > 0 {
		s += fmt.Sprintf(", %d failed", c.Failed)
	}
	return s
}
