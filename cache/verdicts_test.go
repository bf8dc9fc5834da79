package cache

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/verdict"
)

func TestVerdictsReplaceByMethodAcrossStores(t *testing.T) {
	eachBackend(t, func(t *testing.T, newLocation func(*testing.T) string) {
		ctx := context.Background()
		dir := newLocation(t)
		a, b := open(t, dir), open(t, dir) // two processes' views of one cache
		rev0, _ := b.VerdictsRevision(ctx)
		m := verdict.MethodResult{File: "/p/A.java", Class: "p.A", Method: "m", Params: []string{"int"}, CheckedAt: time.Unix(1, 0).UTC(),
			Instances: []verdict.InstanceResult{{Formula: "f", Outcome: verdict.Satisfied}}}
		other := verdict.MethodResult{File: "/p/B.java", Class: "p.B", Method: "m", CheckedAt: time.Unix(1, 0).UTC()}
		if err := a.ReplaceVerdicts(ctx, []verdict.MethodResult{m, other}); err != nil {
			t.Fatal(err)
		}
		m.Instances[0].Outcome = verdict.Violated
		if err := a.ReplaceVerdicts(ctx, []verdict.MethodResult{m}); err != nil {
			t.Fatal(err)
		}
		if rev, _ := b.VerdictsRevision(ctx); rev == rev0 {
			t.Error("the other store did not see a new revision")
		}
		got, err := b.Verdicts(ctx)
		if err != nil || len(got) != 2 || got[0].Instances[0].Outcome != verdict.Violated || got[1].Class != "p.B" {
			t.Errorf("verdicts %+v %v", got, err)
		}
	})
}

// TestConcurrentChecksKeepEachOthersVerdicts: checks writing at once from
// several processes never lose records (a shared JSON file would).
func TestConcurrentChecksKeepEachOthersVerdicts(t *testing.T) {
	eachBackend(t, func(t *testing.T, newLocation func(*testing.T) string) {
		ctx := context.Background()
		dir := newLocation(t)
		var wg sync.WaitGroup
		for w := 0; w < 3; w++ {
			s := open(t, dir)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 20; i++ {
					r := verdict.MethodResult{File: "/p/A.java", Class: "p.A", Method: string(rune('a'+w)) + string(rune('a'+i))}
					if err := s.ReplaceVerdicts(ctx, []verdict.MethodResult{r}); err != nil {
						t.Error(err)
					}
				}
			}()
		}
		wg.Wait()
		if got, _ := open(t, dir).Verdicts(ctx); len(got) != 60 {
			t.Errorf("%d verdicts recorded, want 60", len(got))
		}
	})
}
