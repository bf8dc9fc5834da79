package engine

import (
	"fmt"
	"slices"
	"testing"
)

// The search over a fake line finds the first bad commit in at most
// ⌈log2 n⌉ judgements, passes skipped commits over for their neighbours,
// and names the candidates when skipped ones hide the answer.
func TestBisectSearch(t *testing.T) {
	for n := 1; n <= 40; n++ {
		for first := 0; first < n; first++ {
			var judged []int
			got, cands, err := bisectSearch(n, func(i int) (string, error) {
				judged = append(judged, i)
				if i >= first {
					return stepBad, nil
				}
				return stepGood, nil
			})
			limit := 0
			for 1<<limit < n {
				limit++
			}
			if err != nil || got != first || cands != nil || len(judged) > limit || slices.Contains(judged, n-1) {
				t.Fatalf("n=%d first=%d: got %d %v %v after %v (limit %d)", n, first, got, cands, err, judged, limit)
			}
		}
	}
	// judge says bad from first on and skip for the skipped.
	skip := map[int]bool{7: true, 8: true}
	judge := func(first int) func(int) (string, error) {
		return func(i int) (string, error) {
			switch {
			case skip[i]:
				return stepSkip, nil
			case i >= first:
				return stepBad, nil
			}
			return stepGood, nil
		}
	}
	// Skipped commits: the neighbours decide.
	if got, cands, _ := bisectSearch(16, judge(10)); got != 10 || cands != nil {
		t.Errorf("with skips: %d %v, want 10", got, cands)
	}
	// The first bad commit sits right after skipped ones: it may be any.
	if got, cands, _ := bisectSearch(16, judge(8)); got != 9 || fmt.Sprint(cands) != "[7 8 9]" {
		t.Errorf("hidden by skips: %d %v, want 9 [7 8 9]", got, cands)
	}
	// A judgement's error ends the search.
	if _, _, err := bisectSearch(8, func(int) (string, error) { return "", fmt.Errorf("boom") }); err == nil {
		t.Error("the error was lost")
	}
}
