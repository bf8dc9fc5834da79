package cache

import (
	"context"
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
