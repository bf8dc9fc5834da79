package main

import (
	"context"
	"os"
	"testing"

	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/internal/fixture/replay"
	"github.com/perfls/perfls/measure/service"
)

// replayed makes the commands' measurements answer from the recording
// called name (testdata/replay/NAME.json) for the rest of the test: the
// test checks wiring, flags, exit statuses and output on real results
// recorded once, while the JVM work is tested where it lives (measure,
// engine). With -record it measures in the test's cache directory and
// rewrites the recording.
func replayed(t *testing.T, name string) {
	t.Helper()
	cacheDir := os.Getenv("PERFLS_CACHE_DIR")
	s := replay.New(t, name, func() service.Service {
		st, _, err := cache.OpenStore(context.Background(), cacheDir)
		if err != nil {
			t.Fatalf("recording: %v", err)
		}
		l := service.NewLocal(context.Background(), cacheDir, st, 1)
		t.Cleanup(func() { l.Close(); st.Close() })
		return l
	})
	measuringService = s
	t.Cleanup(func() { measuringService = nil })
}
