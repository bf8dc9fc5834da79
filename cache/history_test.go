package cache

import (
	"context"
	"slices"
	"testing"
	"time"
)

// A method's history holds its complete measurements on every machine and
// code, oldest first, whether named with or without its parameters, and
// nothing of a method whose name only starts the same.
func TestMeasurementsOf(t *testing.T) {
	eachBackend(t, func(t *testing.T, newLocation func(*testing.T) string) {
		ctx := context.Background()
		s := open(t, newLocation(t))
		put := func(k Key, at int64, prelim bool) {
			m := sampleMeasurement(k, 1, 3)
			m.CreatedAt, m.Preliminary = time.Unix(at, 0), prelim
			if err := s.Put(ctx, m); err != nil {
				t.Fatal(err)
			}
		}
		other := baseKey
		other.Machine, other.Code = "cpu y8", "c2"
		longer := baseKey
		longer.Method = "p.A#mm(int[])"
		put(other, 200, false)
		put(baseKey, 100, false)
		put(baseKey, 300, true)
		put(longer, 150, false)
		for _, name := range []string{"p.A#m", "p.A#m(int[])"} {
			ms, err := s.MeasurementsOf(ctx, name)
			if err != nil || len(ms) != 2 || ms[0].Key != baseKey || ms[1].Key != other {
				t.Errorf("%s: %d measurements, %v", name, len(ms), err)
			}
		}
	})
}

// LookupOther finds the newest complete measurement of exactly the key
// that is none of the used ones: another run's forks.
func TestLookupOther(t *testing.T) {
	eachBackend(t, func(t *testing.T, newLocation func(*testing.T) string) {
		ctx := context.Background()
		s := open(t, newLocation(t))
		var ids []int64
		for i := range 3 {
			m := sampleMeasurement(baseKey, 2, 3)
			m.CreatedAt = time.Unix(int64(100+i), 0)
			s.Put(ctx, m)
			ids = append(ids, m.ID)
		}
		prelim := sampleMeasurement(baseKey, 2, 3)
		prelim.Preliminary, prelim.CreatedAt = true, time.Unix(500, 0)
		s.Put(ctx, prelim)
		for _, c := range []struct {
			used []int64
			want int64
		}{{nil, ids[2]}, {[]int64{ids[2]}, ids[1]}, {[]int64{ids[2], ids[1]}, ids[0]}, {ids, 0}} {
			m, err := s.LookupOther(ctx, baseKey, c.used)
			var got int64
			if m != nil {
				got = m.ID
			}
			if err != nil || got != c.want {
				t.Errorf("used %v: got %d (%v), want %d", c.used, got, err, c.want)
			}
		}
	})
}

// MeasurementsOfAfter reads only a method's complete measurements above an
// ID, in ID order, skips what the reader has, and says the store's highest
// ID, which drops when the store is emptied.
func TestMeasurementsOfAfter(t *testing.T) {
	eachBackend(t, func(t *testing.T, newLocation func(*testing.T) string) {
		ctx := context.Background()
		s := open(t, newLocation(t))
		other := baseKey
		other.Method = "p.A#mm(int[])"
		var mine []int64
		var highest int64
		for i, c := range []struct {
			k      Key
			prelim bool
		}{{baseKey, false}, {other, false}, {baseKey, false}, {baseKey, true}, {baseKey, false}, {other, false}} {
			m := sampleMeasurement(c.k, 1, 3)
			// Created out of ID order: the order asked for is the IDs'.
			m.CreatedAt, m.Preliminary = time.Unix(int64(100-i), 0), c.prelim
			if err := s.Put(ctx, m); err != nil {
				t.Fatal(err)
			}
			if c.k == baseKey && !c.prelim {
				mine = append(mine, m.ID)
			}
			highest = m.ID
		}
		idsOf := func(ms []*Measurement) []int64 {
			var out []int64
			for _, m := range ms {
				out = append(out, m.ID)
			}
			return out
		}
		for _, c := range []struct {
			after int64
			skip  func(int64) bool
			want  []int64
		}{
			{0, nil, mine},
			{mine[0], nil, mine[1:]},
			{0, func(id int64) bool { return id == mine[1] }, []int64{mine[0], mine[2]}},
			{mine[2], nil, nil},
		} {
			ms, last, err := s.MeasurementsOfAfter(ctx, "p.A#m", c.after, c.skip)
			if err != nil || !slices.Equal(idsOf(ms), c.want) || last != highest {
				t.Errorf("after %d: %v, last %d, %v; want %v, last %d", c.after, idsOf(ms), last, err, c.want, highest)
			}
			for _, m := range ms {
				if m.Key != baseKey || len(m.Forks) != 1 {
					t.Errorf("measurement %d: %+v", m.ID, m.Key)
				}
			}
		}
		if err := s.Clear(ctx); err != nil {
			t.Fatal(err)
		}
		if ms, last, err := s.MeasurementsOfAfter(ctx, "p.A#m(int[])", 0, nil); err != nil || len(ms) != 0 || last != 0 {
			t.Errorf("emptied: %d measurements, last %d, %v", len(ms), last, err)
		}
	})
}
