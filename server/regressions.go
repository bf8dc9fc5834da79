package server

import (
	"context"
	"path/filepath"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/internal/trust"
	"github.com/perfls/perfls/server/internal/session"
)

// regressionHover is the line for m when the latest change point of its
// time per op (on this machine, when it has results) is a slow-down over
// the first-parent history of the document's repository; "" otherwise.
// Its detectors live in Records (engine.RegressionWatch over the store).
func (s *server) regressionHover(ctx context.Context, doc *document, m *javasrc.Method) string {
	// The change points are ordered by the first-parent history, which
	// takes git: not without trust.
	records := s.sess.Records()
	if records == nil || m.Type == nil || doc.Path == "" || !trust.Trusted(ctx) || !s.sess.InGitTree(doc.Path) {
		return ""
	}
	method := session.MethodKey(m.Type.BinaryName, m.Name, erased(m))
	c, err := records.SlowerSince(ctx, filepath.Dir(doc.Path), method)
	if err != nil {
		s.logf("regressions of %s: %v", method, err)
		return ""
	}
	if c == nil {
		return ""
	}
	// The line is an alert; the command that follows it to its cause is
	// the next thing a user wants (docs/regressions.md, "From alert to cause").
	return "**" + report.SlowerSince(*c) + "**  \nwhy: `perfls explain --method " + method + "` (the first bad commit and what grew in its profile)"
}
