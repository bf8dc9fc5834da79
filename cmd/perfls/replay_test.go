package main

import (
	"os"
	"testing"

	"github.com/perfls/perfls/internal/fixture/replay"
)

// replayed makes the commands' measurements answer from the recording
// called name (testdata/replay/NAME.json) for the rest of the test: the
// test checks wiring, flags, exit statuses and output on real results
// recorded once, while the JVM work is tested where it lives (measure,
// engine). With -record it measures in the test's cache directory and
// rewrites the recording.
func replayed(t *testing.T, name string) {
	t.Helper()
	s := replay.InCache(t, name, os.Getenv("PERFLS_CACHE_DIR"))
	measuringService = s
	t.Cleanup(func() { measuringService = nil })
}
