package server

// Profiles in the editor (docs/profiling.md): a "Profile" lens on every
// method with workloads runs, per workload, a quick profile in the warm
// worker JVM (shown as it arrives) and then one profiled fork, through the
// engine (Actions.ProfileMethod) as a measuring job, under the same
// consent as measuring; the findings become diagnostics (severity
// Information, code = the finding's kind, related information at the hot
// line or the allocating site), and the method's hover gains "where the
// time goes" while a profile is known — from a profile job of this
// session, or from the cache (Actions.StoredProfiles, read once per
// method).

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/profile"
	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/analysis/textpos"
	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/server/internal/session"
)

// CommandProfile profiles one method on its own workloads (one profiled
// fork each); it runs code of the workspace, like measuring.
const CommandProfile = "perfls.profile"

// newProfileCommand builds the typed command of a "Profile" code lens.
func newProfileCommand(title string, args MethodArgs) *protocol.Command {
	return &protocol.Command{Title: title, Command: CommandProfile, Arguments: []any{args}}
}

func profileKey(args MethodArgs) string {
	return session.MethodKey(args.Class, args.Method, args.Params)
}

// allProfiles are the profiles of every method known.
func (s *server) allProfiles() []*engine.Profiled {
	var out []*engine.Profiled
	for _, ps := range s.sess.Profiles.All() {
		out = append(out, ps...)
	}
	return out
}

// profileLens is the "Profile" lens of a method with workloads; its title
// counts the findings of the profiles this session knows.
func (s *server) profileLens(args MethodArgs, at protocol.Range, allowed bool) protocol.CodeLens {
	title := "▶ Profile"
	if ps, _ := s.sess.Profiles.Get(profileKey(args)); len(ps) > 0 {
		n, prelim := 0, ""
		for _, p := range ps {
			n += len(p.Report.Findings)
			if p.Preliminary {
				prelim = " (preliminary)"
			}
		}
		title += fmt.Sprintf(" · %d %s%s", n, plural(n, "finding", "findings"), prelim)
	}
	return protocol.CodeLens{Range: at, Command: action(allowed, newProfileCommand(title, args))}
}

// executeProfile runs perfls.profile; ok is false for other commands.
func (s *server) executeProfile(ctx context.Context, p *protocol.ExecuteCommandParams) (result any, ok bool, err error) {
	if p.Command != CommandProfile {
		return nil, false, nil
	}
	args, err := s.measuringMethodArgs(p)
	if err != nil {
		return nil, true, err
	}
	return started(s.startProfile(ctx, args)), true, nil
}

// measuringMethodArgs decodes the method argument of a command that runs
// the workspace's code, and checks that measuring is allowed and possible.
func (s *server) measuringMethodArgs(p *protocol.ExecuteCommandParams) (MethodArgs, error) {
	var args MethodArgs
	if err := decodeMethodArg(p, &args); err != nil {
		return args, err
	}
	if !s.settings().AllowMeasuring {
		return args, fmt.Errorf("%s: %w", p.Command, errMeasuringDisabled)
	}
	if s.opts.Actions == nil {
		return args, fmt.Errorf("%s: measuring is not enabled in this server", p.Command)
	}
	return args, nil
}

// startProfile queues the profiling of one method as a measuring job: one
// at a time with checks and measurements, cancellable from its progress,
// cancelled on shutdown.
func (s *server) startProfile(ctx context.Context, args MethodArgs) bool {
	key := profileKey(args)
	req := s.request(args)
	req.Warn = func(msg string) {
		s.showMessage(context.WithoutCancel(ctx), protocol.MessageTypeWarning, "perfls: "+msg)
	}
	return s.runQueued(ctx, "profiling "+key, "profiling "+args.Class+"#"+args.Method, func(jobCtx context.Context, say func(string)) (string, func(context.Context), error) {
		// Each workload's quick profile from the warm worker JVM shows
		// (lens, diagnostics, hover) while its profiled fork runs; the
		// forked profiles replace them at the end.
		var quick []*engine.Profiled
		req.Preliminary = func(p *engine.Profiled) {
			n := len(p.Report.Findings)
			say(fmt.Sprintf("preliminary profile of %s: %d %s", workloadLabel(p), n, plural(n, "finding", "findings")))
			quick = append(quick, p)
			s.sess.Profiles.Set(key, slices.Clone(quick))
			bg := context.WithoutCancel(jobCtx)
			s.republishOpen(bg)
			s.refreshCodeLenses(bg)
		}
		ps, err := s.opts.Actions.ProfileMethod(jobCtx, req, say)
		if err != nil {
			return "", nil, err
		}
		s.sess.Profiles.Set(key, ps)
		var parts []string
		for _, p := range ps {
			n := len(p.Report.Findings)
			parts = append(parts, fmt.Sprintf("%s: %d %s", workloadLabel(p), n, plural(n, "finding", "findings")))
		}
		return "profiled " + strings.Join(parts, "; "), func(bg context.Context) {
			s.republishOpen(bg)
			s.refreshCodeLenses(bg)
		}, nil
	})
}

