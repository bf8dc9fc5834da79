package engine

import "testing"

// A selection names its workload as written: "none" is no generator, a
// generator is kept, and what does not parse says so.
func TestSelectionNamed(t *testing.T) {
	w, err := Selection{Method: "p.A#m", Workload: NoWorkload, Args: "3"}.Named()
	if err != nil || w.Generator != nil || w.Method.String() != "p.A#m" || len(w.Args) != 1 {
		t.Errorf("--workload none: %+v, %v", w, err)
	}
	w, err = Selection{Method: "p.A#m", Workload: "p.A#gen", Args: "3"}.Named()
	if err != nil || w.Generator == nil || w.Generator.String() != "p.A#gen" {
		t.Errorf("a generator: %+v, %v", w, err)
	}
	if _, err := (Selection{Method: "p.A", Workload: "p.A#gen"}).Named(); err == nil {
		t.Error("a method without #name parsed")
	}
}
