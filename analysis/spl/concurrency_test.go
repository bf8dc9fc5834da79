package spl

import (
	"sync"
	"testing"
)

// TestConcurrentUse parses, checks and expands from many goroutines; run
// with -race to catch shared state.
func TestConcurrentUse(t *testing.T) {
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, tc := range validInputs {
				u, _ := ParseAndLint(tc.src)
				for _, f := range u.Formulas {
					ins, _ := Expand(f)
					for _, in := range ins {
						for _, c := range Comparisons(in.Body) {
							_ = in.Render(c)
						}
					}
				}
				if got := renderUnit(u); got != tc.want {
					t.Errorf("%s: %s", tc.name, got)
				}
			}
		}()
	}
	wg.Wait()
}
