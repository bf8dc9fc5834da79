package server

import (
	"context"
	"path/filepath"
	"strings"
	"sync"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/internal/trust"
)

// regressionWatch is the hover's "slower since <commit>" line: one
// change-point detector per series of a hovered method, built from the
// store on the method's first hover and fed the results recorded since
// (engine.RegressionWatch, docs/regressions.md).
type regressionWatch struct {
	once  sync.Once
	watch *engine.RegressionWatch
}

// regressionHover is the line for m when the latest change point of its
// time per op (on this machine, when it has results) is a slow-down over
// the first-parent history of the document's repository; "" otherwise.
func (s *server) regressionHover(ctx context.Context, doc *document, m *javasrc.Method) string {
	// The change points are ordered by the first-parent history, which
	// takes git: not without trust.
	if s.opts.Verdicts == nil || m.Type == nil || doc.path == "" || !trust.Trusted(ctx) || !s.inGitTree(doc.path) {
		return ""
	}
	s.regressions.once.Do(func() { s.regressions.watch = engine.NewRegressionWatch(s.opts.Verdicts) })
	method := m.Type.BinaryName + "#" + m.Name + "(" + strings.Join(erased(m), ",") + ")"
	c, err := s.regressions.watch.SlowerSince(ctx, filepath.Dir(doc.path), method)
	if err != nil {
		s.logf("regressions of %s: %v", method, err)
		return ""
	}
	if c == nil {
		return ""
	}
	return "**" + report.SlowerSince(*c) + "**"
}
