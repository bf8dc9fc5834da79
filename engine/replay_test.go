package engine

import (
	"context"
	"testing"

	"github.com/perfls/perfls/internal/fixture/replay"
	"github.com/perfls/perfls/measure"
	"github.com/perfls/perfls/measure/service"
)

// openReplayed is openEngine whose measurements answer from the recording
// called name (testdata/replay/NAME.json): for tests of what the engine
// does with measurements — deciding, bisecting, comparing profiles —
// whose JVM work is tested where it lives and in the command line's
// conformance matrix. With -record the engine measures for real and the
// recording is rewritten.
func openReplayed(t *testing.T, name string, base measure.Options) *Engine {
	t.Helper()
	e := openEngine(t, base)
	e.cfg.Given = replay.New(t, name, func() service.Service { return e.localService(context.Background()) })
	return e
}
