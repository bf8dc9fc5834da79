package ensemble

import (
	"fmt"
	"strings"
	"testing"
)

// Many constant counters make every combination frequent: mining stops at
// the level that would not fit, and the report says so instead of running
// out of memory.
func TestManyConstantCountersCapped(t *testing.T) {
	const n = 60 // C(60, 4) = 487,635 itemsets of 4 items
	mk := func(name string, step float64) Run {
		r := Run{Name: name}
		for c := 0; c < n; c++ {
			r.Counters = append(r.Counters, fmt.Sprint("c", c))
		}
		for i := 0; i < 30; i++ {
			row := make([]float64, n)
			for c := range row {
				row[c] = float64(c) + step*float64(i%2)
			}
			r.Intervals = append(r.Intervals, row)
		}
		return r
	}
	rep, err := Detect([]Run{mk("a", 0)}, mk("new", 0), DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Notes) == 0 || !strings.Contains(rep.Notes[0], "premises of at most 2 items") {
		t.Errorf("notes %q, want the cap on premises", rep.Notes)
	}
	if len(rep.Flagged) != 0 || rep.Models[0].Rules == 0 {
		t.Errorf("an identical run: flagged %d, %d rules", len(rep.Flagged), rep.Models[0].Rules)
	}
	// Two counters: the levels end by themselves, no note.
	env := Environment{"jvm": "21"}
	small, err := Detect([]Run{runOf("a", env, 0.2)}, runOf("b", env, 0.2), DefaultConfig())
	if err != nil || len(small.Notes) != 0 {
		t.Errorf("two counters: %v, notes %q", err, small.Notes)
	}
}
