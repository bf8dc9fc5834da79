package engine

import (
	"context"
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/measure"
)

// perfls history: a method's results over commits and machines, oldest
// first, each with its commit, machine and figure.
func TestMethodHistory(t *testing.T) {
	ctx := context.Background()
	e := openEngine(t, small)
	store, err := e.Store()
	if err != nil {
		t.Fatal(err)
	}
	put := func(commit, machine string, at int64, forkMeans ...float64) {
		env, _ := json.Marshal(measure.Environment{Commit: commit, JavaVendor: "Debian", JavaVersion: "17", Perfls: "v1"})
		m := &cache.Measurement{Key: cache.Key{Method: "p.A#m(int)", Workload: "p.A#gen(int)", Args: "10", Code: "c-" + commit, Machine: machine},
			Environment: env, CreatedAt: time.Unix(at, 0)}
		for _, x := range forkMeans {
			m.Forks = append(m.Forks, cache.Fork{NsPerOp: []float64{x - 1, x + 1}})
		}
		if err := store.Put(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	put("bbb", "cpu y, 8 cores", 200, 50)
	put("aaa", "cpu x, 2 cores", 100, 10, 12, 14)
	rows, err := e.MethodHistory(ctx, "p.A#m")
	if err != nil || len(rows) != 2 {
		t.Fatalf("rows %+v, %v", rows, err)
	}
	r := rows[0]
	if r.Commit != "aaa" || r.Machine != "cpu x, 2 cores" || r.JVM != "Debian 17" || r.Forks != 3 || r.Samples != 6 || r.MeanNs != 12 {
		t.Errorf("first row %+v", r)
	}
	// Fork means 10, 12, 14: sd 2, t(0.975, 2) = 4.303; half-width 4.303·2/√3.
	if h := 4.302653 * 2 / math.Sqrt(3); math.Abs(r.CIHighNs-12-h) > 1e-3 || math.Abs(12-r.CILowNs-h) > 1e-3 {
		t.Errorf("CI [%g, %g], want 12 ± %g", r.CILowNs, r.CIHighNs, h)
	}
	if rows[1].Commit != "bbb" || rows[1].CILowNs != 0 {
		t.Errorf("second row (one fork: no interval) %+v", rows[1])
	}
	if _, err := e.MethodHistory(ctx, "binarySearch"); err == nil {
		t.Error("a method without its class was accepted")
	}
}
