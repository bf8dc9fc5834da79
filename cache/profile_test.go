package cache

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestProfiles: a profile is found by its key and kind, is stale for other
// code of the same series, replaces the older profile of its series, is
// listed by method, and goes with Clear.
func TestProfiles(t *testing.T) {
	eachBackend(t, func(t *testing.T, newLocation func(*testing.T) string) {
		ctx := context.Background()
		s := open(t, newLocation(t))
		if p, stale, err := s.LookupProfile(ctx, KindProfile, baseKey); p != nil || stale || err != nil {
			t.Fatalf("empty store: %v %v %v", p, stale, err)
		}
		if err := s.PutProfile(ctx, &Profile{Key: baseKey, Summary: []byte(`{}`)}); err == nil {
			t.Error("a profile without a kind was stored")
		}
		first := &Profile{Kind: KindProfile, Key: baseKey, Summary: []byte(`{"Version":1}`), CreatedAt: time.Unix(100, 0)}
		if err := s.PutProfile(ctx, first); err != nil {
			t.Fatal(err)
		}
		// A measurement of the same key is not a profile.
		if err := s.Put(ctx, sampleMeasurement(baseKey, 1, 3)); err != nil {
			t.Fatal(err)
		}
		p, stale, err := s.LookupProfile(ctx, KindProfile, baseKey)
		if err != nil || stale || p == nil || p.ID != first.ID || string(p.Summary) != `{"Version":1}` || p.Key != baseKey {
			t.Fatalf("lookup: %+v %v %v", p, stale, err)
		}
		if p, _, _ := s.LookupProfile(ctx, "other", baseKey); p != nil {
			t.Errorf("another kind found %+v", p)
		}
		edited := baseKey
		edited.Code = "c2"
		if p, stale, _ := s.LookupProfile(ctx, KindProfile, edited); p == nil || !stale {
			t.Errorf("edited code: %+v stale %v", p, stale)
		}
		second := &Profile{Kind: KindProfile, Key: edited, Summary: []byte(`{"Version":2}`)}
		if err := s.PutProfile(ctx, second); err != nil {
			t.Fatal(err)
		}
		all, err := s.ProfilesOf(ctx, KindProfile, func(m string) bool { return strings.HasPrefix(m, "p.A#m(") })
		if err != nil || len(all) != 1 || all[0].ID != second.ID {
			t.Fatalf("profiles of p.A#m: %d %v (the older one of the series should be gone)", len(all), err)
		}
		if none, _ := s.ProfilesOf(ctx, KindProfile, func(string) bool { return false }); len(none) != 0 {
			t.Errorf("match none: %d", len(none))
		}
		if err := s.Clear(ctx); err != nil {
			t.Fatal(err)
		}
		if p, _, _ := s.LookupProfile(ctx, KindProfile, edited); p != nil {
			t.Errorf("after Clear: %+v", p)
		}
	})
}
