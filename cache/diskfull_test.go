package cache

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/perfls/perfls/internal/diskfull"
	"github.com/perfls/perfls/internal/fixture"
)

// A store on a disk that fills up says so — the cache directory, the space
// left and what to do — instead of SQLite's "disk I/O error (4874)" or
// "database or disk is full"; once space is freed it stores again.
func TestStoreOnAFullDisk(t *testing.T) {
	ctx := context.Background()
	dir, fill, free := fixture.TinyDisk(t, 2<<20)
	s, notice, err := OpenStore(ctx, dir)
	if err != nil || notice != "" {
		t.Fatalf("open on an empty disk: %v %q", err, notice)
	}
	defer s.Close()
	put := func(i int) error {
		samples := make([]float64, 2000)
		for j := range samples {
			samples[j] = float64(i*j + 1)
		}
		return s.Put(ctx, &Measurement{Key: Key{Method: fmt.Sprintf("p.A#m%d()", i), Code: "c", Machine: "m"}, Forks: []Fork{{NsPerOp: samples}}})
	}
	if err := put(0); err != nil {
		t.Fatal(err)
	}
	fill()
	var full *diskfull.Error
	for i := 1; i < 50 && err == nil; i++ { // the first writes may fit in pages SQLite holds already
		err = put(i)
	}
	if !errors.As(err, &full) || full.Dir != dir || !strings.Contains(err.Error(), "the disk holding the cache directory "+dir+" is full (") ||
		!strings.Contains(err.Error(), "set PERFLS_CACHE_DIR") {
		t.Fatalf("a write on a full disk: %v", err)
	}
	t.Log(err)
	free()
	if err := put(100); err != nil {
		t.Errorf("after freeing space: %v", err)
	}
	if got, err := s.List(ctx); err != nil || len(got) < 2 {
		t.Errorf("%d measurements after freeing space (%v)", len(got), err)
	}
}

// Opening a store on a full disk, a new one or one written before (SQLite
// then fails to create its shared-memory file: "disk I/O error (4874)"):
// the error says the disk is full.
func TestOpenOnAFullDisk(t *testing.T) {
	ctx := context.Background()
	for _, existing := range []bool{false, true} {
		t.Run(fmt.Sprint("existing=", existing), func(t *testing.T) {
			dir, fill, _ := fixture.TinyDisk(t, 1<<20)
			if existing {
				s, _, err := OpenStore(ctx, dir)
				if err != nil {
					t.Fatal(err)
				}
				if err := s.Put(ctx, &Measurement{Key: Key{Method: "p.A#m()"}, Forks: []Fork{{NsPerOp: []float64{1}}}}); err != nil {
					t.Fatal(err)
				}
				s.Close()
			}
			fill()
			s, notice, err := OpenStore(ctx, dir)
			if err == nil {
				s.Close()
			}
			t.Logf("open: %v; notice %q", err, notice)
			msg := notice
			if err != nil {
				msg = err.Error()
			}
			if !strings.Contains(msg, "the disk holding the cache directory "+dir+" is full (") {
				t.Errorf("open on a full disk: %v, notice %q", err, notice)
			}
		})
	}
}
