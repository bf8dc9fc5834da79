package server

// Revisions in the editor (docs/revisions.md): hovering "@rev" in a formula
// shows the commit it names and that revision's figures in the formula's
// latest verdict; a "Compare with base" lens on methods with workloads, in
// a git work tree, runs perfls diff for that method as a measuring job.

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.lsp.dev/protocol"

	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/analysis/spl"
	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/measure/revision"
)

// CommandCompareBase measures one method's workloads in the working tree
// and at the base commit and says which became slower; it runs code of
// the workspace (and of the base commit), like measuring.
const CommandCompareBase = "perfls.compareWithBase"

// newCompareBaseCommand builds the typed command of a "Compare with base"
// code lens.
func newCompareBaseCommand(title string, args MethodArgs) *protocol.Command {
	return &protocol.Command{Title: title, Command: CommandCompareBase, Arguments: []any{args}}
}

// compareLens is the "Compare with base" lens; after a comparison its
// title sums it up ("vs base · 1 slower ×1.8").
func (s *server) compareLens(args MethodArgs, at protocol.Range, allowed bool) protocol.CodeLens {
	title := "⇄ Compare with base"
	if d, _ := s.sess.Diffs.Get(profileKey(args)); d != nil {
		title = "⇄ vs base · " + diffSummary(d)
	}
	return protocol.CodeLens{Range: at, Command: action(allowed, newCompareBaseCommand(title, args))}
}

// diffSummary counts a comparison's verdicts, the largest slow-down first.
func diffSummary(d *report.Diff) string {
	n := map[string]int{}
	worst := 0.0
	for _, c := range d.Changes {
		n[c.Verdict]++
		if c.Verdict == report.Slower {
			worst = max(worst, float64(c.Ratio))
		}
	}
	var parts []string
	if n[report.Slower] > 0 {
		parts = append(parts, fmt.Sprintf("%d slower (up to ×%.3g)", n[report.Slower], worst))
	}
	for _, v := range []string{report.Faster, report.Same, report.Undecided} {
		if n[v] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[v], v))
		}
	}
	if len(d.Unchanged) > 0 && len(d.Changes) == 0 {
		parts = append(parts, "unchanged")
	}
	if len(parts) == 0 {
		return "nothing compared"
	}
	return strings.Join(parts, ", ")
}

// executeCompareBase runs perfls.compareWithBase; ok is false for other
// commands.
func (s *server) executeCompareBase(ctx context.Context, p *protocol.ExecuteCommandParams) (result any, ok bool, err error) {
	if p.Command != CommandCompareBase {
		return nil, false, nil
	}
	args, err := s.measuringMethodArgs(p)
	if err != nil {
		return nil, true, err
	}
	key := profileKey(args)
	req := s.request(args)
	req.Warn = func(msg string) {
		s.showMessage(context.WithoutCancel(ctx), protocol.MessageTypeWarning, "perfls: "+msg)
	}
	return started(s.runQueued(ctx, "compare "+key, "comparing "+args.Class+"#"+args.Method+" with the base commit", func(jobCtx context.Context, progress func(string)) (string, func(context.Context), error) {
		d, err := s.opts.Actions.DiffMethod(jobCtx, req, progress)
		if err != nil {
			return "", nil, err
		}
		s.sess.Diffs.Set(key, d)
		var b strings.Builder
		fmt.Fprintf(&b, "%s#%s vs base %.12s (%s): %s", args.Class, args.Method, d.Base, d.BaseName, diffSummary(d))
		for _, c := range d.Changes {
			if c.Verdict == report.Slower {
				fmt.Fprintf(&b, "; slower: %s(%s) ×%.3g [%.3g, %.3g]", workloadName(c.Workload), c.Args, float64(c.Ratio), float64(c.Low), float64(c.High))
			}
		}
		return b.String(), func(bg context.Context) { s.refreshCodeLenses(bg) }, nil
	})), true, nil
}

