package cache

import (
	"context"
	"strings"
	"testing"
)

// A review is recorded on one result, read back with it, changed and
// cleared; a new result has none; an unknown ID or review is refused.
func TestReview(t *testing.T) {
	eachBackend(t, func(t *testing.T, newLocation func(*testing.T) string) {
		s := open(t, newLocation(t))
		ctx := context.Background()
		a, b := sampleMeasurement(baseKey, 1, 3), sampleMeasurement(baseKey, 1, 3)
		a.Review = ReviewPassed // Put ignores it
		for _, m := range []*Measurement{a, b} {
			if err := s.Put(ctx, m); err != nil {
				t.Fatal(err)
			}
		}
		review := func(id int64) string {
			t.Helper()
			m, err := s.Get(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			return m.Review
		}
		if got := review(a.ID); got != "" {
			t.Errorf("a new result's review %q, want none", got)
		}
		if err := s.SetReview(ctx, a.ID, ReviewRegression); err != nil {
			t.Fatal(err)
		}
		if got, other := review(a.ID), review(b.ID); got != ReviewRegression || other != "" {
			t.Errorf("reviews %q and %q, want %q and none", got, other, ReviewRegression)
		}
		ms, err := s.MeasurementsOf(ctx, baseKey.Method)
		if err != nil || len(ms) != 2 || ms[0].Review != ReviewRegression {
			t.Errorf("MeasurementsOf: %v, %v", ms, err)
		}
		for _, r := range []string{ReviewPassed, ""} {
			if err := s.SetReview(ctx, a.ID, r); err != nil {
				t.Fatal(err)
			}
			if got := review(a.ID); got != r {
				t.Errorf("review %q, want %q", got, r)
			}
		}
		if err := s.SetReview(ctx, 999, ReviewPassed); err == nil || !strings.Contains(err.Error(), "no result with that ID") {
			t.Errorf("unknown ID: %v", err)
		}
		if err := s.SetReview(ctx, a.ID, "ok"); err == nil || !strings.Contains(err.Error(), "want passed, regression or none") {
			t.Errorf("unknown review: %v", err)
		}
	})
}
