package cache

import (
	"context"
	"testing"
)

// A result keeps the commit and tree hash it was measured at, read back by
// Get and MeasurementsOf; one stored without them reads as "" (older
// results, a directory outside git).
func TestCommitAndTreeKept(t *testing.T) {
	eachBackend(t, func(t *testing.T, newLocation func(*testing.T) string) {
		s := open(t, newLocation(t))
		ctx := context.Background()
		a, b := sampleMeasurement(baseKey, 1, 3), sampleMeasurement(baseKey, 1, 3)
		a.Commit, a.Tree = "1a2b3c4d5e6f7a8b9c0d1a2b3c4d5e6f7a8b9c0d", "0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e"
		for _, m := range []*Measurement{a, b} {
			if err := s.Put(ctx, m); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.Get(ctx, a.ID)
		if err != nil || got.Commit != a.Commit || got.Tree != a.Tree {
			t.Errorf("got commit %q tree %q (%v), want %q %q", got.Commit, got.Tree, err, a.Commit, a.Tree)
		}
		ms, err := s.MeasurementsOf(ctx, baseKey.Method)
		if err != nil || len(ms) != 2 || ms[0].Commit != a.Commit || ms[1].Commit != "" || ms[1].Tree != "" {
			t.Errorf("MeasurementsOf: %v %v", ms, err)
		}
	})
}

// A result found again at other commits keeps them, once each, never its
// own; a result deleted takes them along.
func TestSeenAtKept(t *testing.T) {
	eachBackend(t, func(t *testing.T, newLocation func(*testing.T) string) {
		s := open(t, newLocation(t))
		ctx := context.Background()
		a := sampleMeasurement(baseKey, 1, 3)
		a.Commit = "1a2b3c4d5e6f7a8b9c0d1a2b3c4d5e6f7a8b9c0d"
		if err := s.Put(ctx, a); err != nil {
			t.Fatal(err)
		}
		other := "2b3c4d5e6f7a8b9c0d1a2b3c4d5e6f7a8b9c0d1a"
		for _, c := range []string{other, other, a.Commit, ""} {
			if err := s.SeenAt(ctx, a.ID, c); err != nil {
				t.Fatalf("SeenAt %q: %v", c, err)
			}
		}
		if err := s.SeenAt(ctx, a.ID+100, other); err != nil {
			t.Errorf("SeenAt of a result not there: %v, want nothing recorded and no error", err)
		}
		got, err := s.Get(ctx, a.ID)
		if err != nil || len(got.SeenAt) != 1 || got.SeenAt[0] != other {
			t.Errorf("SeenAt = %q (%v), want [%s]", got.SeenAt, err, other)
		}
	})
}