// workloadName is a workload's method name without package and
// parameters: "p.Gen#ints(int)" → "ints".
func workloadName(w string) string {
	w, _, _ = strings.Cut(w, "(")
	if i := strings.LastIndexAny(w, "#."); i >= 0 {
		w = w[i+1:]
	}
	return w
}

// revisionHover describes the commit a "@rev" of the hovered reference
// names (its own or its alias's) and that side's figures in the formula's
// latest verdict; "" when the reference names no revision.
func (s *server) revisionHover(ctx context.Context, doc *document, f *workspace.Formula, r *workspace.Ref) string {
	var m *spl.MethodRef
	switch {
	case r.Alias != nil && r.Alias.Method != nil:
		m = r.Alias.Method
	case r.Method != nil:
		m = r.Method
	}
	if m == nil || m.Revision == "" || m.Revision == "HEAD" || s.opts.Actions == nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	var b strings.Builder
	info, err := s.opts.Actions.Revision(ctx, filepath.Dir(doc.Path), m.Revision)
	if err != nil {
		fmt.Fprintf(&b, "**revision** `@%s`: %v\n", m.Revision, err)
		return b.String()
	}
	fmt.Fprintf(&b, "**revision** `@%s`: commit `%.12s`", m.Revision, info.Commit)
	if !info.Date.IsZero() {
		fmt.Fprintf(&b, ", %s", info.Date.Format("2006-01-02"))
	}
	if info.Subject != "" {
		fmt.Fprintf(&b, " — %s", info.Subject)
	}
	b.WriteString("\n")
	s.sess.SyncVerdicts()
	var lines []string
	for _, mr := range s.sess.SnapshotOf(doc).Results(doc.Path) {
		for _, in := range mr.Instances {
			if in.Formula != f.Text() {
				continue
			}
			for _, c := range in.Comparisons {
				side, ok := sideOf(c.Text, r.Text)
				if !ok || c.Failed {
					continue
				}
				e := c.Evidence.Left
				if side == 1 {
					e = c.Evidence.Right
				}
				if e.Forks == 0 {
					continue
				}
				label := c.Text
				if in.Instance != "" {
					label = in.Instance
				}
				lines = append(lines, fmt.Sprintf("- %s: %s/op at `@%s` (%d forks)", label, report.Duration(e.MeanNs), m.Revision, e.Forks))
			}
		}
	}
	if len(lines) > 0 {
		b.WriteString("\nfigures at this revision, latest check:\n\n" + strings.Join(lines, "\n") + "\n")
	} else {
		b.WriteString("\nnot measured yet: check the formula to measure it at this revision\n")
	}
	return b.String()
}

// sideOf tells on which side of a rendered comparison ("a[g](1) <= b[g](1)")
// the operand written op stands: 0 left, 1 right; false when it is on
// neither or both.
func sideOf(text, op string) (int, bool) {
	for _, rel := range []string{" <= ", " >= ", " < ", " > ", " = ", " != "} {
		if l, r, ok := strings.Cut(text, rel); ok {
			inL, inR := strings.Contains(l, op), strings.Contains(r, op)
			switch {
			case inL && !inR:
				return 0, true
			case inR && !inL:
				return 1, true
			}
			return 0, false
		}
	}
	return 0, false
}

// relativeRevisions are the revisions of f that name commits relative to
// the repository's state (HEAD~1, main, a tag): all but full hashes and
// the working tree's "HEAD".
func relativeRevisions(f *workspace.Formula) []string {
	var out []string
	add := func(m *spl.MethodRef) {
		if m == nil || m.Revision == "" || m.Revision == "HEAD" || revision.IsFullHash(m.Revision) || slices.Contains(out, "@"+m.Revision) {
			return
		}
		out = append(out, "@"+m.Revision)
	}
	if f.Parsed != nil {
		for _, t := range spl.Terms(f.Parsed.Body) {
			if t != nil {
				add(t.Method)
			}
		}
	}
	for _, a := range f.Aliases {
		add(a.Method)
	}
	return out
}