// workloadLabel names a profiled workload briefly: "gen(100)".
func workloadLabel(p *engine.Profiled) string {
	w, _, _ := strings.Cut(p.Workload, "(")
	if i := strings.LastIndexAny(w, "#."); i >= 0 {
		w = w[i+1:]
	}
	var args []string
	for _, a := range p.Args {
		args = append(args, a.String())
	}
	return w + "(" + strings.Join(args, ",") + ")"
}

// methodProfiles are the known profiles of m: this session's, else the
// cache's (read once).
func (s *server) methodProfiles(ctx context.Context, doc *document, m *javasrc.Method) []*engine.Profiled {
	if m == nil || m.Type == nil {
		return nil
	}
	args := MethodArgs{URI: doc.URI, Class: m.Type.BinaryName, Method: m.Name, Params: erased(m)}
	key := profileKey(args)
	if ps, ok := s.sess.Profiles.Get(key); ok || s.opts.Actions == nil {
		return ps
	}
	ps, err := s.opts.Actions.StoredProfiles(ctx, s.request(args))
	if err != nil {
		s.logf("stored profiles of %s: %v", key, err)
		return nil
	}
	s.sess.Profiles.Set(key, ps)
	return ps
}

// preloadProfiles reads, in the background, the stored profiles of the
// measurable methods of the document just opened, and publishes its
// diagnostics again when one has findings: a profile taken in a terminal
// or another window shows without waiting for a hover.
func (s *server) preloadProfiles(u protocol.DocumentURI) {
	if s.opts.Actions == nil {
		return
	}
	q := s.jobs
	q.wg.Add(1)
	go func() {
		defer q.wg.Done()
		doc := s.sess.Doc(u)
		if doc == nil || doc.Java == nil {
			return
		}
		found := false
		for _, m := range doc.Java.Methods {
			if m.Type == nil || !(len(m.Workloads) > 0 || measuresSelf(doc, m)) {
				continue
			}
			for _, p := range s.methodProfiles(q.ctx, doc, m) {
				found = found || len(p.Report.Findings) > 0
			}
			if q.ctx.Err() != nil {
				return
			}
		}
		if now := s.sess.Doc(u); found && now != nil {
			if err := s.publishDiagnostics(context.WithoutCancel(q.ctx), now); err != nil {
				s.logf("publish %s: %v", u, err)
			}
		}
	}()
}

// profileHover is the hover section "where the time goes" of a profiled
// method: per profiled workload its top hot lines, allocation sites and
// findings; "" when no profile is known.
func (s *server) profileHover(ctx context.Context, doc *document, m *javasrc.Method) string {
	var b strings.Builder
	for _, p := range s.methodProfiles(ctx, doc, m) {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "**Profile** `%s`, profiled %s\n\n", workloadLabel(p), p.MeasuredAt.Local().Format("2006-01-02 15:04"))
		b.WriteString(p.Report.Markdown(5))
	}
	return b.String()
}

// hotLineHover says what the known profiles measured on line (1-based) of
// doc — its share of the samples and time per operation, what it
// allocates — for the hover on a hot line of a profiled method; "" when
// no profile names the line. m's stored profiles are read first, so a
// profile from an earlier session counts.
func (s *server) hotLineHover(ctx context.Context, doc *document, m *javasrc.Method, line int) string {
	s.methodProfiles(ctx, doc, m)
	var parts []string
	for _, p := range s.allProfiles() {
		for _, h := range p.Report.Hot {
			if h.Line == line && sourcePath(p, h.File) == doc.Path {
				parts = append(parts, fmt.Sprintf("- %.1f %% of the samples (%.1f %% in this line itself), %s per operation: profile of `%s`, `%s`",
					100*h.Share, 100*h.OwnShare, report.Duration(h.NsPerOp), p.Method, workloadLabel(p)))
			}
		}
		for _, a := range p.Report.Allocations {
			if a.Line == line && sourcePath(p, a.File) == doc.Path {
				parts = append(parts, fmt.Sprintf("- allocates %.4g bytes per operation (%.1f %% of the bytes; mostly %s): profile of `%s`, `%s`",
					a.BytesPerOp, 100*a.Share, a.TopClass, p.Method, workloadLabel(p)))
			}
		}
	}
	if len(parts) == 0 {
		return ""
	}
	sort.Strings(parts)
	return "**Profile** — this line\n\n" + strings.Join(parts, "\n") + "\n"
}

