//go:build unix

package service

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/perfls/perfls/measure"
)

// Items measured together take turns fork by fork, as measure.Measure does,
// instead of running one item's forks back to back; each result still holds
// every fork and is stored once.
func TestItemsInterleaveForks(t *testing.T) {
	if testing.Short() {
		t.Skip("forks JVMs")
	}
	ctx := context.Background()
	local := NewLocal(ctx, t.TempDir(), 1)
	defer local.Close()
	item := func(n int64) Item {
		return Item{
			Method:    measure.MethodSpec{Class: "w.Work", Name: "spin"},
			Generator: measure.MethodSpec{Class: "w.Work", Name: "gen"},
			Args:      []measure.Arg{measure.IntArg(n)},
		}
	}
	p := Params{Project: project(t), Options: quick(), Priority: Batch, Items: []Item{item(1000), item(3000)}}
	var mu sync.Mutex
	var started []string // "arg:fork" in the order forks finished
	r, err := local.Measure(ctx, p, func(pr Progress) {
		if pr.NsPerOp == 0 {
			return
		}
		arg := "1000"
		if strings.Contains(pr.Message, "(3000)") {
			arg = "3000"
		}
		mu.Lock()
		started = append(started, arg+":"+string(rune('0'+pr.Fork)))
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, it := range r.Items {
		if it.Error != "" || len(it.Forks) != 2 || it.CacheID == 0 {
			t.Fatalf("item %d: %+v", i, it)
		}
	}
	if got := strings.Join(started, " "); got != "1000:1 3000:1 1000:2 3000:2" {
		t.Errorf("forks finished in order %q, want the two items to take turns", got)
	}
}