// profileDiagnostics puts every finding of the known profiles on its line
// in doc, as information coded with the finding's kind, with related
// information at the finding's related lines and the profile's hottest
// line.
func (s *server) profileDiagnostics(doc *document) []protocol.Diagnostic {
	if doc.Java == nil {
		return nil
	}
	related := s.relatedSupported()
	var out []protocol.Diagnostic
	for _, p := range s.allProfiles() {
		for _, f := range p.Report.Findings {
			rng, ok := lineRange(doc.Java.Mapper, f.Line)
			if !ok || sourcePath(p, f.File) != doc.Path {
				continue
			}
			of := "profile of"
			if p.Preliminary {
				of = "preliminary profile of"
			}
			d := protocol.Diagnostic{Range: rng, Severity: protocol.DiagnosticSeverityInformation, Code: f.Kind, Source: "perfls",
				Message: fmt.Sprintf("%s (%s %s, %s)", f.Message, of, p.Method, workloadLabel(p))}
			if related {
				d.RelatedInformation = relatedLines(p, f)
			}
			out = append(out, d)
		}
	}
	return out
}

// relatedLines are a finding's related lines and the profile's hottest
// and most allocating lines, each once and never the finding's own.
func relatedLines(p *engine.Profiled, f profile.Finding) []protocol.DiagnosticRelatedInformation {
	out := []protocol.DiagnosticRelatedInformation{}
	seen := map[profile.Location]bool{f.Location: true}
	add := func(l profile.Location, msg string) {
		if l.File == "" || l.Line <= 0 || seen[l] {
			return
		}
		seen[l] = true
		line := uint32(l.Line - 1)
		out = append(out, protocol.DiagnosticRelatedInformation{
			Location: protocol.Location{URI: uri.File(sourcePath(p, l.File)), Range: protocol.Range{Start: protocol.Position{Line: line}, End: protocol.Position{Line: line}}},
			Message:  msg,
		})
	}
	for _, r := range f.Related {
		add(r.Location, r.Message)
	}
	if len(p.Report.Hot) > 0 {
		h := p.Report.Hot[0]
		add(h.Location, fmt.Sprintf("hottest line: %.1f %% of the samples", 100*h.Share))
	}
	if len(p.Report.Allocations) > 0 {
		a := p.Report.Allocations[0]
		add(a.Location, fmt.Sprintf("allocates most: %.4g bytes per operation", a.BytesPerOp))
	}
	return out
}

// sourcePath is the absolute path of a profile's project-relative file.
func sourcePath(p *engine.Profiled, file string) string {
	return filepath.Join(p.Dir, filepath.FromSlash(file))
}

// lineRange is the range of a 1-based line's text without its
// indentation; ok is false for a line the text does not have.
func lineRange(m *textpos.Mapper, line int) (protocol.Range, bool) {
	text := m.Text()
	start := 0
	for l := 1; l < line; l++ {
		i := strings.IndexByte(text[start:], '\n')
		if i < 0 {
			return protocol.Range{}, false
		}
		start += i + 1
	}
	if line < 1 {
		return protocol.Range{}, false
	}
	end := start + strings.IndexByte(text[start:], '\n')
	if end < start {
		end = len(text)
	}
	first := start + len(text[start:end]) - len(strings.TrimLeft(text[start:end], " \t"))
	last := start + len(strings.TrimRight(text[start:end], " \t\r"))
	return toProtocolRange(m.Range(textpos.Span{Start: first, End: max(first, last)})), true
}

// modelHover renders the stored performance models of m (perfls model):
// the fitted demands, the callees' demands and invocation counts, and the
// figures at ten times the fitted range, flagged as extrapolated; "" when
// none is stored.
func (s *server) modelHover(ctx context.Context, doc *document, m *javasrc.Method) string {
	if m == nil || m.Type == nil || s.opts.Actions == nil {
		return ""
	}
	args := MethodArgs{URI: doc.URI, Class: m.Type.BinaryName, Method: m.Name, Params: erased(m)}
	models, err := s.opts.Actions.StoredModels(ctx, s.request(args))
	if err != nil {
		s.logf("stored models of %s#%s: %v", args.Class, args.Method, err)
		return ""
	}
	var parts []string
	for _, md := range models {
		for _, op := range md.Operations {
			parts = append(parts, report.ModelMarkdown(op, md.CreatedAt))
		}
	}
	return strings.Join(parts, "\n")
}
